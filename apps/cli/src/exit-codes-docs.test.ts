// The exit codes the docs state, read against the table in code (exit-codes.ts): docs/cli.md's table
// lists every exit code, and every `EVAL_*` code the docs pair with an exit code (a table row of
// docs/scale-out.md, or prose like "`EVAL_UNITS_MISSING` (exit 10)") has that exit code in the CLI.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_PRESENTATION, ExitCode } from "./exit-codes.ts";

const DOCS = join(import.meta.dirname, "..", "..", "..", "docs");
const read = (name: string): string => readFileSync(join(DOCS, name), "utf8");

/** Each (error code, exit code) pair a document states, with the line it is on. */
function statedPairs(text: string): Array<{ code: string; exit: number; line: string }> {
  const pairs: Array<{ code: string; exit: number; line: string }> = [];
  for (const line of text.split("\n")) {
    // A table row: | situation | exit | message ... (EVAL_X) |
    const row = /^\|[^|]*\|\s*(\d+)\s*\|(.*)\|\s*$/.exec(line);
    if (row !== null)
      for (const [, code] of row[2]!.matchAll(/\((EVAL_[A-Z_]+)\)/g))
        pairs.push({ code: code!, exit: Number(row[1]), line });
    // Prose: `EVAL_X` (exit N) or (`EVAL_X`, exit N)
    for (const [, code, exit] of line.matchAll(/`(EVAL_[A-Z_]+)`\)?,? \(?exit (\d+)/g))
      pairs.push({ code: code!, exit: Number(exit), line });
  }
  return pairs;
}

describe("the docs' exit codes agree with the CLI's table", () => {
  it("docs/cli.md's exit-code table lists every exit code, and only those", () => {
    const documented = [...read("cli.md").matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    const inCode = Object.values(ExitCode).filter((code) => code < 128);
    expect(documented.sort((a, b) => a - b)).toEqual([...new Set(inCode)].sort((a, b) => a - b));
  });

  for (const doc of ["cli.md", "scale-out.md"]) {
    it(`every error code ${doc} pairs with an exit code has that exit code`, () => {
      const pairs = statedPairs(read(doc));
      const known = ERROR_PRESENTATION as Readonly<Record<string, { exitCode: number }>>;
      const wrong = pairs
        .filter((pair) => known[pair.code] === undefined || known[pair.code]!.exitCode !== pair.exit)
        .map(
          (pair) => `${pair.code}: docs say ${pair.exit}, the CLI ${known[pair.code]?.exitCode ?? "has no such code"}`,
        );
      expect(wrong).toEqual([]);
      if (doc === "scale-out.md") expect(pairs.length).toBeGreaterThanOrEqual(8);
    });
  }

  it("reads a wrong pairing as wrong (the merge codes once documented as 8/9/10)", () => {
    const old =
      "| a missing shard | 9 | `3 of 12 units of plan blake3:… are in no bundle: case-03#t0 (EVAL_UNITS_MISSING)` |\nMissing units are `EVAL_UNITS_MISSING` (exit 9) listing them";
    const pairs = statedPairs(old);
    expect(pairs.map((pair) => [pair.code, pair.exit])).toEqual([
      ["EVAL_UNITS_MISSING", 9],
      ["EVAL_UNITS_MISSING", 9],
    ]);
    expect(
      pairs.every((pair) => ERROR_PRESENTATION[pair.code as keyof typeof ERROR_PRESENTATION].exitCode !== pair.exit),
    ).toBe(true);
  });
});
