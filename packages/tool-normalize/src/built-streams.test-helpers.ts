// BUILT, not recorded: tool-call streams in the three newer formats, written by hand from each
// protocol's published types (every line `satisfies` them; protocol-types.test-helpers.ts says where
// each type comes from). The real recordings (__fixtures__/agentv-recorded/) hold no tool call, so
// these are what shows the parsers reading one. Values are made up; shapes are not. The same lines
// are committed as __fixtures__/built/*.built.jsonl (a test keeps the two equal).
import type {
  AcpLine,
  CodexAppServerLine,
  CodexThreadItem,
  PiAgentEvent,
  PiAssistantMessage,
  PiToolCall,
  PiToolResultMessage,
  PiUsage,
} from "./protocol-types.test-helpers.ts";

const T0 = 1_783_069_457_000;

function piUsage(input: number, output: number, cacheRead: number): PiUsage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: input + output + cacheRead,
    cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
  };
}

function piAssistant(
  content: PiAssistantMessage["content"],
  usage: PiUsage,
  stopReason: PiAssistantMessage["stopReason"],
  at: number,
): PiAssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5.4-mini",
    usage,
    stopReason,
    timestamp: at,
  };
}

const PI_CALLS: PiToolCall[] = [
  { type: "toolCall", id: "call_read", name: "read", arguments: { path: "src/fizz.py", offset: 1, limit: 50 } },
  { type: "toolCall", id: "call_bash", name: "bash", arguments: { command: "python3 -m pytest -q", timeout: 60 } },
  {
    type: "toolCall",
    id: "call_edit",
    name: "edit",
    arguments: { path: "src/fizz.py", edits: [{ oldText: "Fizz", newText: "fizz" }] },
  },
  {
    type: "toolCall",
    id: "call_write",
    name: "write",
    arguments: { path: "src/buzz.py", content: "def buzz(): ...\n" },
  },
  { type: "toolCall", id: "call_grep", name: "grep", arguments: { pattern: "def fizz", path: "src", glob: "*.py" } },
  { type: "toolCall", id: "call_find", name: "find", arguments: { pattern: "**/*.py", path: "." } },
  { type: "toolCall", id: "call_ls", name: "ls", arguments: { path: "src" } },
];

function piResult(call: PiToolCall, index: number): PiToolResultMessage {
  const failed = call.name === "bash";
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: failed ? "1 failed" : `ok ${call.name}` }],
    isError: failed,
    timestamp: T0 + 2000 + index,
  };
}

const piFirst = piAssistant(
  [{ type: "thinking", thinking: "" }, { type: "text", text: "Looking at the code." }, ...PI_CALLS],
  piUsage(9000, 320, 1024),
  "toolUse",
  T0 + 1000,
);
const piFinal = piAssistant(
  [{ type: "text", text: "Fixed: lowercase output." }],
  piUsage(9800, 41, 8960),
  "stop",
  T0 + 5000,
);

/** Pi `--mode json`: one prompt, seven tool calls (the coding agent's seven tools), one failing; two turns. */
export const PI_TOOL_STREAM: readonly PiAgentEvent[] = [
  { type: "agent_start" },
  { type: "turn_start" },
  {
    type: "message_start",
    message: { role: "user", content: [{ type: "text", text: "Fix fizz casing." }], timestamp: T0 },
  },
  {
    type: "message_end",
    message: { role: "user", content: [{ type: "text", text: "Fix fizz casing." }], timestamp: T0 },
  },
  { type: "message_start", message: piAssistant([], piUsage(0, 0, 0), "stop", T0 + 1000) },
  {
    type: "message_update",
    message: piFirst,
    assistantMessageEvent: { type: "toolcall_end", contentIndex: 2, toolCall: PI_CALLS[0]!, partial: piFirst },
  },
  { type: "message_end", message: piFirst },
  ...PI_CALLS.flatMap((call, index): PiAgentEvent[] => [
    { type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments },
    {
      type: "tool_execution_end",
      toolCallId: call.id,
      toolName: call.name,
      result: { content: piResult(call, index).content, details: {} },
      isError: call.name === "bash",
    },
    { type: "message_start", message: piResult(call, index) },
    { type: "message_end", message: piResult(call, index) },
  ]),
  { type: "turn_end", message: piFirst, toolResults: PI_CALLS.map(piResult) },
  { type: "turn_start" },
  { type: "message_start", message: piAssistant([], piUsage(0, 0, 0), "stop", T0 + 5000) },
  { type: "message_end", message: piFinal },
  { type: "turn_end", message: piFinal, toolResults: [] },
  { type: "agent_end", messages: [piFirst, piFinal] },
] satisfies PiAgentEvent[];

