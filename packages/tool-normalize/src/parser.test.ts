import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isEvalError } from "@eval/errors";
import { describe, expect, it } from "vitest";
import {
  createTranscriptParser,
  INPUT_STRING_CHARS,
  MAX_ERRORS,
  MESSAGE_EXCERPT_CHARS,
  parseTranscriptFile,
  PROVIDER_FORMATS,
  providerOfFormat,
  RESULT_EXCERPT_CHARS,
  TRANSCRIPT_FORMATS,
} from "./index.ts";
import type { TranscriptFormat } from "./index.ts";

const j = (value: unknown): string => JSON.stringify(value);

function parse(format: TranscriptFormat, events: ReadonlyArray<unknown>) {
  const parser = createTranscriptParser(format);
  for (const event of events) parser.push(typeof event === "string" ? event : j(event));
  return parser.end();
}

const claudeTool = (id: string, name: string, input: unknown, messageId = "m1") => ({
  type: "assistant",
  message: {
    id: messageId,
    content: [{ type: "tool_use", id, name, input }],
    usage: { input_tokens: 10, output_tokens: 5 },
  },
});
const claudeResult = (id: string, content: unknown, isError = false) => ({
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }] },
});

describe("tolerance", () => {
  it("counts unknown event types as drift, never throws", () => {
    const transcript = parse("claude-stream-json", [
      { type: "brand_new_event" },
      { type: "brand_new_event" },
      { type: "other" },
      claudeTool("t1", "Read", { file_path: "/a" }),
    ]);
    expect(transcript.drift.unknown_event_types).toEqual({ brand_new_event: 2, other: 1 });
    expect(transcript.counts).toEqual({ Read: 1 });
  });

  it("keeps hostile names as plain data (no prototype keys, no overflowing numbers)", () => {
    const transcript = parse("claude-stream-json", [
      '{"type":"toString"}',
      '{"type":"__proto__"}',
      claudeTool("t1", "constructor", JSON.parse('{"__proto__":{"polluted":true},"x":1}')),
      {
        type: "result",
        duration_ms: 2 ** 60,
        total_cost_usd: 1e400,
        usage: { input_tokens: 2 ** 60, output_tokens: 3 },
      },
    ]);
    // A "__proto__" key never becomes a prototype; zod's record parsing drops it (a lost drift count, not a crash).
    expect(Object.entries(transcript.drift.unknown_event_types)).toEqual([["toString", 1]]);
    expect(Object.getPrototypeOf(transcript.drift.unknown_event_types)).toBe(Object.prototype);
    expect(transcript.counts).toEqual({ constructor: 1 });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(transcript.duration_ms).toBeNull();
    expect(transcript.cost_usd).toBeNull();
    expect(transcript.usage).toMatchObject({ input_tokens: null, output_tokens: 3 });
  });

  it("counts lines that are not JSON objects, and events without a type", () => {
    const transcript = parse("gemini-stream-json", [
      "not json",
      "42",
      "[1,2]",
      "null",
      j({ no_type: true }),
      "",
      "   ",
    ]);
    expect(transcript.drift.unparseable_lines).toBe(4);
    expect(transcript.drift.missing_fields).toBe(1);
    expect(transcript.drift.truncated_last_line).toBe(false);
  });

  it("reads CRLF line endings and a leading byte-order mark", () => {
    const parser = createTranscriptParser("gemini-stream-json");
    parser.write(
      `\ufeff${j({ type: "init", session_id: "s" })}\r\n${j({ type: "tool_use", tool_name: "glob", tool_id: "g", parameters: {} })}\r\n`,
    );
    const transcript = parser.end();
    expect(transcript.source.session_id).toBe("s");
    expect(transcript.counts).toEqual({ Glob: 1 });
    expect(transcript.drift.unparseable_lines).toBe(0);
  });

  it("tolerates a truncated last line and says so", () => {
    const whole = j(claudeTool("t1", "Bash", { command: "ls" }));
    const transcript = parse("claude-stream-json", [whole, whole.slice(0, 40)]);
    expect(transcript.counts).toEqual({ Bash: 1 });
    expect(transcript.drift).toMatchObject({ unparseable_lines: 1, truncated_last_line: true });
  });

  it("ignores unknown fields and tolerates wrong-typed ones", () => {
    const transcript = parse("claude-stream-json", [
      { type: "system", subtype: "init", session_id: 7, model: ["x"], future_field: { deep: 1 } },
      { type: "assistant", message: { id: "m", content: "not-an-array", usage: "nope" }, extra: 1 },
      {
        type: "assistant",
        message: { id: "m2", content: [null, 3, { type: "tool_use", id: "t", input: {} }, { type: "mystery" }] },
      },
      { type: "user", message: { content: [null, { type: "tool_result" }] } },
      { type: "user" },
      { type: "assistant" },
      { type: "result", duration_ms: -5, total_cost_usd: "free", usage: null },
    ]);
    expect(transcript.source.session_id).toBeNull();
    expect(transcript.tool_calls).toEqual([]);
    // tool_use without a name, tool_result without an id, user and assistant without a message.
    expect(transcript.drift.missing_fields).toBe(4);
    expect(transcript.cost_usd).toBeNull();
    expect(transcript.duration_ms).toBeNull();
  });

  it("holds results that arrive before their call, and counts results for calls never seen", () => {
    const transcript = parse("claude-stream-json", [
      claudeResult("t1", "out"),
      claudeTool("t1", "Read", { file_path: "/a" }),
      claudeResult("ghost", "x"),
    ]);
    expect(transcript.tool_calls[0]).toMatchObject({ status: "ok", result_excerpt: "out" });
    expect(transcript.drift.missing_fields).toBe(1);
  });

  it("rejects use after end() as a programmer error, and an unknown format", () => {
    const parser = createTranscriptParser("codex-exec-json");
    const first = parser.end();
    expect(parser.end()).toEqual(first);
    expect(() => parser.push("{}")).toThrow(/after end/);
    expect(() => createTranscriptParser("nope" as TranscriptFormat)).toThrow(/unknown transcript format/);
  });
});

