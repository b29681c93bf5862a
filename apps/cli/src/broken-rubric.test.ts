// Against the BUILT binary: a rubric that prints garbage on every case is the rubric's fault, not the SUT's:
// the run is recorded and `run` exits 8 with a hint about the rubric (before: exit 0, every case "failed").
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: Awaited<ReturnType<typeof makeUpperBench>>;

beforeAll(async () => {
  bench = await makeUpperBench({ "c-1": "one", "c-2": "two", "c-3": "three" });
  writeFileSync(join(bench.benchPath, "rubric.ts"), `process.stdout.write("{ this is not json");\n`);
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

it("a rubric printing garbage on every case: recorded, exit 8, a hint about the rubric", () => {
  const state = join(bench.root, "state");
  const result = spawnSync(
    process.execPath,
    [
      bin,
      "run",
      "--task-class",
      "upper",
      "--sut",
      "module:sut.mjs#upper",
      "--bench-root",
      bench.benchRoot,
      "--sandbox",
      "none",
      "--quiet",
      "--out",
      state,
    ],
    { cwd: bench.root, encoding: "utf8", timeout: 120_000 },
  );
  expect(result.status, result.stderr).toBe(8);
  expect(result.stderr.trim().split("\n").at(-1)).toMatch(
    /^evalgate: run \S+ measured nothing: the rubric failed on 3 of the 3 units it scored \(rubric\.malformed_output; c-1: .*\(EVAL_RUBRIC_BROKEN\); the run is recorded, but its rubric failed, not the SUT/,
  );
  expect(readdirSync(join(state, "runs")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
}, 180_000);
