// Codex app-server (openai/codex, codex-rs/app-server-protocol, v2): JSON-RPC 2.0 lines without the
// "jsonrpc" header. Notifications carry `method` + `params` (thread/*, turn/*, item/*, ...), responses
// `id` + `result` (or `error`); a recording may hold the client's requests too. Items (`ThreadItem`)
// arrive as item/started and item/completed, keyed by item id; tool-like items become tool calls
// named after their type, as `codex exec --json` items are.
import { resultText, tokenCount } from "../builder.ts";
import type { Status, TranscriptBuilder } from "../builder.ts";
import { arr, isObject, obj, str } from "./fields.ts";
import type { EventHandler, JsonObject } from "./fields.ts";

/** A JSON-RPC line's type: its method, else `response` or `error_response` for a reply to a request. */
export function jsonRpcEventType(event: JsonObject): string | undefined {
  if (typeof event.method === "string") return event.method;
  if (event.id === undefined) return undefined;
  if ("result" in event) return "response";
  if ("error" in event) return "error_response";
  return undefined;
}

function itemStatus(item: JsonObject): Status {
  if (item.status === "failed" || item.status === "declined" || item.success === false) return "error";
  if (typeof item.exitCode === "number" && item.exitCode !== 0) return "error";
  if (item.error !== undefined && item.error !== null) return "error";
  if (item.status === "completed" || item.success === true) return "ok";
  return "unknown";
}

/** `FileUpdateChange[]` with the change kind (`{type: "add" | "delete" | "update"}`) as a plain word. */
function fileChanges(changes: unknown): Array<{ path: unknown; kind: unknown }> {
  return arr(changes).flatMap((change) => {
    if (!isObject(change)) return [];
    const kind = isObject(change.kind) ? change.kind.type : change.kind;
    return [{ path: change.path, kind }];
  });
}

function userText(content: unknown): string {
  return arr(content)
    .flatMap((part) => (isObject(part) && part.type === "text" && typeof part.text === "string" ? [part.text] : []))
    .join("\n");
}

/** A tool-like item: its call (once per id) and, when completed, its result. */
function toolItem(id: string, item: JsonObject, completed: boolean, builder: TranscriptBuilder): boolean {
  let name: string;
  let input: unknown;
  let output: string | null = null;
  switch (item.type) {
    case "commandExecution":
      [name, input, output] = [
        "commandExecution",
        { command: item.command, cwd: item.cwd },
        str(item.aggregatedOutput) || null,
      ];
      break;
    case "fileChange":
      [name, input] = ["fileChange", { changes: fileChanges(item.changes) }];
      break;
    case "mcpToolCall": {
      const error = obj(item.error);
      [name, input] = [`mcp:${str(item.server) ?? ""}/${str(item.tool) ?? ""}`, item.arguments ?? {}];
      output = error !== undefined ? (str(error.message) ?? null) : resultText(obj(item.result)?.content);
      break;
    }
    case "dynamicToolCall":
      [name, input, output] = [str(item.tool) ?? "", item.arguments ?? {}, resultText(item.contentItems)];
      break;
    case "collabAgentToolCall":
      [name, input] = [`collab:${str(item.tool) ?? ""}`, { prompt: item.prompt, model: item.model }];
      break;
    case "webSearch":
      [name, input] = ["webSearch", { query: item.query }];
      break;
    case "imageView":
      [name, input] = ["imageView", { path: item.path }];
      break;
    default:
      return false;
  }
  builder.toolCall(id, name, input);
  if (completed)
    builder.toolResult(id, item.type === "webSearch" || item.type === "imageView" ? "ok" : itemStatus(item), output);
  return true;
}

/** Items that are neither messages nor tool calls (reasoning, plans, review markers, compaction...). */
const QUIET_ITEMS = new Set([
  "reasoning",
  "plan",
  "hookPrompt",
  "contextCompaction",
  "enteredReviewMode",
  "exitedReviewMode",
  "sleep",
  "subAgentActivity",
  "imageGeneration",
]);

