// The lines evalgate prints in its machine format (`--format jsonl`, the default): one JSON document per
// line, each with a `type` a reader dispatches on and the `schema_version` of its shape. A line that
// carries a document with its own schema (a verdict, a comparison, an anchor) keeps that document's version.
import { z } from "zod";
import { BenchCaseSchema, CaseSourceSchema, CurationClassSchema, DifficultySchema, DispositionSchema } from "./case.ts";
import { ComparisonSchema } from "./comparison.ts";
import { PromotionVerdictSchema } from "./promotion.ts";
import {
  Blake3DigestSchema,
  CaseIdSchema,
  Sha256DigestSchema,
  TaskClassNameSchema,
  TierNameSchema,
  TimestampSchema,
  UnitIntervalSchema,
} from "./primitives.ts";
import {
  BenchRunReportSchema,
  BenchRunReportV1Schema,
  BenchRunReportV2Schema,
  BoundQuantitySchema,
  ChainAnchorSchema,
  InformationalBoundsSchema,
  IsolationClassSchema,
  LowerBoundMethodSchema,
  RescoreOfSchema,
  ScoreKindSchema,
  SutIsolationSchema,
} from "./report.ts";
import { BenchScoreSchema } from "./score.ts";
import { TranscriptSchema } from "./transcript.ts";
import { ReliabilitySchema } from "./trials.ts";
import { RunMeteredSchema } from "./metered.ts";
import { AgentAdapterNameSchema } from "./cassette.ts";
import {
  ADAPTER_LINE_SCHEMA_VERSION,
  ADAPTER_READINESS_LINE_SCHEMA_VERSION,
  BENCH_CASE_LINE_SCHEMA_VERSION,
  BENCH_SHOW_LINE_SCHEMA_VERSION,
  BENCH_TASK_CLASS_LINE_SCHEMA_VERSION,
  CACHE_GC_LINE_SCHEMA_VERSION,
  CACHE_STATS_LINE_SCHEMA_VERSION,
  GC_LINE_SCHEMA_VERSION,
  MERGE_LINE_SCHEMA_VERSION,
  MODEL_STUB_LINE_SCHEMA_VERSION,
  MODEL_STUB_STOPPED_LINE_SCHEMA_VERSION,
  PLAN_LINE_SCHEMA_VERSION,
  RECORDED_RUN_LINE_SCHEMA_VERSION,
  REPORT_CASE_LINE_SCHEMA_VERSION,
  REPORT_DATA_SCHEMA_VERSION,
  REPORT_LINE_SCHEMA_VERSION,
  RUN_CASE_LINE_SCHEMA_VERSION,
  RUN_SUMMARY_LINE_SCHEMA_VERSION,
  SHARD_LINE_SCHEMA_VERSION,
  VERIFY_LINE_SCHEMA_VERSION,
  WARNING_LINE_SCHEMA_VERSION,
} from "./names.ts";

const RunIdSchema = z.string().min(1).max(200);

/** `run` and `rescore`: one line per case (per trial when the run had trials), before the summary. */
export const RunCaseLineSchema = z.strictObject({
  type: z.literal("case"),
  schema_version: z.literal(RUN_CASE_LINE_SCHEMA_VERSION),
  case_id: CaseIdSchema,
  /** Present when the run had more than one trial per case. */
  trial: z.number().int().min(0).optional(),
  score: BenchScoreSchema,
  cache_hit: z.boolean(),
});

