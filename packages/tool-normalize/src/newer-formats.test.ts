// The three newer formats: Pi `--mode json`, the Codex app-server's JSON-RPC stream, Copilot over ACP.
//
// __fixtures__/agentv-recorded/ holds real recordings (copied from the shared fixtures: AgentV run
// bundles' transcript-raw.jsonl; no tool calls happen in them). The expected numbers were derived by
// a Python pass over each raw file, independently of this code: Pi usage = the sum of `usage` over
// assistant `message_end`s (input/output/cacheRead/cacheWrite), cost = the sum of `usage.cost.total`,
// duration = last message timestamp - the session header's; app-server usage = the last
// `thread/tokenUsage/updated` `total` (inputTokens/outputTokens/cachedInputTokens), duration = the
// `turn/completed` turn's durationMs; ACP: the model is the `model` config option's currentValue.
//
// __fixtures__/built/*.built.jsonl are BUILT tool-call streams (built-streams.test-helpers.ts, every
// line checked with `satisfies` against the protocols' published types); their expected counts come
// from the same kind of Python pass (tool calls by id, native names mapped by hand through the table).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_STREAMS } from "./built-streams.test-helpers.ts";
import { createTranscriptParser, detectTranscriptFormat, parseTranscriptFile } from "./index.ts";
import type { Transcript, TranscriptFormat } from "./index.ts";

const fixture = (...parts: string[]): string => join(import.meta.dirname, "__fixtures__", ...parts);
const NO_DRIFT = { unknown_event_types: {}, unparseable_lines: 0, missing_fields: 0, truncated_last_line: false };

function parseLines(
  format: TranscriptFormat,
  lines: readonly string[],
): { transcript: Transcript; stats: { lines: number; recognized_events: number; unrecognized_events: number } } {
  const parser = createTranscriptParser(format);
  for (const line of lines) parser.push(line);
  const transcript = parser.end();
  return { transcript, stats: parser.stats };
}

const RECORDED = [
  {
    file: "pi.json-mode.fizzbuzz.jsonl",
    provider: "pi",
    format: "pi-json",
    events: 16,
    messages: [
      ["user", 121],
      ["assistant", 405],
    ],
    usage: { input_tokens: 8556, output_tokens: 191, cache_read_tokens: 0, cache_write_tokens: 0 },
    source: { session_id: "019f2738-b980-76f0-b2cc-0c9b7587bded", model: "gpt-5.3-codex-spark" },
    turns: 1,
    duration_ms: 926,
    cost_usd: 0.017647,
  },
  {
    file: "pi.json-mode.live-marker.jsonl",
    provider: "pi",
    format: "pi-json",
    events: 22,
    messages: [
      ["user", 66],
      ["assistant", 21],
    ],
    usage: { input_tokens: 11_081, output_tokens: 23, cache_read_tokens: 0, cache_write_tokens: 0 },
    source: { session_id: "019f304b-35f7-7867-97f0-1a967c48f41e", model: "gpt-5.4-mini" },
    turns: 1,
    duration_ms: 1376,
    cost_usd: 0.00841425,
  },
  {
    file: "codex.app-server.live-marker.jsonl",
    provider: "codex",
    format: "codex-app-server",
    events: 38,
    messages: [
      ["user", 90],
      ["assistant", 21],
    ],
    usage: { input_tokens: 17_564, output_tokens: 37, cache_read_tokens: 3456, cache_write_tokens: null },
    source: { session_id: "019f3074-84aa-7942-8c68-44683803ff34", model: "gpt-5.4-mini", cli_version: "0.142.5" },
    turns: 1,
    duration_ms: 5814,
    cost_usd: null,
  },
  {
    file: "copilot.acp.live-marker.jsonl",
    provider: "copilot",
    format: "copilot-acp",
    events: 4,
    messages: [["assistant", 21]],
    usage: { input_tokens: null, output_tokens: null, cache_read_tokens: null, cache_write_tokens: null },
    source: { session_id: null, model: "gpt-5.4-mini" },
    turns: undefined,
    duration_ms: null,
    cost_usd: null,
  },
] as const;

