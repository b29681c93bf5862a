// What a v3 run report adds for stochastic systems: trials per case, the reliability figures over cases, and
// harness errors counted apart from cases the system under test failed (docs/reliability.md).
import { z } from "zod";
import { CurationClassSchema } from "./case.ts";
import { Blake3DigestSchema, CaseIdSchema, UnitIntervalSchema } from "./primitives.ts";
import { BenchScoreSchema } from "./score.ts";

/** One case of a v3 report: `score` is trial 0's; with more than one trial, `trials` holds them all. */
export const TrialCaseResultSchema = z.strictObject({
  case_id: CaseIdSchema,
  curation_class: CurationClassSchema,
  /**
   * The case's content (its files' digest in digests.yaml): its identity across runs, so the gate pools a
   * case's attempts by what the case is, not by its id. Absent in reports recorded before it was kept.
   */
  case_digest: Blake3DigestSchema.optional(),
  score: BenchScoreSchema,
  /** Every trial's score in trial order (trials[0] is `score`); absent when the run had one trial per case. */
  trials: z.array(BenchScoreSchema).min(2).optional(),
  /** The case's value in the statistics: the mean of its trials' scores; absent with one trial (it is score.score). */
  case_value: UnitIntervalSchema.optional(),
});

/**
 * Reliability over cases (never over cases x trials): pass@1 (mean of per-case pass fractions), pass@k (Chen et
 * al. 2021's unbiased estimator, k = trials_per_case), pass^k (every one of k trials passes; tau-bench), each
 * resting on `case_count` cases: those whose every trial ran.
 */
export const ReliabilitySchema = z.strictObject({
  case_count: z.number().int().min(0),
  pass_at_1: UnitIntervalSchema,
  pass_at_k: UnitIntervalSchema,
  pass_hat_k: UnitIntervalSchema,
  /** Cases with mixed outcomes across their trials, sorted. */
  flaky_case_ids: z.array(CaseIdSchema),
});

/** The v3 fields, spread into the report schema. */
export const trialFields = {
  /** Trials per case (>= 1); every case ran this many, each its own SUT call, cache key and rubric run. */
  trials_per_case: z.number().int().min(1),
  reliability: ReliabilitySchema,
  /** Trials ended by the harness or its environment (sut.timeout, sut.exception, rubric.timeout): not the SUT's failures. */
  harness_error_count: z.number().int().min(0),
  /** Cases with at least one such trial, sorted: what `run --retry-errors` reruns. */
  harness_errored_case_ids: z.array(CaseIdSchema),
  /** Trials the SUT failed (scored, not passed, no harness error). */
  failed_trial_count: z.number().int().min(0),
};
