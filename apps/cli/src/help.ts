// `evalgate --help` and `evalgate --version` without the command-line parser: both are answered from the
// command table alone, so they cost little more than starting Node (docs/performance.md, cli-start).
import { COMMANDS } from "./commands.ts";

const FOOTER =
  "You can also print more details about any of these commands by calling them with \nthe `-h,--help` flag right after the command name.\n";

/**
 * The top-level help, the text clipanion prints for the listed commands (help.test.ts holds the two
 * equal): categories in order, each with its commands in order of their paths, then the footer.
 */
export function topLevelHelp(binaryName: string, version: string): string {
  const categories = [...new Set(COMMANDS.map((entry) => entry.category))].sort();
  let text = `${binaryName} - ${version}\n\n  $ ${binaryName} <command>\n`;
  for (const category of categories) {
    text += `\n${category}\n`;
    const paths = COMMANDS.filter((entry) => entry.category === category).map((entry) => ({
      ...entry,
      usage: `${binaryName} ${entry.path.join(" ")}`,
    }));
    for (const entry of paths.sort((a, b) => (a.usage < b.usage ? -1 : 1)))
      text += `\n  ${entry.usage}\n    ${entry.description}\n`;
  }
  return `${text}\n${FOOTER}`;
}

/** What an argv that asks only for the help or the version is answered with; null for any other argv. */
export function answerWithoutParser(argv: readonly string[], binaryName: string, version: string): string | null {
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")))
    return topLevelHelp(binaryName, version);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) return `${version}\n`;
  return null;
}
