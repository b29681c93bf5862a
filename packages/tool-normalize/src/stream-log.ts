import { EvalError } from "@eval/errors";
import { ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { Transcript } from "@eval/models";

/**
 * The optional extra log beside the (always written) transcript: none, a human-readable summary,
 * or the agent's raw event stream.
 */
export type StreamLogOption = false | "summary" | "raw";

const LOG_FORMAT_TO_STREAM_LOG: Readonly<Record<string, StreamLogOption>> = { json: "raw", summary: "summary" };

/**
 * Resolves `stream_log`, accepting the deprecated `log_format` with one warning (`json` → `raw`,
 * `summary` → `summary`). `stream_log` wins when both are given. Default: no stream log.
 */
export function resolveStreamLogOption(
  options: { readonly stream_log?: StreamLogOption; readonly log_format?: "json" | "summary" },
  onWarning: WarningSink = ignoreWarnings,
): StreamLogOption {
  const { stream_log: streamLog, log_format: logFormat } = options;
  if (streamLog !== undefined && streamLog !== false && streamLog !== "summary" && streamLog !== "raw") {
    throw new EvalError(
      "EVAL_CONFIG_INVALID",
      `stream_log must be false, "summary" or "raw", not ${JSON.stringify(streamLog)}`,
    );
  }
  if (logFormat === undefined) return streamLog ?? false;
  const mapped = LOG_FORMAT_TO_STREAM_LOG[logFormat];
  if (mapped === undefined) {
    throw new EvalError(
      "EVAL_CONFIG_INVALID",
      `log_format must be "json" or "summary", not ${JSON.stringify(logFormat)}`,
      {
        hint: 'log_format is deprecated: use stream_log: false | "summary" | "raw"',
      },
    );
  }
  onWarning({
    code: "config.deprecated_log_format",
    message: `log_format is deprecated and will be removed in the next release: use stream_log: ${JSON.stringify(streamLog ?? mapped)}${streamLog === undefined ? "" : " (already set; log_format ignored)"}`,
    details: { log_format: logFormat, stream_log: streamLog ?? mapped },
  });
  return streamLog ?? mapped;
}

/**
 * A short human-readable account of a transcript (the `summary` stream log, and what
 * `evalgate transcript import` prints on stderr): source, tool calls by name, usage, drift.
 */
export function summarizeTranscript(transcript: Transcript): string[] {
  const { source, usage, drift } = transcript;
  const counts = Object.entries(transcript.counts).sort(
    ([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0),
  );
  const unknownTypes = Object.entries(drift.unknown_event_types);
  const lines = [
    `${source.provider} ${source.format}${source.session_id === null ? "" : ` session ${source.session_id}`}${source.model === null ? "" : ` model ${source.model}`}`,
    `${transcript.messages.length} messages, ${transcript.tool_calls.length} tool calls${counts.length === 0 ? "" : `: ${counts.map(([name, count]) => `${name} ${count}`).join(", ")}`}`,
    `tokens in ${usage.input_tokens ?? "?"} out ${usage.output_tokens ?? "?"} cache read ${usage.cache_read_tokens ?? "?"} write ${usage.cache_write_tokens ?? "?"}${usage.partial === true ? " (partial: the stream ended before its totals)" : ""}${transcript.turns === undefined || transcript.turns === null ? "" : `; ${transcript.turns} turn${transcript.turns === 1 ? "" : "s"}`}; duration ${transcript.duration_ms === null ? "?" : `${transcript.duration_ms} ms`}; cost ${transcript.cost_usd === null ? "?" : `$${transcript.cost_usd}`}`,
  ];
  if (unknownTypes.length > 0 || drift.unparseable_lines > 0 || drift.missing_fields > 0) {
    lines.push(
      `drift: ${unknownTypes.length === 0 ? "no unknown event types" : `unknown event types ${unknownTypes.map(([type, count]) => `${type} ×${count}`).join(", ")}`}; ${drift.unparseable_lines} unparseable lines${drift.truncated_last_line ? " (last line truncated)" : ""}; ${drift.missing_fields} missing fields`,
    );
  }
  if (transcript.errors.length > 0) lines.push(`errors: ${transcript.errors.join(" | ")}`);
  return lines;
}
