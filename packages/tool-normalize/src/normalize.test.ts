import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CANONICAL_TOOL_NAMES,
  findRule,
  isCanonicalToolName,
  normalizeToolCall,
  patchTargets,
  PROVIDERS,
  TOOL_TABLE,
} from "./index.ts";
import type { Provider } from "./index.ts";

interface Row {
  readonly provider: Provider;
  readonly name: string;
  readonly input: unknown;
  readonly canonical: string;
  /** Canonical fields the result must carry (other native fields are kept as well). */
  readonly expect?: Record<string, unknown>;
}

const PATCH_ONE_UPDATE = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-old\n+new\n*** End Patch\n";
const PATCH_ONE_ADD = "*** Begin Patch\n*** Add File: src/new.ts\n+export {};\n*** End Patch\n";

/** One case per table row, with the input shape each agent really sends. */
const ROWS: readonly Row[] = [
  // Claude Code: a no-op apart from filling the canonical fields that are already there.
  { provider: "claude-code", name: "Skill", input: { skill: "pdf" }, canonical: "Skill", expect: { skill: "pdf" } },
  {
    provider: "claude-code",
    name: "Read",
    input: { file_path: "/r/a.ts" },
    canonical: "Read",
    expect: { file_path: "/r/a.ts" },
  },
  {
    provider: "claude-code",
    name: "Write",
    input: { file_path: "/r/b.ts", content: "x" },
    canonical: "Write",
    expect: { file_path: "/r/b.ts", content: "x" },
  },
  {
    provider: "claude-code",
    name: "Edit",
    input: { file_path: "/r/c.ts", old_string: "a", new_string: "b" },
    canonical: "Edit",
    expect: { file_path: "/r/c.ts" },
  },
  { provider: "claude-code", name: "Bash", input: { command: "ls" }, canonical: "Bash", expect: { command: "ls" } },
  {
    provider: "claude-code",
    name: "Glob",
    input: { pattern: "**/*.ts" },
    canonical: "Glob",
    expect: { pattern: "**/*.ts" },
  },
  { provider: "claude-code", name: "Grep", input: { pattern: "TODO" }, canonical: "Grep", expect: { pattern: "TODO" } },
  {
    provider: "claude-code",
    name: "WebFetch",
    input: { url: "https://x.test", prompt: "p" },
    canonical: "WebFetch",
    expect: { url: "https://x.test" },
  },
  {
    provider: "claude-code",
    name: "WebSearch",
    input: { query: "zod 4" },
    canonical: "WebSearch",
    expect: { query: "zod 4" },
  },
  {
    provider: "claude-code",
    name: "Task",
    input: { description: "d", prompt: "explore" },
    canonical: "Task",
    expect: { prompt: "explore" },
  },
  { provider: "claude-code", name: "TodoWrite", input: { todos: [] }, canonical: "TodoWrite", expect: { todos: [] } },
  {
    provider: "claude-code",
    name: "MultiEdit",
    input: { file_path: "/r/d.ts", edits: [] },
    canonical: "Edit",
    expect: { file_path: "/r/d.ts" },
  },
  {
    provider: "claude-code",
    name: "NotebookEdit",
    input: { notebook_path: "/r/n.ipynb" },
    canonical: "Edit",
    expect: { file_path: "/r/n.ipynb" },
  },
  {
    provider: "claude-code",
    name: "Agent",
    input: { prompt: "review" },
    canonical: "Task",
    expect: { prompt: "review" },
  },

  // Codex exec --json item types.
  {
    provider: "codex",
    name: "command_execution",
    input: { command: "bash -lc 'ls *.py'" },
    canonical: "Bash",
    expect: { command: "bash -lc 'ls *.py'" },
  },
  {
    provider: "codex",
    name: "file_change",
    input: { changes: [{ path: "a.py", kind: "update" }] },
    canonical: "Edit",
    expect: { file_path: "a.py" },
  },
  {
    provider: "codex",
    name: "web_search",
    input: { query: "node 24" },
    canonical: "WebSearch",
    expect: { query: "node 24" },
  },
  { provider: "codex", name: "todo_list", input: { items: [] }, canonical: "TodoWrite" },
  { provider: "codex", name: "mcp:skills/pdf", input: {}, canonical: "Skill", expect: { skill: "pdf" } },
  // Codex rollout function calls.
  {
    provider: "codex",
    name: "exec_command",
    input: { cmd: "git status", workdir: "/r" },
    canonical: "Bash",
    expect: { command: "git status", cmd: "git status" },
  },
  {
    provider: "codex",
    name: "shell",
    input: { command: ["bash", "-lc", "cat README.md"] },
    canonical: "Bash",
    expect: { command: "cat README.md", argv: ["bash", "-lc", "cat README.md"] },
  },
  {
    provider: "codex",
    name: "container.exec",
    input: { command: ["rg", "-n", "two words"] },
    canonical: "Bash",
    expect: { command: "rg -n 'two words'" },
  },
  {
    provider: "codex",
    name: "local_shell",
    input: { command: ["ls", "-la"] },
    canonical: "Bash",
    expect: { command: "ls -la" },
  },
  {
    provider: "codex",
    name: "apply_patch",
    input: { input: PATCH_ONE_UPDATE },
    canonical: "Edit",
    expect: { file_path: "src/a.ts" },
  },
  { provider: "codex", name: "update_plan", input: { plan: [] }, canonical: "TodoWrite" },
  {
    provider: "codex",
    name: "view_image",
    input: { path: "/r/shot.png" },
    canonical: "Read",
    expect: { file_path: "/r/shot.png" },
  },
  { provider: "codex", name: "web_search_call", input: { query: "q" }, canonical: "WebSearch", expect: { query: "q" } },
  // Codex app-server items (ThreadItem types).
  {
    provider: "codex",
    name: "commandExecution",
    input: { command: "npm test", cwd: "/r" },
    canonical: "Bash",
    expect: { command: "npm test" },
  },
  {
    provider: "codex",
    name: "fileChange",
    input: { changes: [{ path: "/r/n.ts", kind: "add" }] },
    canonical: "Write",
    expect: { file_path: "/r/n.ts" },
  },
  {
    provider: "codex",
    name: "webSearch",
    input: { query: "acp schema" },
    canonical: "WebSearch",
    expect: { query: "acp schema" },
  },
  {
    provider: "codex",
    name: "imageView",
    input: { path: "/r/shot.png" },
    canonical: "Read",
    expect: { file_path: "/r/shot.png" },
  },
  {
    provider: "codex",
    name: "collab:spawnAgent",
    input: { prompt: "review the diff", model: null },
    canonical: "Task",
    expect: { prompt: "review the diff" },
  },

  // Copilot CLI: the seed's names and the real lowercase ones.
  { provider: "copilot", name: "Skill", input: { skill: "pdf" }, canonical: "Skill", expect: { skill: "pdf" } },
  { provider: "copilot", name: "skill", input: { skill: "pdf" }, canonical: "Skill", expect: { skill: "pdf" } },
  { provider: "copilot", name: "Using skill: pdf", input: {}, canonical: "Skill", expect: { skill: "pdf" } },
  { provider: "copilot", name: "Read", input: { path: "/r/a" }, canonical: "Read", expect: { file_path: "/r/a" } },
  {
    provider: "copilot",
    name: "Read File",
    input: { filePath: "/r/a" },
    canonical: "Read",
    expect: { file_path: "/r/a" },
  },
  { provider: "copilot", name: "readFile", input: { path: "/r/a" }, canonical: "Read", expect: { file_path: "/r/a" } },
  {
    provider: "copilot",
    name: "readTextFile",
    input: { path: "/r/a" },
    canonical: "Read",
    expect: { file_path: "/r/a" },
  },
  {
    provider: "copilot",
    name: "view",
    input: { path: "/r/.github/hooks/entire.json" },
    canonical: "Read",
    expect: { file_path: "/r/.github/hooks/entire.json" },
  },
  {
    provider: "copilot",
    name: "Viewing /r/skills/pdf/SKILL.md",
    input: {},
    canonical: "Read",
    expect: { file_path: "/r/skills/pdf/SKILL.md" },
  },
  {
    provider: "copilot",
    name: "Write File",
    input: { path: "/r/w", content: "x" },
    canonical: "Write",
    expect: { file_path: "/r/w" },
  },
  {
    provider: "copilot",
    name: "writeTextFile",
    input: { path: "/r/w", content: "x" },
    canonical: "Write",
    expect: { file_path: "/r/w" },
  },
  {
    provider: "copilot",
    name: "create",
    input: { path: "/r/new.ts", file_text: "x" },
    canonical: "Write",
    expect: { file_path: "/r/new.ts", content: "x" },
  },
  { provider: "copilot", name: "Edit File", input: { path: "/r/e" }, canonical: "Edit", expect: { file_path: "/r/e" } },
  {
    provider: "copilot",
    name: "editFile",
    input: { filePath: "/r/e" },
    canonical: "Edit",
    expect: { file_path: "/r/e" },
  },
  {
    provider: "copilot",
    name: "edit",
    input: { path: "/r/e", old_str: "a", new_str: "b" },
    canonical: "Edit",
    expect: { file_path: "/r/e", old_str: "a" },
  },
  {
    provider: "copilot",
    name: "str_replace_editor",
    input: { path: "/r/e", command: "str_replace" },
    canonical: "Edit",
    expect: { file_path: "/r/e" },
  },
  {
    provider: "copilot",
    name: "runTerminalCommand",
    input: { command: "npm test" },
    canonical: "Bash",
    expect: { command: "npm test" },
  },
  {
    provider: "copilot",
    name: "bash",
    input: { command: "git status", description: "d" },
    canonical: "Bash",
    expect: { command: "git status" },
  },
  { provider: "copilot", name: "powershell", input: { command: "dir" }, canonical: "Bash", expect: { command: "dir" } },
  { provider: "copilot", name: "glob", input: { pattern: "*.md" }, canonical: "Glob", expect: { pattern: "*.md" } },
  { provider: "copilot", name: "grep", input: { pattern: "x" }, canonical: "Grep", expect: { pattern: "x" } },
  {
    provider: "copilot",
    name: "web_fetch",
    input: { url: "https://x.test" },
    canonical: "WebFetch",
    expect: { url: "https://x.test" },
  },
  { provider: "copilot", name: "task", input: { prompt: "go" }, canonical: "Task", expect: { prompt: "go" } },
  { provider: "copilot", name: "update_todo", input: { todos: "- [ ] a" }, canonical: "TodoWrite" },
  // Copilot over ACP: tool calls named by their ToolKind.
  {
    provider: "copilot",
    name: "acp:read",
    input: { title: "Viewing /r/a", path: "/r/a" },
    canonical: "Read",
    expect: { file_path: "/r/a" },
  },
  {
    provider: "copilot",
    name: "acp:edit",
    input: { path: "/r/e", old_str: "a", new_str: "b" },
    canonical: "Edit",
    expect: { file_path: "/r/e" },
  },
  {
    provider: "copilot",
    name: "acp:execute",
    input: { command: "npm test" },
    canonical: "Bash",
    expect: { command: "npm test" },
  },
  {
    provider: "copilot",
    name: "acp:fetch",
    input: { url: "https://x.test" },
    canonical: "WebFetch",
    expect: { url: "https://x.test" },
  },

  // Gemini CLI.
  {
    provider: "gemini",
    name: "read_file",
    input: { absolute_path: "/r/a" },
    canonical: "Read",
    expect: { file_path: "/r/a" },
  },
  {
    provider: "gemini",
    name: "read_many_files",
    input: { paths: ["/r/a", "/r/b"] },
    canonical: "Read",
    expect: { file_paths: ["/r/a", "/r/b"] },
  },
  {
    provider: "gemini",
    name: "write_file",
    input: { file_path: "/r/w", content: "x" },
    canonical: "Write",
    expect: { file_path: "/r/w" },
  },
  {
    provider: "gemini",
    name: "replace",
    input: { file_path: "/r/e", old_string: "a", new_string: "b" },
    canonical: "Edit",
    expect: { file_path: "/r/e" },
  },
  { provider: "gemini", name: "edit", input: { file_path: "/r/e" }, canonical: "Edit", expect: { file_path: "/r/e" } },
  {
    provider: "gemini",
    name: "run_shell_command",
    input: { command: "ls", description: "d" },
    canonical: "Bash",
    expect: { command: "ls" },
  },
  {
    provider: "gemini",
    name: "glob",
    input: { pattern: "**/*.py" },
    canonical: "Glob",
    expect: { pattern: "**/*.py" },
  },
  {
    provider: "gemini",
    name: "search_file_content",
    input: { pattern: "TODO" },
    canonical: "Grep",
    expect: { pattern: "TODO" },
  },
  {
    provider: "gemini",
    name: "grep_search",
    input: { pattern: "TODO" },
    canonical: "Grep",
    expect: { pattern: "TODO" },
  },
  {
    provider: "gemini",
    name: "web_fetch",
    input: { prompt: "summarize https://x.test" },
    canonical: "WebFetch",
    expect: { prompt: "summarize https://x.test" },
  },
  {
    provider: "gemini",
    name: "google_web_search",
    input: { query: "q" },
    canonical: "WebSearch",
    expect: { query: "q" },
  },
  { provider: "gemini", name: "write_todos", input: { todos: [] }, canonical: "TodoWrite" },
  { provider: "gemini", name: "activate_skill", input: { name: "pdf" }, canonical: "Skill", expect: { skill: "pdf" } },

  // Pi.
  { provider: "pi", name: "read", input: { path: "/r/a" }, canonical: "Read", expect: { file_path: "/r/a" } },
  { provider: "pi", name: "bash", input: { command: "ls" }, canonical: "Bash", expect: { command: "ls" } },
  {
    provider: "pi",
    name: "write",
    input: { path: "/r/w", content: "x" },
    canonical: "Write",
    expect: { file_path: "/r/w" },
  },
  {
    provider: "pi",
    name: "edit",
    input: { path: "/r/e", oldText: "a", newText: "b" },
    canonical: "Edit",
    expect: { file_path: "/r/e" },
  },
  {
    provider: "pi",
    name: "grep",
    input: { pattern: "TODO", path: "src", glob: "*.ts" },
    canonical: "Grep",
    expect: { pattern: "TODO" },
  },
  {
    provider: "pi",
    name: "find",
    input: { pattern: "**/*.json", path: "." },
    canonical: "Glob",
    expect: { pattern: "**/*.json" },
  },
];

