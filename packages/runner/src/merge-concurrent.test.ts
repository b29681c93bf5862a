// Merges of the same bundles at once (a retried CI job beside the original): exactly one record, with
// or without --expect-head; the others see it already merged or the chain moved.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyChain } from "@eval/audit-chain";
import { EvalError } from "@eval/errors";
import { GENESIS_PREV_HASH } from "@eval/models";
import type { RunPlan } from "@eval/models";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { mergeBundles, moduleSut, planRun, runShard } from "./index.ts";

let root: string;
const bundles: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-merge-race-"));
  const bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "alpha", "c-2": "beta", "c-3": "gamma" },
  });
  const sutFile = join(root, "sut.mjs");
  await writeFile(sutFile, HALF_UPPER_SUT);
  const sut = await moduleSut(`${sutFile}#halfUpper`);
  const plan: RunPlan = await planRun(bench.slug, {
    systemUnderTest: sut,
    sutSpec: `module:${sutFile}#halfUpper`,
    benchRoot: bench.benchRoot,
    sandbox: "none",
  });
  for (let index = 1; index <= 2; index += 1) {
    const bundleDir = join(root, `bundle-${index}`);
    await runShard(bench.slug, {
      systemUnderTest: sut,
      benchRoot: bench.benchRoot,
      stateDir: join(root, `shard-${index}`),
      sandbox: "none",
      plan,
      planOptions: { sutSpec: plan.sut.spec },
      shard: { index, count: 2 },
      bundleDir,
    });
    bundles.push(bundleDir);
  }
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("concurrent merges", () => {
  it("4 merges of the same bundles at once, 20 rounds: one record each round, no duplicate run id", async () => {
    const faults: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      const stateDir = join(root, `state-${round}`);
      // Odd rounds pass --expect-head (the empty chain's head): the losers may also see the chain moved.
      const options = { stateDir, ...(round % 2 === 1 ? { expectHead: GENESIS_PREV_HASH } : {}) };
      const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => mergeBundles(bundles, options)));
      const appended = outcomes.filter((o) => o.status === "fulfilled" && o.value.appended).length;
      const refused = outcomes.filter((o) => o.status === "rejected");
      for (const o of refused) {
        const error = (o as PromiseRejectedResult).reason as unknown;
        if (!(error instanceof EvalError && error.code === "EVAL_CHAIN_MOVED" && round % 2 === 1))
          faults.push(`round ${round}: ${String(error)}`);
      }
      const verified = await verifyChain({ runsDir: join(stateDir, "runs"), strict: true });
      if (appended !== 1 || verified.records !== 1 || !verified.ok)
        faults.push(
          `round ${round}: ${appended} appended, ${verified.records} records, ok ${verified.ok} ${verified.firstBad?.reason ?? ""}`,
        );
    }
    expect(faults).toEqual([]);
  }, 300_000);
});
