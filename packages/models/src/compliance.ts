import { z } from "zod";
import { AgentAdapterNameSchema } from "./cassette.ts";
import { Sha256DigestSchema, TimestampSchema, UnitIntervalSchema } from "./primitives.ts";

/**
 * How one agent-CLI trial ended, decided from its output stream (never from the exit code alone):
 * - `parse_success`: a terminal success event, every event understood.
 * - `parse_failure`: stdout was not the promised JSON-lines stream, or ended without a terminal event.
 * - `model_refusal`: the model declined (a structured refusal signal, or a refusal phrase).
 * - `format_drift`: the stream parsed but carried unknown event types or lacked required fields.
 * - `cli_error`: the CLI itself failed (auth, network, timeout, output cap, its own error result...).
 */
export const TrialClassSchema = z.enum([
  "parse_success",
  "parse_failure",
  "model_refusal",
  "format_drift",
  "cli_error",
]);

/** Why a `cli_error` trial failed; `auth_failure` is named so operators know to log in, not to retry. */
export const CliErrorKindSchema = z.enum([
  "auth_failure",
  "timeout",
  "stdout_cap",
  "network_unreachable",
  "rate_limited",
  "untrusted_workspace",
  "config_error",
  "turn_limit",
  "tool_execution",
  "cancelled",
  "api_error",
  "no_result",
  "spawn_failed",
]);

/** Whether a provider's safety filter stopped the model. `unknown` is never coerced to `not_detected`. */
export const SafetyStateSchema = z.enum(["detected", "not_detected", "unknown"]);

export const SafetyDetectionSchema = z.strictObject({
  state: SafetyStateSchema,
  /** The structured event or phrase that decided `detected` (null otherwise). */
  signal: z.string().max(500).nullable(),
  source: z.enum(["structured", "phrase"]).nullable(),
});

export const TrialClassificationSchema = z
  .strictObject({
    trial_class: TrialClassSchema,
    /** Set exactly when `trial_class` is `cli_error`. */
    cli_error_kind: CliErrorKindSchema.nullable(),
    /** One line saying what in the stream decided the class. */
    reason: z.string().min(1).max(1000),
  })
  .superRefine((value, ctx) => {
    if ((value.trial_class === "cli_error") !== (value.cli_error_kind !== null)) {
      ctx.addIssue({
        code: "custom",
        path: ["cli_error_kind"],
        message: "must be set exactly when trial_class is cli_error",
      });
    }
  });

/** An environment variable visible to the CLI: its name only, never its value. */
export const EnvNameEntrySchema = z.strictObject({
  name: z.string().min(1),
  /** The name looks like it holds a credential (KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH, BEARER). */
  secret: z.boolean(),
});

/**
 * `backend_metadata` on every CLI-subscription trial: enough for an auditor to see exactly what ran,
 * how it ended, and which compliance evidence allowed it. No secret values, ever.
 */
export const CliBackendMetadataSchema = z.strictObject({
  backend_kind: z.literal("cli_subscription"),
  /**
   * Where the CLI ran its agent loop: `cli_subscription_bwrap`, in the bubblewrap sandbox (its workspace,
   * a temporary HOME with its login files, network); `cli_subscription_unsandboxed`, on the host
   * (`--sandbox none`, behind the two opt-ins).
   */
  isolation: z.enum(["cli_subscription_bwrap", "cli_subscription_unsandboxed"]),
  capabilities: z.array(z.enum(["agent_loop_external", "host_fs_visible"])),
  adapter: AgentAdapterNameSchema,
  cli_binary_path: z.string().min(1),
  cli_version: z.string().min(1),
  /** argv after redaction: secret flag values replaced by `<redacted>`; the prompt stays. */
  argv_redacted: z.array(z.string()),
  exit_code: z.number().int().nullable(),
  /** The signal that ended the CLI's top process, when one did. */
  exit_signal: z.string().nullable(),
  timed_out: z.boolean(),
  stdout_capped: z.boolean(),
  stdout_bytes: z.number().int().min(0),
  stderr_bytes: z.number().int().min(0),
  duration_ms: z.number().int().min(0),
  env_allowlist: z.array(EnvNameEntrySchema),
  /** The JSONL compliance report that allowed this backend to run (null only when the gate was overridden and none existed). */
  compliance_report_path: z.string().min(1).nullable(),
  compliance_stale_override: z.boolean(),
  /** Workspace-relative paths the CLI changed that were declared editable (and so were copied back). */
  changed_files: z.array(z.string()),
  /** Paths the CLI changed outside the declared editable set: recorded, never copied back. */
  undeclared_changes: z.array(z.string()),
});

