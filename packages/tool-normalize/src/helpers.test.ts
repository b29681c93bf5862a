import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  countToolCalls,
  createTranscriptParser,
  filesChanged,
  filesRead,
  findSkillTrigger,
  parseTranscriptFile,
  shellCommands,
  toolCallsNamed,
} from "./index.ts";
import type { Transcript, TranscriptFormat } from "./index.ts";

const j = (value: unknown): string => JSON.stringify(value);

function parse(format: TranscriptFormat, events: ReadonlyArray<unknown>): Transcript {
  const parser = createTranscriptParser(format);
  for (const event of events) parser.push(j(event));
  return parser.end();
}

// Each agent's native way of doing the same thing, as it appears in its own log format.
const claude = (name: string, input: unknown) =>
  parse("claude-stream-json", [
    { type: "assistant", message: { id: "m1", content: [{ type: "tool_use", id: "t1", name, input }] } },
    {
      type: "user",
      message: {
        content: [{ type: "tool_result", tool_use_id: "t1", content: "See skills/pdf/SKILL.md for details" }],
      },
    },
  ]);
const copilot = (name: string, args: unknown) =>
  parse("copilot-events-jsonl", [
    {
      type: "assistant.message",
      data: { messageId: "a1", content: "", toolRequests: [{ toolCallId: "c1", name, arguments: args }] },
    },
    { type: "tool.execution_start", data: { toolCallId: "c1", toolName: name, arguments: args } },
    {
      type: "tool.execution_complete",
      data: { toolCallId: "c1", success: true, result: { content: "See skills/pdf/SKILL.md" } },
    },
  ]);
const codexExec = (item: Record<string, unknown>) =>
  parse("codex-exec-json", [{ type: "item.completed", item: { id: "i1", status: "completed", ...item } }]);
const codexRollout = (name: string, args: unknown) =>
  parse("codex-rollout-jsonl", [
    { type: "response_item", payload: { type: "function_call", name, arguments: j(args), call_id: "k1" } },
    {
      type: "response_item",
      payload: { type: "function_call_output", call_id: "k1", output: "Process exited with code 0" },
    },
  ]);
const gemini = (name: string, parameters: unknown) =>
  parse("gemini-stream-json", [
    { type: "tool_use", tool_name: name, tool_id: "g1", parameters },
    { type: "tool_result", tool_id: "g1", status: "success", output: "skills/pdf/SKILL.md" },
  ]);

/** Equivalent sessions per scenario, one per agent; the check must answer the same for all of them. */
const SCENARIOS: ReadonlyArray<{
  readonly scenario: string;
  readonly expected: boolean;
  readonly sessions: Record<string, Transcript>;
}> = [
  {
    scenario: "loads the skill with its skill tool",
    expected: true,
    sessions: {
      claude: claude("Skill", { skill: "pdf" }),
      copilot: copilot("skill", { skill: "pdf" }),
      "copilot (seed prefix)": copilot("Using skill: pdf", {}),
      codex: codexExec({ type: "mcp_tool_call", server: "skills", tool: "pdf", arguments: {} }),
      gemini: gemini("activate_skill", { name: "pdf" }),
    },
  },
  {
    scenario: "reads the skill's SKILL.md",
    expected: true,
    sessions: {
      claude: claude("Read", { file_path: "/repo/.claude/skills/pdf/SKILL.md" }),
      copilot: copilot("view", { path: "/repo/.github/skills/pdf/SKILL.md" }),
      codex: codexRollout("exec_command", { cmd: "sed -n '1,200p' /home/u/.codex/skills/pdf/SKILL.md" }),
      "codex exec": codexExec({
        type: "command_execution",
        command: "bash -lc 'cat skills/pdf/SKILL.md'",
        exit_code: 0,
      }),
      gemini: gemini("read_file", { absolute_path: "/repo/skills/pdf/SKILL.md" }),
    },
  },
  {
    scenario: "loads a different skill",
    expected: false,
    sessions: {
      claude: claude("Skill", { skill: "xlsx" }),
      copilot: copilot("skill", { skill: "xlsx" }),
      codex: codexExec({ type: "mcp_tool_call", server: "skills", tool: "xlsx", arguments: {} }),
      gemini: gemini("activate_skill", { name: "xlsx" }),
    },
  },
  {
    scenario: "only touches a similarly named skill, and sees the path in output",
    expected: false,
    sessions: {
      claude: claude("Read", { file_path: "/repo/skills/pdf-tools/SKILL.md" }),
      copilot: copilot("view", { path: "/repo/skills/pdf-tools/SKILL.md" }),
      codex: codexRollout("exec_command", { cmd: "cat skills/pdf-tools/SKILL.md" }),
      gemini: gemini("read_file", { absolute_path: "/repo/skills/pdf-tools/SKILL.md" }),
    },
  },
];

