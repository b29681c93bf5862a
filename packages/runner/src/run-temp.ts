// One temp directory per run: every workspace and rubric cwd of the run lives below it, so one removal
// cleans up, and a run that was killed leaves one directory that `evalgate gc` can recognise.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "@eval/durable-fs";
import { RUN_TEMP } from "@eval/state-layout";

const { prefix: PREFIX, owner: OWNER_FILE } = RUN_TEMP;

export interface RunTempRoot {
  readonly path: string;
  /** Removes the directory and everything below it (idempotent). */
  remove(): void;
}

/** Creates `<tmpdir>/evalgate-run-<runId>-XXXXXX` with this process's pid in `owner.pid`. */
export function createRunTempRoot(runId: string, parent = tmpdir()): RunTempRoot {
  const path = mkdtempSync(join(parent, `${PREFIX}${runId}-`));
  writeFileSync(join(path, OWNER_FILE), String(process.pid));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Removes run temp directories whose owner process is gone (a killed run's leftovers); a directory
 * without a readable owner counts as abandoned once it is older than `minAgeMs`. Returns the paths removed.
 */
export function removeAbandonedRunTemps(
  options: { readonly parent?: string; readonly minAgeMs?: number; readonly now?: number } = {},
): string[] {
  const parent = options.parent ?? tmpdir();
  const now = options.now ?? Date.now();
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const path = join(parent, name);
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(join(path, OWNER_FILE), "utf8"));
    } catch {
      // no owner file: judged by age below
    }
    const abandoned =
      Number.isInteger(pid) && pid > 0
        ? !processAlive(pid)
        : now - statSync(path).mtimeMs > (options.minAgeMs ?? 60 * 60 * 1000);
    if (!abandoned) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}