describe("streaming", () => {
  it("write() buffers partial lines across arbitrary chunk boundaries", () => {
    const lines = [
      j({ type: "thread.started", thread_id: "th" }),
      j({ type: "item.started", item: { id: "i1", type: "command_execution", command: "ls", status: "in_progress" } }),
      j({
        type: "item.completed",
        item: {
          id: "i1",
          type: "command_execution",
          command: "ls",
          aggregated_output: "a\n",
          exit_code: 0,
          status: "completed",
        },
      }),
      j({ type: "item.completed", item: { id: "i2", type: "agent_message", text: "dönë ✓" } }),
    ];
    const text = `${lines.join("\n")}\n`;
    const whole = parse("codex-exec-json", lines);
    for (const size of [1, 3, 17, 64]) {
      const parser = createTranscriptParser("codex-exec-json");
      for (let start = 0; start < text.length; start += size) parser.write(text.slice(start, start + size));
      expect(parser.end()).toEqual(whole);
    }
    expect(whole.counts).toEqual({ Bash: 1 });
    expect(whole.tool_calls[0]).toMatchObject({ status: "ok", result_excerpt: "a\n" });
    expect(whole.messages).toEqual([{ role: "assistant", text: "dönë ✓", truncated: false }]);
  });

  it("flushes an unterminated last line at end(), and drops an overlong line without holding it", async () => {
    const parser = createTranscriptParser("gemini-stream-json");
    parser.write(
      `${j({ type: "init", session_id: "s", model: "m" })}\n${j({ type: "tool_use", tool_name: "glob", tool_id: "g", parameters: {} })}`,
    );
    expect(parser.end().counts).toEqual({ Glob: 1 });

    const { MAX_LINE_CHARS } = await import("./index.ts");
    const big = createTranscriptParser("gemini-stream-json");
    const chunk = "x".repeat(1 << 20);
    for (let written = 0; written <= MAX_LINE_CHARS; written += chunk.length) big.write(chunk);
    big.write(`tail\n${j({ type: "init", session_id: "after" })}\n`);
    big.write("y".repeat(MAX_LINE_CHARS + 1));
    const transcript = big.end();
    expect(transcript.source.session_id).toBe("after");
    expect(transcript.drift).toMatchObject({ unparseable_lines: 2, truncated_last_line: true });
  });

  it("exposes stats for deciding whether the format was right", () => {
    const parser = createTranscriptParser("claude-stream-json");
    parser.push(j({ type: "thread.started" }));
    parser.push(j({ type: "result" }));
    expect(parser.stats).toEqual({ lines: 2, recognized_events: 1, unrecognized_events: 1 });
  });
});