describe("real recordings (agentv-recorded/)", () => {
  it.each(RECORDED.map((expected) => [expected.file, expected] as const))(
    "%s: events, messages, tokens, tool calls, drift",
    async (file, expected) => {
      // The provider's format is detected, as `transcript import --provider` does.
      expect(await detectTranscriptFormat(expected.provider, fixture("agentv-recorded", file))).toBe(expected.format);
      const { transcript, stats } = parseLines(
        expected.format,
        readFileSync(fixture("agentv-recorded", file), "utf8").split("\n"),
      );
      expect(stats).toEqual({ lines: expected.events, recognized_events: expected.events, unrecognized_events: 0 });
      expect(transcript.messages.map((message) => [message.role, message.text.length])).toEqual(expected.messages);
      expect(transcript.usage).toEqual(expected.usage);
      expect(transcript.source).toMatchObject(expected.source);
      expect(transcript.turns).toBe(expected.turns);
      expect(transcript.duration_ms).toBe(expected.duration_ms);
      expect(transcript.cost_usd).toBe(expected.cost_usd);
      expect(transcript.tool_calls).toEqual([]);
      expect(transcript.drift).toEqual(NO_DRIFT);
      expect(transcript).toEqual(
        await parseTranscriptFile(expected.format, fixture("agentv-recorded", file), { source: { path: "" } }).then(
          (parsed) => ({ ...parsed, source: { ...parsed.source, labels: {} } }),
        ),
      );
    },
  );

  it("keeps the reply text whole: the marker the prompt asked for", async () => {
    for (const { file, format } of RECORDED) {
      const transcript = await parseTranscriptFile(format, fixture("agentv-recorded", file));
      const reply = transcript.messages.at(-1)!;
      expect(reply.role).toBe("assistant");
      if (file.includes("live-marker")) expect(reply.text).toBe("AGENTV-LIVE-MATRIX-OK");
      else expect(reply.text).toMatch(/^```python\ndef fizzbuzz\(n: int\) -> list\[str\]:/);
    }
  });

  it.each(RECORDED.map((expected) => [expected.file, expected] as const))(
    "%s cut mid-line (a killed process): tolerated and flagged",
    (_file, expected) => {
      const text = readFileSync(fixture("agentv-recorded", expected.file), "utf8").trimEnd();
      const parser = createTranscriptParser(expected.format);
      parser.write(text.slice(0, text.length - 40));
      const transcript = parser.end();
      expect(transcript.drift).toMatchObject({ unparseable_lines: 1, truncated_last_line: true, missing_fields: 0 });
      expect(parser.stats.recognized_events).toBe(expected.events - 1);
    },
  );
});

describe("built tool-call streams (built/*.built.jsonl, typed against the protocols)", () => {
  it("the committed JSONL is exactly the typed lines", () => {
    for (const { file, lines } of BUILT_STREAMS) {
      expect(readFileSync(fixture("built", file), "utf8")).toBe(
        `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
      );
    }
  });

  const built = (file: string): Promise<Transcript> => {
    const stream = BUILT_STREAMS.find((candidate) => candidate.file === file)!;
    return parseTranscriptFile(stream.format, fixture("built", file));
  };

  it("Pi: the coding agent's seven tools, once each though reported three times; results paired; two turns", async () => {
    const transcript = await built("pi.json-mode.tools.built.jsonl");
    // python: 41 events; 7 ids {read, bash, edit, write, grep, find, ls}; bash isError; usage sums.
    expect(transcript.counts).toEqual({ Read: 1, Bash: 1, Edit: 1, Write: 1, Grep: 1, Glob: 1, ls: 1 });
    expect(transcript.tool_calls.map((call) => [call.original_name, call.status])).toEqual([
      ["read", "ok"],
      ["bash", "error"],
      ["edit", "ok"],
      ["write", "ok"],
      ["grep", "ok"],
      ["find", "ok"],
      ["ls", "ok"],
    ]);
    expect(transcript.tool_calls.find((call) => call.name === "Read")?.input).toMatchObject({
      file_path: "src/fizz.py",
      offset: 1,
    });
    expect(transcript.tool_calls.find((call) => call.name === "Bash")).toMatchObject({
      input: { command: "python3 -m pytest -q" },
      result_excerpt: "1 failed",
    });
    expect(transcript.tool_calls.find((call) => call.name === "Glob")?.input.pattern).toBe("**/*.py");
    expect(transcript.usage).toEqual({
      input_tokens: 18_800,
      output_tokens: 361,
      cache_read_tokens: 9984,
      cache_write_tokens: 0,
    });
    expect(transcript.cost_usd).toBeCloseTo(0.006, 12);
    expect(transcript.turns).toBe(2);
    expect(transcript.duration_ms).toBe(5000);
    expect(transcript.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
    expect(transcript.drift).toEqual(NO_DRIFT);
  });

  it("Codex app-server: nine tool-like items by item type, exit codes and failures as status, token totals", async () => {
    const transcript = await built("codex.app-server.tools.built.jsonl");
    // python: 27 lines; items commandExecution ×2 (exit 0, exit 1 failed), fileChange ×2 (one add; update + delete),
    // mcpToolCall docs/search and agent-skills/use_skill (failed), webSearch, imageView, dynamicToolCall lookup_ticket.
    expect(transcript.counts).toEqual({
      Bash: 2,
      Write: 1,
      Edit: 1,
      "mcp:docs/search": 1,
      Skill: 1,
      WebSearch: 1,
      Read: 1,
      lookup_ticket: 1,
    });
    expect(transcript.tool_calls.map((call) => call.status)).toEqual([
      "ok",
      "error",
      "ok",
      "ok",
      "ok",
      "error",
      "ok",
      "ok",
      "ok",
    ]);
    expect(transcript.tool_calls[2]).toMatchObject({ name: "Write", input: { file_path: "/w/src/new.ts" } });
    expect(transcript.tool_calls[3]).toMatchObject({
      name: "Edit",
      input: { file_paths: ["/w/src/a.ts", "/w/src/b.ts"] },
    });
    expect(transcript.tool_calls[5]).toMatchObject({
      name: "Skill",
      input: { skill: "pdf" },
      result_excerpt: "no such skill",
    });
    expect(transcript.tool_calls[4]?.result_excerpt).toBe("3 hits");
    expect(transcript.tool_calls[0]).toMatchObject({
      input: { command: "/bin/bash -lc 'npm test'" },
      result_excerpt: "2 passing\n",
    });
    expect(transcript.usage).toEqual({
      input_tokens: 39_000,
      output_tokens: 1210,
      cache_read_tokens: 30_720,
      cache_write_tokens: null,
    });
    expect(transcript.messages).toEqual([
      { role: "user", text: "Fix the lodash advisory.", truncated: false },
      { role: "assistant", text: "Done.", truncated: false },
    ]);
    expect(transcript.source).toMatchObject({
      model: "gpt-5.4",
      cli_version: "0.142.5",
      session_id: "019f3074-84aa-7942-8c68-000000000001",
    });
    expect(transcript.duration_ms).toBe(7012);
    expect(transcript.drift).toEqual(NO_DRIFT);
  });

  it("Copilot over ACP: calls named by kind, the unambiguous kinds canonical; chunks join; updates pair by id", async () => {
    const transcript = await built("copilot.acp.tools.built.jsonl");
    // python: 17 lines; tool_call kinds read, execute, edit, search, fetch, think; final status completed,
    // failed, completed, completed, completed, none.
    expect(transcript.counts).toEqual({ Read: 1, Bash: 1, Edit: 1, "acp:search": 1, WebFetch: 1, "acp:think": 1 });
    expect(transcript.tool_calls.map((call) => call.status)).toEqual(["ok", "error", "ok", "ok", "ok", "unknown"]);
    expect(transcript.tool_calls[0]).toMatchObject({
      name: "Read",
      input: { file_path: "/w/test/a.test.ts", title: "Viewing /w/test/a.test.ts" },
      result_excerpt: "it('adds', ...)",
    });
    expect(transcript.tool_calls[1]).toMatchObject({ name: "Bash", input: { command: "npm test" } });
    expect(transcript.tool_calls[1]?.result_excerpt).toContain("1 failing");
    expect(transcript.tool_calls[2]).toMatchObject({ name: "Edit", input: { file_path: "/w/src/a.ts" } });
    expect(transcript.tool_calls[4]).toMatchObject({
      name: "WebFetch",
      input: { url: "https://nodejs.org/api/test.html" },
    });
    expect(transcript.messages).toEqual([
      { role: "user", text: "Fix the failing test.", truncated: false },
      { role: "assistant", text: "Fixed the sign in add().", truncated: false },
    ]);
    expect(transcript.turns).toBe(1);
    expect(transcript.source.session_id).toBe("sess_acp_1");
    expect(transcript.usage).toEqual({
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
    });
    expect(transcript.drift).toEqual(NO_DRIFT);
  });

  it("each built stream is detected among its provider's formats", async () => {
    expect(await detectTranscriptFormat("codex", fixture("built", "codex.app-server.tools.built.jsonl"))).toBe(
      "codex-app-server",
    );
    expect(await detectTranscriptFormat("copilot", fixture("built", "copilot.acp.tools.built.jsonl"))).toBe(
      "copilot-acp",
    );
    expect(await detectTranscriptFormat("pi", fixture("built", "pi.json-mode.tools.built.jsonl"))).toBe("pi-json");
  });
});

const j = (value: unknown): string => JSON.stringify(value);
const parse = (format: TranscriptFormat, events: readonly unknown[]): Transcript =>
  parseLines(
    format,
    events.map((event) => (typeof event === "string" ? event : j(event))),
  ).transcript;

describe("usage settled or partial", () => {
  const claudeAssistant = (id: string, input: number, output: number) => ({
    type: "assistant",
    session_id: "s",
    message: { id, content: [{ type: "text", text: id }], usage: { input_tokens: input, output_tokens: output } },
  });

  it("a Claude stream cut before its `result`: usage from the last report per message, marked partial", () => {
    const lines = [
      j({ type: "system", subtype: "init", session_id: "s" }),
      j(claudeAssistant("m1", 100, 5)),
      j(claudeAssistant("m1", 100, 9)),
      j(claudeAssistant("m2", 140, 20)),
    ];
    const cut = parseLines("claude-stream-json", [
      ...lines,
      '{"type":"result","subtype":"success","usage":{"input_tok',
    ]).transcript;
    expect(cut.usage).toEqual({
      input_tokens: 240,
      output_tokens: 29,
      cache_read_tokens: null,
      cache_write_tokens: null,
      partial: true,
    });
    expect(cut.drift.truncated_last_line).toBe(true);
    const whole = parseLines("claude-stream-json", [
      ...lines,
      j({ type: "result", session_id: "s", usage: { input_tokens: 240, output_tokens: 31 } }),
    ]).transcript;
    expect(whole.usage).toEqual({
      input_tokens: 240,
      output_tokens: 31,
      cache_read_tokens: null,
      cache_write_tokens: null,
    });
  });

  it("a Claude stream without a result is still a stream: detection no longer picks the session format", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = join(mkdtempSync(join(tmpdir(), "cut-claude-")), "cut.jsonl");
    const text = readFileSync(fixture("claude.stream-json.sample.jsonl"), "utf8").trimEnd();
    writeFileSync(path, text.slice(0, text.lastIndexOf("\n") + 60));
    expect(await detectTranscriptFormat("claude-code", path)).toBe("claude-stream-json");
    const transcript = await parseTranscriptFile("claude-stream-json", path);
    // python over the sample: the last usage per message.id, msg_01A 1200/48 and msg_01B 1290/9, sums to 2490/57.
    expect(transcript.usage).toMatchObject({ input_tokens: 2490, output_tokens: 57, partial: true });
    // The session file, read as a stream, is not one (its lines spell the id `sessionId`).
    await expect(parseTranscriptFile("claude-stream-json", fixture("claude-code.session.jsonl"))).rejects.toThrow(
      /is not a claude-stream-json log: 0 of/,
    );
  });

  it("codex exec --json cut inside its second turn: the first turn's totals, marked partial", () => {
    const turn = (input: number) => [
      { type: "turn.started" },
      { type: "turn.completed", usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 10 } },
    ];
    const two = parse("codex-exec-json", [{ type: "thread.started", thread_id: "t" }, ...turn(100), ...turn(50)]);
    expect(two).toMatchObject({ usage: { input_tokens: 150, output_tokens: 20 }, turns: 2 });
    expect(two.usage.partial).toBeUndefined();
    const cut = parse("codex-exec-json", [
      { type: "thread.started", thread_id: "t" },
      ...turn(100),
      { type: "turn.started" },
    ]);
    expect(cut).toMatchObject({ usage: { input_tokens: 100, output_tokens: 10, partial: true }, turns: 2 });
    expect(
      parse("codex-exec-json", [{ type: "turn.started" }, { type: "turn.failed", error: { message: "quota" } }]).usage
        .partial,
    ).toBeUndefined();
  });

  it("Pi cut before agent_end, the app-server before turn/completed: partial; nothing counted: not partial", () => {
    const pi = readFileSync(fixture("agentv-recorded", "pi.json-mode.live-marker.jsonl"), "utf8").trimEnd().split("\n");
    expect(parse("pi-json", pi.slice(0, -1)).usage.partial).toBe(true);
    expect(parse("pi-json", pi.slice(0, 4)).usage).toEqual({
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
    });
    const codex = readFileSync(fixture("agentv-recorded", "codex.app-server.live-marker.jsonl"), "utf8")
      .trimEnd()
      .split("\n");
    expect(parse("codex-app-server", codex.slice(0, -1)).usage).toMatchObject({ input_tokens: 17_564, partial: true });
    expect(parse("codex-app-server", codex).usage.partial).toBeUndefined();
  });
});

