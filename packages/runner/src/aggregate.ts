// A run's report from its scored cases: the one function a one-machine run and a merge of shards share,
// so both compute the same statistics from the same units.
import { RUN_REPORT_SCHEMA_VERSION } from "@eval/models";
import type {
  BenchCase,
  BenchRunReportInput,
  BenchScore,
  IsolationClass,
  MeteredUsage,
  ScoreKind,
  Selection,
  SutIsolation,
} from "@eval/models";
import { digestOf } from "./sut.ts";
import { aggregateTrials } from "./trials.ts";

/** One scored case, in the run's case order, with every one of its trials (in trial order). */
export interface ScoredCase {
  readonly case_id: string;
  readonly curation_class: BenchCase["curation_class"];
  /** The case's content digest (digests.yaml), recorded so the gate pools attempts by content, not by id. */
  readonly case_digest: string;
  readonly trials: ReadonlyArray<{
    readonly cacheKey: string;
    readonly score: BenchScore;
    readonly metered?: MeteredUsage;
  }>;
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
  /** The limits per sandboxed component (absent: not recorded). */
  readonly resourceLimitValues?: BenchRunReportInput["resource_limit_values"];
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
  const seed = digestOf(
    "evalgate.bootstrap_seed.v1",
    units.map((unit) => unit.cacheKey),
  );
  const aggregate = aggregateTrials(
    scored.map((unit) => ({
      benchCase: { case_id: unit.case_id, curation_class: unit.curation_class, case_digest: unit.case_digest },
      scores: unit.trials.map((trial) => trial.score),
    })),
    { scoreKind: facts.scoreKind, trials: facts.trials, seed, orderSeed: facts.selection.selected_case_ids_digest },
  );
  const { statistics } = aggregate;
  const blockCodes = [
    ...new Set(
      units.flatMap((unit) => unit.score.failure_modes.filter((m) => m.severity === "block").map((m) => m.code)),
    ),
  ].sort();
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
    ...(facts.resourceLimitValues === undefined ? {} : { resource_limit_values: facts.resourceLimitValues }),
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
    ...meteredField(units),
    chain_head: null,
  };
}

const sortedSet = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/**
 * The run's metered sums over the units the bridge metered (executed behind it: cache hits carry none), and
 * the rest of the run's cost, which SUTs reported about themselves; no field when nothing was metered.
 * Summed in case and trial order, like total_cost_usd.
 */
function meteredField(
  units: ReadonlyArray<{ readonly score: BenchScore; readonly metered?: MeteredUsage }>,
): Pick<BenchRunReportInput, "metered"> {
  const metered = units.flatMap((unit) => (unit.metered === undefined ? [] : [unit.metered]));
  if (metered.length === 0) return {};
  const sum = (pick: (usage: MeteredUsage) => number): number =>
    metered.reduce((total, usage) => total + pick(usage), 0);
  const priced = (unit: (typeof units)[number]): boolean =>
    unit.metered !== undefined && unit.metered.cost_usd !== null;
  return {
    metered: {
      trials: metered.length,
      requests: sum((usage) => usage.requests),
      input_tokens: sum((usage) => usage.input_tokens),
      cached_input_tokens: sum((usage) => usage.cached_input_tokens),
      cache_write_tokens: sum((usage) => usage.cache_write_tokens),
      output_tokens: sum((usage) => usage.output_tokens),
      cost_usd: sum((usage) => usage.cost_usd ?? 0),
      unpriced_trials: metered.filter((usage) => usage.cost_usd === null).length,
      unpriced_models: sortedSet(metered.flatMap((usage) => usage.unpriced_models)),
      price_tables: sortedSet(metered.map((usage) => usage.price_table)),
      upstream_hosts: sortedSet(metered.map((usage) => usage.upstream_host)),
      sut_reported_cost_usd: units.reduce((total, unit) => total + (priced(unit) ? 0 : unit.score.cost_usd), 0),
    },
  };
}
