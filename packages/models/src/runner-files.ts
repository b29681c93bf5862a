import { z } from "zod";
import { BenchScoreSchema } from "./score.ts";
import { MeteredUsageSchema } from "./metered.ts";
import { SutCaseSchema } from "./case.ts";
import { Blake3DigestSchema, CaseIdSchema, TaskClassNameSchema, TimestampSchema } from "./primitives.ts";

export const CACHE_ENTRY_SCHEMA_VERSION = "evalgate.cache_entry.v1";

/**
 * One file of the score cache (`.evalgate/cache/<2 hex>/<64 hex>.json`). The key is stored inside the
 * entry too, so a file renamed or copied to the wrong place is a miss, never a wrong score.
 */
export const CacheEntrySchema = z.strictObject({
  schema_version: z.literal(CACHE_ENTRY_SCHEMA_VERSION),
  cache_key: Blake3DigestSchema,
  stored_at: TimestampSchema,
  score: BenchScoreSchema,
});

export const CASE_DETAIL_SCHEMA_VERSION = "evalgate.case_detail.v1";

/** A bounded excerpt of a process stream: the first bytes as text, with the full size seen. */
export const StreamExcerptSchema = z.strictObject({
  text: z.string(),
  bytes: z.number().int().min(0),
  truncated: z.boolean(),
});

/** A file's content as a capture keeps it: in the state directory's blob store (`blobs/`) by its digest. */
export const CapturedContentSchema = z.strictObject({
  /** BLAKE3 of the bytes; null when the file was too large to read (its size alone is known). */
  digest: Blake3DigestSchema.nullable(),
  bytes: z.number().int().min(0),
  /** Whether the blob store holds the bytes (false past the capture's size caps). */
  stored: z.boolean(),
});

/** One file the SUT added, changed or deleted in its workspace, against the case's input. */
export const WorkspaceChangeSchema = z.strictObject({
  path: z.string().min(1).max(4096),
  status: z.enum(["added", "changed", "deleted"]),
  before: CapturedContentSchema.nullable(),
  after: CapturedContentSchema.nullable(),
});

export const MAX_CAPTURED_CHANGES = 1000;

/**
 * What the harness recorded of the workspace a SUT left (for every SUT kind, not the SUT's claim): the
 * changed, added and deleted files against the case's input, their contents in the blob store.
 */
export const WorkspaceCaptureSchema = z.strictObject({
  changes: z.array(WorkspaceChangeSchema).max(MAX_CAPTURED_CHANGES),
  /** Regular files in the workspace the SUT left untouched. */
  unchanged: z.number().int().min(0),
  /** True when every change is listed and every added or changed file's bytes are stored: the workspace can be rebuilt. */
  complete: z.boolean(),
});

/**
 * `runs/<run-id>/cases/<case-id>.json`: everything needed to see why one case scored as it did,
 * written when the case ran, and hard-linked for a later cache hit (its `run_id` then names the
 * executing run, not the run whose directory holds the link).
 */
export const CaseDetailSchema = z.strictObject({
  schema_version: z.literal(CASE_DETAIL_SCHEMA_VERSION),
  run_id: z.string().min(1).max(200),
  task_class: TaskClassNameSchema,
  case_id: CaseIdSchema,
  cache_key: Blake3DigestSchema,
  invocation_tag: z.string().min(1),
  /** The trial this detail is about (absent for trial 0; its file is `<case-id>.trial-<n>.json`). */
  trial: z.number().int().min(1).optional(),
  /** The SUT's JSON output, or null when it threw or timed out. */
  sut_output: z.record(z.string(), z.unknown()).nullable(),
  sut_error: z.string().nullable(),
  sut_wall_clock_ms: z.number().int().min(0),
  /** Symlinks and special files the SUT left in its workspace, removed before the rubric ran (first 100). */
  removed_from_workspace: z.array(z.string()).max(100).optional(),
  /** The workspace the SUT left, as the harness saw it before the rubric ran (absent when the SUT call failed before returning). */
  workspace: WorkspaceCaptureSchema.optional(),
  /** What the SUT's process printed (a command, a module's worker, an agent CLI or its cassette), capped. */
  sut_streams: z.strictObject({ stdout: StreamExcerptSchema, stderr: StreamExcerptSchema }).optional(),
  rubric: z
    .strictObject({
      argv: z.array(z.string()),
      exit_code: z.number().int().nullable(),
      signal: z.string().nullable(),
      timed_out: z.boolean(),
      output_capped: z.boolean(),
      wall_clock_ms: z.number().int().min(0),
      stdout: StreamExcerptSchema,
      stderr: StreamExcerptSchema,
    })
    .nullable(),
  score: BenchScoreSchema,
  /** Present when the SUT's agent ran behind the model bridge: what the harness metered on the wire (the SUT cannot set it). */
  metered: MeteredUsageSchema.optional(),
  /**
   * Present on copies that versions before hard-linked details wrote for a cache hit: the run
   * `in_run_id` reused this score; `run_id` and `invocation_tag` remain those of the executing run.
   */
  from_cache: z.strictObject({ in_run_id: z.string().min(1).max(200) }).optional(),
});

export const SUT_REQUEST_SCHEMA_VERSION = "evalgate.sut_request.v2";

/**
 * The one JSON document a `command:` system under test reads on stdin. It answers with one JSON
 * object on stdout (its harness output; `cost_usd` is what it spent). Its cwd is `workspace_path`,
 * and EVALGATE_BENCH_INVOCATION_TAG is set in its environment.
 */
export const SutRequestSchema = z.strictObject({
  schema_version: z.literal(SUT_REQUEST_SCHEMA_VERSION),
  /** The task without any path into the bench (v2: no case_path, input_path, expected_path, cassette_path). */
  case: SutCaseSchema,
  workspace_path: z.string().min(1),
  /** 64 hex characters derived from the case's cassette_canary_pin. */
  canary_seed: z.string().regex(/^[0-9a-f]{64}$/),
  invocation_tag: z.string().min(1),
  timeout_ms: z.number().int().min(1),
  /** Which trial of the case this call is (0-based; `--trials k` makes k calls per case). */
  trial: z.number().int().min(0).optional(),
  /** 64 hex characters, distinct per trial (trial 0's equals canary_seed): a stochastic SUT seeds itself with it. */
  trial_seed: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
