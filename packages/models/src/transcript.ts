import { z } from "zod";
import { TimestampSchema, UsdSchema } from "./primitives.ts";
import { TRANSCRIPT_FORMATS, TRANSCRIPT_PROVIDERS } from "./names.ts";

export const TRANSCRIPT_SCHEMA_VERSION = "evalgate.transcript.v1";

/** The agents whose native logs evalgate can read. */
export const TranscriptProviderSchema = z.enum(TRANSCRIPT_PROVIDERS);

/** The native log formats, one parser each. */
export const TranscriptFormatSchema = z.enum(TRANSCRIPT_FORMATS);

/** `unknown`: no result event was seen for the call (the stream ended or was cut first). */
export const ToolCallStatusSchema = z.enum(["ok", "error", "unknown"]);

const count = z.number().int().min(0);
const tokens = count.nullable();

export const TranscriptSourceSchema = z.strictObject({
  format: TranscriptFormatSchema,
  provider: TranscriptProviderSchema,
  session_id: z.string().nullable(),
  model: z.string().nullable(),
  cli_version: z.string().nullable(),
  /** Caller-supplied labels (file path, case id, adapter...), copied verbatim. */
  labels: z.record(z.string(), z.string()),
});

export const TranscriptMessageSchema = z.strictObject({
  role: z.enum(["user", "assistant", "system"]),
  /** The message text, cut to an excerpt when long (`truncated` says so). */
  text: z.string(),
  truncated: z.boolean(),
});

/**
 * One tool call in the canonical vocabulary. `name` is canonical (`Read`, `Bash`, `Skill`...) when
 * `canonical` is true, else the agent's own name unchanged; `original_name` is always the agent's own.
 */
export const TranscriptToolCallSchema = z.strictObject({
  id: z.string().nullable(),
  name: z.string().min(1),
  original_name: z.string().min(1),
  canonical: z.boolean(),
  input: z.record(z.string(), z.unknown()),
  status: ToolCallStatusSchema,
  /** The start of the result the agent saw, or null when none was recorded. */
  result_excerpt: z.string().nullable(),
});

export const TranscriptUsageSchema = z.strictObject({
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_write_tokens: tokens,
  /**
   * True when the stream ended before the event that reports the session's totals (a killed
   * process): the counts are what the per-response reports add up to so far, a lower bound.
   */
  partial: z.boolean().optional(),
});

/** What the parser met but could not use: evidence that the agent's output format moved. */
export const TranscriptDriftSchema = z.strictObject({
  /** Event `type`s the parser does not know, with how often each appeared. */
  unknown_event_types: z.record(z.string(), count),
  /** Lines that were not a JSON object (including a truncated last line). */
  unparseable_lines: count,
  /** Known events lacking a field the parser needs (e.g. a tool call without a name). */
  missing_fields: count,
  /** True when the last line was cut mid-document (a killed process, a full disk). */
  truncated_last_line: z.boolean(),
});

/**
 * One agent session (one case invocation) in one vocabulary, whatever agent produced it. Written as
 * one line of a transcript JSONL file (`.evalgate/transcripts/`), always, by whatever runs an agent.
 */
export const TranscriptSchema = z.strictObject({
  schema_version: z.literal(TRANSCRIPT_SCHEMA_VERSION),
  source: TranscriptSourceSchema,
  /** The case this invocation served, when it served one. */
  case_id: z.string().min(1).nullable(),
  /** `bench:<run-start>:<task-class>:<case-id>` when run by the harness. */
  invocation_tag: z.string().min(1).nullable(),
  written_at: TimestampSchema.nullable(),
  messages: z.array(TranscriptMessageSchema),
  tool_calls: z.array(TranscriptToolCallSchema),
  usage: TranscriptUsageSchema,
  /** Agent turns (one model response and the tool calls it made), where the log marks them; else null. */
  turns: count.nullable().optional(),
  /** As the agent reported it, else the span of the event timestamps, else null. */
  duration_ms: count.nullable(),
  /** What the agent reported the session cost; null when it did not say. */
  cost_usd: UsdSchema.nullable(),
  /** Tool calls by `name` (canonical where known). */
  counts: z.record(z.string(), count),
  /** Error messages the stream reported (excerpts, at most 20), e.g. an auth failure. */
  errors: z.array(z.string()),
  drift: TranscriptDriftSchema,
});