describe("duplicates count once", () => {
  it("Claude: the same tool_use and text block repeated per content frame", () => {
    const text = {
      type: "assistant",
      message: { id: "m1", content: [{ type: "text", text: "hi" }], usage: { input_tokens: 10, output_tokens: 1 } },
    };
    const transcript = parse("claude-session-jsonl", [
      text,
      text,
      claudeTool("t1", "Read", { file_path: "/a" }),
      claudeTool("t1", "Read", { file_path: "/a" }),
      claudeTool("t2", "Bash", { command: "ls" }, "m2"),
    ]);
    expect(transcript.counts).toEqual({ Read: 1, Bash: 1 });
    expect(transcript.messages).toEqual([{ role: "assistant", text: "hi", truncated: false }]);
    // Usage is the last report per message id, summed over messages: m1 (10/5) + m2 (10/5).
    expect(transcript.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
  });

  it("keeps two different long blocks of one message even when they start alike", () => {
    const block = (tail: string) => ({
      type: "assistant",
      message: { id: "m1", content: [{ type: "text", text: `${"same prefix ".repeat(30)}${tail}` }] },
    });
    const transcript = parse("claude-session-jsonl", [block("A"), block("B"), block("A")]);
    expect(transcript.messages).toHaveLength(1);
    expect(transcript.messages[0]?.text.split("\n")).toHaveLength(2);
  });

  it("Copilot: toolRequests + execution_start + execution_complete is one call; skill.invoked after a skill call adds none", () => {
    const request = {
      type: "assistant.message",
      data: {
        messageId: "a1",
        content: "",
        toolRequests: [{ toolCallId: "c1", name: "skill", arguments: { skill: "pdf" } }],
      },
    };
    const transcript = parse("copilot-events-jsonl", [
      request,
      { type: "tool.execution_start", data: { toolCallId: "c1", toolName: "skill", arguments: { skill: "pdf" } } },
      { type: "skill.invoked", data: { name: "pdf" } },
      { type: "tool.execution_complete", data: { toolCallId: "c1", success: false, error: { message: "boom" } } },
      { type: "skill.invoked", data: { name: "xlsx" } },
      { type: "skill.invoked", data: {} },
      { type: "tool.execution_complete", data: {} },
      { type: "tool.execution_start", data: { toolCallId: "c2", arguments: {} } },
      { type: "session.error", data: { message: "rate limited" } },
    ]);
    expect(transcript.counts).toEqual({ Skill: 2 });
    expect(transcript.tool_calls[0]).toMatchObject({ id: "c1", status: "error", result_excerpt: "boom" });
    expect(transcript.tool_calls[1]).toMatchObject({
      id: null,
      name: "Skill",
      original_name: "skill.invoked",
      input: { skill: "xlsx" },
    });
    expect(transcript.drift.missing_fields).toBe(3);
    expect(transcript.errors).toEqual(["rate limited"]);
  });

  it("Copilot: execution_start before its toolRequest fills the input in once", () => {
    const transcript = parse("copilot-events-jsonl", [
      { type: "tool.execution_start", data: { toolCallId: "c1", toolName: "view" } },
      {
        type: "assistant.message",
        data: {
          messageId: "a",
          toolRequests: [{ toolCallId: "c1", name: "view", arguments: { path: "/r/x" } }, "junk"],
        },
      },
    ]);
    expect(transcript.tool_calls).toHaveLength(1);
    expect(transcript.tool_calls[0]).toMatchObject({ name: "Read", input: { file_path: "/r/x" } });
  });

  it("Codex exec: item.started/updated/completed of one id is one call", () => {
    const item = (type: string, status: string, extra: Record<string, unknown> = {}) => ({
      type,
      item: { id: "i9", type: "mcp_tool_call", server: "skills", tool: "pdf", arguments: {}, status, ...extra },
    });
    const transcript = parse("codex-exec-json", [
      item("item.started", "in_progress"),
      item("item.updated", "in_progress"),
      item("item.completed", "failed", { error: { message: "no such skill" } }),
      { type: "item.completed", item: { type: "command_execution" } },
      { type: "item.completed", item: { id: "w", type: "web_search", query: "zod" } },
      { type: "item.completed", item: { id: "t", type: "todo_list", items: [] } },
      { type: "item.completed", item: { id: "r", type: "reasoning", text: "…" } },
      { type: "item.completed", item: { id: "n", type: "new_item_kind" } },
      {
        type: "item.completed",
        item: {
          id: "m",
          type: "mcp_tool_call",
          server: "docs",
          tool: "search",
          result: { content: [{ type: "text", text: "found" }] },
          status: "completed",
        },
      },
      { type: "item.completed", item: { id: "e", type: "error", message: "transient" } },
      { type: "turn.failed", error: { message: "quota" } },
      { type: "turn.completed", usage: { input_tokens: 5, cached_input_tokens: 1, output_tokens: 2 } },
      { type: "turn.completed", usage: { input_tokens: 7, output_tokens: 3 } },
    ]);
    expect(transcript.counts).toEqual({ Skill: 1, WebSearch: 1, TodoWrite: 1, "mcp:docs/search": 1 });
    expect(transcript.tool_calls[0]).toMatchObject({
      name: "Skill",
      input: { skill: "pdf" },
      status: "error",
      result_excerpt: "no such skill",
    });
    expect(transcript.tool_calls[3]).toMatchObject({ result_excerpt: "found", status: "ok" });
    expect(transcript.drift).toMatchObject({ unknown_event_types: { "item:new_item_kind": 1 }, missing_fields: 1 });
    expect(transcript.errors).toEqual(["transient", "quota"]);
    // Turn usage adds up across turns.
    expect(transcript.usage).toEqual({
      input_tokens: 12,
      output_tokens: 5,
      cache_read_tokens: 1,
      cache_write_tokens: null,
    });
  });
});

describe("Codex rollout details", () => {
  const line = (type: string, payload: unknown, timestamp = "2026-01-01T00:00:00Z") => ({ timestamp, type, payload });

  it("reads statuses from outputs, argv shells, local shell and web search calls, malformed arguments", () => {
    const transcript = parse("codex-rollout-jsonl", [
      line("response_item", {
        type: "function_call",
        name: "shell",
        arguments: j({ command: ["bash", "-lc", "cat skills/pdf/SKILL.md"] }),
        call_id: "a",
      }),
      line("response_item", { type: "function_call_output", call_id: "a", output: { content: "ok", success: true } }),
      line("response_item", { type: "function_call", name: "exec_command", arguments: "{not json", call_id: "b" }),
      line("response_item", {
        type: "function_call_output",
        call_id: "b",
        output: "Process exited with code 1\nOutput:\nboom",
      }),
      line("response_item", {
        type: "local_shell_call",
        call_id: "c",
        action: { command: ["ls"], working_directory: "/r" },
      }),
      line("response_item", { type: "local_shell_call_output", call_id: "c", output: "Exit code: 0" }),
      line("response_item", { type: "web_search_call", id: "d", action: { query: "zod" }, status: "failed" }),
      line("response_item", {
        type: "custom_tool_call",
        name: "apply_patch",
        input: "*** Begin Patch\n*** Add File: n.ts\n+x\n*** End Patch",
        call_id: "e",
        status: "failed",
      }),
      line("response_item", { type: "function_call", call_id: "f" }),
      line("response_item", { type: "function_call_output", output: "x" }),
      line("response_item", { type: "surprise" }),
      line("response_item", {
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: "rules" }, "junk"],
      }),
      line("event_msg", { type: "error", message: "stream broke" }),
      line("event_msg", { type: "task_complete", duration_ms: 1000 }),
      line("event_msg", { type: "task_complete", duration_ms: 500 }),
      line("event_msg", { type: "agent_message", message: "dup of a response_item message" }),
      line("compacted", {}),
      { type: "response_item" },
      { type: "session_meta" },
      { type: "mystery" },
    ]);
    expect(transcript.tool_calls.map((call) => [call.name, call.status])).toEqual([
      ["Bash", "ok"],
      ["Bash", "error"],
      ["Bash", "ok"],
      ["WebSearch", "error"],
      ["Write", "error"],
    ]);
    expect(transcript.tool_calls[0]?.input.command).toBe("cat skills/pdf/SKILL.md");
    expect(transcript.tool_calls[1]?.input).toEqual({ arguments: "{not json" });
    expect(transcript.messages).toEqual([{ role: "system", text: "rules", truncated: false }]);
    expect(transcript.duration_ms).toBe(1500);
    expect(transcript.errors).toEqual(["stream broke"]);
    expect(transcript.drift).toMatchObject({
      unknown_event_types: { "response_item:surprise": 1, mystery: 1 },
      missing_fields: 3,
    });
  });
});