const THREAD = "019f3074-84aa-7942-8c68-000000000001";
const TURN = "019f3074-9190-7dc1-bfdc-000000000002";

const CODEX_ITEMS: CodexThreadItem[] = [
  {
    type: "commandExecution",
    id: "item_1",
    command: "/bin/bash -lc 'npm test'",
    cwd: "/w",
    processId: null,
    source: "agent",
    status: "completed",
    commandActions: [{ type: "unknown", command: "npm test" }],
    aggregatedOutput: "2 passing\n",
    exitCode: 0,
    durationMs: 812,
  },
  {
    type: "commandExecution",
    id: "item_2",
    command: "/bin/bash -lc 'npm run lint'",
    cwd: "/w",
    processId: null,
    source: "agent",
    status: "failed",
    commandActions: [{ type: "unknown", command: "npm run lint" }],
    aggregatedOutput: "1 error\n",
    exitCode: 1,
    durationMs: 300,
  },
  {
    type: "fileChange",
    id: "item_3",
    changes: [{ path: "/w/src/new.ts", kind: { type: "add" }, diff: "+export {};\n" }],
    status: "completed",
  },
  {
    type: "fileChange",
    id: "item_4",
    changes: [
      { path: "/w/src/a.ts", kind: { type: "update", move_path: null }, diff: "-a\n+b\n" },
      { path: "/w/src/b.ts", kind: { type: "delete" }, diff: "" },
    ],
    status: "completed",
  },
  {
    type: "mcpToolCall",
    id: "item_5",
    server: "docs",
    tool: "search",
    status: "completed",
    arguments: { q: "lodash template" },
    result: { content: [{ type: "text", text: "3 hits" }], structuredContent: null },
    error: null,
    durationMs: 120,
  },
  {
    type: "mcpToolCall",
    id: "item_6",
    server: "agent-skills",
    tool: "use_skill",
    status: "failed",
    arguments: { skill_name: "pdf" },
    result: null,
    error: { message: "no such skill" },
    durationMs: 5,
  },
  {
    type: "webSearch",
    id: "item_7",
    query: "CVE-2021-23337",
    action: { type: "search", query: "CVE-2021-23337", queries: null },
  },
  { type: "imageView", id: "item_8", path: "/w/screenshot.png" },
  {
    type: "dynamicToolCall",
    id: "item_9",
    tool: "lookup_ticket",
    arguments: { id: 42 },
    status: "completed",
    contentItems: null,
    success: true,
    durationMs: 9,
  },
];

