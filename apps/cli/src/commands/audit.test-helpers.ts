// Builds real audit chains for the verify and promote-verdict command tests.
import { join } from "node:path";
import { appendRunRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import type { BenchRunReportInput } from "@eval/models";

export interface RunShape {
  readonly taskClass?: string;
  readonly lowerBound?: number;
  readonly passed?: number;
  readonly heldOut?: number;
  readonly cases?: number;
  readonly complete?: boolean;
}

/** A valid report of `cases` cases (the first `heldOut` held out, the first `passed` passing). */
export function reportOf(shape: RunShape, prevHash: string, host: string, runId: string): BenchRunReportInput {
  const cases = shape.cases ?? 12;
  const passed = shape.passed ?? cases;
  const heldOut = shape.heldOut ?? 6;
  const digest = `blake3:${"f".repeat(64)}`;
  return {
    schema_version: "evalgate.bench_run_report.v1",
    run_id: shape.complete === false ? `partial:${runId}` : runId,
    task_class: shape.taskClass ?? "vuln-remediation",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: digest,
    rubric_digest: digest,
    cassette_corpus_digest: digest,
    host_fingerprint: host,
    isolation_class: "subprocess-permission",
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete: shape.complete ?? true,
    case_count: cases,
    per_case: Array.from({ length: cases }, (_, index) => ({
      case_id: `${String(index).padStart(3, "0")}-case`,
      curation_class: index < heldOut ? "held-out" : "rag-corpus-derived",
      score: { passed: index < passed, score: index < passed ? 0.9 : 0.1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 5 },
    })),
    mean_score: 0.85,
    score_stddev: 0.1,
    lower_bound_95: shape.lowerBound ?? 0.7,
    lower_bound_method: "bca_bootstrap",
    bca_lower_bound_95: shape.lowerBound ?? 0.7,
    wilson_lower_bound_95: null,
    bootstrap_resamples: 1000,
    bootstrap_seed: digest,
    passed_count: passed,
    total_cost_usd: 0,
    block_severity_failure_modes: [],
    prev_hash: prevHash,
    chain_head: null,
  };
}

/** Appends one run per shape to `<stateDir>/runs` through the real API; returns the record paths. */
export async function recordRuns(stateDir: string, shapes: readonly RunShape[]): Promise<string[]> {
  const runsDir = join(stateDir, "runs");
  const host = await getHostFingerprint(stateDir);
  const paths: string[] = [];
  for (const [index, shape] of shapes.entries()) {
    const { head } = await readChainHead(runsDir);
    const { path } = await appendRunRecord(reportOf(shape, head, host, `run-${index}`), { runsDir, hostFingerprint: host });
    paths.push(path);
  }
  return paths;
}