describe("Gemini details", () => {
  it("pairs errors, records error events and failed results", () => {
    const transcript = parse("gemini-stream-json", [
      { type: "tool_use", tool_name: "run_shell_command", tool_id: "s1", parameters: { command: "false" } },
      { type: "tool_result", tool_id: "s1", status: "error", error: { type: "exit", message: "exit 1" } },
      { type: "tool_use", tool_id: "s2", parameters: {} },
      { type: "tool_result", status: "success" },
      { type: "tool_use", tool_name: "mystery_tool", tool_id: "s3", parameters: { a: 1 } },
      { type: "tool_result", tool_id: "s3", status: "weird" },
      { type: "message", role: "assistant", content: "one" },
      { type: "message", role: "assistant", content: " two", delta: true },
      { type: "message", role: "assistant", content: " three", delta: true },
      { type: "tool_use", tool_name: "glob", tool_id: "s4", parameters: {} },
      { type: "message", role: "assistant", content: "after the tool", delta: true },
      { type: "message", role: "user", content: "next", delta: true },
      { type: "message", role: "assistant", content: "reply", delta: true },
      { type: "error", severity: "warning", message: "loop detected" },
      { type: "result", status: "error", error: { type: "FatalAuthenticationError", message: "no auth" } },
    ]);
    expect(transcript.tool_calls.map((call) => [call.name, call.status, call.canonical])).toEqual([
      ["Bash", "error", true],
      ["mystery_tool", "unknown", false],
      ["Glob", "unknown", true],
    ]);
    expect(transcript.tool_calls[0]?.result_excerpt).toBe("exit 1");
    expect(transcript.messages.map((message) => message.text)).toEqual([
      "one",
      " two three",
      "after the tool",
      "next",
      "reply",
    ]);
    expect(transcript.errors).toEqual(["warning: loop detected", "no auth"]);
    expect(transcript.drift.missing_fields).toBe(2);
  });
});

