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

function parseLines(format: TranscriptFormat, lines: readonly string[]): { transcript: Transcript; stats: { lines: number; recognized_events: number; unrecognized_events: number } } {
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
    messages: [["user", 121], ["assistant", 405]],
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
    messages: [["user", 66], ["assistant", 21]],
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
    messages: [["user", 90], ["assistant", 21]],
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
  it.each(RECORDED.map((expected) => [expected.file, expected] as const))("%s: events, messages, tokens, tool calls, drift", async (file, expected) => {
    // The provider's format is detected, as `transcript import --provider` does.
    expect(await detectTranscriptFormat(expected.provider, fixture("agentv-recorded", file))).toBe(expected.format);
    const { transcript, stats } = parseLines(expected.format, readFileSync(fixture("agentv-recorded", file), "utf8").split("\n"));
    expect(stats).toEqual({ lines: expected.events, recognized_events: expected.events, unrecognized_events: 0 });
    expect(transcript.messages.map((message) => [message.role, message.text.length])).toEqual(expected.messages);
    expect(transcript.usage).toEqual(expected.usage);
    expect(transcript.source).toMatchObject(expected.source);
    expect(transcript.turns).toBe(expected.turns);
    expect(transcript.duration_ms).toBe(expected.duration_ms);
    expect(transcript.cost_usd).toBe(expected.cost_usd);
    expect(transcript.tool_calls).toEqual([]);
    expect(transcript.drift).toEqual(NO_DRIFT);
    expect(transcript).toEqual(await parseTranscriptFile(expected.format, fixture("agentv-recorded", file), { source: { path: "" } }).then((parsed) => ({ ...parsed, source: { ...parsed.source, labels: {} } })));
  });

  it("keeps the reply text whole: the marker the prompt asked for", async () => {
    for (const { file, format } of RECORDED) {
      const transcript = await parseTranscriptFile(format, fixture("agentv-recorded", file));
      const reply = transcript.messages.at(-1)!;
      expect(reply.role).toBe("assistant");
      if (file.includes("live-marker")) expect(reply.text).toBe("AGENTV-LIVE-MATRIX-OK");
      else expect(reply.text).toMatch(/^```python\ndef fizzbuzz\(n: int\) -> list\[str\]:/);
    }
  });

  it.each(RECORDED.map((expected) => [expected.file, expected] as const))("%s cut mid-line (a killed process): tolerated and flagged", (_file, expected) => {
    const text = readFileSync(fixture("agentv-recorded", expected.file), "utf8").trimEnd();
    const parser = createTranscriptParser(expected.format);
    parser.write(text.slice(0, text.length - 40));
    const transcript = parser.end();
    expect(transcript.drift).toMatchObject({ unparseable_lines: 1, truncated_last_line: true, missing_fields: 0 });
    expect(parser.stats.recognized_events).toBe(expected.events - 1);
  });
});

describe("built tool-call streams (built/*.built.jsonl, typed against the protocols)", () => {
  it("the committed JSONL is exactly the typed lines", () => {
    for (const { file, lines } of BUILT_STREAMS) {
      expect(readFileSync(fixture("built", file), "utf8")).toBe(`${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
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
    expect(transcript.tool_calls.find((call) => call.name === "Read")?.input).toMatchObject({ file_path: "src/fizz.py", offset: 1 });
    expect(transcript.tool_calls.find((call) => call.name === "Bash")).toMatchObject({ input: { command: "python3 -m pytest -q" }, result_excerpt: "1 failed" });
    expect(transcript.tool_calls.find((call) => call.name === "Glob")?.input.pattern).toBe("**/*.py");
    expect(transcript.usage).toEqual({ input_tokens: 18_800, output_tokens: 361, cache_read_tokens: 9984, cache_write_tokens: 0 });
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
    expect(transcript.counts).toEqual({ Bash: 2, Write: 1, Edit: 1, "mcp:docs/search": 1, Skill: 1, WebSearch: 1, Read: 1, lookup_ticket: 1 });
    expect(transcript.tool_calls.map((call) => call.status)).toEqual(["ok", "error", "ok", "ok", "ok", "error", "ok", "ok", "ok"]);
    expect(transcript.tool_calls[2]).toMatchObject({ name: "Write", input: { file_path: "/w/src/new.ts" } });
    expect(transcript.tool_calls[3]).toMatchObject({ name: "Edit", input: { file_paths: ["/w/src/a.ts", "/w/src/b.ts"] } });
    expect(transcript.tool_calls[5]).toMatchObject({ name: "Skill", input: { skill: "pdf" }, result_excerpt: "no such skill" });
    expect(transcript.tool_calls[4]?.result_excerpt).toBe("3 hits");
    expect(transcript.tool_calls[0]).toMatchObject({ input: { command: "/bin/bash -lc 'npm test'" }, result_excerpt: "2 passing\n" });
    expect(transcript.usage).toEqual({ input_tokens: 39_000, output_tokens: 1210, cache_read_tokens: 30_720, cache_write_tokens: null });
    expect(transcript.messages).toEqual([
      { role: "user", text: "Fix the lodash advisory.", truncated: false },
      { role: "assistant", text: "Done.", truncated: false },
    ]);
    expect(transcript.source).toMatchObject({ model: "gpt-5.4", cli_version: "0.142.5", session_id: "019f3074-84aa-7942-8c68-000000000001" });
    expect(transcript.duration_ms).toBe(7012);
    expect(transcript.drift).toEqual(NO_DRIFT);
  });

  it("Copilot over ACP: calls named by kind, the unambiguous kinds canonical; chunks join; updates pair by id", async () => {
    const transcript = await built("copilot.acp.tools.built.jsonl");
    // python: 17 lines; tool_call kinds read, execute, edit, search, fetch, think; final status completed,
    // failed, completed, completed, completed, none.
    expect(transcript.counts).toEqual({ Read: 1, Bash: 1, Edit: 1, "acp:search": 1, WebFetch: 1, "acp:think": 1 });
    expect(transcript.tool_calls.map((call) => call.status)).toEqual(["ok", "error", "ok", "ok", "ok", "unknown"]);
    expect(transcript.tool_calls[0]).toMatchObject({ name: "Read", input: { file_path: "/w/test/a.test.ts", title: "Viewing /w/test/a.test.ts" }, result_excerpt: "it('adds', ...)" });
    expect(transcript.tool_calls[1]).toMatchObject({ name: "Bash", input: { command: "npm test" } });
    expect(transcript.tool_calls[1]?.result_excerpt).toContain("1 failing");
    expect(transcript.tool_calls[2]).toMatchObject({ name: "Edit", input: { file_path: "/w/src/a.ts" } });
    expect(transcript.tool_calls[4]).toMatchObject({ name: "WebFetch", input: { url: "https://nodejs.org/api/test.html" } });
    expect(transcript.messages).toEqual([
      { role: "user", text: "Fix the failing test.", truncated: false },
      { role: "assistant", text: "Fixed the sign in add().", truncated: false },
    ]);
    expect(transcript.turns).toBe(1);
    expect(transcript.source.session_id).toBe("sess_acp_1");
    expect(transcript.usage).toEqual({ input_tokens: null, output_tokens: null, cache_read_tokens: null, cache_write_tokens: null });
    expect(transcript.drift).toEqual(NO_DRIFT);
  });

  it("each built stream is detected among its provider's formats", async () => {
    expect(await detectTranscriptFormat("codex", fixture("built", "codex.app-server.tools.built.jsonl"))).toBe("codex-app-server");
    expect(await detectTranscriptFormat("copilot", fixture("built", "copilot.acp.tools.built.jsonl"))).toBe("copilot-acp");
    expect(await detectTranscriptFormat("pi", fixture("built", "pi.json-mode.tools.built.jsonl"))).toBe("pi-json");
  });
});
