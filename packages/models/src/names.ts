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
export const SIGN_RESULT_SCHEMA_VERSION = "evalgate.sign_result.v1";
