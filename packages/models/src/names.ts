// Plain constants with no zod: the members of the wire enums and the schema versions of documents the
// CLI writes. The schemas are built from these, and the CLI imports them through the light
// `@eval/models/names` subpath, so it can name them in its help text without loading zod at start-up.

/** The agent CLIs evalgate drives (AgentAdapterNameSchema). */
export const AGENT_ADAPTER_NAMES = ["claude-code", "codex", "gemini", "pi"] as const;

/** The agents whose transcripts evalgate normalizes (TranscriptProviderSchema). */
export const TRANSCRIPT_PROVIDERS = ["claude-code", "codex", "copilot", "gemini", "pi"] as const;

/** The native session-log formats evalgate parses (TranscriptFormatSchema). */
export const TRANSCRIPT_FORMATS = [
  "claude-stream-json",
  "claude-session-jsonl",
  "codex-exec-json",
  "codex-rollout-jsonl",
  "gemini-stream-json",
  "copilot-events-jsonl",
  "pi-json",
  "codex-app-server",
  "copilot-acp",
] as const;

export const FENCE_FAILURE_SCHEMA_VERSION = "evalgate.fence_failure.v1";
export const FENCE_SUMMARY_SCHEMA_VERSION = "evalgate.fence_summary.v1";
export const BENCH_CHECK_SCHEMA_VERSION = "evalgate.bench_check.v1";
export const SIGN_RESULT_SCHEMA_VERSION = "evalgate.sign_result.v1";

/** The versions of the lines the CLI prints in its machine format (cli-lines.ts). */
export const RUN_CASE_LINE_SCHEMA_VERSION = "evalgate.run_case_line.v1";
export const RUN_SUMMARY_LINE_SCHEMA_VERSION = "evalgate.run_summary_line.v1";
export const SHARD_LINE_SCHEMA_VERSION = "evalgate.shard_line.v1";
export const PLAN_LINE_SCHEMA_VERSION = "evalgate.plan_line.v1";
export const MERGE_LINE_SCHEMA_VERSION = "evalgate.merge_line.v1";
export const VERIFY_LINE_SCHEMA_VERSION = "evalgate.verify_line.v2";
export const RECORDED_RUN_LINE_SCHEMA_VERSION = "evalgate.recorded_run_line.v1";
export const REPORT_LINE_SCHEMA_VERSION = "evalgate.report_line.v1";
export const REPORT_DATA_SCHEMA_VERSION = "evalgate.report_data.v2";
export const REPORT_CASE_LINE_SCHEMA_VERSION = "evalgate.report_case_line.v1";
export const GC_LINE_SCHEMA_VERSION = "evalgate.gc_line.v2";
export const CACHE_GC_LINE_SCHEMA_VERSION = "evalgate.cache_gc_line.v1";
export const CACHE_STATS_LINE_SCHEMA_VERSION = "evalgate.cache_stats_line.v1";
export const WARNING_LINE_SCHEMA_VERSION = "evalgate.warning_line.v1";
export const BENCH_TASK_CLASS_LINE_SCHEMA_VERSION = "evalgate.bench_task_class_line.v1";
export const BENCH_CASE_LINE_SCHEMA_VERSION = "evalgate.bench_case_line.v1";
export const BENCH_SHOW_LINE_SCHEMA_VERSION = "evalgate.bench_show_line.v1";
export const ADAPTER_LINE_SCHEMA_VERSION = "evalgate.adapter_line.v1";
export const ADAPTER_READINESS_LINE_SCHEMA_VERSION = "evalgate.adapter_readiness_line.v1";
export const MODEL_STUB_LINE_SCHEMA_VERSION = "evalgate.model_stub_line.v1";
export const MODEL_STUB_STOPPED_LINE_SCHEMA_VERSION = "evalgate.model_stub_stopped_line.v1";

/**
 * Failure modes a SUT may end a case with itself: it throws an error whose `failure_mode` is one of these
 * (and whose `cost_usd`, when a number, is what it spent before stopping); any other error is `sut.exception`.
 * `agent.budget_exceeded`: the model bridge refused a call past the case's or the run's budget;
 * `replay.diverged`: a replayed CLI sent a request its recording does not hold;
 * `sut.resource_limit`, `agent.resource_limit`: a sandboxed SUT program or agent CLI hit its process-count,
 * memory or disk limit (the detail names which).
 * `agent.infrastructure`: the harness saw the agent's infrastructure fail, nothing the agent did (its CLI could
 * not be started): never cached, and the gate leaves the whole run out of the evidence, never the one case.
 */
export const SUT_FAILURE_MODES = [
  "agent.budget_exceeded",
  "replay.diverged",
  "agent.infrastructure",
  "sut.resource_limit",
  "agent.resource_limit",
] as const;
