// GitHub Copilot CLI over the Agent Client Protocol (agentclientprotocol.com; schema
// `SessionNotification`): `session/update` notifications whose `update.sessionUpdate` says what
// happened (message chunks, tool_call / tool_call_update, plan, mode and config changes), around
// the client's `session/prompt` request and its `{stopReason, usage?}` reply. Accepted as full
// JSON-RPC lines, or as bare update objects the way recorders write them (AgentV: the update with
// its `sessionUpdate` copied into `type`, and the turn's reply text as `assistant_message`).
// ACP names no tool, only its `kind`: a call is named `acp:<kind>`, with the title kept as input.
import { resultText, tokenCount } from "../builder.ts";
import type { Status, TranscriptBuilder } from "../builder.ts";
import { jsonRpcEventType } from "./codex-app-server.ts";
import { arr, isObject, obj, str } from "./fields.ts";
import type { EventHandler, JsonObject } from "./fields.ts";

/** A line's type: its `type`, else its `sessionUpdate` (a bare update), else its JSON-RPC method or reply. */
export function acpEventType(event: JsonObject): string | undefined {
  return str(event.type) ?? str(event.sessionUpdate) ?? jsonRpcEventType(event);
}

function blockText(content: unknown): string {
  if (isObject(content)) return content.type === "text" && typeof content.text === "string" ? content.text : "";
  return arr(content).map(blockText).join("");
}

/** `ToolCallContent[]`: the text of its content blocks (diffs and terminals carry none). */
function toolContentText(content: unknown): string | null {
  const texts = arr(content).flatMap((part) =>
    isObject(part) && part.type === "content" ? [blockText(part.content)] : [],
  );
  return texts.length === 0 ? null : texts.join("\n");
}

function toolStatus(status: unknown): Status {
  return status === "completed" ? "ok" : status === "failed" ? "error" : "unknown";
}

function toolInput(update: JsonObject): Record<string, unknown> {
  const input: Record<string, unknown> = { ...obj(update.rawInput) };
  if (typeof update.title === "string" && input.title === undefined) input.title = update.title;
  const locations = arr(update.locations).filter(isObject);
  if (locations.length === 1 && typeof locations[0]!.path === "string" && input.path === undefined)
    input.path = locations[0]!.path;
  return input;
}

function toolCall(update: JsonObject, builder: TranscriptBuilder): void {
  const id = str(update.toolCallId);
  if (id === undefined) {
    builder.missingFields += 1;
    return;
  }
  const initial = update.sessionUpdate === "tool_call" || update.type === "tool_call";
  if (initial || update.kind !== undefined || update.rawInput !== undefined) {
    if (initial || builder.hasToolCall(id))
      builder.toolCall(id, `acp:${str(update.kind) ?? "other"}`, toolInput(update));
  }
  const status = toolStatus(update.status);
  const text =
    toolContentText(update.content) ?? (update.rawOutput === undefined ? null : resultText(update.rawOutput));
  if (status !== "unknown" || text !== null) builder.toolResult(id, status, text);
}

/** The model a `config_option_update` selects (the option whose id or category is `model`). */
function configModel(options: unknown): string | undefined {
  const model = arr(options).find(
    (option) => isObject(option) && (option.id === "model" || option.category === "model"),
  );
  return isObject(model) ? str(model.currentValue) : undefined;
}

/** Updates that hold nothing a transcript keeps. */
const ACP_QUIET_UPDATES = new Set([
  "agent_thought_chunk",
  "plan",
  "available_commands_update",
  "current_mode_update",
  "current_model_update",
  "session_info_update",
  "usage_update",
]);

/** One `SessionUpdate`; false when its kind is not one ACP defines. */
function sessionUpdate(update: JsonObject, builder: TranscriptBuilder): boolean {
  const kind = str(update.sessionUpdate) ?? str(update.type);
  switch (kind) {
    case "user_message_chunk":
      builder.delta("user", blockText(update.content));
      return true;
    case "agent_message_chunk":
      builder.delta("assistant", blockText(update.content));
      return true;
    case "tool_call":
    case "tool_call_update":
      toolCall(update, builder);
      return true;
    case "config_option_update":
      builder.model = configModel(update.configOptions) ?? builder.model;
      return true;
    default:
      return kind !== undefined && ACP_QUIET_UPDATES.has(kind);
  }
}

/** The reply to `session/prompt` ends the turn; an agent that reports usage puts it here. */
function promptResponse(result: JsonObject, builder: TranscriptBuilder): void {
  builder.sessionId = str(result.sessionId) ?? builder.sessionId;
  builder.model = str(obj(result.models)?.currentModelId) ?? builder.model;
  if (result.stopReason === undefined) return;
  builder.close();
  const usage = obj(result.usage);
  if (usage !== undefined) {
    builder.reportUsage(
      {
        input_tokens: tokenCount(usage.inputTokens) ?? null,
        output_tokens: tokenCount(usage.outputTokens) ?? null,
        cache_read_tokens: tokenCount(usage.cachedReadTokens) ?? null,
        cache_write_tokens: tokenCount(usage.cachedWriteTokens) ?? null,
      },
      "add",
    );
  }
}

/** Requests of either side that hold nothing a transcript keeps. */
const ACP_QUIET_METHODS = new Set([
  "initialize",
  "authenticate",
  "session/new",
  "session/load",
  "session/cancel",
  "session/set_mode",
  "session/set_model",
  "session/set_config_option",
  "session/request_permission",
  "fs/read_text_file",
  "fs/write_text_file",
  "terminal/create",
  "terminal/output",
  "terminal/release",
  "terminal/wait_for_exit",
  "terminal/kill",
]);

export const copilotAcp: EventHandler = (event, builder, type) => {
  const params = obj(event.params) ?? {};
  switch (type) {
    case "session/update": {
      builder.sessionId = str(params.sessionId) ?? builder.sessionId;
      const update = obj(params.update);
      if (update === undefined) builder.missingFields += 1;
      return update === undefined || sessionUpdate(update, builder);
    }
    case "session/prompt":
      builder.open();
      builder.turn();
      builder.message("user", blockText(params.prompt));
      return true;
    case "response":
      promptResponse(obj(event.result) ?? {}, builder);
      return true;
    case "error_response":
      builder.error(str(obj(event.error)?.message) ?? "error");
      return true;
    case "assistant_message":
      builder.message("assistant", typeof event.content === "string" ? event.content : blockText(event.content));
      return true;
    default:
      return ACP_QUIET_METHODS.has(type) || sessionUpdate(event, builder);
  }
};
