import { z } from "zod";
import { BenchScoreSchema } from "./score.ts";
import { CurationClassSchema } from "./case.ts";
import { TrialCaseResultSchema, trialFields } from "./trials.ts";
import { RunMeteredSchema } from "./metered.ts";
import { ResourceLimitValuesSchema } from "./sandbox-limits.ts";
import {
  Blake3DigestSchema,
  CaseIdSchema,
  FailureModeCodeSchema,
  Sha256DigestSchema,
  SignatureSchema,
  TaskClassNameSchema,
  TimestampSchema,
  UnitIntervalSchema,
  UsdSchema,
} from "./primitives.ts";

/**
 * How rubrics were isolated when the run scored its cases. Promotion refuses to mix evidence across
 * classes: scores are not invariant under an isolation change.
 * - `bwrap`: a bubblewrap sandbox (user, PID, IPC, UTS and network namespaces; a read-only view of the
 *   system, its bench without other cases, this case and the SUT's workspace; its temp dir writable).
 * - `bwrap-permission`: the above with Node's permission model inside (Node rubrics).
 * - `subprocess`: own process group, scrubbed env, temporary cwd, capped output (`--sandbox none`).
 * - `subprocess-permission`: the above plus Node's permission model (fs read/write limits, no child processes).
 * - `subprocess-permission-netns`: the above plus an empty network namespace.
 * - `microvm`: reserved for a stronger future sandbox.
 */
export const IsolationClassSchema = z.enum([
  "bwrap",
  "bwrap-permission",
  "subprocess",
  "subprocess-permission",
  "subprocess-permission-netns",
  "microvm",
]);

/** The isolation classes the bubblewrap sandbox gives (what a tier's `require_sandbox` asks for). */
export const SANDBOXED_ISOLATION_CLASSES = ["bwrap", "bwrap-permission", "microvm"] as const;

/**
 * How the system under test ran.
 * - `bwrap`: a program (command SUT, agent CLI) in the bubblewrap sandbox, no network;
 * - `bwrap-network`: the same with the host's network (an agent CLI on a subscription login);
 * - `process`: a program as a plain subprocess (`--sandbox none`): it can see the host;
 * - `in-process`: a `module:` SUT, trusted code in the harness's process (its deadline is enforced);
 * - `harness`: evalgate's own code (`replay` of recorded cassettes): nothing untrusted runs;
 * - `bwrap-bridge`: an agent CLI in the sandbox with its own loopback-only network, whose one way out is
 *   evalgate's model bridge (which holds the real key).
 * - `bwrap-slirp4netns`: a command SUT in the sandbox with its own network namespace whose way out is
 *   slirp4netns, without the host's loopback (`--sut-network`).
 */
export const SutIsolationSchema = z.enum([
  "bwrap",
  "bwrap-network",
  "process",
  "in-process",
  "harness",
  "bwrap-bridge",
  "bwrap-slirp4netns",
]);

/** How a task class's rubric scores: exactly 0/1 with passed iff 1, or anywhere in [0, 1]. */
export const ScoreKindSchema = z.enum(["binary", "graded"]);

/** The statistic `lower_bound_95` holds: one per score kind, never chosen from the data. */
export const LowerBoundMethodSchema = z.enum([
  /** Binary task classes: the exact one-sided Clopper-Pearson bound on the pass rate. */
  "clopper_pearson",
  /** Graded task classes: the betting bound on the mean score (Waudby-Smith & Ramdas 2024), valid at every n. */
  "betting",
]);

/** What `lower_bound_95` bounds from below, with 95% confidence. */
export const BoundQuantitySchema = z.enum(["pass_rate", "mean_score"]);

export const CaseResultSchema = z.strictObject({
  case_id: CaseIdSchema,
  curation_class: CurationClassSchema,
  score: BenchScoreSchema,
});

/**
 * Which cases a run was asked to score. Evidence for a promotion must cover the whole task class:
 * a run over a hand-picked subset says so here, and the promotion gate refuses it.
 */
