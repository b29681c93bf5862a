import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import { ComparisonSchema, parseWire } from "@eval/models";
import type { BenchRunReportInput } from "@eval/models";
import { mcnemarExact, pairedLowerBound } from "@eval/statistics";
import { compareRuns, regressionBeyondMargin } from "./compare-runs.ts";
import { writeComparison } from "./write-comparison.ts";

const HEX = `blake3:${"e".repeat(64)}`;
let stateDir: string;
let runsDir: string;

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "evalgate-compare-"));
  runsDir = join(stateDir, "runs");
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

interface Shape {
  readonly runId: string;
  /** Per case, its trials' pass/fail (binary scores). */
  readonly trials: Record<string, boolean[]>;
  readonly taskClass?: string;
  readonly scoreKind?: "binary" | "graded";
}

/** Appends a v3 report of the given trials to the chain through the real API. */
async function record(shape: Shape): Promise<void> {
  const host = await getHostFingerprint(stateDir);
  const head = await readChainHead(runsDir);
  const ids = Object.keys(shape.trials).sort();
  const k = shape.trials[ids[0]!]!.length;
  const score = (passed: boolean) => ({
    passed,
    score: passed ? 1 : 0,
    breakdown: {},
    failure_modes: [],
    cost_usd: 0,
    wall_clock_ms: 1,
  });
  const perCase = ids.map((id) => {
    const trials = shape.trials[id]!;
    const value = trials.filter(Boolean).length / k;
    return {
      case_id: id,
      curation_class: "held-out" as const,
      score: score(trials[0]!),
      ...(k === 1 ? {} : { trials: trials.map(score), case_value: value }),
    };
  });
  const mean = perCase.reduce((s, c) => s + (c.case_value ?? c.score.score), 0) / ids.length;
  const report: BenchRunReportInput = {
    schema_version: "evalgate.bench_run_report.v3",
    run_id: shape.runId,
    task_class: shape.taskClass ?? "upper",
    harness_version: "0.1.0",
    sut_label: `command:sut ${shape.runId}`,
    sut_digest: HEX,
    rubric_digest: HEX,
    cassette_corpus_digest: HEX,
    host_fingerprint: host,
    isolation_class: "bwrap-permission",
    sut_isolation: "bwrap",
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete: true,
    incomplete_reason: null,
    selection: {
      scope: "full",
      filter: null,
      task_class_case_count: ids.length,
      selected_case_count: ids.length,
      selected_case_ids_digest: HEX,
    },
    case_count: ids.length,
    per_case: perCase,
    score_kind: shape.scoreKind ?? "binary",
    mean_score: mean,
    score_stddev: 0,
    lower_bound_95: 0,
    lower_bound_method: "betting",
    bound_quantity: "pass_rate",
    trials_per_case: k,
    reliability: { case_count: ids.length, pass_at_1: mean, pass_at_k: mean, pass_hat_k: mean, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: 0,
    informational: {
      bca_lower_bound_95: null,
      bootstrap_resamples: 0,
      bootstrap_seed: HEX,
      wilson_lower_bound_95: null,
    },
    passed_count: 0,
    total_cost_usd: 0,
    block_severity_failure_modes: [],
    prev_hash: head.head,
    chain_head: null,
  };
  await appendRunRecord(report, { runsDir, hostFingerprint: host });
}

const cases = (outcomes: string): Record<string, boolean[]> =>
  Object.fromEntries(
    outcomes.split(" ").map((trials, i) => [`case-${String(i).padStart(2, "0")}`, [...trials].map((c) => c === "1")]),
  );

describe("compareRuns", () => {
  it("pairs case values, bounds the improvement, runs McNemar on all-trials outcomes, and names the changed cases", async () => {
    await record({ runId: "base", trials: cases("110 111 000 100 111 011 110 000") });
    await record({ runId: "cand", trials: cases("111 111 100 110 011 111 111 000") });
    const c = await compareRuns({
      runsDir,
      baselineRunId: "base",
      candidateRunId: "partial:cand",
      now: new Date("2026-11-23T00:00:00Z"),
    });
    const base = [2, 3, 0, 1, 3, 2, 2, 0].map((p) => p / 3);
    const cand = [3, 3, 1, 2, 2, 3, 3, 0].map((p) => p / 3);
    expect(c.case_count).toBe(8);
    expect(c.mean_difference).toBeCloseTo((cand.reduce((a, b) => a + b) - base.reduce((a, b) => a + b)) / 8, 12);
    expect(c.lower_bound_95).toBeCloseTo(pairedLowerBound(base, cand), 12);
    const m = mcnemarExact(
      base.map((v) => v === 1),
      cand.map((v) => v === 1),
    );
    expect(c.mcnemar).toEqual({ baseline_only: m.baselineOnly, candidate_only: m.candidateOnly, p_value: m.pValue });
    expect(c.mcnemar).toMatchObject({ baseline_only: 1, candidate_only: 3 });
    expect(c.improved.map((x) => x.case_id)).toEqual(["case-00", "case-02", "case-03", "case-05", "case-06"]);
    expect(c.regressed).toEqual([{ case_id: "case-04", baseline: 1, candidate: 2 / 3, difference: 2 / 3 - 1 }]);
    expect(c.unchanged_count).toBe(2);
    expect(c).toMatchObject({
      chain_verified: true,
      advisory_only: true,
      baseline: { trials_per_case: 3 },
      lower_bound_method: "paired_fixed_bet",
    });
    expect(regressionBeyondMargin(c, -0.05)).toBe(c.lower_bound_95 < -0.05);
    expect(regressionBeyondMargin(c, -1)).toBe(false);
    expect(() => regressionBeyondMargin(c, -2)).toThrow(/margin must be in \[-1, 1\]/);

    const path = await writeComparison(c, join(stateDir, "recommendations"));
    expect(parseWire(ComparisonSchema, JSON.parse(await readFile(path, "utf8")))).toEqual(c);
    await writeFile(join(stateDir, "file"), "");
    await expect(writeComparison(c, join(stateDir, "file", "sub"))).rejects.toMatchObject({ code: "EVAL_IO" });
  });

  it("identical data gives identical bounds: reruns under new run ids cannot re-roll the comparison (attack: keep the best of 8)", async () => {
    const base = "1 0 1 1 0 1 0 1 1 0 1 1 0 0 1 1 0 1 1 0";
    const cand = "1 1 1 0 1 1 0 1 1 1 1 0 1 0 1 1 1 1 0 1";
    await record({ runId: "base", trials: cases(base) });
    for (let i = 0; i < 8; i += 1) await record({ runId: `rerun-${i}`, trials: cases(cand) });
    const bounds = new Set<number>();
    for (let i = 0; i < 8; i += 1) {
      const c = await compareRuns({ runsDir, baselineRunId: "base", candidateRunId: `rerun-${i}` });
      bounds.add(c.lower_bound_95);
    }
    expect([...bounds]).toHaveLength(1);
  });

  it("gives no McNemar for a graded task class", async () => {
    await record({ runId: "g1", trials: cases("1 0 1"), scoreKind: "graded" });
    await record({ runId: "g2", trials: cases("1 1 1"), scoreKind: "graded" });
    expect((await compareRuns({ runsDir, baselineRunId: "g1", candidateRunId: "g2" })).mcnemar).toBeNull();
  });

  it("refuses runs of other task classes or case sets, and unknown runs, naming the difference", async () => {
    await record({ runId: "a", trials: cases("1 0 1") });
    await record({ runId: "b", trials: cases("1 0 1"), taskClass: "other" });
    await record({ runId: "c", trials: cases("1 0") });
    await expect(compareRuns({ runsDir, baselineRunId: "a", candidateRunId: "b" })).rejects.toThrow(
      /run a is of task class upper but run b of other/,
    );
    await expect(compareRuns({ runsDir, baselineRunId: "a", candidateRunId: "c" })).rejects.toThrow(
      /scored different cases \(only in the baseline: case-02\)/,
    );
    await expect(compareRuns({ runsDir, baselineRunId: "c", candidateRunId: "a" })).rejects.toThrow(
      /only in the candidate: case-02/,
    );
    await expect(compareRuns({ runsDir, baselineRunId: "a", candidateRunId: "zzz" })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
    });
  });
});
