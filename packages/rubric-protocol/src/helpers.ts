import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { HarnessOutput } from "@eval/models";

function listFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(relative(root, full).split("\\").join("/"));
    }
  };
  walk(root);
  return files;
}

/**
 * The files a SUT added, removed or modified in its workspace, relative POSIX paths in sorted order:
 * what a rubric compares against the case's `input/` to judge scope.
 */
export function changedFiles(inputPath: string, workspacePath: string): string[] {
  const before = new Set(listFiles(inputPath));
  const after = new Set(listFiles(workspacePath));
  return [...new Set([...before, ...after])]
    .filter((path) => !before.has(path) || !after.has(path) || !readFileSync(join(inputPath, path)).equals(readFileSync(join(workspacePath, path))))
    .sort();
}

/**
 * Why an agent SUT reported a CLI error, from its harness output: the trial classification's
 * `cli_error_kind: reason` (what the replay and live agent SUTs return), else a plain `error` string.
 */
export function agentErrorDetail(harnessOutput: HarnessOutput): string {
  const classification = harnessOutput.classification as { reason?: unknown; cli_error_kind?: unknown } | undefined;
  if (classification && typeof classification.reason === "string") {
    return typeof classification.cli_error_kind === "string" ? `${classification.cli_error_kind}: ${classification.reason}` : classification.reason;
  }
  return typeof harnessOutput.error === "string" ? harnessOutput.error : "the agent CLI reported an error before working on the task";
}
