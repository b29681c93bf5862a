// What an adapter's CLI cannot do whatever evalgate asks, checked before a live run starts.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { SutCase } from "@eval/models";
import type { AgentAdapter } from "./adapter.ts";
import { AgentAdapterInvalid } from "./errors.ts";

/** Files under a case's `input/` this adapter's CLI cannot edit, by case id (cases without any are left out). */
export function uneditableInputs(adapter: AgentAdapter, benchRoot: string, cases: readonly SutCase[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const limit = adapter.uneditableFiles;
  if (limit === undefined) return found;
  for (const benchCase of cases) {
    const input = join(benchRoot, benchCase.task_class, "cases", benchCase.case_id, "input");
    if (!existsSync(input)) continue;
    const files = readdirSync(input, { recursive: true, encoding: "utf8" }).filter((path) => limit.matches(path)).sort();
    if (files.length > 0) found.set(benchCase.case_id, files);
  }
  return found;
}

/**
 * Refuses a live run of cases that hand the agent files its CLI will not edit: the run would score 0
 * for the CLI's reason, not the agent's. Names the cases, the files and what to do instead.
 */
export function refuseUneditableCases(adapter: AgentAdapter, benchRoot: string, cases: readonly SutCase[]): void {
  const found = uneditableInputs(adapter, benchRoot, cases);
  if (found.size === 0) return;
  const examples = [...found].slice(0, 3).map(([id, files]) => `${id} (${files.slice(0, 3).join(", ")})`);
  throw new AgentAdapterInvalid(
    `cli:${adapter.name} cannot run ${found.size} selected case(s) whose task is to edit build files: ${examples.join("; ")}${found.size > 3 ? ` and ${found.size - 3} more` : ""}. ${adapter.uneditableFiles!.reason}`,
    { adapter: adapter.name, cases: [...found.keys()] },
  );
}
