// The one place a report's recorded schema version is read: every older report is brought to the current
// shape here, once, as the chain reader (@eval/audit-chain) reads it. It lives beside the schemas so that every
// layer that reads a report (promotion, compare, report-data, the report views) can reach it. The stored report
// (what the chain's hashes and signatures cover) is never changed; callers get the upgraded copy beside it.
import { isHarnessSideFailure } from "./harness-failures.ts";
import type {
  AnyBenchRunReport,
  BenchRunReportV1,
  BenchRunReportV2,
  RecordedReport,
  UnboundReport,
  Unrecorded,
} from "./types.ts";

const V2_UNRECORDED: Unrecorded = Object.freeze({
  recorded_as: "evalgate.bench_run_report.v2",
  trials: true,
  harness_errors: true,
  bound: false,
});
const V1_UNRECORDED: Unrecorded = Object.freeze({
  ...V2_UNRECORDED,
  recorded_as: "evalgate.bench_run_report.v1",
  bound: true,
});

/**
 * What a report recorded as `schemaVersion` never kept (undefined for the current version): what the upgrade
 * marks on it, for a reader that holds a record's version but not its report (an index of the chain).
 */
export function unrecordedIn(schemaVersion: AnyBenchRunReport["schema_version"]): Unrecorded | undefined {
  switch (schemaVersion) {
    case "evalgate.bench_run_report.v3":
      return undefined;
    case "evalgate.bench_run_report.v2":
      return V2_UNRECORDED;
    case "evalgate.bench_run_report.v1":
      return V1_UNRECORDED;
  }
}

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

function fromV2(report: BenchRunReportV2): RecordedReport {
  return {
    ...report,
    ...oneTrialFields(report),
    schema_version: "evalgate.bench_run_report.v3",
    unrecorded: V2_UNRECORDED,
  };
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
    unrecorded: V1_UNRECORDED,
  };
}

/**
 * `report` in the current shape: v3 as it is; v2 with one trial per case; v1 with what it never kept
 * (selection, SUT isolation, score kind, a valid bound) as null. An upgraded report says what it never
 * recorded (`unrecorded`), so a reader tells a filled-in value from a recorded one without its version.
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