export const COMPLIANCE_TRIAL_SCHEMA_VERSION = "evalgate.compliance_trial.v2";
export const COMPLIANCE_REPORT_SCHEMA_VERSION = "evalgate.compliance_report.v2";

/** Whether the task's expected effect on the workspace happened: each file the task expects, checked after the CLI exited. */
export const ComplianceEffectsSchema = z.strictObject({
  met: z.boolean(),
  /** One line per expected file that is missing or holds something else (what was expected, what was found). */
  unmet: z.array(z.string().max(500)),
});

/**
 * The model endpoint a compliance report was earned against: the origin the CLI was pointed at (scheme,
 * host and port; never a key or a path), and, when that endpoint is evalgate's scripted model stub, the
 * SHA-256 of the scenario it served. A report admits runs only against the same origin and scenario.
 */
export const ComplianceEndpointSchema = z.strictObject({
  origin: z.string().min(1).max(300),
  scenario_sha256: Sha256DigestSchema.nullable(),
});

/** One line of a compliance report: one benign task, run live. */
export const ComplianceTrialSchema = z.strictObject({
  schema_version: z.literal(COMPLIANCE_TRIAL_SCHEMA_VERSION),
  task_id: z.string().regex(/^[a-z0-9-]+$/),
  prompt_sha256: Sha256DigestSchema,
  /** False when the task was not run because an earlier one already showed an auth failure. */
  ran: z.boolean(),
  classification: TrialClassificationSchema.nullable(),
  safety: SafetyDetectionSchema.nullable(),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  stdout_capped: z.boolean(),
  duration_ms: z.number().int().min(0),
  unknown_event_types: z.array(z.string()),
  /** The task's expected effect on the workspace (null when the task did not run). */
  effects: ComplianceEffectsSchema.nullable(),
  /** `parse_success` and the expected effect happened: what the gate counts. */
  passed: z.boolean(),
});

/**
 * The last line of a compliance report (`<state>/compliance/<adapter>-<utc>.jsonl`): the verdict the
 * backend's gate reads. The gate requires the same binary path, version and endpoint, at most 30 days
 * of age, and `pass_rate >= threshold`.
 */
export const ComplianceReportSchema = z.strictObject({
  schema_version: z.literal(COMPLIANCE_REPORT_SCHEMA_VERSION),
  adapter: AgentAdapterNameSchema,
  cli_binary_path: z.string().min(1),
  cli_version: z.string().min(1),
  /** SHA-256 of the file the binary path resolves to (for a Node CLI, its entry script). */
  cli_binary_sha256: Sha256DigestSchema,
  endpoint: ComplianceEndpointSchema,
  /** SHA-256 over the benign task suite's ids, prompts, files and expected effects: which suite this verdict is about. */
  suite_sha256: Sha256DigestSchema,
  started_at: TimestampSchema,
  ended_at: TimestampSchema,
  task_count: z.number().int().min(1),
  ran_count: z.number().int().min(0),
  parse_success_count: z.number().int().min(0),
  /** Trials whose expected effect on the workspace happened. */
  effects_met_count: z.number().int().min(0),
  /** Trials that parsed and had their effect: the numerator of `pass_rate`. */
  passed_count: z.number().int().min(0),
  /** passed_count / task_count: a task not run counts as not passed. */
  pass_rate: UnitIntervalSchema,
  threshold: UnitIntervalSchema,
  passed: z.boolean(),
  trial_class_counts: z.record(TrialClassSchema, z.number().int().min(0)),
});
