// What a command line that clipanion cannot match is, said in one line: an unknown command with the
// closest one, a command group without its subcommand, a command missing a required option, or
// clipanion's own reason (an unknown option, a missing value). Never a page of usage.
import { EvalError } from "@eval/errors";

/** A registered command as `Cli.definitions()` describes it. */
export interface CommandDefinition {
  /** `evalgate bench show` */
  readonly path: string;
  readonly options: ReadonlyArray<{ readonly definition: string; readonly required: boolean }>;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

const wordsOf = (definition: CommandDefinition): string[] => definition.path.split(" ").slice(1);
const startsWith = (words: readonly string[], prefix: readonly string[]): boolean =>
  prefix.every((word, i) => words[i] === word);

/** The command a mistyped one most likely meant: smallest edit distance over as many words as it has. */
function closest(words: readonly string[], definitions: readonly CommandDefinition[]): string {
  let best = { path: definitions[0]?.path ?? "evalgate", distance: Number.POSITIVE_INFINITY };
  for (const definition of definitions) {
    const path = wordsOf(definition);
    const distance = editDistance(words.slice(0, path.length).join(" "), path.join(" "));
    if (distance < best.distance) best = { path: definition.path, distance };
  }
  return best.path;
}

/** The required `--option`s of a command that argv does not give. */
function missingRequired(definition: CommandDefinition, argv: readonly string[]): string[] {
  const names = definition.options
    .filter((option) => option.required)
    .map((option) => /--?[\w-]+/.exec(option.definition)?.[0] ?? option.definition);
  return names.filter((name) => !argv.some((arg) => arg === name || arg.startsWith(`${name}=`)));
}

/** The option names a command accepts (`-o`, `--output`, and `--no-x` for every `--x`), with help's. */
function optionNames(definition: CommandDefinition): string[] {
  const names = ["-h", "--help"];
  for (const option of definition.options) {
    for (const name of option.definition.split(" ")[0]!.split(","))
      names.push(name, ...(name.startsWith("--") ? [`--no-${name.slice(2)}`] : []));
  }
  return names;
}

/** The first `--option` in argv the command does not accept, with the accepted one closest to it (when close). */
function unknownOption(
  definition: CommandDefinition,
  argv: readonly string[],
): { readonly option: string; readonly closest: string | null } | null {
  const known = optionNames(definition);
  const option = argv.map((arg) => arg.split("=")[0]!).find((arg) => /^--?[a-zA-Z]/.test(arg) && !known.includes(arg));
  if (option === undefined) return null;
  const best = known
    .filter((name) => name.startsWith("--"))
    .map((name) => ({ name, distance: editDistance(option, name) }))
    .sort((a, b) => a.distance - b.distance)[0];
  return {
    option,
    closest: best !== undefined && best.distance <= Math.max(2, Math.floor(option.length / 4)) ? best.name : null,
  };
}

/**
 * The EvalError (EVAL_USAGE) for a command line clipanion rejected: `reason` is clipanion's message.
 * The hint names `--help` for the command when one was recognised, for the commands otherwise.
 */
export function usageError(
  argv: readonly string[],
  definitions: readonly CommandDefinition[],
  reason: string,
): EvalError {
  const firstOption = argv.findIndex((arg) => arg.startsWith("-"));
  const words = argv.slice(0, firstOption === -1 ? argv.length : firstOption);
  const matched = definitions
    .filter((d) => startsWith(words, wordsOf(d)))
    .sort((a, b) => wordsOf(b).length - wordsOf(a).length)[0];
  const allHelp = "run `evalgate --help` for the commands";
  if (matched === undefined) {
    if (words.length === 0)
      return new EvalError("EVAL_USAGE", `unknown option ${argv[0] ?? ""} where a command was expected`, {
        hint: allHelp,
      });
    const group = definitions.filter((d) => wordsOf(d).length > words.length && startsWith(wordsOf(d), words));
    if (group.length > 0 && words.length > 0) {
      return new EvalError(
        "EVAL_USAGE",
        `\`evalgate ${words.join(" ")}\` needs a subcommand: ${group.map((d) => wordsOf(d)[words.length]).join(", ")}`,
        { hint: allHelp },
      );
    }
    const guess = closest(words, definitions);
    const typed = words.slice(0, guess.split(" ").length - 1).join(" ");
    return new EvalError("EVAL_USAGE", `unknown command "${typed}"; the closest is \`${guess}\``, { hint: allHelp });
  }
  const hint = `run \`${matched.path} --help\` for the accepted flags`;
  const missing = missingRequired(matched, argv);
  if (missing.length > 0)
    return new EvalError("EVAL_USAGE", `\`${matched.path}\` needs ${missing.join(" and ")}`, { hint });
  const unknown = unknownOption(matched, argv);
  if (unknown !== null)
    return new EvalError(
      "EVAL_USAGE",
      `\`${matched.path}\`: unknown option ${unknown.option}${unknown.closest === null ? "" : `; did you mean ${unknown.closest}?`}`,
      { hint },
    );
  const first = reason.split("\n")[0]!.replace(/\.$/, "");
  const why = first.startsWith("Command not found") ? `unexpected argument "${words.at(-1) ?? argv.at(-1)}"` : first;
  return new EvalError("EVAL_USAGE", `\`${matched.path}\`: ${why}`, { hint });
}
