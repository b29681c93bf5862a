// Per-case detail files: written when a case runs, and reused (copied) when a later run hits the cache.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CaseDetailSchema, safeParseWire } from "@eval/models";

/**
 * `<runsDir>/.detail-index/<key hex>.json`: which run executed the case a cache key names, so a later
 * cache hit can show that run's evidence. The leading dot keeps it out of `gc`'s sweep of detail
 * directories and out of the chain's listing.
 */
export function detailIndexPath(runsDir: string, cacheKey: string): string {
  return join(runsDir, ".detail-index", `${cacheKey.replace(/^blake3:/, "")}.json`);
}

/** Writes `content` to `path` through a temp file and a rename: a reader never sees half a file. */
function writeAtomic(path: string, content: string): void {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, path);
}

/** Records that `runId` executed the unit of `cacheKey` (its detail is `runs/<runId>/cases/<detailFile>`). */
export function indexCaseDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): void {
  const path = detailIndexPath(runsDir, cacheKey);
  mkdirSync(join(runsDir, ".detail-index"), { recursive: true });
  writeAtomic(path, `${JSON.stringify({ run_id: runId, file: detailFile })}\n`);
}

/**
 * For a cache hit of `runId`: copies the detail of the run that executed the case into
 * `runs/<runId>/cases/<detailFile>`, marked `from_cache: { in_run_id }` (its `run_id` and
 * `invocation_tag` stay those of the executing run, where its transcript is found). Returns the copy's
 * path, or null when no earlier detail is on disk (an older state dir, a removed run directory).
 */
export function copyCachedDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): string | null {
  const indexPath = detailIndexPath(runsDir, cacheKey);
  if (!existsSync(indexPath)) return null;
  try {
    const pointer = JSON.parse(readFileSync(indexPath, "utf8")) as { run_id?: unknown; file?: unknown };
    if (typeof pointer.run_id !== "string" || typeof pointer.file !== "string" || pointer.file.includes("/")) return null;
    const source = join(runsDir, pointer.run_id.replace(/^partial:/, ""), "cases", pointer.file);
    if (!existsSync(source)) return null;
    const parsed = safeParseWire(CaseDetailSchema, JSON.parse(readFileSync(source, "utf8")));
    if (!parsed.success || parsed.data.cache_key !== cacheKey) return null;
    const target = join(runsDir, runId, "cases", detailFile);
    mkdirSync(join(runsDir, runId, "cases"), { recursive: true });
    writeAtomic(target, `${JSON.stringify({ ...parsed.data, from_cache: { in_run_id: runId } }, null, 2)}\n`);
    return target;
  } catch {
    // A damaged pointer or detail is not the run's problem: the hit simply has no detail to show.
    return null;
  }
}
