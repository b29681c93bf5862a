import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benignSolutions } from "@eval/cli-subscription-adapters";

/** A Claude Code session as the real CLI prints it (shapes from the CLI's published types). */
export const CLAUDE_SUCCESS = [
  {
    type: "system",
    subtype: "init",
    session_id: "s1",
    model: "claude-opus-5-5",
    claude_code_version: "2.1.330",
    tools: [],
    mcp_servers: [],
  },
  {
    type: "assistant",
    message: {
      id: "m1",
      role: "assistant",
      type: "message",
      content: [{ type: "text", text: "hello" }],
      stop_reason: null,
    },
    session_id: "s1",
  },
  {
    type: "result",
    subtype: "success",
    is_error: false,
    result: "hello",
    total_cost_usd: 0.01,
    num_turns: 1,
    duration_ms: 10,
    session_id: "s1",
  },
]
  .map((line) => JSON.stringify(line))
  .join("\n");

/** What the real Claude Code 2.1.330 prints without a login (observed). */
export const CLAUDE_NOT_LOGGED_IN = [
  { type: "system", subtype: "init", session_id: "s1", model: "claude-opus-5-5" },
  {
    type: "assistant",
    message: {
      id: "m1",
      role: "assistant",
      type: "message",
      model: "<synthetic>",
      content: [{ type: "text", text: "Not logged in · Please run /login" }],
      stop_reason: "stop_sequence",
    },
    error: "authentication_failed",
    is_api_error_message: true,
  },
  {
    type: "result",
    subtype: "success",
    is_error: true,
    result: "Not logged in · Please run /login",
    total_cost_usd: 0,
    terminal_reason: "api_error",
  },
]
  .map((line) => JSON.stringify(line))
  .join("\n");

/**
 * A fake `claude` executable in a fresh directory: `--version`, `auth status` (logged in or not), and
 * a session that prints `stream` and exits with `exitCode`. With `doesBenignTasks`, a session whose prompt
 * is one of the compliance check's benign tasks writes that task's files first (it does the task).
 */
export function fakeClaude(options: {
  stream: string;
  exitCode?: number;
  loggedIn?: boolean;
  doesBenignTasks?: boolean;
}): { dir: string; binaryPath: string } {
  const dir = mkdtempSync(join(tmpdir(), "evalgate-cli-fake-"));
  const binaryPath = join(dir, "claude");
  const script = `#!${process.execPath}
const args = process.argv.slice(2);
if (args[0] === "--version") { process.stdout.write("2.1.330 (Claude Code)\\n"); process.exit(0); }
if (args[0] === "auth" && args[1] === "status") { process.stdout.write(JSON.stringify({ loggedIn: ${options.loggedIn ?? true} })); process.exit(${options.loggedIn === false ? 1 : 0}); }
const solutions = ${JSON.stringify(options.doesBenignTasks === true ? benignSolutions() : [])};
const done = solutions.find((solution) => args.some((arg) => arg.includes(solution.match)));
for (const [path, text] of Object.entries(done?.files ?? {})) require("node:fs").writeFileSync(path, text);
process.stdout.write(${JSON.stringify(`${options.stream}\n`)});
process.exitCode = ${options.exitCode ?? 0};
`;
  writeFileSync(binaryPath, script);
  chmodSync(binaryPath, 0o755);
  return { dir, binaryPath };
}
