import { z } from "zod";
import {
  Blake3DigestSchema,
  Sha256DigestSchema,
  TaskClassNameSchema,
  TierNameSchema,
  TimestampSchema,
  UnitIntervalSchema,
} from "./primitives.ts";
import { BoundQuantitySchema, IsolationClassSchema } from "./report.ts";

/** `docs/trust-tiers.yaml`: ordered tiers (lowest first), their thresholds, and each task class's tier. */
export const TrustTiersFileSchema = z
  .strictObject({
    schema_version: z.literal("evalgate.trust_tiers.v1"),
    /** False until thresholds are calibrated against outcomes; shown on every verdict. */
    calibrated: z.boolean(),
    tiers: z
      .array(
        z.strictObject({
          name: TierNameSchema,
          /** lower_bound_95 must reach this to promote into the tier. */
          threshold: UnitIntervalSchema,
          /** Cases the evidence must hold (the whole task class, scored) to promote into the tier. */
          min_cases: z.number().int().min(0),
          /** Held-out cases the evidence must include to promote into the tier. */
          min_held_out: z.number().int().min(0),
          /**
           * The evidence must come from a run whose rubrics ran in the sandbox and whose SUT ran in it too (or
           * was evalgate's replay): not a host process (`--sandbox none`), not an in-process module. Default false.
           */
          require_sandbox: z.boolean().default(false),
          /** Trials per case the evidence must have made (`run --trials`); default 1. */
          min_trials: z.number().int().min(1).default(1),
          /**
           * pass^k (every one of the run's k trials passes, averaged over cases) the evidence must reach; absent: no
           * reliability gate. Only a report v3 records it. With k = 1 it is the pass rate.
           */
          min_pass_hat_k: UnitIntervalSchema.optional(),
          /**
           * The evidence must be signed by a declared signer (`signers`): every pooled record, every record of
           * the judged SUT on the task class, and the chain's head. Absent: false.
           */
          require_signed: z.boolean().optional(),
          description: z.string().optional(),
        }),
      )
      .min(1),
    current: z.record(TaskClassNameSchema, TierNameSchema),
    /** Keys whose signatures count as evidence (records, bundles, anchors): a CI secret's public half. */
    signers: z
      .array(
        z.strictObject({
          name: z.string().min(1).max(200),
          /** The raw 32-byte Ed25519 public key, base64 (what `evalgate key generate` prints). */
          public_key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "a base64 Ed25519 public key (32 bytes)"),
        }),
      )
      .optional(),
  })
  .superRefine((file, ctx) => {
    const names = file.tiers.map((tier) => tier.name);
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index) {
        ctx.addIssue({ code: "custom", path: ["tiers", index, "name"], message: `duplicate tier "${name}"` });
      }
    });
    for (let index = 1; index < file.tiers.length; index += 1) {
      if (file.tiers[index]!.threshold < file.tiers[index - 1]!.threshold) {
        ctx.addIssue({
          code: "custom",
          path: ["tiers", index, "threshold"],
          message: "tiers are ordered lowest first: a threshold may not drop",
        });
      }
    }
    for (const [taskClass, tier] of Object.entries(file.current)) {
      if (!names.includes(tier)) {
        ctx.addIssue({
          code: "custom",
          path: ["current", taskClass],
          message: `unknown tier "${tier}" (tiers: ${names.join(", ")})`,
        });
      }
    }
  });

/** A newer run the verdict did not read, and why. */
export const PassedOverRunSchema = z.strictObject({
  run_id: z.string().min(1),
  reason: z.string().min(1),
});

/** How many run ids a verdict names per exclusion reason: a reviewer's sample, not the whole history. */
export const EXCLUDED_RUNS_SAMPLE = 10;

/** Runs of the task class left out for one reason: how many, and the newest few by id. */
export const ExcludedRunsSchema = z.strictObject({
  reason: z.string().min(1),
  count: z.number().int().min(1),
  /** The newest EXCLUDED_RUNS_SAMPLE of them (all when fewer), newest first. */
  newest: z.array(z.string().min(1)).max(EXCLUDED_RUNS_SAMPLE),
});

/**
 * The evidence a verdict pooled: every executed attempt recorded for the same task class, SUT, rubric and
 * isolation on the judged run's cases (cache hits are the same attempt), each case the mean of its first
 * `attempts_per_case` attempts. Absent on verdicts written before pooling.
 */
