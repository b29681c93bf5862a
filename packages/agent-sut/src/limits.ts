// What an adapter's CLI cannot do whatever evalgate asks, checked before a live run starts.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import type { SutCase, TaskAgent } from "@eval/models";
import type { AgentAdapter } from "@eval/cli-subscription-adapters";
import { AgentAdapterInvalid } from "@eval/cli-subscription-adapters";

/**
 * The files a solution of the case edits: with the task class's declared `edits`, the case's input files
 * they match plus each declared path without a wildcard (a file the solution creates); without a
 * declaration, every input file (a guess that errs on the side of refusing).
 */
function editedFiles(inputFiles: readonly string[], declared: readonly string[] | undefined): string[] {
  if (declared === undefined) return [...inputFiles];
  const matches = picomatch([...declared], { dot: true });
  const literal = declared.filter((path) => !picomatch.scan(path).isGlob);
  return [...new Set([...inputFiles.filter((file) => matches(file)), ...literal])];
}

/** Files a solution of each case edits that this adapter's CLI cannot edit, by case id (cases without any are left out). */
export function uneditableInputs(
  adapter: AgentAdapter,
  benchRoot: string,
  cases: readonly SutCase[],
  taskAgent: TaskAgent | null = null,
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const limit = adapter.uneditableFiles;
  if (limit === undefined) return found;
  for (const benchCase of cases) {
    const input = join(benchRoot, benchCase.task_class, "cases", benchCase.case_id, "input");
    const inputFiles = existsSync(input) ? readdirSync(input, { recursive: true, encoding: "utf8" }) : [];
    const files = editedFiles(inputFiles, taskAgent?.edits)
      .filter((path) => limit.matches(path))
      .sort();
    if (files.length > 0) found.set(benchCase.case_id, files);
  }
  return found;
}

/**
 * Refuses a live run of cases whose solution edits files the adapter's CLI will not edit: the run would
 * score 0 for the CLI's reason, not the agent's. Keyed on the task class's declared `edits`; a class that
 * declares none is judged by its cases' input files. Names the cases, the files and what to do instead.
 */
export function refuseUneditableCases(
  adapter: AgentAdapter,
  benchRoot: string,
  cases: readonly SutCase[],
  taskAgent: TaskAgent | null = null,
): void {
  const found = uneditableInputs(adapter, benchRoot, cases, taskAgent);
  if (found.size === 0) return;
  const examples = [...found].slice(0, 3).map(([id, files]) => `${id} (${files.slice(0, 3).join(", ")})`);
  const basis =
    taskAgent?.edits === undefined
      ? " (Judged by the cases' input files: declare the task class's agent.edits to say which files a solution edits.)"
      : "";
  throw new AgentAdapterInvalid(
    `cli:${adapter.name} cannot run ${found.size} selected case(s) whose task is to edit build files: ${examples.join("; ")}${found.size > 3 ? ` and ${found.size - 3} more` : ""}. ${adapter.uneditableFiles!.reason}${basis}`,
    { adapter: adapter.name, cases: [...found.keys()] },
  );
}
