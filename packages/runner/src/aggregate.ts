// A run's report from its scored cases: the one function a one-machine run and a merge of shards share,
// so both compute the same statistics from the same units.
import { RUN_REPORT_SCHEMA_VERSION } from "@eval/models";
import type { BenchCase, BenchRunReportInput, BenchScore, IsolationClass, ScoreKind, Selection, SutIsolation } from "@eval/models";
import { digestOf } from "./sut.ts";
import { aggregateTrials } from "./trials.ts";

/** One scored case, in the run's case order, with every one of its trials (in trial order). */
export interface ScoredCase {
  readonly case_id: string;
  readonly curation_class: BenchCase["curation_class"];
  readonly trials: ReadonlyArray<{ readonly cacheKey: string; readonly score: BenchScore }>;
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
  /** How sandboxed processes were limited (absent: not recorded, e.g. a merge of older units). */
  readonly resourceLimits?: "cgroup" | "rlimit" | "none";
  readonly startedAt: string;
  readonly endedAt: string;
  readonly selection: Selection;
  readonly caseCount: number;
  /** Trials per case: every scored case has this many. */
  readonly trials: number;
  /** null for a complete run. */
  readonly incompleteReason: "cost_cap" | "interrupted" | "cancelled" | "units_missing" | "harness_error" | null;
  readonly prevHash: string;
  /** A rescore's original run (absent for a run that called its SUT). */
  readonly rescoreOf?: { readonly run_id: string; readonly sut_digest: string; readonly rubric_digest: string };
}

/**
 * The unsigned report (chain_head null) of a run: statistics over `scored` (in case order), the
 * bootstrap seed from the cache keys, the block-severity codes. `run_id` gets its `partial:` prefix
 * when the run is incomplete.
 */
export function buildRunReport(facts: RunFacts, scored: readonly ScoredCase[]): BenchRunReportInput {
  const units = scored.flatMap((unit) => unit.trials);
  const seed = digestOf("evalgate.bootstrap_seed.v1", units.map((unit) => unit.cacheKey));
  const aggregate = aggregateTrials(
    scored.map((unit) => ({ benchCase: { case_id: unit.case_id, curation_class: unit.curation_class }, scores: unit.trials.map((trial) => trial.score) })),
    { scoreKind: facts.scoreKind, trials: facts.trials, seed, orderSeed: facts.selection.selected_case_ids_digest },
  );
  const { statistics } = aggregate;
  const blockCodes = [...new Set(units.flatMap((unit) => unit.score.failure_modes.filter((m) => m.severity === "block").map((m) => m.code)))].sort();
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
    ...(facts.resourceLimits === undefined ? {} : { resource_limits: facts.resourceLimits }),
    started_at: facts.startedAt,
    ended_at: facts.endedAt,
    complete,
    incomplete_reason: facts.incompleteReason,
    selection: facts.selection,
    case_count: facts.caseCount,
    per_case: aggregate.perCase as BenchRunReportInput["per_case"],
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
    trials_per_case: facts.trials,
    reliability: {
      case_count: aggregate.reliability.caseCount,
      pass_at_1: aggregate.reliability.passAt1,
      pass_at_k: aggregate.reliability.passAtK,
      pass_hat_k: aggregate.reliability.passHatK,
      flaky_case_ids: [...aggregate.reliability.flakyCaseIds],
    },
    harness_error_count: aggregate.harnessErrorCount,
    harness_errored_case_ids: aggregate.harnessErroredCaseIds,
    failed_trial_count: aggregate.failedTrialCount,
    passed_count: aggregate.passedCount,
    // Summed in case and trial order, so a run and a merge of its shards add the same floats in the same order.
    total_cost_usd: units.reduce((sum, unit) => sum + unit.score.cost_usd, 0),
    block_severity_failure_modes: blockCodes,
    prev_hash: facts.prevHash,
    ...(facts.rescoreOf === undefined ? {} : { rescore_of: { ...facts.rescoreOf } }),
    chain_head: null,
  };
}
