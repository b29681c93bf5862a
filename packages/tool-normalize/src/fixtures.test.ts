// Every real agent log in __fixtures__ (copied from the shared fixtures: real sessions from the public
// AgentV repository, and real output of the agent CLIs run without credentials), parsed end to end.
//
// How the expected numbers were derived, independently of this code: a Python pass over each raw file
// collected every tool call by id, once (Claude `tool_use` blocks; Codex rollout `function_call` and
// `custom_tool_call`; Copilot `assistant.message.toolRequests` ∪ `tool.execution_start`; Codex exec
// `item.*` of a tool type; Gemini `tool_use`), counted native names, and the counts were then mapped
// by hand through the table in docs/tool-normalization.md. Usage was summed the same way (Claude: the
// last usage per message.id; Codex: the last token_count total; Copilot: the sum of outputTokens).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTranscriptParser, parseTranscriptFile } from "./index.ts";
import type { TranscriptFormat } from "./index.ts";

const fixture = (name: string): string => join(import.meta.dirname, "__fixtures__", name);

interface Expectation {
  readonly file: string;
  readonly format: TranscriptFormat;
  readonly counts: Record<string, number>;
  readonly [key: string]: unknown;
}

const REAL_FILES: readonly Expectation[] = [
  // python: {'Bash': 12, 'Read': 3, 'Glob': 1, 'Edit': 1}, 17 distinct tool_use ids across 15 message ids.
  {
    file: "claude-code.session.jsonl",
    format: "claude-session-jsonl",
    counts: { Bash: 12, Read: 3, Glob: 1, Edit: 1 },
  },
  // python: {'exec_command': 20, 'update_plan': 2, 'apply_patch': 1}; the patch touches 15 files -> Edit with file_paths.
  { file: "codex.rollout.jsonl", format: "codex-rollout-jsonl", counts: { Bash: 20, TodoWrite: 2, Edit: 1 } },
  // python: {'bash': 61, 'stop_bash': 4, 'read_bash': 1, 'view': 1, 'edit': 1}: 68 ids, each in toolRequests AND execution_start/complete.
  {
    file: "copilot-cli.events.jsonl",
    format: "copilot-events-jsonl",
    counts: { Bash: 61, stop_bash: 4, read_bash: 1, Read: 1, Edit: 1 },
  },
  { file: "copilot-cli.events.small-no-tools.jsonl", format: "copilot-events-jsonl", counts: {} },
  // python: {'Read': 1}
  { file: "claude.stream-json.sample.jsonl", format: "claude-stream-json", counts: { Read: 1 } },
  // python: {'command_execution': 1, 'mcp_tool_call': 1 (docs/search: not a skill), 'file_change': 1 (one file, update)}
  {
    file: "codex.exec-json.sample.jsonl",
    format: "codex-exec-json",
    counts: { Bash: 1, "mcp:docs/search": 1, Edit: 1 },
  },
  // python: {'read_file': 1}
  { file: "gemini.stream-json.sample.jsonl", format: "gemini-stream-json", counts: { Read: 1 } },
  // Real runs without credentials: no tool calls at all. (The other observed stdout files are not agent
  // streams: `claude auth status` prints one JSON object, `codex login status` and `gemini --output-format
  // json` print nothing; the empty streams are tested below.)
  { file: "observed.claude_streamjson.stdout.jsonl", format: "claude-stream-json", counts: {} },
  { file: "observed.claude_streamjson_fakekey.stdout.jsonl", format: "claude-stream-json", counts: {} },
  { file: "observed.codex_exec_json.stdout.jsonl", format: "codex-exec-json", counts: {} },
  { file: "observed.codex_exec_json_long.stdout.jsonl", format: "codex-exec-json", counts: {} },
  { file: "observed.gemini_streamjson_skiptrust_fakekey.stdout.jsonl", format: "gemini-stream-json", counts: {} },
];

/** Native tools of the five canonical kinds would be a normalization gap; these are not of those kinds. */
const KNOWN_PASS_THROUGH = new Set([
  "stop_bash", // Copilot: stops a background shell; runs no command of its own
  "read_bash", // Copilot: reads a background shell's pending output
  "mcp:docs/search", // Codex: an MCP search tool, not a skill
]);

