// Writes agent sessions in the exact non-interactive JSON stream formats of Claude Code 2.1.330
// (`--print --output-format stream-json --verbose`), Codex CLI 0.169.0 (`exec --json`) and Gemini CLI
// 0.61.0 (`--output-format stream-json`), as observed in shared/fixtures/agent-cli-streams/. Curation
// tooling for both shipped benches (their scripts/curate-cases.ts), kept here so no bench imports another: the cassettes it writes are marked `synthetic: true` because no live agent produced them.
import { sha256, sha256Hex } from "@eval/hashing";

/** One step of a scripted agent session, in provider-neutral terms. */
export type SessionStep =
  | { readonly kind: "say"; readonly text: string }
  | { readonly kind: "read"; readonly path: string; readonly content: string }
  | { readonly kind: "edit"; readonly path: string; readonly oldText: string; readonly newText: string }
  | { readonly kind: "shell"; readonly command: string; readonly output: string; readonly exitCode: number };

export interface Session {
  /** Stable seed for ids, so regenerating a cassette yields the same bytes. */
  readonly seed: string;
  /** The absolute path the agent ran in (the scratch copy of input/). */
  readonly cwd: string;
  readonly prompt: string;
  readonly steps: readonly SessionStep[];
  readonly finalMessage: string;
  readonly startedAt: string;
  readonly costUsd: number;
}

const uuid = (seed: string, n: number): string => {
  const hex = sha256Hex(`${seed}:${n}`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
const shortId = (seed: string, n: number, length: number): string =>
  sha256(`${seed}#${n}`).toString("base64url").replace(/[-_]/g, "x").slice(0, length);

const line = (event: unknown): string => `${JSON.stringify(event)}\n`;

// ---------------------------------------------------------------- Claude Code stream-json

const claudeUsage = (input: number, output: number) => ({
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: Math.floor(input * 0.6),
  fallback_credit: null,
  inference_geo: null,
  input_tokens: input,
  iterations: null,
  output_tokens: output,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: "standard",
  speed: null,
});

const CLAUDE_MODEL = "claude-opus-5-5";

function claudeInit(session: Session, sessionId: string): string {
  return line({
    type: "system",
    subtype: "init",
    apiKeySource: "none",
    claude_code_version: "2.1.330",
    cwd: session.cwd,
    tools: ["Bash", "Edit", "Glob", "Grep", "Read", "Write"],
    mcp_servers: [],
    model: CLAUDE_MODEL,
    permissionMode: "acceptEdits",
    slash_commands: [],
    output_style: "default",
    skills: [],
    plugins: [],
    uuid: uuid(session.seed, 0),
    session_id: sessionId,
  });
}

function claudeAssistant(
  session: Session,
  sessionId: string,
  n: number,
  content: unknown[],
  tokens: number,
  stopReason: string | null,
): string {
  return line({
    type: "assistant",
    message: {
      id: `msg_01${shortId(session.seed, n, 22)}`,
      container: null,
      content,
      context_management: null,
      diagnostics: null,
      model: CLAUDE_MODEL,
      role: "assistant",
      stop_details: null,
      stop_reason: stopReason,
      stop_sequence: null,
      type: "message",
      usage: claudeUsage(tokens, 40 + (n % 7) * 23),
    },
    parent_tool_use_id: null,
    uuid: uuid(session.seed, n),
    session_id: sessionId,
  });
}

function claudeToolInput(
  step: SessionStep,
  cwd: string,
): { name: string; input: Record<string, unknown>; result: string; isError: boolean } {
  switch (step.kind) {
    case "read":
      return {
        name: "Read",
        input: { file_path: `${cwd}/${step.path}` },
        result: numbered(step.content),
        isError: false,
      };
    case "edit":
      return {
        name: "Edit",
        input: {
          file_path: `${cwd}/${step.path}`,
          old_string: step.oldText,
          new_string: step.newText,
          replace_all: false,
        },
        result: `The file ${cwd}/${step.path} has been updated successfully.`,
        isError: false,
      };
    case "shell":
      return {
        name: "Bash",
        input: { command: step.command, description: describeCommand(step.command) },
        result: step.output,
        isError: step.exitCode !== 0,
      };
    case "say":
      throw new Error("say steps carry no tool call");
  }
}

const numbered = (content: string): string =>
  content
    .split("\n")
    .filter((_, i, all) => i < all.length - 1 || all[i] !== "")
    .map((text, i) => `${String(i + 1).padStart(6, " ")}\u2192${text}`)
    .join("\n");

const describeCommand = (command: string): string =>
  command.startsWith("npm view")
    ? "Check published versions"
    : command.startsWith("npm ls")
      ? "Show the resolved dependency tree"
      : "Update the lockfile";

/** A Claude Code session that completes (or refuses, with the `refusal` stop reason). */
export function claudeStream(session: Session, outcome: "completed" | "refused"): string {
  const sessionId = uuid(session.seed, 1000);
  let out = claudeInit(session, sessionId);
  let n = 1;
  let tokens = 4800;
  let turns = 1;
  for (const step of session.steps) {
    tokens += 900;
    if (step.kind === "say") {
      out += claudeAssistant(
        session,
        sessionId,
        n++,
        [{ type: "text", text: step.text, citations: null }],
        tokens,
        null,
      );
      continue;
    }
    const tool = claudeToolInput(step, session.cwd);
    const toolUseId = `toolu_01${shortId(session.seed, 500 + n, 22)}`;
    out += claudeAssistant(
      session,
      sessionId,
      n++,
      [{ type: "tool_use", id: toolUseId, name: tool.name, input: tool.input }],
      tokens,
      null,
    );
    out += line({
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: toolUseId, content: tool.result, is_error: tool.isError }],
      },
      parent_tool_use_id: null,
      uuid: uuid(session.seed, n++),
      session_id: sessionId,
    });
    turns++;
  }
  const stopReason = outcome === "refused" ? "refusal" : "end_turn";
  out += claudeAssistant(
    session,
    sessionId,
    n++,
    [{ type: "text", text: session.finalMessage, citations: null }],
    tokens + 700,
    stopReason,
  );
  const outputTokens = 180 * turns + session.finalMessage.length / 4;
  out += line({
    type: "result",
    subtype: "success",
    duration_ms: durationMs(session),
    duration_api_ms: Math.floor(durationMs(session) * 0.86),
    is_error: false,
    num_turns: turns,
    result: session.finalMessage,
    stop_reason: stopReason,
    total_cost_usd: session.costUsd,
    usage: {
      ...claudeUsage(tokens * turns, Math.floor(outputTokens)),
      inference_geo: "",
      iterations: [],
      output_tokens_details: { thinking_tokens: 0 },
      server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
      speed: "standard",
    },
    modelUsage: {
      [CLAUDE_MODEL]: {
        inputTokens: tokens * turns,
        outputTokens: Math.floor(outputTokens),
        cacheReadInputTokens: Math.floor(tokens * turns * 0.6),
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: session.costUsd,
        contextWindow: 200000,
        maxOutputTokens: 32000,
      },
    },
    permission_denials: [],
    terminal_reason: "completed",
    uuid: uuid(session.seed, n),
    session_id: sessionId,
  });
  return out;
}

