// A run refused before it starts leaves the state directory as it found it: no cache key, no sealed
// case-tree checkpoint, no host id, nothing else it created.
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SystemUnderTest } from "@eval/models";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { moduleSut, runEval } from "./index.ts";
import type { RunEvalOptions } from "./index.ts";

let root: string;
let bench: { benchRoot: string; slug: string };
let sut: SystemUnderTest;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-refused-"));
  bench = await makeTaskClassBench(root, { rubric: UPPER_RUBRIC, cases: { "c-1": "alpha", "c-2": "beta" } });
  await writeFile(join(root, "sut.mjs"), HALF_UPPER_SUT);
  sut = await moduleSut(`${join(root, "sut.mjs")}#halfUpper`);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every path under `dir`, relative to it ("(missing)" when `dir` does not exist). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return ["(missing)"];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => relative(dir, join(dir, name)))
    .sort();
}

const refusals: ReadonlyArray<[string, Partial<RunEvalOptions>, string]> = [
  ["a setting out of range", { concurrency: 0 }, "EVAL_USAGE"],
  ["an unknown task class", { benchRoot: "/nonexistent-bench-root" }, ""],
  ["a case filter that selects nothing", { caseFilter: "no-such-case" }, "EVAL_NO_CASES_SELECTED"],
  [
    "a SUT whose preflight refuses",
    {
      systemUnderTest: {
        label: "refuses",
        digest: "blake3:" + "0".repeat(64),
        run: () => Promise.reject(new Error("never called")),
        preflight: () => Promise.reject(new Error("the SUT is not ready")),
      } as SystemUnderTest,
    },
    "",
  ],
  [
    "a SUT factory that throws",
    {
      systemUnderTest: () => Promise.reject(new Error("cannot build the SUT")),
    },
    "",
  ],
];

describe("a run refused before it starts", () => {
  for (const fresh of ["missing", "empty"] as const) {
    it.each(refusals)(`leaves a ${fresh} state directory as it was: %s`, async (_label, extra, code) => {
      const stateDir = join(root, `state-${fresh}-${Math.random().toString(16).slice(2)}`);
      if (fresh === "empty") await mkdir(stateDir);
      const before = tree(stateDir);
      const refused = runEval(bench.slug, {
        systemUnderTest: sut,
        benchRoot: bench.benchRoot,
        stateDir,
        concurrency: 1,
        ...extra,
      });
      await expect(refused).rejects.toThrow();
      if (code !== "") await expect(refused).rejects.toMatchObject({ code });
      expect(tree(stateDir)).toEqual(before);
    });
  }

  it("a run that starts after a refusal still creates its key and host id", async () => {
    const stateDir = join(root, "state-after");
    await expect(
      runEval(bench.slug, { systemUnderTest: sut, benchRoot: bench.benchRoot, stateDir, caseFilter: "none" }),
    ).rejects.toThrow();
    const run = await runEval(bench.slug, { systemUnderTest: sut, benchRoot: bench.benchRoot, stateDir });
    expect(run.report.complete).toBe(true);
    expect(tree(stateDir)).toEqual(expect.arrayContaining(["cache.key", "host_id"]));
  }, 120_000);
});
