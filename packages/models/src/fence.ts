import { z } from "zod";
import { CaseIdSchema, TaskClassNameSchema, TierNameSchema } from "./primitives.ts";
import {
  BENCH_CHECK_SCHEMA_VERSION,
  FENCE_FAILURE_SCHEMA_VERSION,
  FENCE_SUMMARY_SCHEMA_VERSION,
  SIGN_RESULT_SCHEMA_VERSION,
} from "./names.ts";

/** The fence's assertions (docs/bench-authoring.md). */
export const FenceAssertionSchema = z.enum([
  "directory-contract",
  "min-cases",
  "curation-split",
  "literal-name",
  "breakdown-keys",
  "failure-modes",
  "case-ids",
  "case-files",
  "digests",
  "registration",
]);

/** One line of `evalgate fence` output: one broken rule, naming the exact path. */
export const FenceFailureSchema = z.strictObject({
  schema_version: z.literal(FENCE_FAILURE_SCHEMA_VERSION),
  assertion: FenceAssertionSchema,
  path: z.string().min(1),
  /** The stable error code (`EVAL_*`) a loader would raise for it. */
  code: z.string().regex(/^EVAL_[A-Z0-9_]+$/),
  message: z.string().min(1),
});

/** The last line of `evalgate fence` output. */
export const FenceSummarySchema = z.strictObject({
  schema_version: z.literal(FENCE_SUMMARY_SCHEMA_VERSION),
  ok: z.boolean(),
  bench_root: z.string().min(1),
  task_classes: z.array(
    z.strictObject({
      name: TaskClassNameSchema,
      bench_path: z.string().min(1),
      cases: z.number().int().min(0),
      held_out: z.number().int().min(0),
      min_cases: z.number().int().min(1),
      min_cases_for_promotion: z.record(TierNameSchema, z.number().int().min(1)),
    }),
  ),
  /** bench/* directories without a registration.ts. */
  unregistered_dirs: z.array(z.string().min(1)),
  failure_count: z.number().int().min(0),
  duration_ms: z.number().min(0),
});

/** What `evalgate bench sign` changed in cases/digests.yaml. */
export const SignResultSchema = z.strictObject({
  schema_version: z.literal(SIGN_RESULT_SCHEMA_VERSION),
  task_class: TaskClassNameSchema,
  digests_path: z.string().min(1),
  added: z.array(CaseIdSchema),
  removed: z.array(CaseIdSchema),
  /** Changed cases, each with its diverging files as `path (changed|added|removed)`. */
  changed: z.array(z.strictObject({ case_id: CaseIdSchema, files: z.array(z.string().min(1)) })),
  unchanged: z.number().int().min(0),
  /** False when digests.yaml already said exactly this. */
  written: z.boolean(),
});

/** `evalgate bench check` output: each case's reference fix, no-op and near misses, as the rubric judged them. */
export const BenchCheckResultSchema = z.strictObject({
  schema_version: z.literal(BENCH_CHECK_SCHEMA_VERSION),
  task_class: TaskClassNameSchema,
  ok: z.boolean(),
  /** The near-miss kinds the task class declares (near-misses.yaml). */
  kinds: z.array(z.string().min(1)),
  checks: z.array(
    z.strictObject({
      case_id: CaseIdSchema,
      /** `reference`, `no-op`, or a near-miss kind. */
      control: z.string().min(1),
      /** `pass`, `fail`, or the failure mode the control must be failed with. */
      expected: z.string().min(1),
      passed: z.boolean().nullable(),
      failure_modes: z.array(z.string()),
      error: z.string().nullable(),
      ok: z.boolean(),
    }),
  ),
  not_applicable: z.array(
    z.strictObject({ case_id: CaseIdSchema, kind: z.string().min(1), reason: z.string().min(1) }),
  ),
  problems: z.array(z.string().min(1)),
});
