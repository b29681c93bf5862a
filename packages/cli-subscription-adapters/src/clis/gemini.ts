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

/** Event types of `gemini --output-format stream-json` (gemini-cli-core `JsonStreamEvent`). */
const KNOWN_TYPES = new Set(["init", "message", "tool_use", "tool_result", "error", "result"]);

/** Gemini CLI's fatal exit codes (observed 0.61.0 and its source). */
const EXIT_CODES: Readonly<Record<number, CliErrorKind>> = {
  41: "auth_failure",
  42: "config_error",
  44: "config_error",
  52: "config_error",
  53: "turn_limit",
  54: "tool_execution",
  55: "untrusted_workspace",
  130: "cancelled",
};

const AUTH_TEXT = /(auth method|GEMINI_API_KEY|API key not valid|unauthenticated|permission denied|401|login)/i;
const SAFETY_TEXT = /(safety|blocked|prohibited[_ ]content|recitation|blocklist|spii)/i;

// Gemini CLI 0.61.0's Build File Protection list (packages/core/src/utils/buildFileUtils.ts).
const BUILD_FILES = new Set([
  "BUILD",
  "BUILD.bazel",
  "WORKSPACE",
  "WORKSPACE.bazel",
  "MODULE.bazel",
  ".bazelrc",
  ".blazerc",
  "Makefile",
  "makefile",
  "GNUmakefile",
  "CMakeLists.txt",
  "package.json",
  "package-lock.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lockb",
  "setup.py",
  "setup.cfg",
  "pyproject.toml",
  "go.mod",
  "go.sum",
  "Cargo.toml",
  "Cargo.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "Dockerfile",
  "Containerfile",
]);
const BUILD_EXTENSIONS = [".bzl", ".bazel", ".bzlmod", ".mk", ".cmake"];

function isBuildFile(relativePath: string): boolean {
  const base = relativePath.split("/").at(-1) ?? "";
  return (
    BUILD_FILES.has(base) ||
    base.startsWith("Dockerfile.") ||
    base.startsWith("Containerfile.") ||
    BUILD_EXTENSIONS.some((ext) => base.endsWith(ext))
  );
}

function kindOf(message: string): CliErrorKind {
  if (AUTH_TEXT.test(message)) return "auth_failure";
  if (/(429|quota|rate limit|resource exhausted)/i.test(message)) return "rate_limited";
  return "api_error";
}

function observe(): StreamObserver {
  const facts = new FactsCollector();
  let assistantText = "";
  return {
    push(line) {
      const event = facts.parse(line, KNOWN_TYPES);
      if (event === null) return false;
      const type = event.type;
      switch (type) {
        case "init":
          if (typeof event.session_id !== "string") facts.missing("init.session_id");
          return false;
        case "message": {
          if (event.role !== "user" && event.role !== "assistant") facts.missing("message.role");
          if (typeof event.content !== "string") {
            facts.missing("message.content");
            return false;
          }
          if (event.role === "assistant") {
            assistantText = event.delta === true ? assistantText + event.content : event.content;
            facts.finalText = assistantText;
          } else {
            assistantText = "";
          }
          return false;
        }
        case "tool_use":
          if (typeof event.tool_name !== "string") facts.missing("tool_use.tool_name");
          if (typeof event.tool_id !== "string") facts.missing("tool_use.tool_id");
          assistantText = "";
          return false;
        case "tool_result":
          if (typeof event.tool_id !== "string") facts.missing("tool_result.tool_id");
          if (event.status !== "success" && event.status !== "error") facts.missing("tool_result.status");
          return false;
        case "error": {
          const message = typeof event.message === "string" ? event.message : "";
          if (message === "") facts.missing("error.message");
          if (SAFETY_TEXT.test(message)) facts.safetySignal = `error: ${message.slice(0, 200)}`;
          facts.errors.push({ kind: kindOf(message), message, fatal: event.severity === "error" });
          return false;
        }
        case "result": {
          if (event.status !== "success" && event.status !== "error") facts.missing("result.status");
          const error = isRecord(event.error) ? event.error : null;
          const message = error === null ? null : `${String(error.type ?? "")}: ${String(error.message ?? "")}`;
          if (message !== null && SAFETY_TEXT.test(message)) facts.refusal = `result.error ${message.slice(0, 200)}`;
          facts.terminal = {
            success: event.status === "success",
            kind: event.status === "success" ? null : kindOf(message ?? ""),
            message,
          };
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
 * Gemini CLI headless mode. Observed (0.61.0): needs a trusted workspace (`--skip-trust`, else exit
 * 55); without auth it prints nothing on stdout, a message on stderr and exits 41; its parent
 * relaunches itself as a child and ignores SIGTERM, so only signalling the process group stops it.
 */
export const geminiAdapter: AgentAdapter = {
  name: "gemini",
  displayName: "Gemini CLI",
  binaryName: "gemini",
  npmPackage: "@google/gemini-cli",
  streamFormat: "gemini-stream-json",
  capabilities: { prompt_via: "flag", reports_cost: false, auth_visible_in_stream: true, auth_status_command: false },
  envPassthrough: ["GEMINI_", "GOOGLE_"],
  homeFiles: [".gemini/oauth_creds.json", ".gemini/google_accounts.json", ".gemini/settings.json"],
  versionArgs: ["--version"],
  // Printing the version needs no bigger heap: without this it starts Node twice (seconds on a loaded machine).
  versionEnv: { GEMINI_CLI_NO_RELAUNCH: "1" },
  parseVersion: parseSemver,
  buildArgv(prompt) {
    // auto_edit approves file edits only; never --yolo / --approval-mode yolo.
    return {
      args: ["--prompt", prompt, "--output-format", "stream-json", "--skip-trust", "--approval-mode", "auto_edit"],
    };
  },
  uneditableFiles: {
    matches: isBuildFile,
    reason:
      "Gemini CLI 0.61.0 denies every write to a build file (package.json, lockfiles, Dockerfile, go.mod, ...) in non-interactive mode (its Build File Protection; no setting turns it off), so a session asked to edit one scores 0 for a reason that is not the agent's",
  },
  observeStream: observe,
  classify: (facts, proc) => classifyTrial(facts, proc, { exitCodes: EXIT_CODES, stderrAuth: AUTH_TEXT }),
  detectSafety: (facts) => detectSafetyWith(facts, COMMON_REFUSAL_PHRASES),
};
