// Valid example documents shared by this package's tests.
import type { BenchRunReportInput, BenchScoreInput } from "./types.ts";

export const HEX64 = "a".repeat(64);

export const validScore: BenchScoreInput = {
  passed: true,
  score: 0.9,
  breakdown: { resolved: 1, collateral: 0.8 },
  failure_modes: [{ code: "collateral_change", severity: "warn", detail: "touched README.md" }],
  cost_usd: 0.01,
  wall_clock_ms: 1200,
};

export const validCaseToml = {
  case_id: "001-cross-spawn",
  task_class: "vuln-remediation",
  disposition: "positive",
  difficulty: "easy",
  source: "curated",
  curation_class: "held-out",
  added_at: "2026-10-01T00:00:00Z",
  last_validated_at: "2026-11-01T00:00:00+02:00",
  cassette_canary_pin: "0123456789abcdef0123456789abcdef",
};

export const validReport: BenchRunReportInput = {
  schema_version: "evalgate.bench_run_report.v3",
  run_id: "2026-11-22T03-00-00Z-ab12cd",
  task_class: "vuln-remediation",
  harness_version: "0.1.0",
  sut_label: "replay",
  sut_digest: `blake3:${HEX64}`,
  rubric_digest: `blake3:${HEX64}`,
  cassette_corpus_digest: `blake3:${HEX64}`,
  host_fingerprint: "5f0c7e1a-3b7d-4c1e-9a55-0b6f6f0f2a11",
  isolation_class: "subprocess-permission",
  sut_isolation: "harness",
  started_at: "2026-11-22T03:00:00Z",
  ended_at: "2026-11-22T03:00:05Z",
  complete: true,
  incomplete_reason: null,
  selection: {
    scope: "full",
    filter: null,
    task_class_case_count: 1,
    selected_case_count: 1,
    selected_case_ids_digest: `blake3:${HEX64}`,
  },
  case_count: 1,
  per_case: [{ case_id: "001-cross-spawn", curation_class: "held-out", score: validScore }],
  score_kind: "graded",
  mean_score: 0.9,
  score_stddev: 0,
  lower_bound_95: 0.9,
  lower_bound_method: "betting",
  bound_quantity: "mean_score",
  trials_per_case: 1,
  reliability: { case_count: 1, pass_at_1: 1, pass_at_k: 1, pass_hat_k: 1, flaky_case_ids: [] },
  harness_error_count: 0,
  harness_errored_case_ids: [],
  failed_trial_count: 0,
  informational: {
    bca_lower_bound_95: null,
    bootstrap_resamples: 0,
    bootstrap_seed: `blake3:${HEX64}`,
    wilson_lower_bound_95: null,
  },
  passed_count: 1,
  total_cost_usd: 0.01,
  block_severity_failure_modes: [],
  prev_hash: `sha256:${"0".repeat(64)}`,
  chain_head: null,
};