describe("normalizeToolCall: every table row", () => {
  it.each(ROWS.map((row) => [`${row.provider} ${row.name} -> ${row.canonical}`, row] as const))("%s", (_label, row) => {
    const call = normalizeToolCall(row.provider, { name: row.name, input: row.input });
    expect(call).toMatchObject({
      name: row.canonical,
      original_name: row.name,
      provider: row.provider,
      canonical: true,
    });
    expect(call.input).toMatchObject(row.expect ?? {});
    // Native fields are kept: nothing the agent said is lost.
    for (const key of Object.keys(row.input as object)) expect(call.input).toHaveProperty(key);
  });

  it("has a case above for every row of the table (a new row needs a test)", () => {
    const exercised = new Set(ROWS.map((row) => findRule(row.provider, row.name)));
    const missing = TOOL_TABLE.filter((rule) => !exercised.has(rule)).map((rule) => `${rule.provider} ${rule.native}`);
    expect(missing).toEqual([]);
  });

  it("is documented row for row in docs/tool-normalization.md", () => {
    const page = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "tool-normalization.md"), "utf8");
    const missing = TOOL_TABLE.filter(
      (rule) =>
        !page.includes(
          `| ${rule.provider} | \`${rule.native}\`${rule.prefix === true ? "…" : ""} | ${rule.canonical} |`,
        ),
    );
    expect(missing.map((rule) => `${rule.provider} ${rule.native}`)).toEqual([]);
  });

  it("maps only to canonical names, and every provider has rows", () => {
    for (const rule of TOOL_TABLE) expect(CANONICAL_TOOL_NAMES).toContain(rule.canonical);
    for (const provider of PROVIDERS) expect(TOOL_TABLE.some((rule) => rule.provider === provider)).toBe(true);
    expect(isCanonicalToolName("Read")).toBe(true);
    expect(isCanonicalToolName("read")).toBe(false);
  });
});

