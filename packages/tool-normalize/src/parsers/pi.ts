// Pi coding agent (badlogic/pi-mono) `--mode json`: one JSON event per line, the agent's `AgentEvent`s
// (packages/agent/src/types.ts) and the coding agent's session events, after a `session` header.
// Every message ends with one `message_end` carrying it whole (assistant usage included), so the
// streamed `message_update` snapshots are not needed; tool calls are `toolCall` content blocks and
// `tool_execution_*` events, keyed by their id.
import { resultText, tokenCount } from "../builder.ts";
import type { TranscriptBuilder } from "../builder.ts";
import { arr, isObject, obj, str } from "./fields.ts";
import type { EventHandler, JsonObject } from "./fields.ts";

/** Text blocks of a message's content (a string, or `{type: "text", text}` blocks), joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return arr(content)
    .flatMap((block) =>
      isObject(block) && block.type === "text" && typeof block.text === "string" ? [block.text] : [],
    )
    .join("\n");
}

function assistantMessage(message: JsonObject, builder: TranscriptBuilder): void {
  builder.model = str(message.model) ?? builder.model;
  const key = str(message.responseId) ?? `pi-message-${builder.recognizedEvents}`;
  builder.message("assistant", contentText(message.content), key);
  for (const block of arr(message.content)) {
    if (!isObject(block) || block.type !== "toolCall") continue;
    builder.toolCall(str(block.id) ?? null, str(block.name) ?? "", block.arguments);
  }
  const usage = obj(message.usage);
  if (usage !== undefined) {
    builder.messageUsage(key, {
      input_tokens: tokenCount(usage.input) ?? null,
      output_tokens: tokenCount(usage.output) ?? null,
      cache_read_tokens: tokenCount(usage.cacheRead) ?? null,
      cache_write_tokens: tokenCount(usage.cacheWrite) ?? null,
    });
    const cost = obj(usage.cost)?.total;
    if (typeof cost === "number" && Number.isFinite(cost) && cost >= 0) builder.costUsd = (builder.costUsd ?? 0) + cost;
  }
  if (message.stopReason === "error" || message.stopReason === "aborted")
    builder.error(str(message.errorMessage) ?? String(message.stopReason));
}

/** One whole message (`message_end`): user text, assistant text + tool calls + usage, or a tool result. */
function messageEnd(event: JsonObject, builder: TranscriptBuilder): void {
  const message = obj(event.message);
  if (message === undefined) {
    builder.missingFields += 1;
    return;
  }
  builder.timestamp(message.timestamp);
  switch (message.role) {
    case "user":
      builder.message("user", contentText(message.content));
      return;
    case "assistant":
      assistantMessage(message, builder);
      return;
    case "toolResult":
      toolResult(str(message.toolCallId), message.isError, message.content, builder);
      return;
    default:
      // Custom app messages (Pi lets apps add roles) hold nothing a transcript keeps.
      return;
  }
}

function toolResult(id: string | undefined, isError: unknown, content: unknown, builder: TranscriptBuilder): void {
  if (id === undefined) {
    builder.missingFields += 1;
    return;
  }
  builder.toolResult(id, isError === true ? "error" : isError === false ? "ok" : "unknown", resultText(content));
}

/** Session events of the coding agent that hold nothing a transcript keeps (queue, compaction, settings). */
const PI_IGNORED = new Set([
  "message_start",
  "message_update",
  "turn_end",
  "tool_execution_update",
  "queue_update",
  "compaction_start",
  "compaction_end",
  "session_info_changed",
  "thinking_level_changed",
  "auto_retry_start",
]);

export const piJson: EventHandler = (event, builder, type) => {
  switch (type) {
    case "session":
      builder.sessionId = str(event.id) ?? builder.sessionId;
      builder.timestamp(event.timestamp);
      return true;
    case "agent_start":
      builder.open();
      return true;
    case "agent_end":
      builder.close();
      return true;
    case "turn_start":
      builder.turn();
      return true;
    case "message_end":
      messageEnd(event, builder);
      return true;
    case "tool_execution_start":
      builder.toolCall(str(event.toolCallId) ?? null, str(event.toolName) ?? "", event.args);
      return true;
    case "tool_execution_end":
      toolResult(str(event.toolCallId), event.isError, obj(event.result)?.content ?? event.result, builder);
      return true;
    case "model_changed":
      builder.model = str(obj(event.model)?.id) ?? builder.model;
      return true;
    case "auto_retry_end":
      if (event.success === false) builder.error(str(event.finalError) ?? "retries exhausted");
      return true;
    default:
      return PI_IGNORED.has(type);
  }
};
