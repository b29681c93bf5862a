// Builds real audit chains for the verify and promote-verdict command tests.
import { join } from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import { appendRunRecord, buildChainRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import type { BenchRunReportInput } from "@eval/models";

export interface RunShape {
  readonly taskClass?: string;
  readonly lowerBound?: number;
  readonly passed?: number;
  readonly heldOut?: number;
  readonly cases?: number;
  readonly complete?: boolean;
  /** The task class's size, when this run scored only `cases` of it (a `--cases` subset). */
  readonly subsetOf?: number;
  /** Record it as a report v1 would have been (written directly, as an older evalgate did). */
  readonly legacy?: boolean;
}

/** A valid report of `cases` cases (the first `heldOut` held out, the first `passed` passing). */
export function reportOf(shape: RunShape, prevHash: string, host: string, runId: string): BenchRunReportInput {
  const cases = shape.cases ?? 12;
  const passed = shape.passed ?? cases;
  const heldOut = shape.heldOut ?? 6;
  const digest = `blake3:${"f".repeat(64)}`;
  return {
    schema_version: "evalgate.bench_run_report.v3",
    run_id: shape.complete === false ? `partial:${runId}` : runId,
    task_class: shape.taskClass ?? "vuln-remediation",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: digest,
    rubric_digest: digest,
    cassette_corpus_digest: digest,
    host_fingerprint: host,
    isolation_class: "subprocess-permission",
    sut_isolation: "harness",
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete: shape.complete ?? true,
    incomplete_reason: (shape.complete ?? true) ? null : ("cancelled" as const),
    selection: {
      scope: shape.subsetOf === undefined ? "full" : "subset",
      filter: shape.subsetOf === undefined ? null : "*-case",
      task_class_case_count: shape.subsetOf ?? cases,
      selected_case_count: cases,
      selected_case_ids_digest: digest,
    },
    case_count: cases,
    per_case: Array.from({ length: cases }, (_, index) => ({
      case_id: `${String(index).padStart(3, "0")}-case`,
      curation_class: index < heldOut ? "held-out" : "rag-corpus-derived",
      score: { passed: index < passed, score: index < passed ? 0.9 : 0.1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 5 },
    })),
    score_kind: "graded",
    mean_score: 0.85,
    score_stddev: 0.1,
    lower_bound_95: shape.lowerBound ?? 0.7,
    lower_bound_method: "betting",
    bound_quantity: "mean_score",
    trials_per_case: 1,
    reliability: { case_count: cases, pass_at_1: passed / cases, pass_at_k: passed / cases, pass_hat_k: passed / cases, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: cases - passed,
    informational: { bca_lower_bound_95: shape.lowerBound ?? 0.7, bootstrap_resamples: 1000, bootstrap_seed: digest, wilson_lower_bound_95: null },
    passed_count: passed,
    total_cost_usd: 0,
    block_severity_failure_modes: [],
    prev_hash: prevHash,
    chain_head: null,
  };
}

/** The same report as evalgate wrote it before report v2. */
function legacyReportOf(report: BenchRunReportInput): Record<string, unknown> {
  const { selection: _selection, score_kind: _kind, bound_quantity: _quantity, sut_isolation: _sut, incomplete_reason: _why, informational, ...v2 } = report;
  const { trials_per_case: _trials, reliability: _reliability, harness_error_count: _errors, harness_errored_case_ids: _errored, failed_trial_count: _failed, ...rest } = v2;
  return { ...rest, schema_version: "evalgate.bench_run_report.v1", lower_bound_method: "bca_bootstrap", ...informational };
}

/** Appends one run per shape to `<stateDir>/runs` through the real API; returns the record paths. */
export async function recordRuns(stateDir: string, shapes: readonly RunShape[]): Promise<string[]> {
  const runsDir = join(stateDir, "runs");
  const host = await getHostFingerprint(stateDir);
  const paths: string[] = [];
  for (const [index, shape] of shapes.entries()) {
    const head = await readChainHead(runsDir);
    const report = reportOf(shape, head.head, host, `run-${index}`);
    if (shape.legacy === true) {
      const recordedAt = new Date(Date.parse(head.recordedAt ?? "2026-01-01T00:00:00.000Z") + 1000).toISOString();
      const placement = { prevHash: head.head, sequence: head.nextSequence, recordedAt, hostFingerprint: host };
      await mkdir(runsDir, { recursive: true, mode: 0o700 });
      const built = await buildChainRecord(legacyReportOf(report) as unknown as BenchRunReportInput, placement);
      await writeFile(join(runsDir, built.fileName), built.text, { mode: 0o600 });
      paths.push(join(runsDir, built.fileName));
      continue;
    }
    const { path } = await appendRunRecord(report, { runsDir, hostFingerprint: host });
    paths.push(path);
  }
  return paths;
}