describe("bounds", () => {
  it("cuts long messages, results, inputs and error lists to excerpts", () => {
    const long = "x".repeat(MESSAGE_EXCERPT_CHARS + 10);
    const huge = "y".repeat(INPUT_STRING_CHARS + 10);
    const events: unknown[] = [
      {
        type: "assistant",
        message: {
          id: "m",
          content: [
            { type: "text", text: long },
            { type: "text", text: "more" },
          ],
        },
      },
      claudeTool("t", "Write", { file_path: "/a", content: huge }, "m2"),
      claudeResult("t", [{ type: "text", text: "r".repeat(RESULT_EXCERPT_CHARS + 10) }, "plain", { other: 1 }]),
    ];
    for (let index = 0; index < MAX_ERRORS + 5; index += 1)
      events.push({ type: "result", is_error: true, result: `e${index}` });
    const transcript = parse("claude-stream-json", events);
    expect(transcript.messages[0]).toMatchObject({ truncated: true });
    expect(transcript.messages[0]?.text).toHaveLength(MESSAGE_EXCERPT_CHARS + 1);
    expect(String(transcript.tool_calls[0]?.input.content)).toHaveLength(INPUT_STRING_CHARS + 1);
    expect(transcript.tool_calls[0]?.result_excerpt).toHaveLength(RESULT_EXCERPT_CHARS + 1);
    expect(transcript.errors).toHaveLength(MAX_ERRORS);
  });
});

