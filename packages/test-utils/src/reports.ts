import type { BenchRunReportInput } from "@eval/models";

/** What a test wants of a run report; everything else gets a fixed, valid value. */
export interface RunReportShape {
  /** Cases scored (default 12). */
  readonly cases?: number;
  /** How many of them pass, counted from the first (default: all). */
  readonly passed?: number;
  /** How many are held out, counted from the first (default 6); the rest are rag-corpus-derived. */
  readonly heldOut?: number;
  readonly lowerBound?: number;
  /** Block-severity failure modes, recorded on the first case. */
  readonly blockCodes?: readonly string[];
  /** False: an interrupted run (`partial:` id, `cancelled`), which left `unfinished` selected cases unscored. */
  readonly complete?: boolean;
  readonly unfinished?: number;
  /** The task class's size when the run scored a `--cases` subset of it. */
  readonly subsetOf?: number;
  readonly subsetFilter?: string;
  readonly taskClass?: string;
  readonly runId?: string;
  readonly isolation?: BenchRunReportInput["isolation_class"];
  readonly host?: string;
  readonly prevHash?: string;
  readonly chainHead?: string | null;
  /** The score a failing case gets (default 0.1). */
  readonly failScore?: number;
  /** Trials per case (default 1) and the run's pass^k (default passed / cases). */
  readonly trials?: number;
  readonly passHatK?: number;
}

const DIGEST = `blake3:${"f".repeat(64)}`;

/**
 * A valid run report (BenchRunReport v3 input) of the given shape: the one report builder the packages'
 * tests share. Not validated here, so a test may hand it to the code under test as it is.
 */
export function runReport(shape: RunReportShape = {}): BenchRunReportInput {
  const cases = shape.cases ?? 12;
  const passed = shape.passed ?? cases;
  const heldOut = shape.heldOut ?? 6;
  const complete = shape.complete ?? true;
  const selected = complete ? cases : cases + (shape.unfinished ?? 0);
  const blockCodes = [...(shape.blockCodes ?? [])].sort();
  const lowerBound = shape.lowerBound ?? 0.7;
  return {
    schema_version: "evalgate.bench_run_report.v3",
    run_id: `${complete ? "" : "partial:"}${shape.runId ?? "run-1"}`,
    task_class: shape.taskClass ?? "vuln-remediation",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: DIGEST,
    rubric_digest: DIGEST,
    cassette_corpus_digest: DIGEST,
    host_fingerprint: shape.host ?? "5f0c7e1a-3b7d-4c1e-9a55-0b6f6f0f2a11",
    isolation_class: shape.isolation ?? "subprocess-permission",
    sut_isolation: "harness",
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete,
    incomplete_reason: complete ? null : "cancelled",
    selection: {
      scope: shape.subsetOf === undefined ? "full" : "subset",
      filter: shape.subsetOf === undefined ? null : (shape.subsetFilter ?? "*-case"),
      task_class_case_count: shape.subsetOf ?? selected,
      selected_case_count: selected,
      selected_case_ids_digest: DIGEST,
    },
    case_count: selected,
    per_case: Array.from({ length: cases }, (_, index) => ({
      case_id: `${String(index).padStart(3, "0")}-case`,
      curation_class: index < heldOut ? ("held-out" as const) : ("rag-corpus-derived" as const),
      score: {
        passed: index < passed,
        score: index < passed ? 0.9 : (shape.failScore ?? 0.1),
        breakdown: {},
        failure_modes:
          index === 0 ? blockCodes.map((code) => ({ code, severity: "block" as const, detail: null })) : [],
        cost_usd: 0,
        wall_clock_ms: 5,
      },
    })),
    score_kind: "graded",
    mean_score: 0.85,
    score_stddev: 0.1,
    lower_bound_95: lowerBound,
    lower_bound_method: "betting",
    bound_quantity: "mean_score",
    informational: {
      bca_lower_bound_95: lowerBound,
      bootstrap_resamples: 1000,
      bootstrap_seed: DIGEST,
      wilson_lower_bound_95: null,
    },
    trials_per_case: shape.trials ?? 1,
    reliability: {
      case_count: cases,
      pass_at_1: passed / cases,
      pass_at_k: passed / cases,
      pass_hat_k: shape.passHatK ?? passed / cases,
      flaky_case_ids: [],
    },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: cases - passed,
    passed_count: passed,
    total_cost_usd: 0,
    block_severity_failure_modes: blockCodes,
    prev_hash: shape.prevHash ?? `sha256:${"0".repeat(64)}`,
    chain_head: shape.chainHead ?? null,
  };
}

/** The same run as evalgate recorded it before report v2 (a data-dependent bound, no selection); unvalidated. */
export function legacyRunReport(report: BenchRunReportInput): Record<string, unknown> {
  const {
    selection: _selection,
    score_kind: _kind,
    bound_quantity: _quantity,
    sut_isolation: _sut,
    incomplete_reason: _why,
    informational,
    ...v2
  } = report;
  const {
    trials_per_case: _trials,
    reliability: _reliability,
    harness_error_count: _errors,
    harness_errored_case_ids: _errored,
    failed_trial_count: _failed,
    ...rest
  } = v2;
  return {
    ...rest,
    schema_version: "evalgate.bench_run_report.v1",
    lower_bound_method: "bca_bootstrap",
    bca_lower_bound_95: informational.bca_lower_bound_95,
    wilson_lower_bound_95: informational.wilson_lower_bound_95,
    bootstrap_resamples: informational.bootstrap_resamples,
    bootstrap_seed: informational.bootstrap_seed,
  };
}