/** `run` and `rescore`: the recorded run's summary, after its case lines. */
export const RunSummaryLineSchema = z.strictObject({
  type: z.literal("run"),
  schema_version: z.literal(RUN_SUMMARY_LINE_SCHEMA_VERSION),
  run_id: RunIdSchema,
  task_class: TaskClassNameSchema,
  sut_label: z.string().min(1),
  complete: z.boolean(),
  case_count: z.number().int().min(0),
  scope: z.enum(["full", "subset"]),
  task_class_case_count: z.number().int().min(0),
  scored: z.number().int().min(0),
  cache_hits: z.number().int().min(0),
  mean_score: UnitIntervalSchema,
  score_stddev: z.number().min(0),
  score_kind: ScoreKindSchema,
  lower_bound_95: UnitIntervalSchema,
  lower_bound_method: LowerBoundMethodSchema,
  bound_quantity: BoundQuantitySchema,
  informational: InformationalBoundsSchema,
  passed_count: z.number().int().min(0),
  trials_per_case: z.number().int().min(1),
  reliability: ReliabilitySchema,
  harness_error_count: z.number().int().min(0),
  harness_errored_case_ids: z.array(CaseIdSchema),
  failed_trial_count: z.number().int().min(0),
  total_cost_usd: z.number().min(0),
  block_severity_failure_modes: z.array(z.string()),
  isolation_class: IsolationClassSchema,
  sut_isolation: SutIsolationSchema,
  chain_head: Sha256DigestSchema.nullable(),
  record_path: z.string().min(1),
  /** `rescore` only: the run whose recorded outputs were scored again (null when the record says none). */
  rescore_of: RescoreOfSchema.nullable().optional(),
  /** Present when any executed trial's agent ran behind the model bridge: the report's metered sums. */
  metered: RunMeteredSchema.optional(),
});

/** `run` / `promote-verdict`: the verdict and the file it was written to. */
export const VerdictLineSchema = PromotionVerdictSchema.extend({ type: z.literal("verdict"), path: z.string().min(1) });

/** `compare`: the comparison, and its file with `--write`. */
export const ComparisonLineSchema = ComparisonSchema.extend({
  type: z.literal("comparison"),
  path: z.string().min(1).optional(),
});

/** `run --shard i/N`: the shard's bundle. */
export const ShardLineSchema = z.strictObject({
  type: z.literal("shard"),
  schema_version: z.literal(SHARD_LINE_SCHEMA_VERSION),
  plan_id: z.string().min(1),
  /** `i/N`. */
  shard: z.string().regex(/^\d+\/\d+$/),
  units: z.number().int().min(0),
  cache_hits: z.number().int().min(0),
  complete: z.boolean(),
  bundle: z.string().min(1),
});

/** `plan`: the plan file written. */
export const PlanLineSchema = z.strictObject({
  type: z.literal("plan"),
  schema_version: z.literal(PLAN_LINE_SCHEMA_VERSION),
  plan_id: z.string().min(1),
  task_class: TaskClassNameSchema,
  cases: z.number().int().min(0),
  trials: z.number().int().min(1),
  units: z.number().int().min(0),
  path: z.string().min(1),
});

/** `merge`: the run recorded from the shards' bundles. */
export const MergeLineSchema = z.strictObject({
  type: z.literal("merge"),
  schema_version: z.literal(MERGE_LINE_SCHEMA_VERSION),
  plan_id: z.string().min(1),
  run_id: RunIdSchema,
  /** False when this exact run was already recorded (the merge is idempotent). */
  appended: z.boolean(),
  bundles: z.number().int().min(1),
  duplicates: z.number().int().min(0),
  /** Units no bundle held, `<case_id>#t<trial>`. */
  missing: z.array(z.string()),
  complete: z.boolean(),
  case_count: z.number().int().min(0),
  scored: z.number().int().min(0),
  mean_score: UnitIntervalSchema,
  score_stddev: z.number().min(0),
  lower_bound_95: UnitIntervalSchema,
  lower_bound_method: z.string().min(1),
  passed_count: z.number().int().min(0),
  chain_head: Sha256DigestSchema.nullable(),
  record_path: z.string().min(1),
});

const ChainFaultSchema = z.strictObject({
  file: z.string(),
  reason: z.string(),
  expected: z.string(),
  found: z.string(),
});

/** `verify`'s comparison of the history index (a derived file) with the chain, once the chain verifies. */
const HistoryIndexCheckSchema = z.strictObject({
  path: z.string().min(1),
  state: z.enum(["absent", "agrees", "unusable", "disagrees"]),
  entries: z.number().int().min(0),
  behind: z.number().int().min(0),
  compared: z.number().int().min(0),
  problem: z.string().nullable(),
  disagreements: z.number().int().min(0),
  listed: z.array(
    z.strictObject({
      run_id: z.string(),
      file: z.string(),
      kind: z.enum(["summary", "missing", "extra", "order"]),
      detail: z.string(),
    }),
  ),
});

