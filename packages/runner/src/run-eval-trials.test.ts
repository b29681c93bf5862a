// runEval with trials per case and --retry-errors: real registry, rubric subprocesses, cache and chain.
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SystemUnderTest } from "@eval/models";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { moduleSut, runEval } from "./index.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };
let sutFile: string;
let marker: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-trials-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "alpha", "c-2": "beta", "c-3": "gamma" },
  });
  marker = join(root, "fail-c-2");
  sutFile = join(root, "sut.mjs");
  // Upper-cases the text; records each invocation's trial, seed and tag; throws for c-2 while the marker file exists.
  await writeFile(
    sutFile,
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
export async function upper(invocation) {
  if (invocation.benchCase.case_id === "c-2" && existsSync(${JSON.stringify(marker)})) throw new Error("transient fault");
  const path = invocation.workspacePath + "/text.txt";
  writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
  return { cost_usd: 0, trial: invocation.trial, seed: invocation.trialSeed, tag: invocation.invocationTag };
}
`,
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const counting = (sut: SystemUnderTest): SystemUnderTest & { calls: string[] } => {
  const wrapped = {
    label: sut.label,
    digest: sut.digest,
    calls: [] as string[],
    run: (invocation: Parameters<SystemUnderTest["run"]>[0]) => {
      wrapped.calls.push(`${invocation.benchCase.case_id}#${invocation.trial}`);
      return sut.run(invocation);
    },
  };
  return wrapped;
};
const options = async (stateDir: string) => ({
  systemUnderTest: counting(await moduleSut(`${sutFile}#upper`)),
  benchRoot: bench.benchRoot,
  stateDir,
  concurrency: 2,
});

describe("runEval with trials", () => {
  it("trial 0 keeps the one-trial cache key: a 3-trial run after a 1-trial run executes only trials 1 and 2", async () => {
    const stateDir = join(root, "state-trials");
    const once = await runEval(bench.slug, await options(stateDir));
    expect(once.report.trials_per_case).toBe(1);
    expect(once.report.per_case.every((c) => !("trials" in c))).toBe(true);
    const three = await options(stateDir);
    const result = await runEval(bench.slug, { ...three, trials: 3 });
    expect(three.systemUnderTest.calls.sort()).toEqual(["c-1#1", "c-1#2", "c-2#1", "c-2#2", "c-3#1", "c-3#2"]);
    expect(result.caseResults.filter((r) => r.cacheHit).map((r) => `${r.case_id}#${r.trial}`)).toEqual([
      "c-1#0",
      "c-2#0",
      "c-3#0",
    ]);
    expect(result.report).toMatchObject({ trials_per_case: 3, case_count: 3, passed_count: 3 });
    expect(result.report.reliability).toMatchObject({
      case_count: 3,
      pass_at_1: 1,
      pass_at_k: 1,
      pass_hat_k: 1,
      flaky_case_ids: [],
    });
    const executed = result.caseResults.filter((r) => !r.cacheHit);
    const outputs = await Promise.all(
      executed.map(
        async (r) =>
          JSON.parse(await (await import("node:fs/promises")).readFile(r.detailPath!, "utf8")) as {
            trial: number;
            sut_output: { seed: string; tag: string; trial: number };
          },
      ),
    );
    expect(new Set(outputs.map((o) => o.sut_output.seed)).size).toBe(6);
    expect(outputs.every((o) => o.sut_output.tag.endsWith(`:trial-${o.trial}`) && o.sut_output.trial === o.trial)).toBe(
      true,
    );
    // Every trial has its detail: the executed ones written, trial 0 (a cache hit) copied from the run that executed it.
    expect((await readdir(join(result.runDir, "cases"))).sort()).toEqual([
      "c-1.json",
      "c-1.trial-1.json",
      "c-1.trial-2.json",
      "c-2.json",
      "c-2.trial-1.json",
      "c-2.trial-2.json",
      "c-3.json",
      "c-3.trial-1.json",
      "c-3.trial-2.json",
    ]);
    expect(result.caseResults.filter((r) => r.cacheHit).every((r) => r.detailPath?.endsWith(`${r.case_id}.json`))).toBe(
      true,
    );
    await expect(runEval(bench.slug, { ...(await options(stateDir)), trials: 0 })).rejects.toThrow(
      /trials must be a whole number >= 1/,
    );
  });
});

describe("runEval retryErrors", () => {
  it("reruns only the cases that errored in the last run of this task class and SUT, the rest from the cache", async () => {
    const stateDir = join(root, "state-retry");
    await expect(runEval(bench.slug, { ...(await options(stateDir)), retryErrors: true })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
    });
    await writeFile(marker, "");
    const first = await runEval(bench.slug, await options(stateDir));
    expect(first.report).toMatchObject({
      harness_error_count: 1,
      harness_errored_case_ids: ["c-2"],
      failed_trial_count: 0,
      passed_count: 2,
    });
    await rm(marker);
    const retry = await options(stateDir);
    const second = await runEval(bench.slug, { ...retry, retryErrors: true });
    expect(retry.systemUnderTest.calls).toEqual(["c-2#0"]);
    expect(second.report).toMatchObject({
      complete: true,
      harness_error_count: 0,
      harness_errored_case_ids: [],
      passed_count: 3,
    });
    expect(second.report.run_id).not.toBe(first.report.run_id);
    await expect(
      runEval(bench.slug, { ...(await options(stateDir)), retryErrors: true, noCache: true }),
    ).rejects.toThrow(/cannot be combined with --no-cache/);
    // A cleared cache: the cases that did not error cannot come from it, so the retry is refused, naming them.
    await rm(join(stateDir, "cache"), { recursive: true, force: true });
    const refused = await options(stateDir);
    await expect(runEval(bench.slug, { ...refused, retryErrors: true })).rejects.toThrow(
      /c-1, c-2, c-3 did not error there and are not in the cache/,
    );
    expect(refused.systemUnderTest.calls).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a SUT's crash is its attempt", () => {
  it("ATTACK: a SUT that crashes when its own check fails is not retried into a pass by a plain rerun (the crash is cached)", async () => {
    const stateDir = join(root, "state-crash");
    await writeFile(marker, "");
    const first = await runEval(bench.slug, await options(stateDir));
    expect(first.report.per_case.find((c) => c.case_id === "c-2")!.score.failure_modes[0]?.code).toBe("sut.exception");
    // Retried now, c-2 would pass: the old runner retried exactly the crashes on every rerun.
    await rm(marker);
    const rerun = await options(stateDir);
    const second = await runEval(bench.slug, rerun);
    expect(rerun.systemUnderTest.calls).toEqual([]);
    expect(second.report).toMatchObject({ passed_count: 2, harness_errored_case_ids: ["c-2"] });
    // Only an explicit --retry-errors executes it again (its own recorded run; the verdict pools the first attempt).
    const retry = await options(stateDir);
    await runEval(bench.slug, { ...retry, retryErrors: true });
    expect(retry.systemUnderTest.calls).toEqual(["c-2#0"]);
  }, 180_000);
});