export const EvidencePoolSchema = z.strictObject({
  /** Runs whose attempts were pooled, oldest first. */
  runs_pooled: z.array(z.string().min(1)),
  /**
   * Runs of the task class left out, per reason (another SUT or rubric, a report before v2, tampered figures), in
   * the order each reason was first met. v3: counted per reason with a sample (v2 named each run: on a history of
   * 100,000 runs a 6 MB line).
   */
  runs_excluded: z.array(ExcludedRunsSchema),
  /** Attempts each case contributes: the fewest any case has, so retrying only some cases cannot move the bound. */
  attempts_per_case: z.number().int().min(0),
  /** Distinct attempts found on the judged cases (after cache hits), and how many were beyond attempts_per_case. */
  attempts_recorded: z.number().int().min(0),
  attempts_unused: z.number().int().min(0),
  /** Attempts left out as faults of the harness itself (rubric.timeout, harness.*), never as the SUT's. */
  harness_faults_excluded: z.number().int().min(0),
  /** Distinct SUT digests recorded on this task class's held-out cases under its current rubric. */
  distinct_suts_on_held_out: z.number().int().min(0),
  /** The judged run's own figures, for display: the verdict rests on the pooled ones. */
  run_figures: z.strictObject({
    run_id: z.string().min(1),
    lower_bound_95: UnitIntervalSchema,
    mean_score: UnitIntervalSchema,
    passed_count: z.number().int().min(0),
  }),
});

export const PROMOTION_VERDICT_SCHEMA_VERSION = "evalgate.promotion_verdict.v3";

/** An advisory verdict. Data only: nothing in evalgate acts on `evidence_sufficient`. */
export const PromotionVerdictSchema = z.strictObject({
  schema_version: z.literal(PROMOTION_VERDICT_SCHEMA_VERSION),
  task_class: TaskClassNameSchema,
  current_tier: TierNameSchema,
  target_tier: TierNameSchema,
  evidence_sufficient: z.boolean(),
  /** Every failing condition with the numbers behind it, or exactly `["all conditions met"]`. */
  reasons: z.array(z.string().min(1)).min(1),
  /** The system under test the evidence is about. */
  sut_label: z.string().min(1),
  sut_digest: Blake3DigestSchema,
  lower_bound_95: UnitIntervalSchema,
  /** The method and quantity of lower_bound_95; null for a report recorded before they were declared. */
  lower_bound_method: z.string().min(1),
  bound_quantity: BoundQuantitySchema.nullable(),
  threshold_at_target: UnitIntervalSchema,
  /** `full`, `subset`, or `unknown` for a report recorded before runs recorded their selection. */
  report_scope: z.enum(["full", "subset", "unknown"]),
  case_count: z.number().int().min(0),
  min_cases_at_target: z.number().int().min(0),
  passed_count: z.number().int().min(0),
  min_passed_at_target: z.number().int().min(0),
  held_out_count: z.number().int().min(0),
  min_held_out_at_target: z.number().int().min(0),
  isolation_class: IsolationClassSchema,
  report_run_id: z.string().min(1),
  report_chain_head: z.string().nullable(),
  /** Newer runs of the task class that were not read (subset, incomplete), newest first. */
  passed_over: z.array(PassedOverRunSchema),
  thresholds_calibrated: z.boolean(),
  evaluated_at: TimestampSchema,
  evidence_pool: EvidencePoolSchema.optional(),
  /**
   * Who signed the evidence: `signed` when every record the verdict read (and the chain's head) carries a valid
   * signature by a declared signer, `untrusted` when some is signed only by an undeclared key, else `unsigned`.
   * Absent on verdicts written before signing.
   */
  signatures: z
    .strictObject({
      status: z.enum(["signed", "unsigned", "untrusted"]),
      /** Declared signers' names that signed records read, sorted. */
      signers: z.array(z.string().min(1)),
      /** Records read (pooled or of the judged SUT) not signed by a declared signer. */
      runs_not_signed: z.array(z.strictObject({ run_id: z.string().min(1), key_id: Sha256DigestSchema.nullable() })),
      head_signed: z.boolean(),
      /** Present when the verdict was checked against an anchor: whether a declared signer signed it. */
      anchor_signed: z.boolean().optional(),
    })
    .optional(),
  /** Structural marker: only a human, through a reviewed change to docs/trust-tiers.yaml, promotes. */
  requires_human_approval: z.literal(true),
});

/** A verdict as written before v3 (each excluded run named): still valid, never written again. */
export const PromotionVerdictV2Schema = PromotionVerdictSchema.extend({
  schema_version: z.literal("evalgate.promotion_verdict.v2"),
  evidence_pool: EvidencePoolSchema.extend({ runs_excluded: z.array(PassedOverRunSchema) }).optional(),
});
