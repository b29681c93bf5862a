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

/** Event types of `pi --mode json` (Pi's `AgentEvent`s and the coding agent's session events). */
const KNOWN_TYPES = new Set([
  "session",
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "queue_update",
  "compaction_start",
  "compaction_end",
  "auto_retry_start",
  "auto_retry_end",
  "session_info_changed",
  "thinking_level_changed",
]);

const AUTH_TEXT = /(401|403|unauthori[sz]ed|invalid api key|incorrect api key|no api key|authentication)/i;

function kindOf(message: string): CliErrorKind {
  if (AUTH_TEXT.test(message)) return "auth_failure";
  if (/(429|rate limit|quota)/i.test(message)) return "rate_limited";
  if (/(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|fetch failed|network|connection)/i.test(message)) return "network_unreachable";
  return "api_error";
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === "string" ? content : "";
  return content
    .map((block) => (isRecord(block) && block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("");
}

function observe(): StreamObserver {
  const facts = new FactsCollector();
  // Pi ends every run with `agent_end`, and exits 0 even when the API refused: the last assistant
  // message's `stopReason` ("error", "aborted") is what says the session failed.
  let lastStop: { reason: string; message: string | null } | null = null;
  return {
    push(line) {
      const event = facts.parse(line, KNOWN_TYPES);
      if (event === null) return false;
      switch (event.type) {
        case "session":
          if (typeof event.id !== "string") facts.missing("session.id");
          return false;
        case "message_end": {
          const message = event.message;
          if (!isRecord(message)) {
            facts.missing("message_end.message");
            return false;
          }
          if (message.role !== "assistant") return false;
          facts.finalText = textOf(message.content);
          const reason = typeof message.stopReason === "string" ? message.stopReason : "";
          lastStop = { reason, message: typeof message.errorMessage === "string" ? message.errorMessage : null };
          if (reason === "error")
            facts.errors.push({
              kind: kindOf(lastStop.message ?? ""),
              message: lastStop.message ?? "error",
              fatal: true,
            });
          return false;
        }
        case "agent_end": {
          const stop = lastStop as { reason: string; message: string | null } | null;
          const failed = stop !== null && (stop.reason === "error" || stop.reason === "aborted");
          facts.terminal = failed
            ? { success: false, kind: kindOf(stop.message ?? ""), message: stop.message ?? stop.reason }
            : { success: true, kind: null, message: null };
          return true;
        }
        default:
          return false;
      }
    },
    facts: () => facts.snapshot(),
  };
}

/**
 * Pi coding agent (`@mariozechner/pi-coding-agent`) in print mode with JSON events, no saved session, no
 * extensions or skills discovered. Observed (0.73.1): it reads providers from `~/.pi/agent/models.json`
 * (`--provider`/`--model` choose one), has no login-status command, and exits 0 when the API refuses
 * (the stream's last assistant `stopReason: "error"` says so).
 */
export const piAdapter: AgentAdapter = {
  name: "pi",
  displayName: "Pi",
  binaryName: "pi",
  npmPackage: "@mariozechner/pi-coding-agent",
  streamFormat: "pi-json",
  capabilities: { prompt_via: "flag", reports_cost: true, auth_visible_in_stream: true, auth_status_command: false },
  envPassthrough: ["PI_", "OPENAI_", "ANTHROPIC_", "GEMINI_"],
  homeFiles: [".pi/agent/models.json", ".pi/agent/settings.json", ".pi/agent/auth.json"],
  versionArgs: ["--version"],
  parseVersion: parseSemver,
  buildArgv(prompt) {
    return { args: ["--print", "--mode", "json", "--no-session", "--no-extensions", "--no-skills", prompt] };
  },
  observeStream: observe,
  classify: (facts, proc) => classifyTrial(facts, proc),
  detectSafety: (facts) => detectSafetyWith(facts, COMMON_REFUSAL_PHRASES),
};