function item(params: JsonObject, completed: boolean, builder: TranscriptBuilder): void {
  const payload = obj(params.item);
  const id = payload === undefined ? undefined : str(payload.id);
  if (payload === undefined || id === undefined) {
    builder.missingFields += 1;
    return;
  }
  builder.timestamp(params.completedAtMs ?? params.startedAtMs);
  if (payload.type === "userMessage") {
    if (completed) builder.message("user", userText(payload.content), id);
  } else if (payload.type === "agentMessage") {
    if (completed) builder.message("assistant", str(payload.text) ?? "", id);
  } else if (!QUIET_ITEMS.has(String(payload.type)) && !toolItem(id, payload, completed, builder)) {
    builder.unknownEvent(`item:${String(payload.type)}`);
  }
}

function response(result: JsonObject, builder: TranscriptBuilder): void {
  const thread = obj(result.thread);
  if (thread !== undefined) {
    builder.sessionId = str(thread.id) ?? builder.sessionId;
    builder.cliVersion = str(thread.cliVersion) ?? builder.cliVersion;
  }
  builder.model = str(result.model) ?? builder.model;
}

function turnCompleted(turn: JsonObject | undefined, builder: TranscriptBuilder): void {
  builder.close();
  if (turn === undefined) return;
  const duration = tokenCount(turn.durationMs);
  if (duration !== undefined) builder.reportDuration(duration, "add");
  if (turn.status === "failed") builder.error(str(obj(turn.error)?.message) ?? "turn failed");
}

function tokenUsage(params: JsonObject, builder: TranscriptBuilder): void {
  // `total` is the thread's running total: the last report is the session's.
  const total = obj(obj(params.tokenUsage)?.total);
  if (total === undefined) {
    builder.missingFields += 1;
    return;
  }
  builder.reportUsage({
    input_tokens: tokenCount(total.inputTokens) ?? null,
    output_tokens: tokenCount(total.outputTokens) ?? null,
    cache_read_tokens: tokenCount(total.cachedInputTokens) ?? null,
    cache_write_tokens: null,
  });
}

/** Notifications, requests and replies that hold nothing a transcript keeps. */
const APP_SERVER_IGNORED = new Set([
  "initialize",
  "initialized",
  "thread/start",
  "thread/resume",
  // The client's turn/start input comes back as a userMessage item: taken from there, once.
  "turn/start",
  "thread/status/changed",
  "thread/name/updated",
  "thread/archived",
  "thread/unarchived",
  "thread/closed",
  "thread/compacted",
  "skills/changed",
  "hook/started",
  "hook/completed",
  "turn/diff/updated",
  "turn/plan/updated",
  "item/agentMessage/delta",
  "item/plan/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/summaryPartAdded",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
  "item/commandExecution/terminalInteraction",
  "item/commandExecution/requestApproval",
  "item/fileChange/outputDelta",
  "item/fileChange/patchUpdated",
  "item/fileChange/requestApproval",
  "item/mcpToolCall/progress",
  "item/autoApprovalReview/started",
  "item/autoApprovalReview/completed",
  "rawResponseItem/completed",
  "serverRequest/resolved",
  "mcpServer/startupStatus/updated",
  "mcpServer/oauthLogin/completed",
  "account/updated",
  "account/rateLimits/updated",
  "account/login/completed",
  "app/list/updated",
  "fs/changed",
  "remoteControl/status/changed",
  "model/rerouted",
  "deprecationNotice",
  "configWarning",
]);

export const codexAppServer: EventHandler = (event, builder, type) => {
  const params = obj(event.params) ?? {};
  switch (type) {
    case "response":
      response(obj(event.result) ?? {}, builder);
      return true;
    case "error_response":
    case "error":
      builder.error(str(obj(event.error)?.message) ?? str(obj(params.error)?.message) ?? "error");
      return true;
    case "thread/started":
      response(params, builder);
      return true;
    case "turn/started":
      builder.open();
      builder.turn();
      return true;
    case "turn/completed":
      turnCompleted(obj(params.turn), builder);
      return true;
    case "item/started":
    case "item/completed":
      item(params, type === "item/completed", builder);
      return true;
    case "thread/tokenUsage/updated":
      tokenUsage(params, builder);
      return true;
    default:
      return APP_SERVER_IGNORED.has(type);
  }
};
