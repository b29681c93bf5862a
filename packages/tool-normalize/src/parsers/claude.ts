// Claude Code: `-p --output-format stream-json --verbose` and the session JSONL under ~/.claude/projects.
// Both carry Anthropic Messages API content blocks; the session file repeats an assistant message once
// per content block (same message.id / requestId, usage repeated), so blocks and usage are keyed by message id.
import { resultText, tokenCount } from "../builder.ts";
import type { TranscriptBuilder } from "../builder.ts";
import { arr, isObject, obj, str } from "./fields.ts";
import type { EventHandler, JsonObject } from "./fields.ts";

function claudeUsage(usage: JsonObject): Parameters<TranscriptBuilder["messageUsage"]>[1] {
  return {
    input_tokens: tokenCount(usage.input_tokens) ?? null,
    output_tokens: tokenCount(usage.output_tokens) ?? null,
    cache_read_tokens: tokenCount(usage.cache_read_input_tokens) ?? null,
    cache_write_tokens: tokenCount(usage.cache_creation_input_tokens) ?? null,
  };
}

function assistant(event: JsonObject, builder: TranscriptBuilder): void {
  const message = obj(event.message);
  if (message === undefined) {
    builder.missingFields += 1;
    return;
  }
  const messageId = str(message.id) ?? str(event.uuid) ?? `line-${builder.recognizedEvents}`;
  const model = str(message.model);
  if (model !== undefined && !model.startsWith("<")) builder.model = model;
  const usage = obj(message.usage);
  if (usage !== undefined) builder.messageUsage(messageId, claudeUsage(usage));
  const error = str(event.error);
  for (const block of arr(message.content)) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") {
      builder.message("assistant", block.text, messageId);
      if (error !== undefined) builder.error(`${error}: ${block.text}`);
    } else if (block.type === "tool_use") {
      const name = str(block.name);
      if (name === undefined) builder.missingFields += 1;
      else builder.toolCall(str(block.id) ?? null, name, block.input);
    }
  }
  if (error !== undefined && !arr(message.content).some((block) => isObject(block) && block.type === "text"))
    builder.error(error);
}

function user(event: JsonObject, builder: TranscriptBuilder): void {
  const message = obj(event.message);
  if (message === undefined) {
    builder.missingFields += 1;
    return;
  }
  const key = str(event.uuid);
  if (typeof message.content === "string") {
    builder.message("user", message.content, key);
    return;
  }
  for (const block of arr(message.content)) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") builder.message("user", block.text, key);
    else if (block.type === "tool_result") {
      const id = str(block.tool_use_id);
      if (id === undefined) builder.missingFields += 1;
      else builder.toolResult(id, block.is_error === true ? "error" : "ok", resultText(block.content));
    }
  }
}

function system(event: JsonObject, builder: TranscriptBuilder): void {
  if (event.subtype !== "init") return;
  builder.sessionId = str(event.session_id) ?? builder.sessionId;
  builder.model = str(event.model) ?? builder.model;
  builder.cliVersion = str(event.claude_code_version) ?? builder.cliVersion;
}

function result(event: JsonObject, builder: TranscriptBuilder): void {
  builder.sessionId = str(event.session_id) ?? builder.sessionId;
  const duration = tokenCount(event.duration_ms);
  if (duration !== undefined) builder.reportDuration(duration);
  if (typeof event.total_cost_usd === "number" && Number.isFinite(event.total_cost_usd) && event.total_cost_usd >= 0)
    builder.costUsd = event.total_cost_usd;
  const usage = obj(event.usage);
  if (usage !== undefined) builder.reportUsage(claudeUsage(usage));
  if (event.is_error === true) builder.error(str(event.result) ?? str(event.subtype) ?? "error");
  for (const message of arr(event.errors)) if (typeof message === "string") builder.error(message);
}

/** Events the stream carries that hold nothing a transcript keeps. */
const STREAM_IGNORED = new Set([
  "stream_event",
  "rate_limit_event",
  "tool_progress",
  "auth_status",
  "keep_alive",
  "control_request",
  "control_response",
  "control_cancel_request",
]);

/**
 * The two Claude formats share event types; the session id's spelling tells them apart (`session_id`
 * in the stream, `sessionId` in the session file), so a line of the other format is not claimed.
 */
function isOtherFormat(event: JsonObject, own: "session_id" | "sessionId"): boolean {
  const other = own === "session_id" ? "sessionId" : "session_id";
  return event[other] !== undefined && event[own] === undefined;
}

export const claudeStreamJson: EventHandler = (event, builder) => {
  if (isOtherFormat(event, "session_id")) return false;
  switch (event.type) {
    case "system":
      system(event, builder);
      return true;
    case "assistant":
      // Until the `result` arrives, usage is the per-message sum: partial if the stream stops here.
      builder.open();
      assistant(event, builder);
      return true;
    case "user":
      user(event, builder);
      return true;
    case "result":
      builder.close();
      result(event, builder);
      return true;
    default:
      return STREAM_IGNORED.has(String(event.type));
  }
};

const SESSION_IGNORED = new Set([
  "progress",
  "file-history-snapshot",
  "summary",
  "pr-link",
  "system",
  "queue-operation",
  "attachment",
  "custom-title",
  "tag",
]);

export const claudeSessionJsonl: EventHandler = (event, builder) => {
  if (isOtherFormat(event, "sessionId")) return false;
  builder.timestamp(event.timestamp);
  if (event.type === "assistant" || event.type === "user") {
    builder.sessionId = str(event.sessionId) ?? builder.sessionId;
    builder.cliVersion = str(event.version) ?? builder.cliVersion;
    if (event.type === "assistant") assistant(event, builder);
    else user(event, builder);
    return true;
  }
  return SESSION_IGNORED.has(String(event.type));
};