export const SelectionSchema = z.strictObject({
  /** `full` when every case of the task class was selected. */
  scope: z.enum(["full", "subset"]),
  /** The case filter as given (a glob on case_id), `(predicate)` for a library predicate, null for none. */
  filter: z.string().max(2000).nullable(),
  /** Cases the task class holds. */
  task_class_case_count: z.number().int().min(0),
  /** Cases the filter selected (the run's plan). */
  selected_case_count: z.number().int().min(1),
  /** BLAKE3 over the domain tag `evalgate.case_selection.v1` and the sorted case ids, each length-prefixed: the exact set. */
  selected_case_ids_digest: Blake3DigestSchema,
});

/** Figures a report carries for people to read. Never a gate's input. */
export const InformationalBoundsSchema = z.strictObject({
  /** BCa bootstrap of the mean with `bootstrap_resamples` seeded resamples; null when undefined (n < 2, no spread). */
  bca_lower_bound_95: UnitIntervalSchema.nullable(),
  bootstrap_resamples: z.number().int().min(0),
  /** Derived from the run's inputs (its cache keys), so identical inputs give identical figures. */
  bootstrap_seed: z.string().min(1),
  /** Wilson score bound on passed_count / n; null with no cases. */
  wilson_lower_bound_95: UnitIntervalSchema.nullable(),
});

/** What identifies a run and what it ran: the same in every report version. */
const runIdentityFields = {
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
};

/** The run's totals and its place in the chain: the same in every report version. */
const runTotalsFields = {
  passed_count: z.number().int().min(0),
  total_cost_usd: UsdSchema,
  /** Deduplicated, sorted. */
  block_severity_failure_modes: z.array(FailureModeCodeSchema),
  /** The chain head this run extended (`sha256:` + zeros for the first record). */
  prev_hash: Sha256DigestSchema,
  /** Filled in by the audit chain after appending; null in the hashed content. */
  chain_head: Sha256DigestSchema.nullable(),
};

/** What a v2 and a v3 report both hold between identity and totals. */
const runBodyFields = {
  /** How the rubric ran. */
  isolation_class: IsolationClassSchema,
  /** How the system under test ran. */
  sut_isolation: SutIsolationSchema,
  /**
   * How sandboxed processes (the SUT program, the rubric, the agent CLI) were limited in processes, memory
   * and disk: a cgroup per process, rlimits, or none (nothing sandboxed, or no means); absent in older reports.
   */
  resource_limits: z.enum(["cgroup", "rlimit", "none"]).optional(),
  /**
   * The limits themselves, per sandboxed component (`sut`: a `command:` SUT, null otherwise; `rubric`):
   * defaults, raised or lowered by the task class's `limits` and `--sut-*` flags; absent in older reports.
   */
  resource_limit_values: ResourceLimitValuesSchema.optional(),
  started_at: TimestampSchema,
  ended_at: TimestampSchema,
  complete: z.boolean(),
  /**
   * Why an incomplete run stopped early (null for a complete run); `harness_error`: a fault outside
   * every case (a full disk, a cache that cannot be written) stopped it, and what finished is recorded.
   */
  incomplete_reason: z.enum(["cost_cap", "interrupted", "cancelled", "units_missing", "harness_error"]).nullable(),
  selection: SelectionSchema,
  /** Cases the plan selected (= selection.selected_case_count); `per_case` is shorter when the run was cut short. */
  case_count: z.number().int().min(0),
  /** In case_id order. */
  per_case: z.array(CaseResultSchema),
  score_kind: ScoreKindSchema,
  mean_score: UnitIntervalSchema,
  score_stddev: z.number().min(0),
  /** The one-sided 95% lower bound a promotion gate reads: of `bound_quantity`, by `lower_bound_method`. */
  lower_bound_95: UnitIntervalSchema,
  lower_bound_method: LowerBoundMethodSchema,
  bound_quantity: BoundQuantitySchema,
  informational: InformationalBoundsSchema,
};

const caseCountMatchesSelection = {
  check: (report: { case_count: number; selection: { selected_case_count: number } }) =>
    report.case_count === report.selection.selected_case_count,
  params: { message: "case_count must equal selection.selected_case_count", path: ["case_count"] },
};

export const RUN_REPORT_V2_SCHEMA_VERSION = "evalgate.bench_run_report.v2";