describe("every real fixture file", () => {
  it.each(REAL_FILES.map((expectation) => [expectation.file, expectation] as const))(
    "%s: tool calls by canonical name",
    async (_file, expectation) => {
      const transcript = await parseTranscriptFile(expectation.format, fixture(expectation.file));
      expect(transcript.counts).toEqual(expectation.counts);
      expect(transcript.tool_calls).toHaveLength(
        Object.values(expectation.counts).reduce((sum, count) => sum + count, 0),
      );
      for (const call of transcript.tool_calls) {
        if (!call.canonical) expect(KNOWN_PASS_THROUGH).toContain(call.name);
      }
      // Real files of a known format show no drift.
      expect(transcript.drift).toEqual({
        unknown_event_types: {},
        unparseable_lines: 0,
        missing_fields: 0,
        truncated_last_line: false,
      });
    },
  );

  it("Claude session JSONL: streaming duplicates count once, usage once per message, metadata and pairing", async () => {
    const transcript = await parseTranscriptFile("claude-session-jsonl", fixture("claude-code.session.jsonl"));
    expect(transcript.usage).toEqual({
      input_tokens: 17,
      output_tokens: 2070,
      cache_read_tokens: 554_588,
      cache_write_tokens: 44_142,
    });
    expect(transcript.source).toMatchObject({
      session_id: "f6b7329a-914c-4f62-8090-4e29b032b173",
      model: "claude-opus-4-6",
      cli_version: "2.1.62",
    });
    // python: 17 results; one is_error (the first push), every other ok.
    expect(transcript.tool_calls.filter((call) => call.status === "error")).toHaveLength(1);
    expect(transcript.tool_calls.every((call) => call.status !== "unknown")).toBe(true);
    expect(transcript.tool_calls.find((call) => call.name === "Read")?.input.file_path).toBe(
      "/home/christso/projects/agentv/.entire/settings.json",
    );
    expect(transcript.cost_usd).toBeNull();
    // The span of event timestamps (00:33:23.371Z → 00:37:10.692Z).
    expect(transcript.duration_ms).toBe(227_321);
    const firstUser = transcript.messages.find((message) => message.role === "user");
    expect(firstUser?.text).toBe("i've enabled entire. please push to pr and merge this.");
  });

  it("Codex rollout: pairing by call_id, exit codes as status, one multi-file patch", async () => {
    const transcript = await parseTranscriptFile("codex-rollout-jsonl", fixture("codex.rollout.jsonl"));
    // python: 23 calls, 21 outputs; 3 report a non-zero exit, 2 calls have no output (the session ends first).
    const statuses = transcript.tool_calls.map((call) => call.status);
    expect(statuses.filter((status) => status === "ok")).toHaveLength(18);
    expect(statuses.filter((status) => status === "error")).toHaveLength(3);
    expect(statuses.filter((status) => status === "unknown")).toHaveLength(2);
    const patch = transcript.tool_calls.find((call) => call.original_name === "apply_patch");
    expect(patch?.name).toBe("Edit");
    expect(patch?.input.file_paths).toHaveLength(15);
    expect(transcript.usage).toEqual({
      input_tokens: 266_714,
      output_tokens: 2958,
      cache_read_tokens: 230_656,
      cache_write_tokens: null,
    });
    expect(transcript.duration_ms).toBe(82_696);
    expect(transcript.source).toMatchObject({
      model: "gpt-5.4",
      cli_version: "0.140.0",
      session_id: "019ed836-b1da-78f1-8a0c-e598363d10f4",
    });
    const shell = transcript.tool_calls.find((call) => String(call.input.command).startsWith("sed -n"));
    expect(shell?.name).toBe("Bash");
  });

  it("Copilot events: a call in toolRequests and in tool.execution_* counts once, with its result", async () => {
    const transcript = await parseTranscriptFile("copilot-events-jsonl", fixture("copilot-cli.events.jsonl"));
    expect(transcript.tool_calls).toHaveLength(68);
    expect(new Set(transcript.tool_calls.map((call) => call.id)).size).toBe(68);
    // python: 67 executions succeeded, 1 failed.
    expect(transcript.tool_calls.filter((call) => call.status === "error")).toHaveLength(1);
    expect(transcript.usage.output_tokens).toBe(19_254);
    expect(transcript.source).toMatchObject({ cli_version: "1.0.64", model: "claude-sonnet-4.6" });
    const edit = transcript.tool_calls.find((call) => call.name === "Edit");
    expect(edit?.input.file_path).toBe("/home/entity/projects/EntityProcess/agentv/.github/hooks/entire.json");
  });

  it("Copilot session.shutdown usage wins over per-message counts", async () => {
    const transcript = await parseTranscriptFile(
      "copilot-events-jsonl",
      fixture("copilot-cli.events.small-no-tools.jsonl"),
    );
    expect(transcript.usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    expect(transcript.messages.map((message) => message.role)).toEqual(["system", "user", "assistant"]);
    expect(transcript.messages[2]?.text).toBe("2 + 2 is **4**.");
    expect(transcript.source.model).toBe("gpt-5.3-codex-spark");
  });

  it("Claude stream-json: two frames of one message are one message; result carries cost, duration, totals", async () => {
    const transcript = await parseTranscriptFile("claude-stream-json", fixture("claude.stream-json.sample.jsonl"));
    expect(transcript.messages).toEqual([
      { role: "assistant", text: "I will read note.txt.", truncated: false },
      { role: "assistant", text: "hello world\nline two", truncated: false },
    ]);
    expect(transcript.tool_calls[0]).toMatchObject({
      id: "toolu_01X",
      name: "Read",
      status: "ok",
      result_excerpt: "hello world\nline two\n",
    });
    expect(transcript.cost_usd).toBe(0.0213);
    expect(transcript.duration_ms).toBe(5210);
    expect(transcript.usage).toEqual({
      input_tokens: 2490,
      output_tokens: 69,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    expect(transcript.source).toMatchObject({ cli_version: "2.1.330", model: "claude-opus-5-5" });
  });

  it("Claude stream-json without a login: the auth failure is reported as errors", async () => {
    const transcript = await parseTranscriptFile(
      "claude-stream-json",
      fixture("observed.claude_streamjson.stdout.jsonl"),
    );
    expect(transcript.errors).toEqual([
      "authentication_failed: Not logged in · Please run /login",
      "Not logged in · Please run /login",
    ]);
    expect(transcript.cost_usd).toBe(0);
    // With a fake key the run retried until killed: no result, so nothing is known of usage or cost.
    const retried = await parseTranscriptFile(
      "claude-stream-json",
      fixture("observed.claude_streamjson_fakekey.stdout.jsonl"),
    );
    expect(retried.usage.input_tokens).toBeNull();
    expect(retried.cost_usd).toBeNull();
    expect(retried.duration_ms).toBeNull();
  });

  it("Codex exec --json without network: every error event is kept (up to the cap)", async () => {
    const transcript = await parseTranscriptFile("codex-exec-json", fixture("observed.codex_exec_json.stdout.jsonl"));
    expect(transcript.errors).toHaveLength(5);
    expect(transcript.errors[0]).toMatch(/^Reconnecting\.\.\. 2\/5/);
    expect(transcript.source.session_id).toBe("01a2011d-07a3-7ad2-b9d6-3d6dc6ba63f6");
  });

  it("Gemini stream-json: deltas join into one message; stats give usage and duration", async () => {
    const transcript = await parseTranscriptFile("gemini-stream-json", fixture("gemini.stream-json.sample.jsonl"));
    expect(transcript.messages).toEqual([
      { role: "user", text: "Read note.txt and return its contents verbatim.", truncated: false },
      { role: "assistant", text: "hello world\nline two", truncated: false },
    ]);
    expect(transcript.tool_calls[0]).toMatchObject({
      id: "read_file_1_0",
      name: "Read",
      input: { file_path: "/home/dev/project/note.txt" },
      status: "ok",
    });
    expect(transcript.usage).toEqual({
      input_tokens: 12_988,
      output_tokens: 42,
      cache_read_tokens: 5817,
      cache_write_tokens: null,
    });
    expect(transcript.duration_ms).toBe(6120);
  });

  // Runs that printed nothing on stdout (Gemini without auth or trust, Claude without --verbose): the
  // streaming parser still yields a transcript (empty), and importing such a file says there is nothing.
  it.each([
    ["observed.gemini_streamjson.stdout.jsonl", "gemini-stream-json"],
    ["observed.gemini_streamjson_skiptrust_noauth.stdout.jsonl", "gemini-stream-json"],
    ["observed.claude_streamjson_noverbose.stdout.jsonl", "claude-stream-json"],
  ] as const)("%s (empty stdout): an empty transcript, and nothing to import", async (file, format) => {
    const parser = createTranscriptParser(format);
    for (const line of readFileSync(fixture(file), "utf8").split("\n")) parser.push(line);
    const transcript = parser.end();
    expect(transcript.tool_calls).toEqual([]);
    expect(transcript.messages).toEqual([]);
    expect(parser.stats).toEqual({ lines: 0, recognized_events: 0, unrecognized_events: 0 });
    await expect(parseTranscriptFile(format, fixture(file))).rejects.toThrow(
      /is not a .* log: 0 of 0 events .* \(0 lines read/,
    );
  });

  it("parsing a file whole or fed line by line gives the same transcript", async () => {
    for (const { file, format } of REAL_FILES) {
      const parser = createTranscriptParser(format, { source: { path: fixture(file) } });
      for (const line of readFileSync(fixture(file), "utf8").split("\n")) parser.push(line);
      expect(parser.end()).toEqual(await parseTranscriptFile(format, fixture(file)));
    }
  });
});