/** Codex app-server: one turn with nine tool-like items (two failing), a streamed reply, token totals. */
export const CODEX_APP_SERVER_TOOL_STREAM: readonly CodexAppServerLine[] = [
  { id: 2, result: { thread: { id: THREAD, cliVersion: "0.142.5" }, model: "gpt-5.4" } },
  { method: "thread/started", params: { thread: { id: THREAD, cliVersion: "0.142.5" } } },
  {
    method: "turn/started",
    params: {
      threadId: THREAD,
      turn: {
        id: TURN,
        items: [],
        itemsView: "notLoaded",
        status: "inProgress",
        error: null,
        startedAt: 1_783_224_373,
        completedAt: null,
        durationMs: null,
      },
    },
  },
  {
    method: "item/completed",
    params: {
      item: {
        type: "userMessage",
        id: "u1",
        content: [{ type: "text", text: "Fix the lodash advisory.", text_elements: [] }],
      },
      threadId: THREAD,
      turnId: TURN,
      completedAtMs: T0,
    },
  },
  ...CODEX_ITEMS.flatMap((item, index): CodexAppServerLine[] => [
    {
      method: "item/started",
      params: {
        item: { ...item, ...("status" in item ? { status: "inProgress" as const } : {}) } as CodexThreadItem,
        threadId: THREAD,
        turnId: TURN,
        startedAtMs: T0 + 100 * index,
      },
    },
    {
      method: "item/completed",
      params: { item, threadId: THREAD, turnId: TURN, completedAtMs: T0 + 100 * index + 50 },
    },
  ]),
  {
    method: "item/started",
    params: {
      item: { type: "agentMessage", id: "msg_1", text: "", phase: "final_answer", memoryCitation: null },
      threadId: THREAD,
      turnId: TURN,
      startedAtMs: T0 + 2000,
    },
  },
  { method: "item/agentMessage/delta", params: { threadId: THREAD, turnId: TURN, itemId: "msg_1", delta: "Done." } },
  {
    method: "item/completed",
    params: {
      item: { type: "agentMessage", id: "msg_1", text: "Done.", phase: "final_answer", memoryCitation: null },
      threadId: THREAD,
      turnId: TURN,
      completedAtMs: T0 + 2100,
    },
  },
  {
    method: "thread/tokenUsage/updated",
    params: {
      threadId: THREAD,
      turnId: TURN,
      tokenUsage: {
        total: {
          totalTokens: 40_210,
          inputTokens: 39_000,
          cachedInputTokens: 30_720,
          outputTokens: 1210,
          reasoningOutputTokens: 640,
        },
        last: {
          totalTokens: 40_210,
          inputTokens: 39_000,
          cachedInputTokens: 30_720,
          outputTokens: 1210,
          reasoningOutputTokens: 640,
        },
        modelContextWindow: 258_400,
      },
    },
  },
  {
    method: "turn/completed",
    params: {
      threadId: THREAD,
      turn: {
        id: TURN,
        items: [],
        itemsView: "notLoaded",
        status: "completed",
        error: null,
        startedAt: 1_783_224_373,
        completedAt: 1_783_224_380,
        durationMs: 7012,
      },
    },
  },
] satisfies CodexAppServerLine[];

const SESSION = "sess_acp_1";

/** Copilot over ACP (JSON-RPC lines): one prompt, six tool calls of six kinds (one failing), a chunked reply. */
export const ACP_TOOL_STREAM: readonly AcpLine[] = [
  {
    jsonrpc: "2.0",
    id: 3,
    method: "session/prompt",
    params: { sessionId: SESSION, prompt: [{ type: "text", text: "Fix the failing test." }] },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Look first." } },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "plan",
        entries: [{ content: "Read the test", priority: "high", status: "in_progress" }],
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "tc_1",
        title: "Viewing /w/test/a.test.ts",
        kind: "read",
        status: "pending",
        locations: [{ path: "/w/test/a.test.ts" }],
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "tc_1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "it('adds', ...)" } }],
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "tc_2",
        title: "Run npm test",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: "npm test" },
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "tc_2",
        status: "failed",
        rawOutput: { exitCode: 1, output: "1 failing" },
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "tc_3",
        title: "Edit /w/src/a.ts",
        kind: "edit",
        status: "pending",
        locations: [{ path: "/w/src/a.ts", line: 3 }],
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "tc_3",
        status: "completed",
        content: [{ type: "diff", path: "/w/src/a.ts", oldText: "a - b", newText: "a + b" }],
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "tc_4",
        title: "Search for 'adds'",
        kind: "search",
        status: "completed",
        rawInput: { pattern: "adds" },
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "tc_5",
        title: "Fetch docs",
        kind: "fetch",
        status: "pending",
        rawInput: { url: "https://nodejs.org/api/test.html" },
      },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: { sessionUpdate: "tool_call_update", toolCallId: "tc_5", status: "completed" },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: { sessionUpdate: "tool_call", toolCallId: "tc_6", title: "Thinking", kind: "think" },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Fixed the " } },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: SESSION,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "sign in add()." } },
    },
  },
  {
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: SESSION, update: { sessionUpdate: "current_mode_update", currentModeId: "agent" } },
  },
  { jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } },
] satisfies AcpLine[];

/** The built streams, by the file name they are committed under and the format they are in. */
export const BUILT_STREAMS = [
  { file: "pi.json-mode.tools.built.jsonl", format: "pi-json", lines: PI_TOOL_STREAM },
  { file: "codex.app-server.tools.built.jsonl", format: "codex-app-server", lines: CODEX_APP_SERVER_TOOL_STREAM },
  { file: "copilot.acp.tools.built.jsonl", format: "copilot-acp", lines: ACP_TOOL_STREAM },
] as const;
