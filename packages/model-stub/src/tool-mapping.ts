import { isAbsolute, join } from "node:path";
import type { ScenarioAction } from "./scenario.ts";

/** A tool the CLI offered in its request, reduced to what mapping needs. */
export interface OfferedTool {
  readonly name: string;
  /** `custom`: a freeform-input tool (Codex's apply_patch); `function`: JSON arguments. */
  readonly kind: "function" | "custom";
  /** Top-level argument names of its JSON schema. */
  readonly parameters: readonly string[];
  /** The arguments its schema requires. */
  readonly required: readonly string[];
}

/** A tool call the stub will send: JSON arguments for a function tool, raw input for a custom one. */
export interface PlannedCall {
  readonly name: string;
  readonly kind: "function" | "custom";
  readonly arguments: Readonly<Record<string, unknown>> | string;
}

// Each CLI's name for the same job, in order of preference (agent-protocols: Claude Code, Codex, Gemini CLI, Pi).
const TOOL_NAMES = {
  write: ["Write", "write_file", "write", "create_file"],
  edit: ["Edit", "replace", "edit", "edit_file", "str_replace"],
  run: ["Bash", "exec_command", "run_shell_command", "bash", "shell"],
  read: ["Read", "read_file", "read", "view"],
} as const;
const PATCH_TOOL = "apply_patch";

const ARGUMENT_NAMES = {
  path: ["file_path", "absolute_path", "path", "filename"],
  content: ["content", "file_text", "text"],
  old: ["old_string", "oldText", "old_str", "old_text"],
  new: ["new_string", "newText", "new_str", "new_text"],
  command: ["command", "cmd"],
} as const;

function offered(tools: readonly OfferedTool[], names: readonly string[]): OfferedTool | undefined {
  for (const name of names) {
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool !== undefined) return tool;
  }
  return undefined;
}

function argumentName(tool: OfferedTool, role: keyof typeof ARGUMENT_NAMES): string | null {
  return ARGUMENT_NAMES[role].find((name) => tool.parameters.includes(name)) ?? null;
}

/** Absolute when the working directory is known (Claude Code and Gemini refuse relative paths). */
function resolvePath(path: string, cwd: string | null): string {
  return cwd === null || isAbsolute(path) ? path : join(cwd, path);
}

function patchLines(text: string, prefix: string): string {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return lines.map((line) => `${prefix}${line}`).join("\n");
}

/** Codex's patch grammar: a whole-file write is an Add File (which replaces an existing file); an edit replaces the old lines. */
function patchFor(action: ScenarioAction): string | null {
  if ("write" in action) {
    return `*** Begin Patch\n*** Add File: ${action.write.path}\n${patchLines(action.write.content, "+")}\n*** End Patch\n`;
  }
  if ("edit" in action) {
    const { path, old, new: replacement } = action.edit;
    return `*** Begin Patch\n*** Update File: ${path}\n@@\n${patchLines(old, "-")}\n${patchLines(replacement, "+")}\n*** End Patch\n`;
  }
  return null;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

// Required free-text arguments some tools add (Gemini CLI's `replace` wants an `instruction`).
const NARRATIVE_ARGUMENTS = ["instruction", "description"];

function call(tool: OfferedTool, args: Record<string, string>): PlannedCall {
  const narrative = Object.fromEntries(
    NARRATIVE_ARGUMENTS.filter((name) => tool.required.includes(name) && !(name in args)).map((name) => [
      name,
      "Apply the scripted change.",
    ]),
  );
  return { name: tool.name, kind: tool.kind, arguments: { ...narrative, ...args } };
}

/**
 * One scenario action as a call to a tool the CLI offered, or the reason none fits. `write` and `edit`
 * use the CLI's file tools, else Codex's `apply_patch`; `run` its shell tool; `call` passes through.
 */
export function planCall(
  action: ScenarioAction,
  tools: readonly OfferedTool[],
  cwd: string | null,
): PlannedCall | { readonly unmapped: string } {
  if ("call" in action) {
    const tool = tools.find((candidate) => candidate.name === action.call.name);
    if (tool === undefined) return { unmapped: `the CLI offered no tool named ${action.call.name}` };
    return { name: tool.name, kind: tool.kind, arguments: action.call.arguments };
  }
  if ("run" in action) {
    const tool = offered(tools, TOOL_NAMES.run);
    const key = tool === undefined ? null : argumentName(tool, "command");
    if (tool === undefined || key === null) return { unmapped: "the CLI offered no shell tool" };
    return call(tool, { [key]: action.run.command });
  }
  if ("read" in action) {
    const tool = offered(tools, TOOL_NAMES.read);
    const key = tool === undefined ? null : argumentName(tool, "path");
    // Codex offers no reading tool: it reads through its shell.
    if (tool === undefined || key === null)
      return planCall({ run: { command: `cat ${shellQuote(action.read.path)}` } }, tools, cwd);
    return call(tool, { [key]: resolvePath(action.read.path, cwd) });
  }
  const fileTool = offered(tools, "write" in action ? TOOL_NAMES.write : TOOL_NAMES.edit);
  if (fileTool !== undefined) {
    const pathKey = argumentName(fileTool, "path");
    if ("write" in action) {
      const contentKey = argumentName(fileTool, "content");
      if (pathKey !== null && contentKey !== null)
        return call(fileTool, { [pathKey]: resolvePath(action.write.path, cwd), [contentKey]: action.write.content });
    } else {
      const oldKey = argumentName(fileTool, "old");
      const newKey = argumentName(fileTool, "new");
      // Pi's `edit` takes a list of replacements.
      if (pathKey !== null && fileTool.parameters.includes("edits")) {
        return {
          name: fileTool.name,
          kind: fileTool.kind,
          arguments: {
            [pathKey]: resolvePath(action.edit.path, cwd),
            edits: [{ oldText: action.edit.old, newText: action.edit.new }],
          },
        };
      }
      if (pathKey !== null && oldKey !== null && newKey !== null) {
        return call(fileTool, {
          [pathKey]: resolvePath(action.edit.path, cwd),
          [oldKey]: action.edit.old,
          [newKey]: action.edit.new,
        });
      }
    }
  }
  const patchTool = tools.find((tool) => tool.name === PATCH_TOOL);
  const patch = patchFor(action);
  if (patchTool !== undefined && patch !== null) {
    return patchTool.kind === "custom"
      ? { name: PATCH_TOOL, kind: "custom", arguments: patch }
      : { name: PATCH_TOOL, kind: "function", arguments: { input: patch } };
  }
  return { unmapped: `the CLI offered no tool for ${"write" in action ? "writing" : "editing"} files` };
}
