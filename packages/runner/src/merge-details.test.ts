// merge writes per-case details as a run does (atomic replace): never in place, so a detail file that is a
// hard link (a cache hit links the executing run's detail) keeps the other run's evidence, and a reader
// never sees half a file.
import { linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunPlan } from "@eval/models";
import { caseDetailFile, caseDetailsDir } from "@eval/state-layout";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { mergeBundles, moduleSut, planRun, runShard } from "./index.ts";

let root: string;
let plan: RunPlan;
const bundles: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-merge-details-"));
  const bench = await makeTaskClassBench(root, { rubric: UPPER_RUBRIC, cases: { "c-1": "alpha", "c-2": "beta" } });
  const sutFile = join(root, "sut.mjs");
  await writeFile(sutFile, HALF_UPPER_SUT);
  const sut = await moduleSut(`${sutFile}#halfUpper`);
  plan = await planRun(bench.slug, {
    systemUnderTest: sut,
    sutSpec: `module:${sutFile}#halfUpper`,
    benchRoot: bench.benchRoot,
    sandbox: "none",
  });
  const bundleDir = join(root, "bundle");
  await runShard(bench.slug, {
    systemUnderTest: sut,
    benchRoot: bench.benchRoot,
    stateDir: join(root, "shard"),
    sandbox: "none",
    plan,
    planOptions: { sutSpec: plan.sut.spec },
    shard: { index: 1, count: 1 },
    bundleDir,
  });
  bundles.push(bundleDir);
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("merge's detail files", () => {
  it("replace a hard-linked detail without writing through it: the other run's evidence is unchanged", async () => {
    const stateDir = join(root, "state");
    const runsDir = join(stateDir, "runs");
    const mergedRun = `plan-${plan.plan_id.slice("blake3:".length)}`;
    const otherEvidence = `${JSON.stringify({ run_id: "run-other", case_id: "c-1", note: "the run that executed" }, null, 2)}\n`;
    mkdirSync(caseDetailsDir(runsDir, "run-other"), { recursive: true });
    mkdirSync(caseDetailsDir(runsDir, mergedRun), { recursive: true });
    const other = join(caseDetailsDir(runsDir, "run-other"), caseDetailFile("c-1", 0));
    writeFileSync(other, otherEvidence);
    linkSync(other, join(caseDetailsDir(runsDir, mergedRun), caseDetailFile("c-1", 0)));

    const merged = await mergeBundles(bundles, { stateDir });
    expect(merged.appended).toBe(true);
    expect(readFileSync(other, "utf8")).toBe(otherEvidence);
    const written = JSON.parse(
      readFileSync(join(caseDetailsDir(runsDir, mergedRun), caseDetailFile("c-1", 0)), "utf8"),
    ) as { case_id: string; cache_key: string };
    expect(written.case_id).toBe("c-1");
    expect(written.cache_key).toMatch(/^blake3:/);
  }, 120_000);
});
