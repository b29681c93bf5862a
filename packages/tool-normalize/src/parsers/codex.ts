// Codex: `codex exec --json` (thread/turn/item events) and the rollout JSONL under ~/.codex/sessions
// (session_meta, turn_context, response_item, event_msg).
import { resultText, tokenCount } from "../builder.ts";
import type { Status, TranscriptBuilder } from "../builder.ts";
import { arr, isObject, obj, str } from "./fields.ts";
import type { EventHandler, JsonObject } from "./fields.ts";

function itemStatus(item: JsonObject): Status {
  if (item.status === "failed" || item.status === "declined") return "error";
  if (typeof item.exit_code === "number" && item.exit_code !== 0) return "error";
  if (item.error !== undefined && item.error !== null) return "error";
  if (item.status === "completed") return "ok";
  return "unknown";
}

/** One `item.*` event: tool-like items become tool calls named after their type, keyed by item id. */
function item(event: JsonObject, builder: TranscriptBuilder): void {
  const payload = obj(event.item);
  const id = payload === undefined ? undefined : str(payload.id);
  if (payload === undefined || id === undefined) {
    builder.missingFields += 1;
    return;
  }
  const completed = event.type === "item.completed";
  switch (payload.type) {
    case "agent_message":
      if (completed) builder.message("assistant", str(payload.text) ?? "", id);
      return;
    case "reasoning":
      return;
    case "error":
      if (completed) builder.error(str(payload.message) ?? "error");
      return;
    case "command_execution":
      builder.toolCall(id, "command_execution", { command: payload.command });
      builder.toolResult(id, itemStatus(payload), str(payload.aggregated_output) || null);
      return;
    case "file_change":
      builder.toolCall(id, "file_change", { changes: payload.changes });
      builder.toolResult(id, itemStatus(payload), null);
      return;
    case "mcp_tool_call": {
      const server = str(payload.server) ?? "";
      const tool = str(payload.tool) ?? "";
      builder.toolCall(id, `mcp:${server}/${tool}`, payload.arguments ?? {});
      const error = obj(payload.error);
      builder.toolResult(
        id,
        itemStatus(payload),
        error !== undefined ? (str(error.message) ?? null) : resultText(obj(payload.result)?.content),
      );
      return;
    }
    case "web_search":
      builder.toolCall(id, "web_search", { query: payload.query });
      builder.toolResult(id, completed ? "ok" : "unknown", null);
      return;
    case "todo_list":
      builder.toolCall(id, "todo_list", { items: payload.items });
      builder.toolResult(id, "ok", null);
      return;
    default:
      builder.unknownEvent(`item:${String(payload.type)}`);
  }
}

export const codexExecJson: EventHandler = (event, builder) => {
  switch (event.type) {
    case "thread.started":
      builder.sessionId = str(event.thread_id) ?? builder.sessionId;
      return true;
    case "turn.started":
      builder.open();
      builder.turn();
      return true;
    case "turn.completed": {
      builder.close();
      const usage = obj(event.usage);
      if (usage !== undefined) {
        builder.reportUsage(
          {
            input_tokens: tokenCount(usage.input_tokens) ?? null,
            output_tokens: tokenCount(usage.output_tokens) ?? null,
            cache_read_tokens: tokenCount(usage.cached_input_tokens) ?? null,
            cache_write_tokens: tokenCount(usage.cache_write_input_tokens) ?? null,
          },
          "add",
        );
      }
      return true;
    }
    case "turn.failed":
      builder.close();
      builder.error(str(obj(event.error)?.message) ?? "turn failed");
      return true;
    case "error":
      builder.error(str(event.message) ?? "error");
      return true;
    case "item.started":
    case "item.updated":
    case "item.completed":
      item(event, builder);
      return true;
    default:
      return false;
  }
};

/** Exit status from a function_call_output: `{success}`, or the exit code the output text reports. */
function outputStatus(output: unknown): Status {
  if (isObject(output) && typeof output.success === "boolean") return output.success ? "ok" : "error";
  const text = resultText(output) ?? "";
  const code = /(?:Process exited with code|Exit code:)\s*(-?\d+)/.exec(text);
  if (code !== null) return code[1] === "0" ? "ok" : "error";
  return "ok";
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return { arguments: raw };
  }
}

function responseItem(payload: JsonObject, builder: TranscriptBuilder): void {
  const callId = str(payload.call_id) ?? str(payload.id) ?? null;
  switch (payload.type) {
    case "message": {
      const role = payload.role === "assistant" ? "assistant" : payload.role === "user" ? "user" : "system";
      const text = arr(payload.content)
        .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
        .filter((part) => part !== "")
        .join("\n");
      builder.message(role, text);
      return;
    }
    case "reasoning":
      return;
    case "function_call":
    case "custom_tool_call": {
      const name = str(payload.name);
      if (name === undefined) {
        builder.missingFields += 1;
        return;
      }
      const input = payload.type === "function_call" ? parseArguments(payload.arguments) : { input: payload.input };
      builder.toolCall(callId, name, input);
      if (payload.type === "custom_tool_call" && payload.status === "failed" && callId !== null)
        builder.toolResult(callId, "error", null);
      return;
    }
    case "local_shell_call": {
      const action = obj(payload.action);
      builder.toolCall(callId, "local_shell", { command: action?.command, workdir: action?.working_directory });
      return;
    }
    case "web_search_call":
      builder.toolCall(callId, "web_search_call", { query: obj(payload.action)?.query });
      if (callId !== null) builder.toolResult(callId, payload.status === "failed" ? "error" : "ok", null);
      return;
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output":
      if (callId === null) {
        builder.missingFields += 1;
        return;
      }
      builder.toolResult(callId, outputStatus(payload.output), resultText(payload.output));
      return;
    default:
      builder.unknownEvent(`response_item:${String(payload.type)}`);
  }
}

function eventMsg(payload: JsonObject, builder: TranscriptBuilder): void {
  if (payload.type === "token_count") {
    const total = obj(obj(payload.info)?.total_token_usage);
    if (total !== undefined) {
      builder.reportUsage({
        input_tokens: tokenCount(total.input_tokens) ?? null,
        output_tokens: tokenCount(total.output_tokens) ?? null,
        cache_read_tokens: tokenCount(total.cached_input_tokens) ?? null,
        cache_write_tokens: null,
      });
    }
  } else if (payload.type === "task_complete") {
    const duration = tokenCount(payload.duration_ms);
    if (duration !== undefined) builder.reportDuration(duration, "add");
  } else if (payload.type === "error" || payload.type === "stream_error") {
    builder.error(str(payload.message) ?? "error");
  }
}

export const codexRolloutJsonl: EventHandler = (event, builder) => {
  builder.timestamp(event.timestamp);
  const payload = obj(event.payload);
  switch (event.type) {
    case "session_meta":
      builder.sessionId = str(payload?.id) ?? builder.sessionId;
      builder.cliVersion = str(payload?.cli_version) ?? builder.cliVersion;
      return true;
    case "turn_context":
      builder.model = str(payload?.model) ?? builder.model;
      return true;
    case "response_item":
      if (payload === undefined) builder.missingFields += 1;
      else responseItem(payload, builder);
      return true;
    case "event_msg":
      if (payload !== undefined) eventMsg(payload, builder);
      return true;
    case "compacted":
      return true;
    default:
      return false;
  }
};
