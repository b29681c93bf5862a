// Adversarial input: whatever an agent prints, parsing never throws and always yields a valid transcript.
import fc from "fast-check";
import { TranscriptSchema } from "@eval/models";
import { describe, expect, it } from "vitest";
import { createTranscriptParser, normalizeToolCall, PROVIDERS, TOOL_TABLE, TRANSCRIPT_FORMATS } from "./index.ts";

/** Every event type any parser knows, so random events reach the handlers, not only the drift path. */
const KNOWN_TYPES = [
  "system",
  "assistant",
  "user",
  "result",
  "stream_event",
  "progress",
  "summary",
  "thread.started",
  "turn.started",
  "turn.completed",
  "turn.failed",
  "error",
  "item.started",
  "item.updated",
  "item.completed",
  "session_meta",
  "turn_context",
  "response_item",
  "event_msg",
  "compacted",
  "init",
  "message",
  "tool_use",
  "tool_result",
  "session.start",
  "session.model_change",
  "system.message",
  "user.message",
  "assistant.message",
  "tool.execution_start",
  "tool.execution_complete",
  "skill.invoked",
  "session.error",
  "session.shutdown",
  "hook.start",
  "session",
  "agent_start",
  "agent_end",
  "turn_start",
  "message_end",
  "tool_execution_start",
  "tool_execution_end",
  "model_changed",
  "auto_retry_end",
  "tool_call",
  "tool_call_update",
  "agent_message_chunk",
  "user_message_chunk",
  "config_option_update",
  "assistant_message",
];
/** JSON-RPC methods the app-server and ACP parsers know (their events carry `method`, not `type`). */
const KNOWN_METHODS = [
  "thread/started",
  "turn/started",
  "turn/completed",
  "item/started",
  "item/completed",
  "thread/tokenUsage/updated",
  "error",
  "session/update",
  "session/prompt",
];
const NAMES = [
  ...new Set(TOOL_TABLE.map((rule) => rule.native)),
  "mcp:skills/pdf",
  "Using skill: x",
  "unknown_tool",
  "__proto__",
  "toString",
  "constructor",
];

const leaf = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(...NAMES),
  fc.constantFrom("ok", "failed", "completed", "success", "error", "t1", "t2"),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom(
        "__proto__",
        "id",
        "type",
        "name",
        "input",
        "content",
        "message",
        "item",
        "payload",
        "data",
        "toolRequests",
        "tool_use_id",
        "call_id",
        "toolCallId",
        "tool_id",
        "text",
        "arguments",
        "output",
        "usage",
        "status",
        "changes",
        "command",
        "path",
        "update",
        "sessionUpdate",
        "kind",
        "rawInput",
        "rawOutput",
        "locations",
        "tokenUsage",
        "total",
        "turn",
        "thread",
        "tool",
        "server",
        "exitCode",
        "role",
        "toolName",
        "isError",
      ),
      tie("node"),
      { maxKeys: 6 },
    ),
  ),
})).node;
const event = fc
  .record({
    type: fc.oneof(
      fc.constantFrom(...KNOWN_TYPES),
      fc.constantFrom("__proto__", "toString", "hasOwnProperty"),
      fc.string({ maxLength: 8 }),
    ),
  })
  .chain((base) =>
    fc
      .dictionary(
        fc.constantFrom(
          "message",
          "item",
          "payload",
          "data",
          "tool_name",
          "tool_id",
          "parameters",
          "status",
          "usage",
          "stats",
          "error",
          "subtype",
          "role",
          "content",
          "delta",
          "timestamp",
          "session_id",
          "is_error",
          "result",
          "total_cost_usd",
          "duration_ms",
        ),
        value,
        { maxKeys: 6 },
      )
      .map((rest) => ({ ...rest, ...base })),
  );
const rpc = fc.oneof(
  fc.record({ method: fc.constantFrom(...KNOWN_METHODS), params: value }),
  fc.record({ id: fc.integer(), result: value }),
  fc.record({ id: fc.integer(), error: value }),
);
const line = fc.oneof(
  { weight: 6, arbitrary: event.map((e) => JSON.stringify(e)) },
  { weight: 3, arbitrary: rpc.map((e) => JSON.stringify(e)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: value.map((v) => JSON.stringify(v) ?? "") },
);

describe("parsers under random input", () => {
  it("never throw, and always return a transcript the schema accepts", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRANSCRIPT_FORMATS),
        fc.array(line, { maxLength: 25 }),
        fc.integer({ min: 1, max: 50 }),
        (format, lines, chunkSize) => {
          const parser = createTranscriptParser(format);
          const text = lines.join("\n");
          for (let start = 0; start < text.length; start += chunkSize)
            parser.write(text.slice(start, start + chunkSize));
          const transcript = parser.end();
          expect(TranscriptSchema.safeParse(transcript).success).toBe(true);
          expect(Object.values(transcript.counts).reduce((sum, count) => sum + count, 0)).toBe(
            transcript.tool_calls.length,
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it("normalizeToolCall is total and pure for any name and input", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PROVIDERS),
        fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 20 })),
        value,
        (provider, name, input) => {
          const before = JSON.stringify(input);
          const call = normalizeToolCall(provider, { name, input });
          expect(JSON.stringify(input)).toBe(before);
          expect(call.original_name).toBe(name);
          expect(normalizeToolCall(provider, { name, input })).toEqual(call);
          if (!call.canonical) expect(call.name).toBe(name);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
