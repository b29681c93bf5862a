// The one place a report's recorded schema version is read: every older report is brought to the current
// shape here, once, as the chain reader (@eval/audit-chain) reads it. It lives beside the schemas so that every
// layer that reads a report (promotion, compare, report-data, the report views) can reach it. The stored report (what the chain's hashes and signatures
// cover) is never changed; callers get the upgraded copy beside it.
import { isHarnessSideFailure } from "./harness-failures.ts";
import type {
  AnyBenchRunReport,
  BenchRunReport,
  BenchRunReportV1,
  BenchRunReportV2,
  RecordedReport,
  UnboundReport,
} from "./types.ts";

/** The trial fields of a run with one trial per case, as the per-case data gives them (the runner's rules). */
function oneTrialFields(report: BenchRunReportV1 | BenchRunReportV2) {
  const scores = report.per_case.map((entry) => entry.score);
  const n = scores.length;
  const rate = n === 0 ? 0 : scores.filter((score) => score.passed).length / n;
  const errored = report.per_case.filter((entry) => isHarnessSideFailure(entry.score)).map((entry) => entry.case_id);
  return {
    trials_per_case: 1,
    reliability: { case_count: n, pass_at_1: rate, pass_at_k: rate, pass_hat_k: rate, flaky_case_ids: [] },
    harness_error_count: errored.length,
    harness_errored_case_ids: errored,
    failed_trial_count: scores.filter((score) => !score.passed && !isHarnessSideFailure(score)).length,
  };
}

function fromV2(report: BenchRunReportV2): BenchRunReport {
  return { ...report, ...oneTrialFields(report), schema_version: "evalgate.bench_run_report.v3" };
}

function fromV1(report: BenchRunReportV1): UnboundReport {
  const {
    bca_lower_bound_95,
    wilson_lower_bound_95,
    bootstrap_resamples,
    bootstrap_seed,
    lower_bound_method,
    ...rest
  } = report;
  return {
    ...rest,
    ...oneTrialFields(report),
    schema_version: "evalgate.bench_run_report.v3",
    sut_isolation: null,
    selection: null,
    score_kind: null,
    bound_quantity: null,
    lower_bound_method,
    incomplete_reason: null,
    informational: { bca_lower_bound_95, wilson_lower_bound_95, bootstrap_resamples, bootstrap_seed },
  };
}

/**
 * `report` in the current shape: v3 as it is; v2 with one trial per case; v1 with what it never kept
 * (selection, SUT isolation, score kind, a valid bound) as null.
 */
export function upgradeReport(report: AnyBenchRunReport): RecordedReport {
  switch (report.schema_version) {
    case "evalgate.bench_run_report.v3":
      return report;
    case "evalgate.bench_run_report.v2":
      return fromV2(report);
    case "evalgate.bench_run_report.v1":
      return fromV1(report);
  }
}
