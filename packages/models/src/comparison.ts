// A paired comparison of two recorded runs of one task class (`evalgate compare`): advisory, like a verdict.
import { z } from "zod";
import {
  Blake3DigestSchema,
  CaseIdSchema,
  Sha256DigestSchema,
  TaskClassNameSchema,
  TimestampSchema,
  UnitIntervalSchema,
} from "./primitives.ts";

export const COMPARISON_SCHEMA_VERSION = "evalgate.comparison.v2";

const ComparedRunSchema = z.strictObject({
  run_id: z.string().min(1).max(200),
  sut_label: z.string().min(1).max(500),
  sut_digest: Blake3DigestSchema,
  trials_per_case: z.number().int().min(1),
  /** Mean of the per-case values (the mean of each case's trials). */
  mean: UnitIntervalSchema,
  chain_head: Sha256DigestSchema.nullable(),
});

const CaseChangeSchema = z.strictObject({
  case_id: CaseIdSchema,
  baseline: UnitIntervalSchema,
  candidate: UnitIntervalSchema,
  /** candidate - baseline. */
  difference: z.number().min(-1).max(1),
});

export const ComparisonSchema = z.strictObject({
  schema_version: z.literal(COMPARISON_SCHEMA_VERSION),
  task_class: TaskClassNameSchema,
  baseline: ComparedRunSchema,
  candidate: ComparedRunSchema,
  /** The cases both runs scored (the same set, or the comparison is refused). */
  case_count: z.number().int().min(1),
  /** Mean over cases of candidate - baseline. */
  mean_difference: z.number().min(-1).max(1),
  /**
   * One-sided 95% lower bound on the mean improvement (candidate - baseline): the fixed-bet bound on (d + 1) / 2,
   * mapped back by 2L - 1 (valid at every n); -1 is "no information".
   */
  lower_bound_95: z.number().min(-1).max(1),
  /** v2: the fixed-bet bound, which reads no order (v1 named it `paired_betting` and carried an unused `order_seed`). */
  lower_bound_method: z.literal("paired_fixed_bet"),
  /**
   * Binary task classes: the two-sided exact McNemar test (exact binomial on the discordant cases) on each
   * case's outcome, passed = every trial passed. Null for graded task classes.
   */
  mcnemar: z
    .strictObject({
      baseline_only: z.number().int().min(0),
      candidate_only: z.number().int().min(0),
      p_value: UnitIntervalSchema,
    })
    .nullable(),
  /** Cases whose value rose, by difference (largest first). */
  improved: z.array(CaseChangeSchema),
  /** Cases whose value fell, by difference (largest fall first). */
  regressed: z.array(CaseChangeSchema),
  unchanged_count: z.number().int().min(0),
  /** Whether the audit chain holding both runs verified when they were read. */
  chain_verified: z.boolean(),
  compared_at: TimestampSchema,
  /** A comparison never changes a tier. */
  advisory_only: z.literal(true),
});
