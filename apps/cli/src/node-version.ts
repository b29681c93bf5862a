// The Node version check bin.ts runs before loading anything else: on an older Node, evalgate's
// dependencies fail with a raw SyntaxError (`enableCompileCache`, `Map.groupBy`...), and npm's `engines`
// field is only advisory. Plain code with no imports, so it runs on any Node that can parse ES2022.

/** The oldest Node evalgate runs on; apps/cli/package.json's `engines.node` says the same (a test checks). */
export const MIN_NODE_VERSION = "22.18.0";

function parts(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version
    .replace(/^v/, "")
    .split(".")
    .map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
}

/** The line to print when `version` (process.versions.node) is too old, or null when it will do. */
export function nodeVersionProblem(version: string): string | null {
  const have = parts(version);
  const need = parts(MIN_NODE_VERSION);
  for (let i = 0; i < 3; i++) {
    if (have[i]! > need[i]!) return null;
    if (have[i]! < need[i]!) {
      return `evalgate: Node ${version} is too old: evalgate needs Node >= ${MIN_NODE_VERSION} (24 recommended); install it and put it first on PATH, or in a clone run ./scripts/setup.sh (it puts one in .toolchain/) and use ./scripts/evalgate\n`;
    }
  }
  return null;
}