/** `verify`: whether the audit chain verifies, and where it first does not. */
export const VerifyLineSchema = z.strictObject({
  type: z.literal("verify"),
  schema_version: z.literal(VERIFY_LINE_SCHEMA_VERSION),
  runs_dir: z.string().min(1),
  ok: z.boolean(),
  records: z.number().int().min(0),
  complete: z.number().int().min(0),
  incomplete: z.number().int().min(0),
  skipped: z.number().int().min(0),
  head: z.string(),
  host_fingerprint: z.string().nullable(),
  strict: z.boolean(),
  first_bad: ChainFaultSchema.nullable(),
  duplicate_run_ids: z.array(z.string()),
  /** Null when the chain did not verify (the index is not compared). */
  history_index: HistoryIndexCheckSchema.nullable(),
});

/** `runs`: one recorded run per line, newest first. */
export const RecordedRunLineSchema = z.strictObject({
  type: z.literal("recorded_run"),
  schema_version: z.literal(RECORDED_RUN_LINE_SCHEMA_VERSION),
  run_id: RunIdSchema,
  recorded_at: TimestampSchema,
  task_class: TaskClassNameSchema,
  sut_label: z.string().min(1),
  sut_digest: Blake3DigestSchema,
  /** null for v1 reports, which recorded no selection. */
  scope: z.enum(["full", "subset"]).nullable(),
  case_count: z.number().int().min(0),
  mean_score: UnitIntervalSchema,
  lower_bound_95: UnitIntervalSchema,
  complete: z.boolean(),
  signed: z.boolean(),
  chain_hash: Sha256DigestSchema,
});

/** `report`: the HTML file written. */
export const ReportLineSchema = z.strictObject({
  type: z.literal("report"),
  schema_version: z.literal(REPORT_LINE_SCHEMA_VERSION),
  path: z.string().min(1),
  run_id: RunIdSchema,
  task_class: TaskClassNameSchema,
  cases: z.number().int().min(0),
  bytes: z.number().int().min(0),
  compressed: z.boolean(),
  data_sha256: z.string().min(1),
});

const StreamTextSchema = z.strictObject({ text: z.string(), bytes: z.number().int().min(0), truncated: z.boolean() });

const CaseEvidenceSchema = z.strictObject({
  executed_in_run: z.string(),
  sut_error: z.string().nullable(),
  sut_wall_clock_ms: z.number().min(0),
  rubric_wall_clock_ms: z.number().min(0).nullable(),
  rubric_exit_code: z.number().int().nullable(),
  rubric_stderr: z.string().nullable(),
  diff: z.string().nullable(),
  diff_source: z.enum(["harness", "sut"]).nullable(),
  changed_files: z.array(
    z.strictObject({
      path: z.string(),
      status: z.enum(["added", "changed", "deleted"]),
      bytes: z.number().int().min(0),
    }),
  ),
  sut_stdout: StreamTextSchema.nullable(),
  sut_stderr: StreamTextSchema.nullable(),
});

const ReportTrialSchema = z.strictObject({
  trial: z.number().int().min(0),
  score: BenchScoreSchema,
  evidence: CaseEvidenceSchema.nullable(),
  transcript: TranscriptSchema.nullable(),
});

/** One case of a run as `show` and the HTML report present it (trial 0's score, evidence and transcript). */
const reportCaseFields = {
  case_id: CaseIdSchema,
  curation_class: CurationClassSchema,
  score: BenchScoreSchema,
  cache_hit: z.boolean().nullable(),
  trials: z.strictObject({ passed: z.number().int().min(0), total: z.number().int().min(1) }).nullable(),
  trial_runs: z.array(ReportTrialSchema).nullable(),
  evidence: CaseEvidenceSchema.nullable(),
  transcript: TranscriptSchema.nullable(),
  baseline: z.strictObject({ score: UnitIntervalSchema, passed: z.boolean() }).nullable(),
};

/** `show --case <id> [--trial t]`: one case (or one of its trials, in the same shape). */
export const ReportCaseLineSchema = z.strictObject({
  schema_version: z.literal(REPORT_CASE_LINE_SCHEMA_VERSION),
  run_id: RunIdSchema,
  ...reportCaseFields,
});

/** A recorded report without its `per_case` (summarised in `cases`), of any report version. */
const ReportRunSchema = z.discriminatedUnion("schema_version", [
  z.strictObject(BenchRunReportSchema.shape).omit({ per_case: true }),
  z.strictObject(BenchRunReportV2Schema.shape).omit({ per_case: true }),
  z.strictObject(BenchRunReportV1Schema.shape).omit({ per_case: true }),
]);

