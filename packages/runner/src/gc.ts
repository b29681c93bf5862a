// What killed runs leave behind, found and removed: per-run temp dirs, detail directories of runs that
// never reached the chain and whose owner is gone, staging and checkpoint temp files, the temporary files of
// atomic replaces whose writer was killed, blobs nothing references, and the score cache's stale temp files and
// expired entries.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chainedRunIds, withAppendLock } from "@eval/audit-chain";
import { removeAbandonedReplaceTemps } from "@eval/durable-fs";
import { ScoreCache } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import { checkStateDir, RUNS_NAMES, STATE_NAMES, stateLayout } from "@eval/state-layout";
import { collectBlobs } from "./blob-gc.ts";
import { claimState, deadClaims, olderThan, recordedChainHash } from "./run-owner.ts";
import { removeAbandonedRunTemps } from "./run-temp.ts";
import { RUN_DEFAULTS } from "@eval/models/defaults";

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
  /**
   * Detail directories of runs that were recorded (their marker names a chain hash) but are no longer in the
   * chain: a possible truncation. Kept, never removed, and reported as a warning.
   */
  readonly keptRemovedRunDirs: readonly string[];
  /**
   * A killed append's staged record, a killed claim, a killed checkpoint write's temp file, and any
   * `<file>.replacing-<pid>-...` a killed replace left anywhere in the state directory (its pid gone).
   */
  readonly removedStaleFiles: readonly string[];
  readonly removedCacheEntries: number;
  readonly removedCacheTempFiles: number;
  /** Captured-workspace blobs no detail file references and no live run can still reference (blob-gc.ts). */
  readonly removedBlobs: number;
  /** The bytes those blobs held. */
  readonly freedBlobBytes: number;
}

/**
 * Removes what killed runs left: their temp dirs (owner process gone), the `runs/<run-id>/` detail
 * directories of runs with no record in the chain whose owner is gone (run-owner.ts: a live run's or
 * merge's directory is never touched), the append staging area's leftovers, stale checkpoint temp
 * files, the temporary files of replaces whose process is gone (durable-fs), the blobs no detail file references (after the detail sweep, so a dead run's blobs go with it), and the cache's stale temp files and entries older than `cacheOlderThanDays`. The detail sweep
 * holds the append lock, so no record lands between "not in the chain" and the removal. The chain
 * itself is never touched.
 */
export async function collectGarbage(options: GarbageOptions): Promise<GarbageResult> {
  checkStateDir(options.stateDir, { write: true });
  const layout = stateLayout(options.stateDir);
  const runsDir = layout.runs;
  const removedTempDirs = removeAbandonedRunTemps(
    options.tempParent === undefined ? {} : { parent: options.tempParent },
  );
  const { detailDirs, removedStaleFiles } = await withAppendLock(
    runsDir,
    async () => ({
      detailDirs: await removeDeadDetailDirs(runsDir),
      removedStaleFiles: removeStagingLeftovers(runsDir),
    }),
    options.onWarning === undefined ? {} : { onWarning: options.onWarning },
  );
  const { removed: removedDetailDirs, kept: keptRemovedRunDirs } = detailDirs;
  if (keptRemovedRunDirs.length > 0) {
    options.onWarning?.({
      code: "gc.possible_truncation",
      message: `${keptRemovedRunDirs.length} detail director${keptRemovedRunDirs.length === 1 ? "y belongs" : "ies belong"} to runs that were recorded but are no longer in the chain (records deleted: a possible truncation); kept: ${keptRemovedRunDirs.slice(0, 3).join(", ")}${keptRemovedRunDirs.length > 3 ? ", ..." : ""}; \`evalgate verify --anchor <file>\` checks the chain against an anchor`,
      details: { dirs: keptRemovedRunDirs },
    });
  }
  removedStaleFiles.push(...removeCheckpointTemps(options.stateDir));
  removedStaleFiles.push(...removeAbandonedReplaceTemps(options.stateDir));
  const blobs = collectBlobs(runsDir, layout.blobs);
  const cache = new ScoreCache({
    dir: layout.cache,
    keyPath: layout.cacheKey,
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
  });
  const swept = await cache.gc({ olderThanDays: options.cacheOlderThanDays ?? RUN_DEFAULTS.cacheRetentionDays });
  return {
    removedTempDirs,
    removedDetailDirs,
    keptRemovedRunDirs,
    removedStaleFiles,
    removedCacheEntries: swept.removedEntries,
    removedCacheTempFiles: swept.removedTempFiles,
    removedBlobs: blobs.removedBlobs,
    freedBlobBytes: blobs.freedBytes,
  };
}

/**
 * Under the append lock: removes the detail directories of runs not in the chain and no longer owned, except
 * those of runs that were recorded (a possible truncation), which it returns as kept.
 */
async function removeDeadDetailDirs(runsDir: string): Promise<{ removed: string[]; kept: string[] }> {
  const chained = await chainedRunIds(runsDir);
  const removed: string[] = [];
  const kept: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(runsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name);
  } catch {
    // no runs yet
  }
  for (const runId of entries) {
    if (chained.has(runId) || claimState(join(runsDir, runId)) === "live") continue;
    if (recordedChainHash(join(runsDir, runId)) !== null) {
      kept.push(join(runsDir, runId));
      continue;
    }
    rmSync(join(runsDir, runId), { recursive: true, force: true });
    removed.push(join(runsDir, runId));
  }
  return { removed, kept };
}

/** Under the append lock no append is staging a record, so every `*.tmp` there is a killed append's; plus dead claims. */
function removeStagingLeftovers(runsDir: string): string[] {
  const staging = join(runsDir, RUNS_NAMES.staging);
  let names: string[] = [];
  try {
    names = readdirSync(staging);
  } catch {
    return [];
  }
  const removed = [
    ...names.filter((name) => name.endsWith(".tmp")).map((name) => join(staging, name)),
    ...deadClaims(runsDir),
  ];
  for (const path of removed) rmSync(path, { recursive: true, force: true });
  return removed;
}

/** `chain.checkpoint.<n>`: a checkpoint write's temp file, left by a kill mid-write (a live write takes milliseconds). */
function removeCheckpointTemps(stateDir: string): string[] {
  const removed = readdirSync(stateDir)
    .filter((name) => name.startsWith(`${STATE_NAMES.checkpoint}.`))
    .map((name) => join(stateDir, name))
    .filter((path) => olderThan(path, 60_000));
  for (const path of removed) rmSync(path, { force: true });
  return removed;
}
