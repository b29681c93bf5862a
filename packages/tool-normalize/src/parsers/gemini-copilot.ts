// Gemini CLI `--output-format stream-json` and GitHub Copilot CLI's session events.jsonl.
import { resultText, tokenCount } from "../builder.ts";
import { arr, isObject, obj, str } from "./fields.ts";
import type { EventHandler } from "./fields.ts";

export const geminiStreamJson: EventHandler = (event, builder) => {
  builder.timestamp(event.timestamp);
  switch (event.type) {
    case "init":
      builder.sessionId = str(event.session_id) ?? builder.sessionId;
      builder.model = str(event.model) ?? builder.model;
      return true;
    case "message": {
      const role = event.role === "user" ? "user" : "assistant";
      const text = str(event.content) ?? "";
      if (event.delta === true) builder.delta(role, text);
      else builder.message(role, text);
      return true;
    }
    case "tool_use": {
      const name = str(event.tool_name);
      if (name === undefined) builder.missingFields += 1;
      else builder.toolCall(str(event.tool_id) ?? null, name, event.parameters);
      return true;
    }
    case "tool_result": {
      const id = str(event.tool_id);
      if (id === undefined) {
        builder.missingFields += 1;
        return true;
      }
      const error = obj(event.error);
      builder.toolResult(
        id,
        event.status === "success" ? "ok" : event.status === "error" ? "error" : "unknown",
        str(event.output) ?? str(error?.message) ?? null,
      );
      return true;
    }
    case "error":
      builder.error(`${str(event.severity) ?? "error"}: ${str(event.message) ?? ""}`);
      return true;
    case "result": {
      const stats = obj(event.stats);
      if (stats !== undefined) {
        builder.reportUsage({
          input_tokens: tokenCount(stats.input_tokens) ?? null,
          output_tokens: tokenCount(stats.output_tokens) ?? null,
          cache_read_tokens: tokenCount(stats.cached) ?? null,
          cache_write_tokens: null,
        });
        const duration = tokenCount(stats.duration_ms);
        if (duration !== undefined) builder.reportDuration(duration);
      }
      if (event.status === "error") builder.error(str(obj(event.error)?.message) ?? "error");
      return true;
    }
    default:
      return false;
  }
};

/** Copilot events that hold nothing a transcript keeps (hooks, turn markers, permissions, notices). */
const COPILOT_IGNORED = new Set([
  "hook.start",
  "hook.end",
  "assistant.turn_start",
  "assistant.turn_end",
  "assistant.reasoning",
  "assistant.message_delta",
  "assistant.usage",
  "permission.requested",
  "permission.completed",
  "session.permissions_changed",
  "session.info",
  "session.resume",
  "session.compaction_start",
  "session.compaction_complete",
  "session.truncation",
  "system.notification",
  "tool.execution_partial_result",
  "tool.user_requested",
  "pending_messages.modified",
  "abort",
]);

export const copilotEventsJsonl: EventHandler = (event, builder) => {
  builder.timestamp(event.timestamp);
  const data = obj(event.data) ?? {};
  switch (event.type) {
    case "session.start":
      builder.sessionId = str(data.sessionId) ?? builder.sessionId;
      builder.cliVersion = str(data.copilotVersion) ?? builder.cliVersion;
      builder.model = str(data.selectedModel) ?? builder.model;
      return true;
    case "session.model_change":
      builder.model = str(data.newModel) ?? builder.model;
      return true;
    case "system.message":
      builder.message("system", str(data.content) ?? "", str(event.id));
      return true;
    case "user.message":
      builder.message("user", str(data.content) ?? "", str(event.id));
      return true;
    case "assistant.message": {
      const key = str(data.messageId) ?? str(event.id);
      builder.model = str(data.model) ?? builder.model;
      builder.message("assistant", str(data.content) ?? "", key);
      const outputTokens = tokenCount(data.outputTokens);
      if (key !== undefined && outputTokens !== undefined) builder.messageUsage(key, { output_tokens: outputTokens });
      for (const request of arr(data.toolRequests)) {
        if (!isObject(request)) continue;
        builder.toolCall(
          str(request.toolCallId) ?? null,
          str(request.name) ?? str(request.toolName) ?? "",
          request.arguments,
        );
      }
      return true;
    }
    case "tool.execution_start":
      builder.toolCall(str(data.toolCallId) ?? null, str(data.toolName) ?? "", data.arguments);
      return true;
    case "tool.execution_complete": {
      const id = str(data.toolCallId);
      if (id === undefined) {
        builder.missingFields += 1;
        return true;
      }
      const error = obj(data.error);
      const text = resultText(obj(data.result)?.content) ?? str(error?.message) ?? null;
      builder.toolResult(id, data.success === true ? "ok" : data.success === false ? "error" : "unknown", text);
      return true;
    }
    case "skill.invoked": {
      const name = str(data.name);
      if (name === undefined) builder.missingFields += 1;
      else builder.skillInvoked(name);
      return true;
    }
    case "session.error":
      builder.error(str(data.message) ?? str(data.errorType) ?? "error");
      return true;
    case "session.shutdown": {
      let usage = false;
      const totals = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
      for (const metrics of Object.values(obj(data.modelMetrics) ?? {})) {
        const parts = obj(obj(metrics)?.usage);
        if (parts === undefined) continue;
        usage = true;
        totals.input_tokens += tokenCount(parts.inputTokens) ?? 0;
        totals.output_tokens += tokenCount(parts.outputTokens) ?? 0;
        totals.cache_read_tokens += tokenCount(parts.cacheReadTokens) ?? 0;
        totals.cache_write_tokens += tokenCount(parts.cacheWriteTokens) ?? 0;
      }
      if (usage) builder.reportUsage(totals);
      builder.model = str(data.currentModel) ?? builder.model;
      return true;
    }
    default:
      return COPILOT_IGNORED.has(String(event.type));
  }
};