describe("a log of another format is the same error whichever provider is named", () => {
  it.each(["claude-code", "codex", "copilot", "pi", "gemini"] as const)(
    "a Gemini stream imported as %s",
    async (provider) => {
      const path = fixture("gemini.stream-json.sample.jsonl");
      const format = await detectTranscriptFormat(provider, path);
      const outcome = await parseTranscriptFile(format, path).then(
        () => "parsed",
        (error: unknown) => (error as Error).message,
      );
      if (provider === "gemini") expect(outcome).toBe("parsed");
      // Before: as claude-code it parsed (its `result` line is a Claude event type too) and exited 0.
      else
        expect(outcome).toMatch(
          new RegExp(`is not a ${format} log: [01] of 7 events are ${format} events \\(7 lines read, 0 not JSON\\)$`),
        );
    },
  );
});

describe("drift and odd input in the newer formats", () => {
  it("Pi: unknown events counted; errors, retries, model changes and tool results without an id", () => {
    const transcript = parse("pi-json", [
      { type: "brand_new" },
      { type: "message_end" },
      { type: "message_end", message: { role: "custom", content: "ui only" } },
      {
        type: "message_end",
        message: {
          role: "assistant",
          content: "plain text",
          model: "m1",
          stopReason: "error",
          errorMessage: "rate limited",
          usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 1e400 } },
        },
      },
      { type: "message_end", message: { role: "toolResult", content: [] } },
      { type: "tool_execution_end", toolCallId: "x", result: "late", isError: "maybe" },
      { type: "auto_retry_start", attempt: 1 },
      { type: "auto_retry_end", success: false, finalError: "gave up" },
      { type: "auto_retry_end", success: false },
      { type: "auto_retry_end", success: true },
      { type: "model_changed", model: { id: "m2" } },
      {
        type: "message_end",
        message: { role: "assistant", content: [{ type: "toolCall", id: "c", arguments: {} }], stopReason: "aborted" },
      },
    ]);
    expect(transcript.drift.unknown_event_types).toEqual({ brand_new: 1 });
    // message_end without a message, a tool result without an id, a call without a name, a result never paired.
    expect(transcript.drift.missing_fields).toBe(4);
    expect(transcript.errors).toEqual(["rate limited", "gave up", "retries exhausted", "aborted"]);
    expect(transcript.source.model).toBe("m2");
    expect(transcript.cost_usd).toBeNull();
    expect(transcript.messages).toEqual([{ role: "assistant", text: "plain text", truncated: false }]);
  });

  it("Codex app-server: unknown methods and items, error notifications, failed turns, replies with errors", () => {
    const transcript = parse("codex-app-server", [
      { method: "brand/new", params: {} },
      { id: 1 },
      { jsonrpc: "2.0" },
      { method: "item/completed", params: { item: { type: "brandNewItem", id: "i1" } } },
      { method: "item/completed", params: { item: { type: "reasoning" } } },
      { method: "item/completed", params: {} },
      { method: "thread/tokenUsage/updated", params: {} },
      { id: 3, method: "turn/start", params: { input: [{ type: "text", text: "hello", text_elements: [] }] } },
      {
        method: "item/completed",
        params: {
          item: {
            type: "userMessage",
            id: "u",
            content: [
              { type: "text", text: "hello", text_elements: [] },
              { type: "localImage", path: "/i.png" },
            ],
          },
        },
      },
      { method: "error", params: { error: { message: "stream disconnected" }, willRetry: true } },
      { id: 4, error: { code: -32001, message: "Server overloaded; retry later." } },
      { method: "turn/completed", params: { turn: { status: "failed", error: { message: "usage limit" } } } },
      { method: "turn/completed", params: { turn: { status: "failed" } } },
      { method: "turn/completed", params: {} },
      { method: "item/completed", params: { item: { type: "mcpToolCall", id: "m", status: "completed" } } },
      { method: "item/completed", params: { item: { type: "dynamicToolCall", id: "d", success: false } } },
      {
        method: "item/completed",
        params: {
          item: { type: "collabAgentToolCall", id: "c", tool: "spawnAgent", prompt: "review", status: "completed" },
        },
      },
      {
        method: "item/started",
        params: { item: { type: "commandExecution", id: "x", command: "ls", status: "inProgress" } },
      },
    ]);
    expect(transcript.drift.unknown_event_types).toEqual({ "brand/new": 1, "item:brandNewItem": 1 });
    // `{id: 1}` (a reply with neither result nor error) and `{jsonrpc}` have no type; two items lack an id; usage lacks
    // its total; the dynamic tool call has no tool name, so its result pairs with nothing.
    expect(transcript.drift.missing_fields).toBe(7);
    expect(transcript.errors).toEqual([
      "stream disconnected",
      "Server overloaded; retry later.",
      "usage limit",
      "turn failed",
    ]);
    expect(transcript.messages).toEqual([{ role: "user", text: "hello", truncated: false }]);
    expect(transcript.tool_calls.map((call) => [call.name, call.status])).toEqual([
      ["mcp:/", "ok"],
      ["Task", "ok"],
      ["Bash", "unknown"],
    ]);
  });

  it("ACP: bare updates as recorders write them, prompt replies with usage, errors, unknown update kinds", () => {
    const transcript = parse("copilot-acp", [
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } },
      {
        type: "agent_message_chunk",
        sessionUpdate: "agent_message_chunk",
        content: { type: "image", data: "", mimeType: "image/png" },
      },
      {
        sessionUpdate: "agent_message_chunk",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      { sessionUpdate: "brand_new_update" },
      {
        type: "tool_call",
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "ls",
        kind: "execute",
        rawInput: { command: "ls" },
        status: "completed",
        rawOutput: { output: "a.txt" },
      },
      { sessionUpdate: "tool_call_update", toolCallId: "t1", kind: "execute", rawInput: { command: "ls -la" } },
      { sessionUpdate: "tool_call_update", toolCallId: "t9", status: "completed" },
      { sessionUpdate: "tool_call" },
      { sessionUpdate: "tool_call", toolCallId: "t2", title: "x" },
      {
        sessionUpdate: "config_option_update",
        configOptions: [
          { id: "mode", currentValue: "agent" },
          { category: "model", currentValue: "claude-sonnet-5" },
        ],
      },
      { type: "assistant_message", content: [{ type: "text", text: "whole" }] },
      { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1" } },
      { jsonrpc: "2.0", method: "session/request_permission", id: 9, params: {} },
      { jsonrpc: "2.0", id: 1, result: { sessionId: "s1", models: { currentModelId: "gpt-5" } } },
      {
        jsonrpc: "2.0",
        id: 3,
        result: {
          stopReason: "end_turn",
          usage: { inputTokens: 100, outputTokens: 7, cachedReadTokens: 50, totalTokens: 157 },
        },
      },
      { jsonrpc: "2.0", id: 5, result: { stopReason: "end_turn", usage: { inputTokens: 10, outputTokens: 3 } } },
      { jsonrpc: "2.0", id: 6, error: { code: -32603, message: "model unavailable" } },
      { jsonrpc: "2.0", id: 7, error: {} },
    ]);
    expect(transcript.drift.unknown_event_types).toEqual({ brand_new_update: 1 });
    // a tool_call without an id, a session/update without its update, a result for a call never seen.
    expect(transcript.drift.missing_fields).toBe(3);
    expect(transcript.messages).toEqual([
      { role: "user", text: "hi", truncated: false },
      { role: "assistant", text: "ab", truncated: false },
      { role: "assistant", text: "whole", truncated: false },
    ]);
    expect(transcript.tool_calls.map((call) => [call.name, call.status, call.input.command ?? null])).toEqual([
      ["Bash", "ok", "ls"],
      ["acp:other", "unknown", null],
    ]);
    expect(transcript.tool_calls[0]?.result_excerpt).toBe("a.txt");
    expect(transcript.usage).toEqual({
      input_tokens: 110,
      output_tokens: 10,
      cache_read_tokens: 50,
      cache_write_tokens: null,
    });
    expect(transcript.source).toMatchObject({ session_id: "s1", model: "gpt-5" });
    expect(transcript.errors).toEqual(["model unavailable", "error"]);
  });
});
