import { z } from "zod";
import { BenchScoreSchema } from "./score.ts";
import { CurationClassSchema } from "./case.ts";
import {
  Blake3DigestSchema,
  CaseIdSchema,
  FailureModeCodeSchema,
  Sha256DigestSchema,
  TaskClassNameSchema,
  TimestampSchema,
  UnitIntervalSchema,
  UsdSchema,
} from "./primitives.ts";

/**
 * How rubrics were isolated when the run scored its cases. Promotion refuses to mix evidence across
 * classes: scores are not invariant under an isolation change.
 * - `subprocess`: own process group, scrubbed env, temporary cwd, capped output.
 * - `subprocess-permission`: the above plus Node's permission model (fs read/write limits, no child processes).
 * - `subprocess-permission-netns`: the above plus an empty network namespace.
 * - `microvm`: reserved for a stronger future sandbox.
 */
export const IsolationClassSchema = z.enum([
  "subprocess",
  "subprocess-permission",
  "subprocess-permission-netns",
  "microvm",
]);

/** Which statistic `lower_bound_95` holds. */
export const LowerBoundMethodSchema = z.enum([
  /** BCa bootstrap over case scores. */
  "bca_bootstrap",
  /** Wilson score interval on the pass rate, used when scores are effectively binary. */
  "wilson",
  /** Too few cases or no spread: the bound is the minimum score (n = 1 or all scores equal). */
  "degenerate",
]);

export const CaseResultSchema = z.strictObject({
  case_id: CaseIdSchema,
  curation_class: CurationClassSchema,
  score: BenchScoreSchema,
});

export const RUN_REPORT_SCHEMA_VERSION = "evalgate.bench_run_report.v1";

/** The aggregate of one run: what the audit chain records and the promotion gate reads. */
export const BenchRunReportSchema = z.strictObject({
  schema_version: z.literal(RUN_REPORT_SCHEMA_VERSION),
  /** Unique per run; prefixed `partial:` when the run was cut short (then `complete` is false). */
  run_id: z.string().min(1).max(200),
  task_class: TaskClassNameSchema,
  harness_version: z.string().min(1),
  /** Human-readable name of the system under test, e.g. `replay` or `command:./fix.sh`. */
  sut_label: z.string().min(1).max(500),
  sut_digest: Blake3DigestSchema,
  rubric_digest: Blake3DigestSchema,
  cassette_corpus_digest: Blake3DigestSchema,
  host_fingerprint: z.uuid(),
  isolation_class: IsolationClassSchema,
  started_at: TimestampSchema,
  ended_at: TimestampSchema,
  complete: z.boolean(),
  /** Cases the plan selected; `per_case` is shorter when the run was cut short. */
  case_count: z.number().int().min(0),
  /** In case_id order. */
  per_case: z.array(CaseResultSchema),
  mean_score: UnitIntervalSchema,
  score_stddev: z.number().min(0),
  /** The one-sided 95% lower bound a promotion gate reads; `lower_bound_method` says which statistic. */
  lower_bound_95: UnitIntervalSchema,
  lower_bound_method: LowerBoundMethodSchema,
  bca_lower_bound_95: UnitIntervalSchema.nullable(),
  wilson_lower_bound_95: UnitIntervalSchema.nullable(),
  bootstrap_resamples: z.number().int().min(0),
  /** Derived from the run's inputs (its cache keys), so identical inputs give identical statistics. */
  bootstrap_seed: z.string().min(1),
  passed_count: z.number().int().min(0),
  total_cost_usd: UsdSchema,
  /** Deduplicated, sorted. */
  block_severity_failure_modes: z.array(FailureModeCodeSchema),
  /** The chain head this run extended (`sha256:` + zeros for the first record). */
  prev_hash: Sha256DigestSchema,
  /** Filled in by the audit chain after appending; null in the hashed content. */
  chain_head: Sha256DigestSchema.nullable(),
});

export const GENESIS_PREV_HASH = `sha256:${"0".repeat(64)}`;

export const CHAIN_RECORD_SCHEMA_VERSION = "evalgate.chain_record.v1";

/** One file under `.evalgate/runs/`: a report and the hashes that chain it to its predecessor. */
export const ChainRecordSchema = z.strictObject({
  schema_version: z.literal(CHAIN_RECORD_SCHEMA_VERSION),
  /** 0 for the first record of this host's chain. */
  sequence: z.number().int().min(0),
  host_fingerprint: z.uuid(),
  /** UTC with milliseconds, strictly increasing along the chain; the record's file name starts with it. */
  recorded_at: z.iso.datetime({ precision: 3 }),
  prev_hash: Sha256DigestSchema,
  /** BLAKE3 of the UTF-8 bytes of the RFC 8785 canonical JSON of `report` with `chain_head` set to null. */
  content_hash: Blake3DigestSchema,
  /**
   * SHA-256 of the UTF-8 bytes of `prev_hash + "\n" + content_hash` (both in their prefixed text form):
   * this record's identity and the new chain head. Details: docs/audit-and-promotion.md.
   */
  chain_hash: Sha256DigestSchema,
  report: BenchRunReportSchema,
});