/**
 * What Claude Code 2.1.330 prints when it is not logged in (shape copied from the observed run in
 * shared/fixtures/agent-cli-streams/observed/claude_streamjson.stdout): a synthetic assistant message
 * with `error: "authentication_failed"`, then a `result` whose subtype is "success" but `is_error` is true.
 */
export function claudeAuthErrorStream(session: Session): string {
  const sessionId = uuid(session.seed, 1000);
  const message = "Not logged in \u00b7 Please run /login";
  const usage = {
    output_tokens_details: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: null,
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    inference_geo: null,
    iterations: null,
    speed: null,
    fallback_credit: null,
  };
  return (
    claudeInit(session, sessionId) +
    line({
      type: "assistant",
      message: {
        diagnostics: null,
        id: uuid(session.seed, 2),
        container: null,
        model: "<synthetic>",
        role: "assistant",
        stop_details: null,
        stop_reason: "stop_sequence",
        stop_sequence: "",
        type: "message",
        usage,
        content: [{ type: "text", text: message }],
        context_management: null,
      },
      parent_tool_use_id: null,
      session_id: sessionId,
      uuid: uuid(session.seed, 3),
      timestamp: session.startedAt,
      error: "authentication_failed",
      is_api_error_message: true,
    }) +
    line({
      duration_api_ms: 0,
      stop_reason: "stop_sequence",
      session_id: sessionId,
      total_cost_usd: 0,
      usage: {
        ...usage,
        output_tokens_details: { thinking_tokens: 0 },
        service_tier: "standard",
        inference_geo: "",
        iterations: [],
        speed: "standard",
      },
      modelUsage: {},
      permission_denials: [],
      terminal_reason: "api_error",
      fast_mode_state: "off",
      fast_mode_disabled_reason: "sdk_opt_in_required",
      safety_stops: 0,
      is_error: true,
      num_turns: 1,
      subtype: "success",
      api_error_status: null,
      result: message,
      type: "result",
      duration_ms: 355,
      uuid: uuid(session.seed, 4),
      queued_turn_count: 0,
      result_index: 0,
      model_usage_since_last_result: {},
    })
  );
}

// ---------------------------------------------------------------- Codex exec --json

