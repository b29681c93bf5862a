import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  BenchRunReportSchema,
  BenchRunReportV1Schema,
  BenchRunReportV2Schema,
  GENESIS_PREV_HASH,
  parseWire,
  unrecordedIn,
  upgradeReport,
} from "@eval/models";
import type { AnyBenchRunReport } from "@eval/models";
import { copyGoldenState, goldenRuns, legacyRunReport, runReport } from "@eval/test-utils";
import { buildChainRecord, findRun, latestRun, readRecordFile, recordsNewestFirst } from "./index.ts";
import { HOST } from "./__fixtures__/reports.ts";

/** Writes `reports` as a chain into `runsDir` (any report version, as an older evalgate wrote them). */
async function writeChain(runsDir: string, reports: readonly AnyBenchRunReport[]): Promise<void> {
  await mkdir(runsDir, { recursive: true });
  let prevHash = GENESIS_PREV_HASH;
  for (const [sequence, report] of reports.entries()) {
    const recordedAt = new Date(Date.parse("2026-11-01T00:00:00.000Z") + sequence * 1000).toISOString();
    const built = await buildChainRecord(
      { ...report, prev_hash: prevHash },
      { sequence, hostFingerprint: HOST, recordedAt, prevHash },
    );
    await writeFile(join(runsDir, built.fileName), built.text);
    prevHash = built.record.chain_hash;
  }
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const TRIAL_FIELDS = [
  "trials_per_case",
  "reliability",
  "harness_error_count",
  "harness_errored_case_ids",
  "failed_trial_count",
] as const;

describe("old report versions upgraded once on read", () => {
  it("every v2 record of the golden chain reads as v3 with one trial per case, every stored field unchanged", async () => {
    const state = copyGoldenState();
    dirs.push(state);
    const runsDir = join(state, "runs");
    for (const golden of goldenRuns()) {
      const stored = golden.record.report;
      expect(stored["schema_version"]).toBe("evalgate.bench_run_report.v2");
      const { record, report } = readRecordFile(runsDir, golden.record_file);
      expect(record.report).toEqual(stored);
      // The upgraded report is a valid current report, marked with what its record never kept.
      const { unrecorded, ...current } = report;
      expect(BenchRunReportSchema.safeParse(current).success).toBe(true);
      expect(unrecorded).toEqual({
        recorded_as: "evalgate.bench_run_report.v2",
        trials: true,
        harness_errors: true,
        bound: false,
      });
      expect(unrecordedIn(stored["schema_version"] as "evalgate.bench_run_report.v2")).toEqual(unrecorded);
      const { schema_version: _version, ...kept } = stored;
      expect(report).toMatchObject(kept);
      const passed = stored.per_case.filter((entry) => entry.score.passed).length;
      const n = stored.per_case.length;
      expect(report).toMatchObject({
        schema_version: "evalgate.bench_run_report.v3",
        trials_per_case: 1,
        reliability: { case_count: n, pass_at_1: passed / n, pass_hat_k: passed / n, flaky_case_ids: [] },
        harness_error_count: 0,
        harness_errored_case_ids: [],
        failed_trial_count: n - passed,
      });
      expect((await findRun(runsDir, golden.run_id)).report).toEqual(report);
    }
    const newest = goldenRuns().at(-1)!;
    expect((await latestRun(runsDir, null))?.report.trials_per_case).toBe(1);
    expect((await latestRun(runsDir, null))?.record.report).toEqual(newest.record.report);
  });

  it("a v1 record reads in the current shape with what it never kept as null, its figures unchanged", async () => {
    const dir = await mkdtemp(join(tmpdir(), "audit-chain-upgrade-"));
    dirs.push(dir);
    const runsDir = join(dir, "runs");
    const v1 = parseWire(
      BenchRunReportV1Schema,
      legacyRunReport(runReport({ runId: "old-1", cases: 2, passed: 1, host: HOST })),
    );
    await writeChain(runsDir, [v1, parseWire(BenchRunReportSchema, runReport({ runId: "new-1", host: HOST }))]);
    const old = await findRun(runsDir, "old-1");
    expect(old.record.report).toMatchObject({ ...v1, prev_hash: GENESIS_PREV_HASH, chain_head: old.record.chain_hash });
    expect(old.report).toMatchObject({
      schema_version: "evalgate.bench_run_report.v3",
      run_id: "old-1",
      mean_score: v1.mean_score,
      lower_bound_95: v1.lower_bound_95,
      lower_bound_method: v1.lower_bound_method,
      passed_count: v1.passed_count,
      per_case: v1.per_case,
      sut_isolation: null,
      selection: null,
      score_kind: null,
      bound_quantity: null,
      incomplete_reason: null,
      informational: {
        bca_lower_bound_95: v1.bca_lower_bound_95,
        wilson_lower_bound_95: v1.wilson_lower_bound_95,
        bootstrap_resamples: v1.bootstrap_resamples,
        bootstrap_seed: v1.bootstrap_seed,
      },
      trials_per_case: 1,
      failed_trial_count: 1,
      reliability: { case_count: 2, pass_at_1: 0.5, pass_at_k: 0.5, pass_hat_k: 0.5 },
    });
    for (const field of ["bca_lower_bound_95", "wilson_lower_bound_95", "bootstrap_resamples", "bootstrap_seed"])
      expect(old.report).not.toHaveProperty(field);
    expect(old.report.unrecorded).toEqual({
      recorded_as: "evalgate.bench_run_report.v1",
      trials: true,
      harness_errors: true,
      bound: true,
    });
    expect(unrecordedIn(v1.schema_version)).toEqual(old.report.unrecorded);
    // A current report is returned as it is: it recorded everything.
    const fresh = (await latestRun(runsDir, null))!;
    expect(fresh.report).toBe(fresh.record.report);
    expect(fresh.report.unrecorded).toBeUndefined();
    expect(unrecordedIn(fresh.record.report.schema_version)).toBeUndefined();
    const seen = [];
    for await (const found of recordsNewestFirst(runsDir, null))
      seen.push(TRIAL_FIELDS.every((field) => field in found.report));
    expect(seen).toEqual([true, true]);
  });

  it("a v2 report's harness-side failures are counted by the runner's rule (what --retry-errors reruns)", () => {
    const v3 = parseWire(BenchRunReportSchema, runReport({ cases: 3, passed: 1 }));
    const {
      trials_per_case: _trials,
      reliability: _reliability,
      harness_error_count: _errors,
      harness_errored_case_ids: _errored,
      failed_trial_count: _failed,
      ...rest
    } = v3;
    const crashed = { code: "sut.exception", severity: "block" as const, detail: "exit 1" };
    const per_case = rest.per_case.map((entry, index) =>
      index === 2 ? { ...entry, score: { ...entry.score, failure_modes: [crashed] } } : entry,
    );
    const v2 = parseWire(BenchRunReportV2Schema, {
      ...rest,
      per_case,
      block_severity_failure_modes: ["sut.exception"],
      schema_version: "evalgate.bench_run_report.v2",
    });
    expect(upgradeReport(v2)).toMatchObject({
      harness_error_count: 1,
      harness_errored_case_ids: [per_case[2]!.case_id],
      failed_trial_count: 1,
    });
  });

  it("an empty v1 or v2 run reads with rates of 0, not NaN", () => {
    const v1 = parseWire(BenchRunReportV1Schema, legacyRunReport(runReport({ cases: 0 })));
    expect(upgradeReport(v1).reliability).toEqual({
      case_count: 0,
      pass_at_1: 0,
      pass_at_k: 0,
      pass_hat_k: 0,
      flaky_case_ids: [],
    });
  });
});
