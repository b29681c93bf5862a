// Test-only: the published event types of the three protocols, copied (trimmed to what the built
// streams use, comments dropped) so the built streams in built-streams.test-helpers.ts can be checked
// with `satisfies` against them. Sources, by file and commit:
//
// Pi (badlogic/pi-mono):
//   packages/ai/src/types.ts @ 04693336a978aa8a7e6a39a8b5a06b313581e294 (content, Usage, messages)
//   packages/agent/src/types.ts @ 02c721866b94c7f2c49d35d7d023a273380191e9 (AgentEvent)
// Codex app-server (openai/codex, codex-rs/app-server-protocol):
//   schema/typescript/v2/ThreadItem.ts @ 0e5430f8b640248fc4d3e9e7660e367c19187245 (ThreadItem)
//   schema/typescript/v2/UserInput.ts @ 7bc32d4c4cfe898e36a007b93bbb3d9bfc5cee0b (UserInput)
//   src/protocol/v2/item.rs @ 1360a104b02940a8c7ca1967a9bdc65a3c7d7e9e (FileUpdateChange, PatchChangeKind,
//     the status enums, CommandAction, WebSearchAction, Item{Started,Completed}Notification)
//   schema/typescript/ServerNotification.ts @ 029bf4d55c5d33e77bdbdfaec25d06836ae9e213 (method names)
//   McpToolCallResult / McpToolCallError are not in the index at any commit: typed here as the exec
//   SDK's McpToolCallItem result and error (`{content, structured_content}`, `{message}`), camel-cased.
//   The turn and token-usage payloads are typed from the recorded stream (agentv-recorded/).
// ACP (zed-industries/agent-client-protocol):
//   typescript/schema.ts @ 9d353ad02302b58c5860737dabd52b4ff86e606a (SessionNotification, ToolCallContent,
//     ContentBlock (text), ToolKind, ToolCallStatus, ToolCallLocation, PlanEntry, PromptResponse)

// ---- Pi ----
export interface PiTextContent {
  type: "text";
  text: string;
  textSignature?: string;
}
export interface PiThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
}
export interface PiImageContent {
  type: "image";
  data: string;
  mimeType: string;
}
export interface PiToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, any>;
  thoughtSignature?: string;
}
export interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}
export type PiStopReason = "stop" | "length" | "toolUse" | "error" | "aborted";
export interface PiUserMessage {
  role: "user";
  content: string | (PiTextContent | PiImageContent)[];
  timestamp: number;
}
export interface PiAssistantMessage {
  role: "assistant";
  content: (PiTextContent | PiThinkingContent | PiToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: PiUsage;
  stopReason: PiStopReason;
  errorMessage?: string;
  timestamp: number;
}
export interface PiToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (PiTextContent | PiImageContent)[];
  details?: any;
  isError: boolean;
  timestamp: number;
}
export type PiMessage = PiUserMessage | PiAssistantMessage | PiToolResultMessage;
export type PiAssistantMessageEvent =
  | { type: "start"; partial: PiAssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: PiAssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: PiAssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: PiAssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: PiAssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: PiToolCall; partial: PiAssistantMessage }
  | { type: "done"; reason: Extract<PiStopReason, "stop" | "length" | "toolUse">; message: PiAssistantMessage };
export type PiAgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: PiMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: PiMessage; toolResults: PiToolResultMessage[] }
  | { type: "message_start"; message: PiMessage }
  | { type: "message_update"; message: PiMessage; assistantMessageEvent: PiAssistantMessageEvent }
  | { type: "message_end"; message: PiMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: any; partialResult: any }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: any; isError: boolean };

// ---- Codex app-server ----
type JsonValue = number | string | boolean | JsonValue[] | { [key in string]?: JsonValue } | null;
export type CodexUserInput =
  | { type: "text"; clientId?: string; text: string; text_elements: Array<unknown> }
  | { type: "localImage"; clientId?: string; path: string };
export type CodexCommandAction =
  | { type: "read"; command: string; name: string; path: string }
  | { type: "listFiles"; command: string; path: string | null }
  | { type: "search"; command: string; query: string | null; path: string | null }
  | { type: "unknown"; command: string };
export type CodexCommandExecutionStatus = "inProgress" | "completed" | "failed" | "declined";
export type CodexCommandExecutionSource = "agent" | "userShell" | "unifiedExecStartup" | "unifiedExecInteraction";
export type CodexPatchChangeKind = { type: "add" } | { type: "delete" } | { type: "update"; move_path: string | null };
export interface CodexFileUpdateChange {
  path: string;
  kind: CodexPatchChangeKind;
  diff: string;
}
export type CodexPatchApplyStatus = "inProgress" | "completed" | "failed" | "declined";
export type CodexMcpToolCallStatus = "inProgress" | "completed" | "failed";
export type CodexDynamicToolCallStatus = "inProgress" | "completed" | "failed";
export interface CodexMcpToolCallResult {
  content: Array<JsonValue>;
  structuredContent: JsonValue;
}
export interface CodexMcpToolCallError {
  message: string;
}
export type CodexWebSearchAction =
  | { type: "search"; query: string | null; queries: Array<string> | null }
  | { type: "openPage"; url: string | null }
  | { type: "other" };
