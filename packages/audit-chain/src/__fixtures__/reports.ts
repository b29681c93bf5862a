// Report builders and a small seeded PRNG shared by this package's tests and worker scripts.
import type { BenchRunReportInput } from "@eval/models";

export const HOST = "5f0c7e1a-3b7d-4c1e-9a55-0b6f6f0f2a11";
const HEX = "c".repeat(64);

export function makeReport(overrides: Partial<BenchRunReportInput> & { prev_hash: string }): BenchRunReportInput {
  const cases = 3;
  return {
    schema_version: "evalgate.bench_run_report.v3",
    run_id: "run-0",
    task_class: "vuln-remediation",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: `blake3:${HEX}`,
    rubric_digest: `blake3:${HEX}`,
    cassette_corpus_digest: `blake3:${HEX}`,
    host_fingerprint: HOST,
    isolation_class: "subprocess-permission",
    sut_isolation: "harness" as const,
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete: true,
    incomplete_reason: null,
    selection: { scope: "full", filter: null, task_class_case_count: cases, selected_case_count: cases, selected_case_ids_digest: `blake3:${HEX}` },
    case_count: cases,
    per_case: Array.from({ length: cases }, (_, index) => ({
      case_id: `00${index}-case`,
      curation_class: index % 2 === 0 ? ("held-out" as const) : ("rag-corpus-derived" as const),
      score: {
        passed: true,
        score: 0.9,
        breakdown: { resolved: 1, collateral: 0.8 },
        failure_modes: [{ code: "collateral_change", severity: "warn" as const, detail: "touched README.md — “quoted” ✓" }],
        cost_usd: 0.01,
        wall_clock_ms: 1200 + index,
      },
    })),
    score_kind: "graded",
    mean_score: 0.9,
    score_stddev: 0,
    lower_bound_95: 0.9,
    lower_bound_method: "betting",
    bound_quantity: "mean_score",
    trials_per_case: 1,
    reliability: { case_count: cases, pass_at_1: 1, pass_at_k: 1, pass_hat_k: 1, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: 0,
    informational: { bca_lower_bound_95: null, bootstrap_resamples: 0, bootstrap_seed: `blake3:${HEX}`, wilson_lower_bound_95: null },
    passed_count: cases,
    total_cost_usd: 0.03,
    block_severity_failure_modes: [],
    chain_head: null,
    ...overrides,
  };
}

/** mulberry32: a tiny deterministic PRNG so every mutation run is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A clock that advances one second per call, starting at `start`. */
export function steppingClock(start = Date.parse("2026-11-01T00:00:00.000Z")): () => Date {
  let next = start;
  return () => {
    const now = new Date(next);
    next += 1000;
    return now;
  };
}