/** Reports recorded before trials per case (v2): read so that old chains verify and old runs keep their verdicts. */
export const BenchRunReportV2Schema = z
  .strictObject({
    schema_version: z.literal(RUN_REPORT_V2_SCHEMA_VERSION),
    ...runIdentityFields,
    ...runBodyFields,
    ...runTotalsFields,
  })
  .refine(caseCountMatchesSelection.check, caseCountMatchesSelection.params);

export const RUN_REPORT_SCHEMA_VERSION = "evalgate.bench_run_report.v3";

/**
 * A rescore (`evalgate rescore`): the recorded outputs of `run_id` (its SUT's digest, scored then under
 * `rubric_digest`) scored again by the current rubric without calling the SUT.
 */
export const RescoreOfSchema = z.strictObject({
  run_id: z.string().min(1).max(200),
  sut_digest: Blake3DigestSchema,
  rubric_digest: Blake3DigestSchema,
});

/** The aggregate of one run: what the audit chain records and the promotion gate reads. */
export const BenchRunReportSchema = z
  .strictObject({
    schema_version: z.literal(RUN_REPORT_SCHEMA_VERSION),
    ...runIdentityFields,
    ...runBodyFields,
    /** In case_id order; with trials_per_case > 1 each entry carries every trial. */
    per_case: z.array(TrialCaseResultSchema),
    ...trialFields,
    ...runTotalsFields,
    /** Present on a rescore only: the run whose recorded outputs this run scored. */
    rescore_of: RescoreOfSchema.optional(),
    /** Present when any executed trial's agent ran behind the model bridge: its metered sums. */
    metered: RunMeteredSchema.optional(),
  })
  .refine(caseCountMatchesSelection.check, caseCountMatchesSelection.params);

export const RUN_REPORT_V1_SCHEMA_VERSION = "evalgate.bench_run_report.v1";

/**
 * Reports recorded before v2 (no selection, a data-dependent Wilson/BCa bound). Read so that old chains
 * still verify and old runs can be shown; they can never support a promotion.
 */
export const BenchRunReportV1Schema = z.strictObject({
  schema_version: z.literal(RUN_REPORT_V1_SCHEMA_VERSION),
  ...runIdentityFields,
  isolation_class: IsolationClassSchema,
  started_at: TimestampSchema,
  ended_at: TimestampSchema,
  complete: z.boolean(),
  case_count: z.number().int().min(0),
  per_case: z.array(CaseResultSchema),
  mean_score: UnitIntervalSchema,
  score_stddev: z.number().min(0),
  lower_bound_95: UnitIntervalSchema,
  lower_bound_method: z.enum(["bca_bootstrap", "wilson", "degenerate"]),
  bca_lower_bound_95: UnitIntervalSchema.nullable(),
  wilson_lower_bound_95: UnitIntervalSchema.nullable(),
  bootstrap_resamples: z.number().int().min(0),
  bootstrap_seed: z.string().min(1),
  ...runTotalsFields,
});

/** Any report a chain may hold, told apart by `schema_version`. */
export const AnyBenchRunReportSchema = z.discriminatedUnion("schema_version", [
  BenchRunReportSchema,
  BenchRunReportV2Schema,
  BenchRunReportV1Schema,
]);

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
  /** Any report version: a chain keeps the records it was given. */
  report: AnyBenchRunReportSchema,
  /** Present when a signing key was set: signs every other field (docs/audit-and-promotion.md). */
  signature: SignatureSchema.optional(),
});

export const CHAIN_ANCHOR_SCHEMA_VERSION = "evalgate.chain_anchor.v1";

/**
 * A chain's head at one moment, kept outside the state directory (a CI artifact, a commit): a later chain must
 * still contain `head` as its record number `records` - 1, so deleting the newest records (with the checkpoint
 * and head pointer restored) cannot pass as never having made them.
 */
export const ChainAnchorSchema = z.strictObject({
  schema_version: z.literal(CHAIN_ANCHOR_SCHEMA_VERSION),
  /** The newest record's chain_hash when the anchor was taken. */
  head: Sha256DigestSchema,
  /** Records in the chain then (the head's sequence + 1). */
  records: z.number().int().min(1),
  host_fingerprint: z.uuid(),
  /** The head record's recorded_at. */
  recorded_at: z.iso.datetime({ precision: 3 }),
  /** Present when a signing key was set: signs every other field, so the anchor cannot be moved without the key. */
  signature: SignatureSchema.optional(),
});