describe("source metadata", () => {
  it("fills gaps from caller labels, but the stream wins", () => {
    const parser = createTranscriptParser("codex-exec-json", {
      source: { cli_version: "0.169.0", model: "gpt-5", case_id: "c1" },
    });
    parser.push(j({ type: "thread.started", thread_id: "th" }));
    expect(parser.end().source).toEqual({
      format: "codex-exec-json",
      provider: "codex",
      session_id: "th",
      model: "gpt-5",
      cli_version: "0.169.0",
      labels: { cli_version: "0.169.0", model: "gpt-5", case_id: "c1" },
    });
  });

  it("knows each format's provider, and each provider's formats", () => {
    for (const format of TRANSCRIPT_FORMATS) expect(PROVIDER_FORMATS[providerOfFormat(format)]).toContain(format);
  });
});

describe("parseTranscriptFile errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "tool-normalize-"));

  it("a missing file is EVAL_IO naming the path", async () => {
    const error = await parseTranscriptFile("claude-stream-json", join(dir, "absent.jsonl")).catch(
      (caught: unknown) => caught,
    );
    expect(isEvalError(error) && error.code).toBe("EVAL_IO");
    expect((error as Error).message).toBe(`cannot read transcript ${join(dir, "absent.jsonl")}: does not exist`);
    const directory = await parseTranscriptFile("claude-stream-json", dir).catch((caught: unknown) => caught);
    expect(isEvalError(directory) && directory.code).toBe("EVAL_IO");
  });

  it("a file in another format, or not a log at all, is EVAL_TRANSCRIPT_INVALID", async () => {
    const codex = join(dir, "codex.jsonl");
    writeFileSync(codex, `${j({ type: "thread.started", thread_id: "x" })}\n`);
    const wrong = await parseTranscriptFile("copilot-events-jsonl", codex).catch((caught: unknown) => caught);
    expect(isEvalError(wrong) && wrong.code).toBe("EVAL_TRANSCRIPT_INVALID");
    expect((wrong as Error).message).toBe(
      `${codex} is not a copilot-events-jsonl log: 0 of 1 events are copilot-events-jsonl events (1 lines read, 0 not JSON)`,
    );
    const binary = join(dir, "binary.bin");
    writeFileSync(binary, Buffer.from([0, 255, 10, 1, 2, 3, 10]));
    const notLog = await parseTranscriptFile("claude-stream-json", binary).catch((caught: unknown) => caught);
    expect(isEvalError(notLog) && notLog.code).toBe("EVAL_TRANSCRIPT_INVALID");
  });
});

describe("detectTranscriptFormat", () => {
  const dir = mkdtempSync(join(tmpdir(), "detect-"));

  it("picks the provider's format the first lines are in; one-format providers need no look", async () => {
    const { detectTranscriptFormat } = await import("./index.ts");
    const session = join(dir, "session.jsonl");
    writeFileSync(session, `${j({ type: "progress" })}\n${j({ type: "user", message: { content: "hi" } })}\n`);
    const stream = join(dir, "stream.jsonl");
    writeFileSync(stream, `${j({ type: "system", subtype: "init" })}\n${j({ type: "result" })}\n`);
    expect(await detectTranscriptFormat("claude-code", session)).toBe("claude-session-jsonl");
    expect(await detectTranscriptFormat("claude-code", stream)).toBe("claude-stream-json");
    expect(await detectTranscriptFormat("gemini", join(dir, "never-read.jsonl"))).toBe("gemini-stream-json");
    const many = join(dir, "many.jsonl");
    writeFileSync(many, `${`${j({ type: "thread.started" })}\n`.repeat(300)}${"x".repeat((1 << 20) + 5)}\n`);
    expect(await detectTranscriptFormat("codex", many)).toBe("codex-exec-json");
    expect(await detectTranscriptFormat("codex", many, 400)).toBe("codex-exec-json");
  });

  it("reads pi's one format without a look, and refuses unreadable files", async () => {
    const { detectTranscriptFormat } = await import("./index.ts");
    expect(await detectTranscriptFormat("pi", join(dir, "never-read.jsonl"))).toBe("pi-json");
    const missing = await detectTranscriptFormat("codex", join(dir, "absent")).catch((caught: unknown) => caught);
    expect(isEvalError(missing) && missing.code).toBe("EVAL_IO");
    const directory = await detectTranscriptFormat("codex", dir).catch((caught: unknown) => caught);
    expect(isEvalError(directory) && directory.code).toBe("EVAL_IO");
  });
});