export type CodexThreadItem =
  | { type: "userMessage"; id: string; content: Array<CodexUserInput> }
  | {
      type: "agentMessage";
      id: string;
      text: string;
      phase: "commentary" | "final_answer" | null;
      memoryCitation: null;
    }
  | { type: "reasoning"; id: string; summary: Array<string>; content: Array<string> }
  | {
      type: "commandExecution";
      id: string;
      command: string;
      cwd: string;
      processId: string | null;
      source: CodexCommandExecutionSource;
      status: CodexCommandExecutionStatus;
      commandActions: Array<CodexCommandAction>;
      aggregatedOutput: string | null;
      exitCode: number | null;
      durationMs: number | null;
    }
  | { type: "fileChange"; id: string; changes: Array<CodexFileUpdateChange>; status: CodexPatchApplyStatus }
  | {
      type: "mcpToolCall";
      id: string;
      server: string;
      tool: string;
      status: CodexMcpToolCallStatus;
      arguments: JsonValue;
      mcpAppResourceUri?: string;
      result: CodexMcpToolCallResult | null;
      error: CodexMcpToolCallError | null;
      durationMs: number | null;
    }
  | {
      type: "dynamicToolCall";
      id: string;
      tool: string;
      arguments: JsonValue;
      status: CodexDynamicToolCallStatus;
      contentItems: Array<unknown> | null;
      success: boolean | null;
      durationMs: number | null;
    }
  | { type: "webSearch"; id: string; query: string; action: CodexWebSearchAction | null }
  | { type: "imageView"; id: string; path: string };
interface CodexTurn {
  id: string;
  items: Array<CodexThreadItem>;
  itemsView: string;
  status: "inProgress" | "completed" | "interrupted" | "failed";
  error: { message: string } | null;
  startedAt: number | null;
  completedAt: number | null;
  durationMs: number | null;
}
interface CodexTokenUsageBreakdown {
  totalTokens: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
}
export type CodexAppServerLine =
  | { id: number; result: { thread: { id: string; cliVersion: string }; model: string } }
  | { method: "thread/started"; params: { thread: { id: string; cliVersion: string } } }
  | { method: "turn/started"; params: { threadId: string; turn: CodexTurn } }
  | { method: "turn/completed"; params: { threadId: string; turn: CodexTurn } }
  | { method: "item/started"; params: { item: CodexThreadItem; threadId: string; turnId: string; startedAtMs: number } }
  | {
      method: "item/completed";
      params: { item: CodexThreadItem; threadId: string; turnId: string; completedAtMs: number };
    }
  | { method: "item/agentMessage/delta"; params: { threadId: string; turnId: string; itemId: string; delta: string } }
  | {
      method: "thread/tokenUsage/updated";
      params: {
        threadId: string;
        turnId: string;
        tokenUsage: {
          total: CodexTokenUsageBreakdown;
          last: CodexTokenUsageBreakdown;
          modelContextWindow: number | null;
        };
      };
    };

// ---- ACP ----
export type AcpContentBlock = { _meta?: { [k: string]: unknown }; text: string; type: "text" };
export type AcpToolCallContent =
  | { content: AcpContentBlock; type: "content" }
  | { newText: string; oldText?: string | null; path: string; type: "diff" }
  | { terminalId: string; type: "terminal" };
export type AcpToolKind =
  "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";
export type AcpToolCallStatus = "pending" | "in_progress" | "completed" | "failed";
export interface AcpToolCallLocation {
  line?: number | null;
  path: string;
}
export interface AcpPlanEntry {
  content: string;
  priority: "high" | "medium" | "low";
  status: "pending" | "in_progress" | "completed";
}
export interface AcpSessionNotification {
  sessionId: string;
  update:
    | { content: AcpContentBlock; sessionUpdate: "user_message_chunk" }
    | { content: AcpContentBlock; sessionUpdate: "agent_message_chunk" }
    | { content: AcpContentBlock; sessionUpdate: "agent_thought_chunk" }
    | {
        content?: AcpToolCallContent[];
        kind?: AcpToolKind;
        locations?: AcpToolCallLocation[];
        rawInput?: { [k: string]: unknown };
        rawOutput?: { [k: string]: unknown };
        sessionUpdate: "tool_call";
        status?: AcpToolCallStatus;
        title: string;
        toolCallId: string;
      }
    | {
        content?: AcpToolCallContent[] | null;
        kind?: AcpToolKind | null;
        locations?: AcpToolCallLocation[] | null;
        rawInput?: { [k: string]: unknown };
        rawOutput?: { [k: string]: unknown };
        sessionUpdate: "tool_call_update";
        status?: AcpToolCallStatus | null;
        title?: string | null;
        toolCallId: string;
      }
    | { entries: AcpPlanEntry[]; sessionUpdate: "plan" }
    | { currentModeId: string; sessionUpdate: "current_mode_update" };
}
export interface AcpPromptResponse {
  stopReason: "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";
}
export type AcpLine =
  | { jsonrpc: "2.0"; id: number; method: "session/prompt"; params: { sessionId: string; prompt: AcpContentBlock[] } }
  | { jsonrpc: "2.0"; method: "session/update"; params: AcpSessionNotification }
  | { jsonrpc: "2.0"; id: number; result: AcpPromptResponse };
