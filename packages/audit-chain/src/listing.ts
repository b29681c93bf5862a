import { readdir } from "node:fs/promises";
import { RUNS_NAMES } from "@eval/state-layout";
import { RECORD_FILE_PATTERN } from "./record-file.ts";

/** The append lock and a breaker's turn (append-lock.ts): files, but never records nor strays. */
const LOCK_FILES = new Set([RUNS_NAMES.appendLock, `${RUNS_NAMES.appendLock}.break`]);

/** The top level of a runs directory, sorted by name. Directories (per-run details, staging, the lock) are not listed. */
export interface RunsListing {
  /** Record-shaped file names, oldest first. */
  readonly records: readonly string[];
  /** Every other non-directory entry, e.g. a renamed record or a foreign file. */
  readonly others: readonly string[];
}

export async function listRuns(runsDir: string): Promise<RunsListing> {
  let entries;
  try {
    entries = await readdir(runsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], others: [] };
    throw error;
  }
  const records: string[] = [];
  const others: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() || LOCK_FILES.has(entry.name)) continue;
    if (entry.isFile() && RECORD_FILE_PATTERN.test(entry.name)) records.push(entry.name);
    else others.push(entry.name);
  }
  records.sort();
  others.sort();
  return { records, others };
}