/** `show` (no `--case`): everything the HTML report embeds about one run. */
export const ReportDataSchema = z.strictObject({
  schema_version: z.literal(REPORT_DATA_SCHEMA_VERSION),
  generated_at: TimestampSchema,
  harness_version: z.string().min(1),
  run: ReportRunSchema,
  record: z.strictObject({
    file: z.string(),
    sequence: z.number().int().min(0),
    recorded_at: TimestampSchema,
    content_hash: z.string(),
    chain_hash: z.string(),
  }),
  chain: z.strictObject({
    head: z.string(),
    verified: z.boolean(),
    records: z.number().int().min(0),
    problem: z.string().nullable(),
  }),
  verdicts: z.array(PromotionVerdictSchema),
  tiers: z.array(z.strictObject({ name: TierNameSchema, threshold: UnitIntervalSchema })),
  trend: z.array(
    z.strictObject({
      run_id: RunIdSchema,
      ended_at: TimestampSchema,
      mean_score: UnitIntervalSchema,
      lower_bound_95: UnitIntervalSchema,
      pass_rate: UnitIntervalSchema,
    }),
  ),
  cases: z.array(z.strictObject(reportCaseFields)),
  baseline: z
    .strictObject({
      run_id: RunIdSchema,
      mean_score: UnitIntervalSchema,
      lower_bound_95: UnitIntervalSchema,
      passed_count: z.number().int().min(0),
      case_count: z.number().int().min(0),
      newly_passing: z.number().int().min(0),
      newly_failing: z.number().int().min(0),
      mean_score_change: z.number().min(-1).max(1),
      shared_cases: z.number().int().min(0),
    })
    .nullable(),
});

/** `anchor`: the anchor written and where. */
export const AnchorLineSchema = ChainAnchorSchema.extend({ type: z.literal("anchor"), path: z.string().min(1) });

/** `gc`: what was removed from the state directory. */
export const GcLineSchema = z.strictObject({
  type: z.literal("gc"),
  schema_version: z.literal(GC_LINE_SCHEMA_VERSION),
  /** The paths removed, each kind apart. */
  removed_temp_dirs: z.array(z.string()),
  removed_detail_dirs: z.array(z.string()),
  /** Detail directories of recorded runs no longer in the chain (a possible truncation): kept, never removed. */
  kept_removed_run_dirs: z.array(z.string()),
  removed_stale_files: z.array(z.string()),
  removed_cache_entries: z.number().int().min(0),
  removed_cache_temp_files: z.number().int().min(0),
  /** Captured-workspace blobs (`blobs/`) that no detail file and no live run references, and the bytes freed. */
  removed_blobs: z.number().int().min(0),
  freed_blob_bytes: z.number().int().min(0),
  /** Torn transcript lines blanked in place, per file, each kept in `kept_in` with its line number. */
  repaired_torn_lines: z.array(
    z.strictObject({ path: z.string(), lines: z.array(z.number().int().min(1)), kept_in: z.string().nullable() }),
  ),
});

/** `cache gc`: what was removed from the score cache. */
export const CacheGcLineSchema = z.strictObject({
  type: z.literal("cache_gc"),
  schema_version: z.literal(CACHE_GC_LINE_SCHEMA_VERSION),
  dir: z.string().min(1),
  older_than_days: z.number().min(0),
  removed_entries: z.number().int().min(0),
  removed_temp_files: z.number().int().min(0),
  kept_entries: z.number().int().min(0),
  unverified_entries: z.number().int().min(0),
});

/** `cache stats`: the score cache's size and age. */
export const CacheStatsLineSchema = z.strictObject({
  type: z.literal("cache_stats"),
  schema_version: z.literal(CACHE_STATS_LINE_SCHEMA_VERSION),
  dir: z.string().min(1),
  entries: z.number().int().min(0),
  unverified: z.number().int().min(0),
  bytes: z.number().int().min(0),
  orphaned_temp_files: z.number().int().min(0),
  oldest_stored_at: TimestampSchema.nullable(),
  newest_stored_at: TimestampSchema.nullable(),
});

