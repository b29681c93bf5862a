/**
 * The mapping table: which native tool names of which agent mean which canonical tool, and where the
 * canonical input fields come from. Data, not logic: supporting a new agent or a renamed tool adds rows.
 * docs/tool-normalization.md renders this table for people.
 */

import type { TranscriptProvider } from "@eval/models";
import { TRANSCRIPT_PROVIDERS } from "@eval/models";

/** The agents the table knows: "claude-code" | "codex" | "copilot" | "gemini" | "pi". */
export type Provider = TranscriptProvider;

export const PROVIDERS: readonly Provider[] = TRANSCRIPT_PROVIDERS;

/** Claude Code's names are the vocabulary (the cleanest set, and the one most rubrics already know). */
export const CANONICAL_TOOL_NAMES = [
  "Skill",
  "Read",
  "Write",
  "Edit",
  "Bash",
  "Glob",
  "Grep",
  "WebFetch",
  "WebSearch",
  "Task",
  "TodoWrite",
] as const;
export type CanonicalToolName = (typeof CANONICAL_TOOL_NAMES)[number];

/** Canonical input fields a rule can fill. */
export type CanonicalField = "file_path" | "command" | "skill" | "pattern" | "url" | "query" | "content" | "prompt";

/**
 * Inputs that need parsing rather than renaming, by name (the functions live in derive.ts):
 * - `patch`: an apply_patch body; one file → Write (added) or Edit, with `file_path`; several → Edit with `file_paths`.
 * - `file_changes`: Codex `file_change` items' `changes[]`, decided like `patch`.
 * - `argv_command`: a command given as an argv array; `command` becomes the script of `sh -c`/`bash -lc`, else the joined argv.
 * - `mcp_skill`: `mcp:<server>/<tool>` is a skill only when the tool is a skill loader (`use_skill`...) or the
 *   server serves skills (its name ends in `skill`/`skills`); other MCP calls pass through unchanged.
 * - `file_paths`: a list of paths (`paths`) read at once; one → `file_path`, several → `file_paths`.
 */
export type DeriveName = "patch" | "file_changes" | "argv_command" | "mcp_skill" | "file_paths";

export interface ToolRule {
  readonly provider: Provider;
  /** The native name, or its prefix when `prefix` is true (`Using skill: X`). */
  readonly native: string;
  readonly prefix?: boolean;
  readonly canonical: CanonicalToolName;
  /** Each canonical field is copied from the first of these native fields that is present. */
  readonly fields?: Partial<Record<CanonicalField, readonly string[]>>;
  /** With `prefix`: the canonical field that receives the rest of the name. */
  readonly suffix_field?: CanonicalField;
  readonly derive?: DeriveName;
}

const FILE_PATH = ["file_path", "path", "filePath", "absolute_path", "notebook_path", "filename", "file"];
const COMMAND = ["command", "cmd", "commandLine", "script"];
const SKILL = ["skill", "skill_name", "skillName", "name", "command"];
const PATTERN = ["pattern", "glob", "regex", "query"];
const URL = ["url", "uri", "href"];
const QUERY = ["query", "q", "search_query"];
const CONTENT = ["content", "file_text", "contents", "text"];
const PROMPT = ["prompt", "description", "task"];

/** Rows for tools whose native name already is the canonical one (Claude Code, CLI and SDK alike). */
function identityRows(provider: Provider): ToolRule[] {
  return [
    { provider, native: "Skill", canonical: "Skill", fields: { skill: SKILL } },
    { provider, native: "Read", canonical: "Read", fields: { file_path: FILE_PATH } },
    { provider, native: "Write", canonical: "Write", fields: { file_path: FILE_PATH, content: CONTENT } },
    { provider, native: "Edit", canonical: "Edit", fields: { file_path: FILE_PATH } },
    { provider, native: "Bash", canonical: "Bash", fields: { command: COMMAND } },
    { provider, native: "Glob", canonical: "Glob", fields: { pattern: PATTERN } },
    { provider, native: "Grep", canonical: "Grep", fields: { pattern: PATTERN } },
    { provider, native: "WebFetch", canonical: "WebFetch", fields: { url: URL } },
    { provider, native: "WebSearch", canonical: "WebSearch", fields: { query: QUERY } },
    { provider, native: "Task", canonical: "Task", fields: { prompt: PROMPT } },
    { provider, native: "TodoWrite", canonical: "TodoWrite" },
  ];
}

