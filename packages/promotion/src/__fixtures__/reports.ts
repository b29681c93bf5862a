// A report builder for this package's tests.
import { BenchRunReportSchema, BenchRunReportV1Schema, parseWire } from "@eval/models";
import type { BenchRunReport, BenchRunReportInput, BenchRunReportV1 } from "@eval/models";

const HEX = "d".repeat(64);

export interface ReportShape {
  readonly lowerBound: number;
  readonly passed: number;
  readonly heldOut: number;
  readonly ragDerived?: number;
  readonly blockCodes?: readonly string[];
  readonly complete?: boolean;
  readonly isolation?: BenchRunReportInput["isolation_class"];
  readonly taskClass?: string;
  readonly runId?: string;
  /** The task class's size when this run scored a subset of it (default: the run covers it all). */
  readonly subsetOf?: number;
  /** Trials per case (default 1) and the run's pass^k (default passed / cases). */
  readonly trials?: number;
  readonly passHatK?: number;
}

/** A valid report with the given numbers: `passed` of the cases pass; block codes sit on the first case. */
export function reportWith(shape: ReportShape): BenchRunReport {
  const total = Math.max(shape.heldOut + (shape.ragDerived ?? 0), shape.passed, 1);
  const heldOut = shape.heldOut;
  const blockCodes = [...(shape.blockCodes ?? [])].sort();
  const perCase = Array.from({ length: total }, (_, index) => ({
    case_id: `${String(index).padStart(3, "0")}-case`,
    curation_class: index < heldOut ? ("held-out" as const) : ("rag-corpus-derived" as const),
    score: {
      passed: index < shape.passed,
      score: index < shape.passed ? 0.9 : 0.2,
      breakdown: {},
      failure_modes: index === 0 ? blockCodes.map((code) => ({ code, severity: "block" as const, detail: null })) : [],
      cost_usd: 0,
      wall_clock_ms: 10,
    },
  }));
  const complete = shape.complete ?? true;
  return parseWire(BenchRunReportSchema, {
    schema_version: "evalgate.bench_run_report.v3",
    run_id: `${complete ? "" : "partial:"}${shape.runId ?? "run-1"}`,
    task_class: shape.taskClass ?? "vuln-remediation",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: `blake3:${HEX}`,
    rubric_digest: `blake3:${HEX}`,
    cassette_corpus_digest: `blake3:${HEX}`,
    host_fingerprint: "5f0c7e1a-3b7d-4c1e-9a55-0b6f6f0f2a11",
    isolation_class: shape.isolation ?? "subprocess-permission",
    sut_isolation: "harness" as const,
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete,
    incomplete_reason: (complete) ? null : ("cancelled" as const),
    selection: {
      scope: shape.subsetOf === undefined ? "full" : "subset",
      filter: shape.subsetOf === undefined ? null : "0*",
      task_class_case_count: shape.subsetOf ?? (complete ? total : total + 3),
      selected_case_count: complete ? total : total + 3,
      selected_case_ids_digest: `blake3:${HEX}`,
    },
    case_count: complete ? total : total + 3,
    per_case: perCase,
    score_kind: "graded",
    mean_score: 0.85,
    score_stddev: 0.1,
    lower_bound_95: shape.lowerBound,
    lower_bound_method: "betting",
    bound_quantity: "mean_score",
    trials_per_case: shape.trials ?? 1,
    reliability: { case_count: total, pass_at_1: shape.passed / total, pass_at_k: shape.passed / total, pass_hat_k: shape.passHatK ?? shape.passed / total, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: total - shape.passed,
    informational: { bca_lower_bound_95: shape.lowerBound, bootstrap_resamples: 1000, bootstrap_seed: `blake3:${HEX}`, wilson_lower_bound_95: null },
    passed_count: shape.passed,
    total_cost_usd: 0,
    block_severity_failure_modes: blockCodes,
    prev_hash: `sha256:${"0".repeat(64)}`,
    chain_head: `sha256:${"e".repeat(64)}`,
  });
}

/** The same run as recorded before report v2: a data-dependent bound and no selection. */
export function legacyReportWith(shape: ReportShape): BenchRunReportV1 {
  const {
    selection: _selection,
    score_kind: _kind,
    bound_quantity: _quantity,
    sut_isolation: _sut,
    incomplete_reason: _why,
    informational,
    trials_per_case: _trials,
    reliability: _reliability,
    harness_error_count: _errors,
    harness_errored_case_ids: _errored,
    failed_trial_count: _failed,
    ...rest
  } = reportWith(shape);
  return parseWire(BenchRunReportV1Schema, {
    ...rest,
    schema_version: "evalgate.bench_run_report.v1",
    lower_bound_method: "bca_bootstrap",
    bca_lower_bound_95: informational.bca_lower_bound_95,
    wilson_lower_bound_95: informational.wilson_lower_bound_95,
    bootstrap_resamples: informational.bootstrap_resamples,
    bootstrap_seed: informational.bootstrap_seed,
  });
}