describe("findSkillTrigger: the seed's acceptance criterion", () => {
  it.each(SCENARIOS.map((scenario) => [scenario.scenario, scenario] as const))(
    "identical results across agents when the agent %s",
    (_label, { expected, sessions }) => {
      const results = Object.fromEntries(
        Object.entries(sessions).map(([agent, transcript]) => [agent, findSkillTrigger(transcript, "pdf") !== null]),
      );
      expect(results).toEqual(Object.fromEntries(Object.keys(sessions).map((agent) => [agent, expected])));
    },
  );

  it("says how it knew, and returns the tool call", () => {
    expect(findSkillTrigger(claude("Skill", { skill: "pdf" }), "pdf")).toMatchObject({
      kind: "skill_tool",
      tool_call: { id: "t1", name: "Skill" },
    });
    expect(findSkillTrigger(copilot("view", { path: "/r/skills/pdf/SKILL.md" }), "pdf")?.kind).toBe("read_skill_file");
    expect(findSkillTrigger(codexRollout("exec_command", { cmd: "cat skills/pdf/SKILL.md" }), "pdf")?.kind).toBe(
      "shell_reads_skill_file",
    );
  });

  it("with shell: false, accepts only a Skill call or a Read", () => {
    expect(
      findSkillTrigger(codexRollout("exec_command", { cmd: "cat skills/pdf/SKILL.md" }), "pdf", { shell: false }),
    ).toBeNull();
    expect(findSkillTrigger(claude("Read", { file_path: "skills/pdf/SKILL.md" }), "pdf", { shell: false })?.kind).toBe(
      "read_skill_file",
    );
  });

  it("accepts namespaced skill names and multi-file reads, and escapes regex characters in the name", () => {
    expect(findSkillTrigger(claude("Skill", { skill: "anthropic:pdf" }), "pdf")).not.toBeNull();
    expect(findSkillTrigger(claude("Skill", { skill: "pdfx" }), "pdf")).toBeNull();
    expect(
      findSkillTrigger(gemini("read_many_files", { paths: ["/r/a.md", "/r/skills/pdf/forms.md"] }), "pdf")?.kind,
    ).toBe("read_skill_file");
    expect(findSkillTrigger(claude("Read", { file_path: "/r/skills/a.b/SKILL.md" }), "a.b")).not.toBeNull();
    expect(findSkillTrigger(claude("Read", { file_path: "/r/skills/aXb/SKILL.md" }), "a.b")).toBeNull();
    expect(findSkillTrigger(claude("Read", {}), "pdf")).toBeNull();
  });

  it("finds no skill in any real session (none of them used one)", async () => {
    const dir = join(import.meta.dirname, "__fixtures__");
    const files: Array<[TranscriptFormat, string]> = [
      ["claude-session-jsonl", "claude-code.session.jsonl"],
      ["codex-rollout-jsonl", "codex.rollout.jsonl"],
      ["copilot-events-jsonl", "copilot-cli.events.jsonl"],
    ];
    for (const [format, file] of files) {
      const transcript = await parseTranscriptFile(format, join(dir, file));
      expect(findSkillTrigger(transcript, "pdf")).toBeNull();
    }
  });
});

describe("other helpers", () => {
  it("answer from canonical names only", async () => {
    const dir = join(import.meta.dirname, "__fixtures__");
    const transcript = await parseTranscriptFile("claude-session-jsonl", join(dir, "claude-code.session.jsonl"));
    expect(countToolCalls(transcript)).toEqual(transcript.counts);
    expect(toolCallsNamed(transcript, "Read")).toHaveLength(3);
    expect(filesRead(transcript)).toEqual([
      "/home/christso/projects/agentv/.entire/settings.json",
      "/home/christso/projects/agentv/.entire/.gitignore",
      "/home/christso/projects/agentv/biome.json",
    ]);
    expect(filesChanged(transcript)).toEqual(["/home/christso/projects/agentv/biome.json"]);
    expect(shellCommands(transcript)[0]).toBe("git status");

    const codex = await parseTranscriptFile("codex-rollout-jsonl", join(dir, "codex.rollout.jsonl"));
    expect(filesChanged(codex)).toHaveLength(15);
    expect(shellCommands(codex)).toHaveLength(20);
  });
});