export const TOOL_TABLE: readonly ToolRule[] = [
  // Claude Code: already canonical. MultiEdit and NotebookEdit edit one file each.
  ...identityRows("claude-code"),
  { provider: "claude-code", native: "MultiEdit", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "claude-code", native: "NotebookEdit", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "claude-code", native: "Agent", canonical: "Task", fields: { prompt: PROMPT } },

  // Codex `exec --json` item types (the parser names a tool call after its item type).
  { provider: "codex", native: "command_execution", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "codex", native: "file_change", canonical: "Edit", derive: "file_changes" },
  { provider: "codex", native: "web_search", canonical: "WebSearch", fields: { query: QUERY } },
  { provider: "codex", native: "todo_list", canonical: "TodoWrite" },
  { provider: "codex", native: "mcp:", prefix: true, canonical: "Skill", derive: "mcp_skill" },
  // Codex rollout function calls (what the model actually calls).
  { provider: "codex", native: "exec_command", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "codex", native: "shell", canonical: "Bash", derive: "argv_command" },
  { provider: "codex", native: "container.exec", canonical: "Bash", derive: "argv_command" },
  { provider: "codex", native: "local_shell", canonical: "Bash", derive: "argv_command" },
  { provider: "codex", native: "apply_patch", canonical: "Edit", derive: "patch" },
  { provider: "codex", native: "update_plan", canonical: "TodoWrite" },
  { provider: "codex", native: "view_image", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "codex", native: "web_search_call", canonical: "WebSearch", fields: { query: QUERY } },
  // Codex app-server `ThreadItem` types (the parser names a tool call after its item type).
  { provider: "codex", native: "commandExecution", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "codex", native: "fileChange", canonical: "Edit", derive: "file_changes" },
  { provider: "codex", native: "webSearch", canonical: "WebSearch", fields: { query: QUERY } },
  { provider: "codex", native: "imageView", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "codex", native: "collab:spawnAgent", canonical: "Task", fields: { prompt: PROMPT } },

  // GitHub Copilot CLI: the names in the seed, and the lowercase ones real sessions show.
  { provider: "copilot", native: "Skill", canonical: "Skill", fields: { skill: SKILL } },
  { provider: "copilot", native: "skill", canonical: "Skill", fields: { skill: SKILL } },
  { provider: "copilot", native: "Using skill: ", prefix: true, canonical: "Skill", suffix_field: "skill" },
  { provider: "copilot", native: "Read", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "Read File", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "readFile", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "readTextFile", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "view", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "Viewing ", prefix: true, canonical: "Read", suffix_field: "file_path" },
  { provider: "copilot", native: "Write File", canonical: "Write", fields: { file_path: FILE_PATH, content: CONTENT } },
  {
    provider: "copilot",
    native: "writeTextFile",
    canonical: "Write",
    fields: { file_path: FILE_PATH, content: CONTENT },
  },
  { provider: "copilot", native: "create", canonical: "Write", fields: { file_path: FILE_PATH, content: CONTENT } },
  { provider: "copilot", native: "Edit File", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "editFile", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "edit", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "str_replace_editor", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "runTerminalCommand", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "copilot", native: "bash", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "copilot", native: "powershell", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "copilot", native: "glob", canonical: "Glob", fields: { pattern: PATTERN } },
  { provider: "copilot", native: "grep", canonical: "Grep", fields: { pattern: PATTERN } },
  { provider: "copilot", native: "web_fetch", canonical: "WebFetch", fields: { url: URL } },
  { provider: "copilot", native: "task", canonical: "Task", fields: { prompt: PROMPT } },
  { provider: "copilot", native: "update_todo", canonical: "TodoWrite" },
  // Copilot over ACP: the protocol names a tool call's kind only (`ToolKind`). Kinds that are not one
  // canonical tool (`search` is a glob or a grep, `delete`, `move`, `think`, `other`) pass through.
  { provider: "copilot", native: "acp:read", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "acp:edit", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "copilot", native: "acp:execute", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "copilot", native: "acp:fetch", canonical: "WebFetch", fields: { url: URL } },

  // Gemini CLI.
  { provider: "gemini", native: "read_file", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "gemini", native: "read_many_files", canonical: "Read", derive: "file_paths" },
  { provider: "gemini", native: "write_file", canonical: "Write", fields: { file_path: FILE_PATH, content: CONTENT } },
  { provider: "gemini", native: "replace", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "gemini", native: "edit", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "gemini", native: "run_shell_command", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "gemini", native: "glob", canonical: "Glob", fields: { pattern: PATTERN } },
  { provider: "gemini", native: "search_file_content", canonical: "Grep", fields: { pattern: PATTERN } },
  { provider: "gemini", native: "grep_search", canonical: "Grep", fields: { pattern: PATTERN } },
  { provider: "gemini", native: "web_fetch", canonical: "WebFetch", fields: { url: URL, prompt: ["prompt"] } },
  { provider: "gemini", native: "google_web_search", canonical: "WebSearch", fields: { query: QUERY } },
  { provider: "gemini", native: "write_todos", canonical: "TodoWrite" },
  { provider: "gemini", native: "activate_skill", canonical: "Skill", fields: { skill: SKILL } },

  // Pi coding agent (packages/coding-agent/src/core/tools). `ls` lists a directory: no canonical kind.
  { provider: "pi", native: "read", canonical: "Read", fields: { file_path: FILE_PATH } },
  { provider: "pi", native: "bash", canonical: "Bash", fields: { command: COMMAND } },
  { provider: "pi", native: "write", canonical: "Write", fields: { file_path: FILE_PATH, content: CONTENT } },
  { provider: "pi", native: "edit", canonical: "Edit", fields: { file_path: FILE_PATH } },
  { provider: "pi", native: "grep", canonical: "Grep", fields: { pattern: PATTERN } },
  { provider: "pi", native: "find", canonical: "Glob", fields: { pattern: PATTERN } },
];
