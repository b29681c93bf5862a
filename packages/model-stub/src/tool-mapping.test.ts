import { describe, expect, it } from "vitest";
import { planCall } from "./tool-mapping.ts";
import type { OfferedTool } from "./tool-mapping.ts";

const tool = (
  name: string,
  parameters: string[],
  kind: "function" | "custom" = "function",
  required: string[] = [],
): OfferedTool => ({ name, kind, parameters, required });

describe("planCall", () => {
  it("passes a named call through, and says when the CLI offered no such tool", () => {
    expect(
      planCall({ call: { name: "glob", arguments: { pattern: "*.js" } } }, [tool("glob", ["pattern"])], null),
    ).toEqual({ name: "glob", kind: "function", arguments: { pattern: "*.js" } });
    expect(planCall({ call: { name: "glob", arguments: {} } }, [], null)).toEqual({
      unmapped: "the CLI offered no tool named glob",
    });
  });

  it("reads through the shell when no reading tool is offered (Codex), quoting the path", () => {
    expect(planCall({ read: { path: "it's.txt" } }, [tool("exec_command", ["cmd"])], "/w")).toEqual({
      name: "exec_command",
      kind: "function",
      arguments: { cmd: "cat 'it'\\''s.txt'" },
    });
    expect(planCall({ read: { path: "a" } }, [], null)).toEqual({ unmapped: "the CLI offered no shell tool" });
    expect(planCall({ read: { path: "/abs/a" } }, [tool("read_file", ["file_path"])], "/w")).toEqual({
      name: "read_file",
      kind: "function",
      arguments: { file_path: "/abs/a" },
    });
  });

  it("uses apply_patch offered as a function tool, and says when nothing can write or edit", () => {
    const patch = planCall({ edit: { path: "a.txt", old: "x", new: "y" } }, [tool("apply_patch", ["input"])], null);
    expect(patch).toEqual({
      name: "apply_patch",
      kind: "function",
      arguments: { input: "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch\n" },
    });
    expect(planCall({ write: { path: "a", content: "b" } }, [tool("Bash", ["command"])], null)).toEqual({
      unmapped: "the CLI offered no tool for writing files",
    });
    expect(planCall({ edit: { path: "a", old: "b", new: "c" } }, [tool("Edit", ["file_path"])], null)).toEqual({
      unmapped: "the CLI offered no tool for editing files",
    });
    expect(planCall({ run: { command: "ls" } }, [tool("Bash", [])], null)).toEqual({
      unmapped: "the CLI offered no shell tool",
    });
  });

  it("fills a required description the tool asks for, without overriding a scripted argument", () => {
    const planned = planCall(
      { run: { command: "ls" } },
      [tool("run_shell_command", ["command", "description"], "function", ["command", "description"])],
      null,
    );
    expect(planned).toEqual({
      name: "run_shell_command",
      kind: "function",
      arguments: { description: "Apply the scripted change.", command: "ls" },
    });
  });
});
