// A rubric dependency bumped in any lockfile kind changes the rubric digest and misses the cache;
// through the built CLI, on the real lockfiles of packages/registry/src/__fixtures__/lockfiles/.
import { copyFileSync, cpSync, readFileSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltCli } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

const FIXTURES = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "..",
  "packages",
  "registry",
  "src",
  "__fixtures__",
  "lockfiles",
);
const KINDS = [
  ["npm", "package-lock.json"],
  ["npm-shrinkwrap", "npm-shrinkwrap.json"],
  ["yarn-classic", "yarn.lock"],
  ["yarn-berry", "yarn.lock"],
  ["pnpm", "pnpm-lock.yaml"],
  ["bun", "bun.lock"],
  ["bun-binary", "bun.lockb"],
] as const;

let bench: { root: string; benchRoot: string; benchPath: string };
beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha" });
  // The fixture project's package.json files: the root depends on ms, bench/upper on semver.
  cpSync(join(FIXTURES, "project"), bench.root, { recursive: true });
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

function useLockfile(kind: string, file: string, state: "a" | "b" | "c"): void {
  for (const [, name] of KINDS) rmSync(join(bench.root, name), { force: true });
  copyFileSync(join(FIXTURES, kind, state, file), join(bench.root, file));
}

async function planned(): Promise<{ plan_id: string; rubric_digest: string }> {
  const output = join(bench.root, "plan.json");
  const result = await runBuiltCli(
    [
      "plan",
      "--task-class",
      "upper",
      "--bench-root",
      "bench",
      "--out",
      "state",
      "--output",
      output,
      "--sut",
      "module:sut.mjs#upper",
    ],
    { cwd: bench.root },
  );
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(readFileSync(output, "utf8")) as { plan_id: string; rubric_digest: string };
}

describe("every lockfile kind feeds the rubric digest", () => {
  it.each(KINDS)(
    "%s: the bench's dependency bumped changes the plan's rubric digest; the root's unrelated bump does not",
    async (kind, file) => {
      useLockfile(kind, file, "a");
      const before = await planned();
      useLockfile(kind, file, "b");
      expect((await planned()).rubric_digest).not.toBe(before.rubric_digest);
      useLockfile(kind, file, "c");
      // bun.lockb is binary and counts whole: any change to it counts.
      if (kind === "bun-binary") expect((await planned()).rubric_digest).not.toBe(before.rubric_digest);
      else expect((await planned()).rubric_digest).toBe(before.rubric_digest);
    },
    120_000,
  );

  it.each([
    ["npm", "package-lock.json"],
    ["yarn-classic", "yarn.lock"],
  ] as const)(
    "%s: semver 7.5.0 -> 7.8.6 in the lockfile misses the cache; an unrelated bump still hits",
    async (kind, file) => {
      const run = async () => {
        const result = await runBuiltCli(
          [
            "run",
            "--task-class",
            "upper",
            "--bench-root",
            "bench",
            "--out",
            `state-${kind}`,
            "--sut",
            "module:sut.mjs#upper",
            "--quiet",
          ],
          { cwd: bench.root },
        );
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { cache_hits: number; scored: number };
      };
      useLockfile(kind, file, "a");
      expect(await run()).toMatchObject({ scored: 1, cache_hits: 0 });
      useLockfile(kind, file, "c");
      expect(await run()).toMatchObject({ scored: 1, cache_hits: 1 });
      useLockfile(kind, file, "b");
      expect(await run()).toMatchObject({ scored: 1, cache_hits: 0 });
    },
    180_000,
  );
});