describe("normalizeToolCall: what it must not do", () => {
  it("passes unknown tools through unchanged", () => {
    const input = { shellId: "22" };
    expect(normalizeToolCall("copilot", { name: "stop_bash", input })).toEqual({
      name: "stop_bash",
      input: { shellId: "22" },
      original_name: "stop_bash",
      provider: "copilot",
      canonical: false,
    });
    expect(normalizeToolCall("claude-code", { name: "mcp__github__create_issue", input: {} }).canonical).toBe(false);
  });

  it("is provider-specific: a name means nothing under another provider", () => {
    expect(normalizeToolCall("claude-code", { name: "view", input: {} }).canonical).toBe(false);
    expect(normalizeToolCall("codex", { name: "bash", input: {} }).canonical).toBe(false);
    expect(normalizeToolCall("gemini", { name: "Read", input: {} }).canonical).toBe(false);
  });

  it("keeps a read done through a shell as Bash, exposing the command", () => {
    for (const command of ["cat skills/pdf/SKILL.md", "sed -n '1,200p' package.json", "head -20 README.md"]) {
      const call = normalizeToolCall("codex", { name: "exec_command", input: { cmd: command } });
      expect(call.name).toBe("Bash");
      expect(call.input.command).toBe(command);
      expect(call.input.file_path).toBeUndefined();
    }
  });

  it("does not overwrite a canonical field the agent already gave", () => {
    const call = normalizeToolCall("copilot", { name: "view", input: { file_path: "/given", path: "/other" } });
    expect(call.input.file_path).toBe("/given");
  });

  it("does not mutate its argument, and tolerates non-object inputs", () => {
    const input = Object.freeze({ path: "/r/a" });
    const call = normalizeToolCall("pi", { name: "read", input });
    expect(input).toEqual({ path: "/r/a" });
    expect(call.input).not.toBe(input);
    expect(normalizeToolCall("pi", { name: "bash", input: null }).input).toEqual({});
    expect(normalizeToolCall("codex", { name: "apply_patch", input: PATCH_ONE_ADD }).input).toMatchObject({
      input: PATCH_ONE_ADD,
      file_path: "src/new.ts",
    });
    expect(normalizeToolCall("pi", { name: "bash", input: ["ls"] }).input).toEqual({ input: ["ls"] });
  });

  it("treats MCP calls as skills only when they are skills", () => {
    expect(normalizeToolCall("codex", { name: "mcp:docs/search", input: { q: "TODO" } })).toMatchObject({
      name: "mcp:docs/search",
      canonical: false,
    });
    expect(
      normalizeToolCall("codex", { name: "mcp:agent-skills/use_skill", input: { skill_name: "pdf" } }),
    ).toMatchObject({ name: "Skill", input: { skill: "pdf" } });
    expect(normalizeToolCall("codex", { name: "mcp:tools/load_skill", input: { name: "xlsx" } })).toMatchObject({
      name: "Skill",
      input: { skill: "xlsx" },
    });
    expect(normalizeToolCall("codex", { name: "mcp:tools/use_skill", input: {} })).toMatchObject({
      name: "Skill",
      input: {},
    });
    expect(normalizeToolCall("codex", { name: "mcp:skills", input: {} })).toMatchObject({ canonical: false });
  });

  it("needs a suffix to use one: a bare prefix adds no field", () => {
    expect(normalizeToolCall("copilot", { name: "Using skill: ", input: {} })).toMatchObject({
      name: "Skill",
      input: {},
    });
  });
});

