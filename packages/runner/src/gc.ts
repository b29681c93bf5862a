// What killed runs leave behind, found and removed: per-run temp dirs, detail directories of runs that
// never reached the chain, and the score cache's stale temp files and expired entries.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chainedRunIds } from "@eval/audit-chain";
import { ScoreCache } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import { removeAbandonedRunTemps } from "./run-temp.ts";
import { checkStateDir } from "./state-dir.ts";

export interface GarbageOptions {
  /** The state directory (runs/ and cache/ below it). */
  readonly stateDir: string;
  /** Cache entries older than this are removed too (default 90). */
  readonly cacheOlderThanDays?: number;
  /** Where run temp dirs live (default the OS temp dir). */
  readonly tempParent?: string;
  readonly onWarning?: WarningSink;
}

export interface GarbageResult {
  readonly removedTempDirs: readonly string[];
  readonly removedDetailDirs: readonly string[];
  readonly removedCacheEntries: number;
  readonly removedCacheTempFiles: number;
}

/**
 * Removes what killed runs left: their temp dirs (owner process gone), the `runs/<run-id>/` detail
 * directories of runs with no record in the chain (a run that was killed before it appended), and the
 * cache's stale temp files and entries older than `cacheOlderThanDays`. The chain itself is never touched.
 */
export async function collectGarbage(options: GarbageOptions): Promise<GarbageResult> {
  checkStateDir(options.stateDir, { write: true });
  const runsDir = join(options.stateDir, "runs");
  const removedTempDirs = removeAbandonedRunTemps(options.tempParent === undefined ? {} : { parent: options.tempParent });
  const chained = await chainedRunIds(runsDir);
  const removedDetailDirs: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(runsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith(".")).map((entry) => entry.name);
  } catch {
    // no runs yet
  }
  for (const runId of entries) {
    if (chained.has(runId)) continue;
    rmSync(join(runsDir, runId), { recursive: true, force: true });
    removedDetailDirs.push(join(runsDir, runId));
  }
  const cache = new ScoreCache({ dir: join(options.stateDir, "cache"), keyPath: join(options.stateDir, "cache.key"), ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }) });
  const swept = await cache.gc({ olderThanDays: options.cacheOlderThanDays ?? 90 });
  return { removedTempDirs, removedDetailDirs, removedCacheEntries: swept.removedEntries, removedCacheTempFiles: swept.removedTempFiles };
}
