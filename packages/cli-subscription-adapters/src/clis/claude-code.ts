import type { AgentAdapter, StreamObserver } from "../adapter-contract.ts";
import {
  classifyTrial,
  COMMON_REFUSAL_PHRASES,
  detectSafetyWith,
  FactsCollector,
  isRecord,
  parseSemver,
} from "../adapter-contract.ts";
import type { CliErrorKind } from "@eval/models";

/** Event types of `claude --print --output-format stream-json --verbose` (Agent SDK `SDKMessage`). */
const KNOWN_TYPES = new Set([
  "system",
  "assistant",
  "user",
  "result",
  "stream_event",
  "rate_limit_event",
  "tool_progress",
  "tool_use_summary",
  "auth_status",
  "prompt_suggestion",
]);

/** `SDKAssistantMessageError` values, by the class of failure they are. */
const ASSISTANT_ERRORS: Readonly<Record<string, CliErrorKind>> = {
  authentication_failed: "auth_failure",
  billing_error: "auth_failure",
  rate_limit: "rate_limited",
  invalid_request: "api_error",
  server_error: "api_error",
  unknown: "api_error",
};

const AUTH_TEXT = /(not logged in|please run \/login|invalid api key|authentication|unauthori[sz]ed|oauth token)/i;

const REFUSAL_PHRASES: readonly RegExp[] = [
  ...COMMON_REFUSAL_PHRASES,
  /\bthis request (?:violates|goes against) (?:our|Anthropic's) usage polic/i,
];

function httpKind(status: unknown): CliErrorKind | null {
  if (status === 401 || status === 403) return "auth_failure";
  if (status === 429) return "rate_limited";
  return null;
}

function observe(): StreamObserver {
  const facts = new FactsCollector();
  return {
    push(line) {
      const event = facts.parse(line, KNOWN_TYPES);
      if (event === null) return false;
      const type = event.type;
      switch (type) {
        case "system": {
          const subtype = event.subtype;
          if (subtype === "api_retry") {
            const status = event.error_status;
            const kind = httpKind(status);
            const transport =
              status === null || status === undefined
                ? "no HTTP response (connection failed)"
                : `HTTP ${String(status)}`;
            facts.errors.push({
              kind,
              message: `api_retry ${String(event.attempt)}/${String(event.max_retries)}: ${String(event.error)}, ${transport}`,
              fatal: false,
            });
          } else if (subtype === "model_refusal_no_fallback") {
            facts.refusal = "system/model_refusal_no_fallback";
          } else if (subtype === "model_refusal_fallback") {
            facts.safetySignal = "system/model_refusal_fallback";
          }
          return false;
        }
        case "assistant": {
          const message = event.message;
          if (!isRecord(message)) {
            facts.missing("assistant.message");
            return false;
          }
          if (typeof event.error === "string") {
            const text = textOf(message.content);
            facts.errors.push({
              kind: ASSISTANT_ERRORS[event.error] ?? "api_error",
              message: `${event.error}${text ? `: ${text}` : ""}`,
              fatal: true,
            });
          }
          if (message.stop_reason === "refusal") {
            const category = isRecord(message.stop_details) ? message.stop_details.category : undefined;
            facts.refusal = `assistant.message.stop_reason=refusal${typeof category === "string" ? ` (${category})` : ""}`;
          }
          const text = textOf(message.content);
          if (text !== "" && typeof event.error !== "string") facts.finalText = text;
          return false;
        }
        case "auth_status": {
          if (typeof event.error === "string")
            facts.errors.push({ kind: "auth_failure", message: event.error, fatal: true });
          return false;
        }
        case "result": {
          if (typeof event.subtype !== "string") facts.missing("result.subtype");
          if (typeof event.is_error !== "boolean") facts.missing("result.is_error");
          const resultText = typeof event.result === "string" ? event.result : null;
          const errorsText = Array.isArray(event.errors)
            ? event.errors.filter((item) => typeof item === "string").join("; ")
            : "";
          // A missing is_error is drift (reported above), not an error result.
          const success = event.subtype === "success" && event.is_error !== true;
          let kind: CliErrorKind | null = null;
          if (!success) {
            kind =
              httpKind(event.api_error_status) ??
              (AUTH_TEXT.test(`${resultText ?? ""} ${errorsText}`) ? "auth_failure" : null) ??
              (event.subtype === "error_max_turns" ? "turn_limit" : null) ??
              (event.subtype === "error_max_budget_usd" ? "cancelled" : null) ??
              "api_error";
          }
          if (event.stop_reason === "refusal") facts.refusal ??= "result.stop_reason=refusal";
          if (
            typeof event.total_cost_usd === "number" &&
            Number.isFinite(event.total_cost_usd) &&
            event.total_cost_usd >= 0
          ) {
            facts.costUsd = event.total_cost_usd;
          }
          if (success && resultText !== null) facts.finalText = resultText;
          facts.terminal = { success, kind, message: resultText ?? (errorsText || `subtype ${String(event.subtype)}`) };
          return true;
        }
        default:
          return false;
      }
    },
    facts: () => facts.snapshot(),
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (block): block is Record<string, unknown> =>
        isRecord(block) && block.type === "text" && typeof block.text === "string",
    )
    .map((block) => block.text as string)
    .join("");
}

/**
 * Claude Code in print mode. Observed (2.1.330): stream-json needs `--verbose` or it exits 1; without a
 * login the stream carries an assistant message with `error: "authentication_failed"` and then a
 * `result` whose `subtype` is "success" while `is_error` is true; with an unreachable API it emits
 * `system/api_retry` events with growing delays and no result.
 */
export const claudeCodeAdapter: AgentAdapter = {
  name: "claude-code",
  displayName: "Claude Code",
  binaryName: "claude",
  npmPackage: "@anthropic-ai/claude-code",
  streamFormat: "claude-stream-json",
  capabilities: { prompt_via: "flag", reports_cost: true, auth_visible_in_stream: true, auth_status_command: true },
  envPassthrough: ["ANTHROPIC_", "CLAUDE_CODE_", "CLAUDE_CONFIG_DIR"],
  homeFiles: [".claude.json", ".claude/.credentials.json", ".claude/settings.json"],
  versionArgs: ["--version"],
  parseVersion: parseSemver,
  buildArgv(prompt) {
    // `--print` (not `-p`) keeps the prompt unambiguous in recorded argv; `acceptEdits` lets the agent
    // edit files in its scratch directory without granting blanket permission (never bypassPermissions).
    return {
      args: ["--print", prompt, "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits"],
    };
  },
  observeStream: observe,
  classify: (facts, proc) => classifyTrial(facts, proc),
  detectSafety: (facts) => detectSafetyWith(facts, REFUSAL_PHRASES),
  authStatus: {
    args: ["auth", "status"],
    interpret({ stdout }) {
      try {
        const parsed: unknown = JSON.parse(stdout);
        if (isRecord(parsed) && typeof parsed.loggedIn === "boolean")
          return parsed.loggedIn ? "logged_in" : "logged_out";
      } catch {
        // Not the JSON this check prints: say so rather than guess.
      }
      return "unknown";
    },
  },
};