describe("patches and file changes", () => {
  it("maps a one-file patch to Write (added) or Edit, with file_path", () => {
    expect(normalizeToolCall("codex", { name: "apply_patch", input: { input: PATCH_ONE_ADD } })).toMatchObject({
      name: "Write",
      input: { file_path: "src/new.ts" },
    });
    const deletion = "*** Begin Patch\n*** Delete File: old.ts\n*** End Patch";
    expect(normalizeToolCall("codex", { name: "apply_patch", input: { input: deletion } })).toMatchObject({
      name: "Edit",
      input: { file_path: "old.ts" },
    });
  });

  it("keeps Edit with file_paths when a patch touches several files (a rename counts both)", () => {
    const patch =
      "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** Add File: c.ts\n+z\n*** End Patch";
    const call = normalizeToolCall("codex", { name: "apply_patch", input: { input: patch } });
    expect(call).toMatchObject({ name: "Edit", input: { file_paths: ["a.ts", "c.ts", "b.ts"] } });
    expect(call.input.file_path).toBeUndefined();
    expect(patchTargets(patch)).toEqual([
      { path: "a.ts", kind: "update" },
      { path: "c.ts", kind: "add" },
      { path: "b.ts", kind: "add" },
    ]);
  });

  it("reads a patch given as argv (older Codex) and tolerates a patch with no header", () => {
    const argv = ["apply_patch", PATCH_ONE_UPDATE];
    expect(normalizeToolCall("codex", { name: "apply_patch", input: { command: argv } })).toMatchObject({
      name: "Edit",
      input: { file_path: "src/a.ts" },
    });
    expect(normalizeToolCall("codex", { name: "apply_patch", input: { input: "not a patch" } })).toMatchObject({
      name: "Edit",
      canonical: true,
    });
    expect(normalizeToolCall("codex", { name: "apply_patch", input: {} }).input.file_path).toBeUndefined();
  });

  it("decides Codex file_change items the same way", () => {
    expect(
      normalizeToolCall("codex", { name: "file_change", input: { changes: [{ path: "n.py", kind: "add" }] } }),
    ).toMatchObject({ name: "Write", input: { file_path: "n.py" } });
    expect(
      normalizeToolCall("codex", {
        name: "file_change",
        input: { changes: [{ path: "a.py", kind: "update" }, { path: "b.py", kind: "delete" }, "junk"] },
      }),
    ).toMatchObject({ name: "Edit", input: { file_paths: ["a.py", "b.py"] } });
    expect(normalizeToolCall("codex", { name: "file_change", input: { changes: [{ path: "a.py" }] } })).toMatchObject({
      name: "Edit",
      input: { file_path: "a.py" },
    });
    expect(normalizeToolCall("codex", { name: "file_change", input: {} })).toMatchObject({ name: "Edit", input: {} });
  });

  it("exposes argv commands as a string, leaving malformed ones alone", () => {
    expect(normalizeToolCall("codex", { name: "shell", input: { command: "echo hi" } }).input.command).toBe("echo hi");
    expect(normalizeToolCall("codex", { name: "shell", input: { command: [1, 2] } }).input).toEqual({
      command: [1, 2],
    });
    expect(
      normalizeToolCall("codex", { name: "shell", input: { command: ["sh", "-c", "a && b"] } }).input.command,
    ).toBe("a && b");
    expect(normalizeToolCall("codex", { name: "shell", input: { command: ["printf", "it's"] } }).input.command).toBe(
      "printf 'it'\\''s'",
    );
  });

  it("maps a one-path multi-read to file_path, and none to nothing", () => {
    expect(normalizeToolCall("gemini", { name: "read_many_files", input: { paths: ["/r/a"] } }).input.file_path).toBe(
      "/r/a",
    );
    expect(normalizeToolCall("gemini", { name: "read_many_files", input: {} }).input).toEqual({});
  });
});
