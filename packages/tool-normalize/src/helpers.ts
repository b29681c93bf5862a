// Small questions rubrics ask of a transcript. They know canonical names and fields only: no
// provider appears here, which is the point of normalizing at the parser.
import type { Transcript, TranscriptToolCall } from "@eval/models";

type ToolCalls = Pick<Transcript, "tool_calls">;

/** How a skill was seen being used, strongest first. */
export type SkillTriggerKind = "skill_tool" | "read_skill_file" | "shell_reads_skill_file";

export interface SkillTrigger {
  readonly kind: SkillTriggerKind;
  readonly tool_call: TranscriptToolCall;
}

export interface FindSkillTriggerOptions {
  /**
   * Count a `Bash` command that names the skill's files (`cat skills/<name>/SKILL.md`) as a trigger.
   * Default true: agents without a skill tool (Codex) load skills exactly this way. Set false to
   * accept only a `Skill` call or a `Read` of the skill's files.
   */
  readonly shell?: boolean;
}

function stringField(input: Readonly<Record<string, unknown>>, field: string): string {
  const value = input[field];
  return typeof value === "string" ? value : "";
}

function paths(call: TranscriptToolCall): string[] {
  const list = Array.isArray(call.input.file_paths)
    ? call.input.file_paths.filter((path): path is string => typeof path === "string")
    : [];
  const one = stringField(call.input, "file_path");
  return one === "" ? list : [one, ...list];
}

/** `pdf` names `pdf`, `plugin:pdf` and `skills/pdf`, not `pdf-tools`. */
function namesSkill(value: string, skill: string): boolean {
  return value === skill || value.endsWith(`:${skill}`) || value.endsWith(`/${skill}`);
}

function skillDirectoryPattern(skill: string): RegExp {
  return new RegExp(`(^|[/\\\\\\s"'=])skills[/\\\\]${skill.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([/\\\\]|$)`);
}

/**
 * The first tool call showing the agent used `skill`: a `Skill` call naming it, a `Read` of a file
 * under `skills/<skill>/`, or (unless `shell: false`) a `Bash` command naming such a file. Null when
 * none did. Identical answers for equivalent sessions of any agent, since only canonical names count.
 */
export function findSkillTrigger(
  transcript: ToolCalls,
  skill: string,
  options: FindSkillTriggerOptions = {},
): SkillTrigger | null {
  const inSkillDirectory = skillDirectoryPattern(skill);
  for (const call of transcript.tool_calls) {
    if (call.name === "Skill" && namesSkill(stringField(call.input, "skill"), skill))
      return { kind: "skill_tool", tool_call: call };
    if (call.name === "Read" && paths(call).some((path) => inSkillDirectory.test(path)))
      return { kind: "read_skill_file", tool_call: call };
    if (options.shell !== false && call.name === "Bash" && inSkillDirectory.test(stringField(call.input, "command"))) {
      return { kind: "shell_reads_skill_file", tool_call: call };
    }
  }
  return null;
}

/** Every tool call with this (canonical) name, in order. */
export function toolCallsNamed(transcript: ToolCalls, name: string): TranscriptToolCall[] {
  return transcript.tool_calls.filter((call) => call.name === name);
}

/** Tool calls by name, e.g. `{ Bash: 12, Read: 3 }`. */
export function countToolCalls(transcript: ToolCalls): Record<string, number> {
  const counts = new Map<string, number>();
  for (const call of transcript.tool_calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  return Object.fromEntries(counts);
}

/** Files the agent read through a `Read` call (shell reads are in `shellCommands`), in order, once each. */
export function filesRead(transcript: ToolCalls): string[] {
  return [...new Set(toolCallsNamed(transcript, "Read").flatMap(paths))];
}

/** Files the agent wrote or edited through `Write`/`Edit` calls, in order, once each. */
export function filesChanged(transcript: ToolCalls): string[] {
  return [
    ...new Set(transcript.tool_calls.filter((call) => call.name === "Write" || call.name === "Edit").flatMap(paths)),
  ];
}

/** The commands of every `Bash` call, in order. */
export function shellCommands(transcript: ToolCalls): string[] {
  return toolCallsNamed(transcript, "Bash")
    .map((call) => stringField(call.input, "command"))
    .filter((command) => command !== "");
}
