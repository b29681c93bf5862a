// Trials per case: what makes each trial its own SUT call (seed, invocation tag, cache key, detail file), and
// how a case's trials become the case's one value in the statistics. Trial 0 keeps exactly what a one-trial run
// has always used, so a run with one trial per case is byte-identical to one recorded before trials existed.
import { EvalError } from "@eval/errors";
import { isHarnessSideFailure } from "@eval/models";
import type { BenchCase, BenchScore, ScoreKind, TrialCaseResult } from "@eval/models";
import { caseLevelScores, reliability, runStatistics } from "@eval/statistics";
import type { Reliability, RunStatistics } from "@eval/statistics";
import { digestOf } from "./sut.ts";
import { RUN_DEFAULTS } from "@eval/models/defaults";

/** The cache key of a trial: trial 0's is the case's key, trial t's a digest of that key and t. */
export function trialCacheKey(caseKey: string, trial: number): string {
  return trial === 0 ? caseKey : digestOf("evalgate.trial_cache_key.v1", [caseKey, String(trial)]);
}

/** The seed a trial's SUT receives: trial 0's is the canary seed, trial t's 64 hex characters derived from it and t. */
export function trialSeedFor(canarySeed: string, trial: number): string {
  return trial === 0
    ? canarySeed
    : digestOf("evalgate.trial_seed.v1", [canarySeed, String(trial)]).slice("blake3:".length);
}

/** The invocation tag of a trial: the case's tag for trial 0, `<tag>:trial-<t>` after. */
export function trialInvocationTag(caseTag: string, trial: number): string {
  return trial === 0 ? caseTag : `${caseTag}:trial-${trial}`;
}

/** A unit's id in a run, a plan and a shard: `<case-id>#<trial>`. */
export function trialUnitId(caseId: string, trial: number): string {
  return `${caseId}#${trial}`;
}

/**
 * The rubric's own faults: no valid answer, none in time, or its sandbox's process, memory or disk limit
 * hit. Like every `rubric.*` outcome they are never cached (a fixed rubric must score the case again), and
 * on most units they mark the rubric broken.
 */
export const RUBRIC_FAULTS: ReadonlySet<string> = new Set([
  "rubric.malformed_output",
  "rubric.timeout",
  "rubric.resource_limit",
]);

/**
 * Whether a score may be cached: no `rubric.*` outcome (what a third-party rubric got wrong, or a fault of the
 * harness around it, is not the case's result under a fixed rubric). A SUT's `sut.exception` and `sut.timeout`
 * are cached: a SUT that crashes on purpose when its own check fails must not have its failures, and only
 * those, retried by every rerun until they pass (`run --retry-errors` reruns them on request). Nor is
 * `agent.infrastructure` (the agent never got to work): the gate leaves that whole run out instead.
 */
export function isCacheable(score: BenchScore): boolean {
  return !score.failure_modes.some((mode) => mode.code.startsWith("rubric.") || mode.code === "agent.infrastructure");
}

export interface CaseTrialScores {
  readonly benchCase: Pick<BenchCase, "case_id" | "curation_class"> & { readonly case_digest?: string };
  /** One score per trial, in trial order (every trial ran). */
  readonly scores: readonly BenchScore[];
}

export interface TrialAggregate {
  readonly perCase: TrialCaseResult[];
  readonly statistics: RunStatistics;
  readonly reliability: Reliability;
  /** Cases whose every trial passed: with one trial, the passed cases. */
  readonly passedCount: number;
  readonly harnessErrorCount: number;
  readonly harnessErroredCaseIds: string[];
  readonly failedTrialCount: number;
}

/**
 * The run's figures from complete cases (case_id order). The case is the unit: with k trials a case contributes
 * the mean of its trials' scores and counts as passed when every trial passed, and the bound is computed over
 * the n cases, never over k x n trials. With one trial this is runStatistics on the scores as before; with more,
 * a case value is no longer 0/1, so every score kind gets the betting bound on the case means (for a binary task
 * class that bounds the per-trial pass rate).
 */
export function aggregateTrials(
  cases: readonly CaseTrialScores[],
  options: { scoreKind: ScoreKind; trials: number; seed: string; orderSeed: string },
): TrialAggregate {
  const single = options.trials === 1;
  const { scores: caseValues, boundKind } = caseLevelScores(
    cases.map(({ scores }) => scores),
    options,
  );
  const computed = runStatistics(caseValues, {
    scoreKind: boundKind,
    seed: options.seed,
    orderSeed: options.orderSeed,
  });
  const statistics: RunStatistics =
    boundKind === options.scoreKind
      ? computed
      : {
          ...computed,
          scoreKind: options.scoreKind,
          boundQuantity: options.scoreKind === "binary" ? "pass_rate" : "mean_score",
        };
  const perCase = cases.map(({ benchCase, scores }, i): TrialCaseResult => ({
    case_id: benchCase.case_id,
    curation_class: benchCase.curation_class,
    ...(benchCase.case_digest === undefined ? {} : { case_digest: benchCase.case_digest }),
    score: scores[0]!,
    ...(single ? {} : { trials: scores, case_value: Math.min(1, Math.max(0, caseValues[i]!.score)) }),
  }));
  const allScores = cases.flatMap(({ scores }) => scores);
  const errored = cases
    .filter(({ scores }) => scores.some(isHarnessSideFailure))
    .map(({ benchCase }) => benchCase.case_id);
  return {
    perCase,
    statistics,
    reliability: reliability(
      cases.map(({ benchCase, scores }) => ({ case_id: benchCase.case_id, passed: scores.map((s) => s.passed) })),
    ),
    passedCount: caseValues.filter((c) => c.passed).length,
    harnessErrorCount: allScores.filter(isHarnessSideFailure).length,
    harnessErroredCaseIds: errored.sort(),
    failedTrialCount: allScores.filter((s) => !s.passed && !isHarnessSideFailure(s)).length,
  };
}

/** The trials a run makes: as asked, else the task class's minimum (1 unless it declares `min_trials`); never fewer. */
export function trialsFor(
  taskClass: { readonly name: string; readonly minTrials?: number },
  asked: number | undefined,
): number {
  const minimum = taskClass.minTrials ?? RUN_DEFAULTS.trials;
  if (asked === undefined) return minimum;
  if (asked < minimum) {
    throw new EvalError(
      "EVAL_USAGE",
      `task class ${taskClass.name} requires at least ${minimum} trials per case (min_trials in its registration), got ${asked}`,
      {
        hint: `pass --trials ${minimum} or more`,
      },
    );
  }
  return asked;
}
