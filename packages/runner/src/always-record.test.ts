// A run always records what it did: an error that escapes the cases (here the score cache turned into a
// file mid-run, so writing a finished case's entry fails) stops the run, and the run is still appended as
// incomplete with the reason, carrying the cases that finished before it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordsNewestFirst, verifyChain } from "@eval/audit-chain";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { moduleSut, runEval } from "./index.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-always-record-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "one", "c-2": "two", "c-3": "three", "c-4": "four" },
  });
  // On c-3 the SUT moves the score cache away and puts a file in its place (a rename: it cannot race a
  // cache write in flight): every later cache write fails (ENOTDIR).
  await writeFile(
    join(root, "sut.mjs"),
    `import { readFileSync, renameSync, writeFileSync } from "node:fs";
     export async function breakCache(invocation) {
       const path = invocation.workspacePath + "/text.txt";
       writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
       if (invocation.benchCase.case_id === "c-3") { renameSync(${JSON.stringify(join(root, "state", "cache"))}, ${JSON.stringify(join(root, "state", "cache.gone"))}); writeFileSync(${JSON.stringify(join(root, "state", "cache"))}, "not a directory"); }
       return { cost_usd: 0 };
     }`,
  );
}, 60_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("a run-level failure", () => {
  it("is recorded as an incomplete run with its reason, keeping the cases that finished", async () => {
    const stateDir = join(root, "state");
    const result = await runEval(bench.slug, {
      systemUnderTest: await moduleSut(`${join(root, "sut.mjs")}#breakCache`),
      benchRoot: bench.benchRoot,
      stateDir,
      sandbox: "none",
      concurrency: 1,
    });
    expect(result.report.complete).toBe(false);
    expect(result.report.incomplete_reason).toBe("harness_error");
    expect(result.harnessError).toMatch(/cache/);
    // c-1 finished before the fault; c-2's cache write may land before or after it; c-3 and c-4 never count.
    const finished = result.report.per_case.map((c) => c.case_id);
    expect(finished[0]).toBe("c-1");
    expect(["c-1", "c-2"]).toEqual(expect.arrayContaining(finished));
    const recorded: string[] = [];
    for await (const found of recordsNewestFirst(join(stateDir, "runs"), bench.slug))
      recorded.push(found.record.report.run_id);
    expect(recorded).toEqual([result.report.run_id]);
    expect((await verifyChain({ runsDir: join(stateDir, "runs") })).ok).toBe(true);
  }, 120_000);
});