/** A warning, on stderr, from any command in the machine format. */
export const WarningLineSchema = z.strictObject({
  level: z.literal("warn"),
  schema_version: z.literal(WARNING_LINE_SCHEMA_VERSION),
  /** Stable and dotted, e.g. `case.stale`. */
  code: z.string().min(1),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** `bench list`: one line per registered task class. */
export const BenchTaskClassLineSchema = z.strictObject({
  type: z.literal("bench_task_class"),
  schema_version: z.literal(BENCH_TASK_CLASS_LINE_SCHEMA_VERSION),
  task_class: TaskClassNameSchema,
  bench_path: z.string().min(1),
  cases: z.number().int().min(0),
  held_out: z.number().int().min(0),
  /** Passed cases a run needs per tier, as the registration declares them. */
  min_cases_for_promotion: z.record(z.string(), z.number().int().min(0)),
  rubric_digest: Blake3DigestSchema,
  description: z.string().nullable(),
});

/** `bench list --task-class <name>`: one line per case (digests not verified). */
export const BenchCaseLineSchema = z.strictObject({
  type: z.literal("bench_case"),
  schema_version: z.literal(BENCH_CASE_LINE_SCHEMA_VERSION),
  task_class: TaskClassNameSchema,
  case_id: CaseIdSchema,
  curation_class: CurationClassSchema,
  disposition: DispositionSchema,
  difficulty: DifficultySchema,
  source: CaseSourceSchema,
  last_validated_at: TimestampSchema,
  /** Whether the case ships a recorded SUT session. */
  cassette: z.boolean(),
  title: z.string().optional(),
});

/** `bench show <case-id>`: the loaded, digest-verified case. */
export const BenchShowLineSchema = z.strictObject({
  type: z.literal("bench_show"),
  schema_version: z.literal(BENCH_SHOW_LINE_SCHEMA_VERSION),
  ...BenchCaseSchema.shape,
});

/** `adapters list`: one line per agent-CLI adapter, with where its binary was found. */
export const AdapterLineSchema = z.strictObject({
  type: z.literal("adapter"),
  schema_version: z.literal(ADAPTER_LINE_SCHEMA_VERSION),
  adapter: z.string().min(1),
  display_name: z.string().min(1),
  binary: z.string().min(1),
  /** null: not on PATH (nor named by EVALGATE_CLI_BINARY_<ADAPTER>). */
  binary_path: z.string().nullable(),
  npm_package: z.string().min(1),
  stream_format: z.string().min(1),
  sut: z.string().min(1),
  capabilities: z.record(z.string(), z.unknown()),
});

/** One readiness check: passed (true), failed (false) or unknown (null), and what was found. */
const readinessCheckFields = { ok: z.boolean().nullable(), detail: z.string() };

/** `adapters doctor`: one line per adapter checked, whether it is ready to run live and why (not). */
export const AdapterReadinessLineSchema = z.strictObject({
  type: z.literal("adapter_readiness"),
  schema_version: z.literal(ADAPTER_READINESS_LINE_SCHEMA_VERSION),
  adapter: AgentAdapterNameSchema,
  /** Binary and version found, login not refused, compliance report fresh. */
  ready: z.boolean(),
  binary: z.strictObject({ ...readinessCheckFields, path: z.string().nullable() }),
  version: z.strictObject({ ...readinessCheckFields, value: z.string().nullable() }),
  login: z.strictObject(readinessCheckFields),
  compliance: z.strictObject({ ...readinessCheckFields, report_path: z.string().nullable() }),
  /** What the CLI cannot do whatever it is asked (null: nothing known); not part of `ready`. */
  limits: z.string().nullable(),
});

/** `model-stub`, on start: where the scripted model endpoint listens. */
export const ModelStubLineSchema = z.strictObject({
  type: z.literal("model_stub"),
  schema_version: z.literal(MODEL_STUB_LINE_SCHEMA_VERSION),
  url: z.url(),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65_535),
});

/** `model-stub`, on SIGINT/SIGTERM once closed: how many requests it answered. */
export const ModelStubStoppedLineSchema = z.strictObject({
  type: z.literal("model_stub_stopped"),
  schema_version: z.literal(MODEL_STUB_STOPPED_LINE_SCHEMA_VERSION),
  stopped: z.literal(true),
  requests: z.number().int().min(0),
});
