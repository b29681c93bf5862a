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

/** Event types of `codex exec --json` (Codex SDK `ThreadEvent`). */
const KNOWN_TYPES = new Set([
  "thread.started",
  "turn.started",
  "turn.completed",
  "turn.failed",
  "item.started",
  "item.updated",
  "item.completed",
  "error",
]);

const KNOWN_ITEM_TYPES = new Set([
  "agent_message",
  "reasoning",
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "web_search",
  "todo_list",
  "error",
]);

const AUTH_TEXT = /(401|unauthori[sz]ed|not logged in|authentication|invalid api key|incorrect api key|please log in)/i;
const RATE_TEXT = /(429|rate limit|usage limit|quota)/i;
const NETWORK_TEXT = /(reconnecting|network|connection|lookup address|stream disconnected|timed out)/i;
const SAFETY_TEXT = /(content policy|safety system|flagged as potentially|cyber_policy)/i;

function kindOf(message: string): CliErrorKind {
  if (AUTH_TEXT.test(message)) return "auth_failure";
  if (RATE_TEXT.test(message)) return "rate_limited";
  if (NETWORK_TEXT.test(message)) return "network_unreachable";
  return "api_error";
}

function observe(): StreamObserver {
  const facts = new FactsCollector();
  return {
    push(line) {
      const event = facts.parse(line, KNOWN_TYPES);
      if (event === null) return false;
      const type = event.type;
      switch (type) {
        case "thread.started":
          if (typeof event.thread_id !== "string") facts.missing("thread.started.thread_id");
          return false;
        case "error": {
          // Codex reports reconnect attempts as top-level errors and carries on: not fatal by themselves.
          const message = typeof event.message === "string" ? event.message : "";
          if (message === "") facts.missing("error.message");
          const kind = kindOf(message);
          facts.errors.push({ kind: kind === "auth_failure" ? kind : null, message, fatal: false });
          if (SAFETY_TEXT.test(message)) facts.safetySignal = `error: ${message.slice(0, 200)}`;
          return false;
        }
        case "turn.failed": {
          const error = event.error;
          const message = isRecord(error) && typeof error.message === "string" ? error.message : null;
          if (message === null) facts.missing("turn.failed.error.message");
          if (message !== null && SAFETY_TEXT.test(message)) facts.refusal = `turn.failed: ${message.slice(0, 200)}`;
          facts.terminal = { success: false, kind: kindOf(message ?? ""), message };
          return true;
        }
        case "turn.completed":
          if (!isRecord(event.usage)) facts.missing("turn.completed.usage");
          facts.terminal = { success: true, kind: null, message: null };
          return true;
        case "item.started":
        case "item.updated":
        case "item.completed": {
          const item = event.item;
          if (!isRecord(item) || typeof item.type !== "string") {
            facts.missing(`${type}.item.type`);
            return false;
          }
          if (!KNOWN_ITEM_TYPES.has(item.type)) facts.unknownType(`${type}/${item.type}`);
          if (item.type === "agent_message" && typeof item.text === "string" && type === "item.completed")
            facts.finalText = item.text;
          if (item.type === "error" && typeof item.message === "string") {
            facts.errors.push({ kind: null, message: item.message, fatal: false });
          }
          return false;
        }
        default:
          return false;
      }
    },
    facts: () => facts.snapshot(),
  };
}

/**
 * Codex CLI `exec --json`, prompt on stdin. Observed (0.169.0): without network it never fails by
 * itself (non-fatal `error` events "Reconnecting... n/5", an `item.completed` of type `error`, then it
 * waits forever), and its stream never says "not logged in": the backend asks `codex login status`.
 */
export const codexAdapter: AgentAdapter = {
  name: "codex",
  displayName: "Codex CLI",
  binaryName: "codex",
  npmPackage: "@openai/codex",
  streamFormat: "codex-exec-json",
  capabilities: { prompt_via: "stdin", reports_cost: false, auth_visible_in_stream: false, auth_status_command: true },
  envPassthrough: ["OPENAI_", "CODEX_"],
  homeFiles: [".codex/auth.json", ".codex/config.toml"],
  versionArgs: ["--version"],
  parseVersion: parseSemver,
  buildArgv(prompt, { workspaceDir, insideSandbox }) {
    // On the host (`--sandbox none`) Codex's own sandbox limits commands to the workspace. Inside evalgate's
    // sandbox, that sandbox is the boundary: Codex's nested bwrap cannot map its uid there (every command and
    // patch would fail while Codex exits 0), so its own is off. Never --dangerously-bypass-approvals-and-sandbox.
    return {
      args: [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "--sandbox",
        insideSandbox ? "danger-full-access" : "workspace-write",
        "--color",
        "never",
        "--cd",
        workspaceDir,
      ],
      stdin: prompt,
    };
  },
  observeStream: observe,
  classify: (facts, proc) => classifyTrial(facts, proc),
  detectSafety: (facts) => detectSafetyWith(facts, COMMON_REFUSAL_PHRASES),
  authStatus: {
    args: ["login", "status"],
    interpret({ stdout, stderr }, env) {
      const text = `${stdout}\n${stderr}`;
      if (/not logged in/i.test(text)) {
        // `login status` ignores API keys in the environment, which `exec` does use.
        const hasKey = (env.OPENAI_API_KEY ?? "") !== "" || (env.CODEX_API_KEY ?? "") !== "";
        return hasKey ? "unknown" : "logged_out";
      }
      if (/logged in/i.test(text)) return "logged_in";
      return "unknown";
    },
  },
};
