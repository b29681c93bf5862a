// A run's report from its scored cases: the one function a one-machine run and a merge of shards share,
// so both compute the same statistics from the same units.
import { RUN_REPORT_SCHEMA_VERSION } from "@eval/models";
import type { BenchCase, BenchRunReportInput, BenchScore, IsolationClass, ScoreKind, Selection, SutIsolation } from "@eval/models";
import { runStatistics } from "./statistics.ts";
import { digestOf } from "./sut.ts";

/** One scored case, in the run's case order. */
export interface ScoredCase {
  readonly case_id: string;
  readonly curation_class: BenchCase["curation_class"];
  readonly cacheKey: string;
  readonly score: BenchScore;
}

export interface RunFacts {
  readonly runId: string;
  readonly taskClass: string;
  readonly scoreKind: ScoreKind;
  readonly harnessVersion: string;
  readonly sut: { readonly label: string; readonly digest: string };
  readonly rubricDigest: string;
  readonly corpusDigest: string;
  readonly hostFingerprint: string;
  readonly isolationClass: IsolationClass;
  readonly sutIsolation: SutIsolation;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly selection: Selection;
  readonly caseCount: number;
  /** null for a complete run. */
  readonly incompleteReason: "cost_cap" | "interrupted" | "cancelled" | "units_missing" | null;
  readonly prevHash: string;
}

/**
 * The unsigned report (chain_head null) of a run: statistics over `scored` (in case order), the
 * bootstrap seed from the cache keys, the block-severity codes. `run_id` gets its `partial:` prefix
 * when the run is incomplete.
 */
export function buildRunReport(facts: RunFacts, scored: readonly ScoredCase[]): BenchRunReportInput {
  const seed = digestOf("evalgate.bootstrap_seed.v1", scored.map((unit) => unit.cacheKey));
  const statistics = runStatistics(scored.map((unit) => unit.score), { scoreKind: facts.scoreKind, seed, orderSeed: facts.selection.selected_case_ids_digest });
  const blockCodes = [...new Set(scored.flatMap((unit) => unit.score.failure_modes.filter((m) => m.severity === "block").map((m) => m.code)))].sort();
  const complete = facts.incompleteReason === null;
  return {
    schema_version: RUN_REPORT_SCHEMA_VERSION,
    run_id: complete ? facts.runId : `partial:${facts.runId}`,
    task_class: facts.taskClass,
    harness_version: facts.harnessVersion,
    sut_label: facts.sut.label.slice(0, 500),
    sut_digest: facts.sut.digest,
    rubric_digest: facts.rubricDigest,
    cassette_corpus_digest: facts.corpusDigest,
    host_fingerprint: facts.hostFingerprint,
    isolation_class: facts.isolationClass,
    sut_isolation: facts.sutIsolation,
    started_at: facts.startedAt,
    ended_at: facts.endedAt,
    complete,
    incomplete_reason: facts.incompleteReason,
    selection: facts.selection,
    case_count: facts.caseCount,
    per_case: scored.map((unit) => ({ case_id: unit.case_id, curation_class: unit.curation_class, score: unit.score })) as BenchRunReportInput["per_case"],
    score_kind: statistics.scoreKind,
    mean_score: statistics.mean,
    score_stddev: statistics.stddev,
    lower_bound_95: statistics.lowerBound95,
    lower_bound_method: statistics.lowerBoundMethod,
    bound_quantity: statistics.boundQuantity,
    informational: {
      bca_lower_bound_95: statistics.bcaLowerBound95,
      bootstrap_resamples: statistics.bootstrapResamples,
      bootstrap_seed: seed,
      wilson_lower_bound_95: statistics.wilsonLowerBound95,
    },
    passed_count: statistics.passedCount,
    // Summed in case order, so a run and a merge of its shards add the same floats in the same order.
    total_cost_usd: scored.reduce((sum, unit) => sum + unit.score.cost_usd, 0),
    block_severity_failure_modes: blockCodes,
    prev_hash: facts.prevHash,
    chain_head: null,
  };
}
