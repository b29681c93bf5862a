import { z } from "zod";
import { CurationClassSchema } from "./case.ts";
import { IsolationClassSchema, ScoreKindSchema, SutIsolationSchema } from "./report.ts";
import { CaseDetailSchema } from "./runner-files.ts";
import { ResourceLimitValuesSchema } from "./sandbox-limits.ts";
import { BenchScoreSchema } from "./score.ts";
import {
  Blake3DigestSchema,
  CaseIdSchema,
  SignatureSchema,
  TaskClassNameSchema,
  TimestampSchema,
} from "./primitives.ts";
import { RUN_LIMITS } from "./defaults.ts";

export const RUN_PLAN_SCHEMA_VERSION = "evalgate.run_plan.v1";

/** One case of a plan: what a shard must find in its bench, and the cache key its score is filed under. */
export const PlanCaseSchema = z.strictObject({
  case_id: CaseIdSchema,
  case_digest: Blake3DigestSchema,
  curation_class: CurationClassSchema,
  cache_key: Blake3DigestSchema,
});

/**
 * A run planned once and executed anywhere (`evalgate plan`): the task class, its cases and digests,
 * the SUT, rubric and harness, and the trials. A unit is a (case_id, trial) pair. `plan_id` is the
 * run's identity: BLAKE3 over every other field but `created_at`, so it never depends on how many
 * shards run it, and a merge records it as the run id.
 */
export const RunPlanSchema = z.strictObject({
  schema_version: z.literal(RUN_PLAN_SCHEMA_VERSION),
  plan_id: Blake3DigestSchema,
  created_at: TimestampSchema,
  task_class: TaskClassNameSchema,
  score_kind: ScoreKindSchema,
  harness_version: z.string().min(1).max(200),
  /** `spec` is the --sut value a shard resolves again; its digest must come out as `digest`. */
  sut: z.strictObject({
    spec: z.string().min(1).max(2000),
    label: z.string().min(1).max(500),
    digest: Blake3DigestSchema,
  }),
  rubric_digest: Blake3DigestSchema,
  cassette_corpus_digest: Blake3DigestSchema,
  isolation_class: IsolationClassSchema,
  sut_isolation: SutIsolationSchema,
  trials: z.number().int().min(1).max(RUN_LIMITS.maxTrials),
  task_class_case_count: z.number().int().min(1),
  /** Sorted by case_id. */
  cases: z.array(PlanCaseSchema).min(1),
});

export const SHARD_UNIT_SCHEMA_VERSION = "evalgate.shard_unit.v1";

/** `units/<case_id>.t<trial>.json` in a shard bundle: one unit's score and its per-case detail. */
export const ShardUnitSchema = z.strictObject({
  schema_version: z.literal(SHARD_UNIT_SCHEMA_VERSION),
  plan_id: Blake3DigestSchema,
  case_id: CaseIdSchema,
  trial: z.number().int().min(0),
  cache_key: Blake3DigestSchema,
  cache_hit: z.boolean(),
  score: BenchScoreSchema,
  /** The case's detail as the shard wrote it; null for a cache hit. */
  detail: CaseDetailSchema.nullable(),
});

export const SHARD_MANIFEST_SCHEMA_VERSION = "evalgate.shard_manifest.v1";

/** A file of a bundle and the BLAKE3 of its bytes. */
export const BundleFileSchema = z.strictObject({
  path: z
    .string()
    .regex(
      /^(plan\.json|units\/[A-Za-z0-9._-]+\.json|transcripts\.jsonl)$/,
      "a bundle path: plan.json, units/<file>.json or transcripts.jsonl",
    ),
  digest: Blake3DigestSchema,
});

/**
 * `manifest.json` of a shard bundle (`evalgate run --shard i/N`): which plan and shard it is, where and
 * when it ran, and the digest of every other file, so a merge detects any file edited, swapped or
 * dropped after the shard wrote it.
 */
export const ShardManifestSchema = z.strictObject({
  schema_version: z.literal(SHARD_MANIFEST_SCHEMA_VERSION),
  plan_id: Blake3DigestSchema,
  shard: z.strictObject({ index: z.number().int().min(1), count: z.number().int().min(1) }),
  host_fingerprint: z.string().min(1).max(100),
  started_at: TimestampSchema,
  ended_at: TimestampSchema,
  /** False when the shard stopped early (cost cap, interrupt): its missing units are missing from a merge. */
  complete: z.boolean(),
  /** The limits its sandboxed SUT and rubric ran under (absent in bundles of older versions). */
  resource_limit_values: ResourceLimitValuesSchema.optional(),
  units: z.array(z.strictObject({ case_id: CaseIdSchema, trial: z.number().int().min(0), file: z.string() })),
  files: z.array(BundleFileSchema).min(1),
  /** Present when the shard had a signing key: signs every other field (and through `files`, the bundle). */
  signature: SignatureSchema.optional(),
});