const shellQuote = (command: string): string => `bash -lc '${command.replace(/'/g, `'\\''`)}'`;

/** A Codex `exec --json` session: reads via shell commands, edits as file_change items. */
export function codexStream(session: Session): string {
  let out = line({ type: "thread.started", thread_id: uuid(session.seed, 1000) });
  out += line({ type: "turn.started" });
  let item = 0;
  let input = 9000;
  for (const step of session.steps) {
    input += 2100;
    const id = `item_${item++}`;
    if (step.kind === "say") {
      out += line({ type: "item.completed", item: { id, type: "reasoning", text: `**${step.text}**` } });
    } else if (step.kind === "read") {
      const command = shellQuote(`cat ${step.path}`);
      out += line({
        type: "item.started",
        item: { id, type: "command_execution", command, aggregated_output: "", status: "in_progress" },
      });
      out += line({
        type: "item.completed",
        item: {
          id,
          type: "command_execution",
          command,
          aggregated_output: step.content,
          exit_code: 0,
          status: "completed",
        },
      });
    } else if (step.kind === "shell") {
      const command = shellQuote(step.command);
      out += line({
        type: "item.started",
        item: { id, type: "command_execution", command, aggregated_output: "", status: "in_progress" },
      });
      out += line({
        type: "item.completed",
        item: {
          id,
          type: "command_execution",
          command,
          aggregated_output: step.output,
          exit_code: step.exitCode,
          status: step.exitCode === 0 ? "completed" : "failed",
        },
      });
    } else {
      out += line({
        type: "item.completed",
        item: {
          id,
          type: "file_change",
          changes: [{ path: `${session.cwd}/${step.path}`, kind: "update" }],
          status: "completed",
        },
      });
    }
  }
  out += line({
    type: "item.completed",
    item: { id: `item_${item}`, type: "agent_message", text: session.finalMessage },
  });
  out += line({
    type: "turn.completed",
    usage: {
      input_tokens: input,
      cached_input_tokens: Math.floor(input * 0.55),
      cache_write_input_tokens: 0,
      output_tokens: 310 + 90 * session.steps.length,
      reasoning_output_tokens: 128,
    },
  });
  return out;
}

// ---------------------------------------------------------------- Gemini stream-json

const GEMINI_MODEL = "gemini-2.5-pro";

function addSeconds(iso: string, seconds: number): string {
  return new Date(Date.parse(iso) + seconds * 1000).toISOString();
}

/** A Gemini CLI `--output-format stream-json` session (read_file, replace, run_shell_command). */
export function geminiStream(session: Session): string {
  let t = 0;
  const at = () => addSeconds(session.startedAt, t);
  let out = line({ type: "init", timestamp: at(), session_id: uuid(session.seed, 1000), model: "auto" });
  out += line({ type: "message", timestamp: at(), role: "user", content: session.prompt });
  let calls = 0;
  for (const step of session.steps) {
    t += 3;
    if (step.kind === "say") {
      out += line({ type: "message", timestamp: at(), role: "assistant", content: step.text, delta: true });
      continue;
    }
    const name = step.kind === "read" ? "read_file" : step.kind === "edit" ? "replace" : "run_shell_command";
    const toolId = `${name}_${calls + 1}_0`;
    const parameters =
      step.kind === "read"
        ? { file_path: `${session.cwd}/${step.path}` }
        : step.kind === "edit"
          ? { file_path: `${session.cwd}/${step.path}`, old_string: step.oldText, new_string: step.newText }
          : { command: step.command, description: describeCommand(step.command) };
    const output =
      step.kind === "read"
        ? step.content
        : step.kind === "edit"
          ? `Successfully modified file: ${session.cwd}/${step.path} (1 replacements).`
          : `Command: ${step.command}\nDirectory: (root)\nOutput: ${step.output}\nError: (none)\nExit Code: ${step.exitCode}`;
    out += line({ type: "tool_use", timestamp: at(), tool_name: name, tool_id: toolId, parameters });
    t += 1;
    out += line({ type: "tool_result", timestamp: at(), tool_id: toolId, status: "success", output });
    calls++;
  }
  t += 4;
  out += line({ type: "message", timestamp: at(), role: "assistant", content: session.finalMessage, delta: true });
  const input = 14000 + 3100 * calls;
  const cached = Math.floor(input * 0.45);
  const output = 220 + 80 * calls;
  const stats = {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    cached,
    input: input - cached,
  };
  out += line({
    type: "result",
    timestamp: at(),
    status: "success",
    stats: { ...stats, duration_ms: t * 1000, tool_calls: calls, models: { [GEMINI_MODEL]: stats } },
  });
  return out;
}

export function durationMs(session: Session): number {
  return 6000 + session.steps.length * 4100;
}
