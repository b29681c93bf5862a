import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CACHE_ENTRY_SCHEMA_VERSION, CacheEntrySchema, formatIssues, safeParseWire } from "@eval/models";
import type { BenchScore, BenchScoreInput } from "@eval/models";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import lockfile from "proper-lockfile";

export interface ScoreCacheOptions {
  /** The cache directory (created on first write), e.g. `.evalgate/cache`. */
  readonly dir: string;
  readonly onWarning?: WarningSink;
}

export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  /** Temporary files left by writers that died mid-write (gc removes them once an hour old). */
  readonly orphanedTempFiles: number;
  readonly oldestStoredAt: Date | null;
  readonly newestStoredAt: Date | null;
}

export interface GcResult {
  readonly removedEntries: number;
  readonly removedTempFiles: number;
  readonly keptEntries: number;
}

const KEY_PATTERN = /^blake3:([0-9a-f]{64})$/;
const ENTRY_FILE = /^[0-9a-f]{64}\.json$/;
const TEMP_PREFIX = ".tmp-";
const TEMP_GRACE_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A content-addressed cache of BenchScores on the local filesystem.
 *
 * Crash safety: an entry is written to a unique temporary file in its shard directory and renamed
 * into place, so a reader (or a process killed at any instant) sees either no entry or a complete
 * one. Writers and gc serialize on a lock directory (`.lock`, proper-lockfile: a lock whose holder
 * died is taken over once stale). Readers take no lock. A file that does not parse, or whose stored
 * key differs from its name, is a miss with a `cache.corrupt_entry` warning; the next put replaces it.
 * No fsync: a crash of the process cannot expose a torn entry; a power loss may lose recent entries,
 * which then read as corrupt (a miss), never as a wrong score.
 */
export class ScoreCache {
  readonly dir: string;
  private readonly onWarning: WarningSink;
  private queue: Promise<void> = Promise.resolve();

  constructor(options: ScoreCacheOptions) {
    this.dir = options.dir;
    this.onWarning = options.onWarning ?? ignoreWarnings;
  }

  /** The path an entry for `key` lives at. */
  entryPath(key: string): string {
    const hex = keyHex(key);
    return join(this.dir, hex.slice(0, 2), `${hex}.json`);
  }

  async get(key: string): Promise<BenchScore | null> {
    const path = this.entryPath(key);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new EvalError("EVAL_IO", `cannot read cache entry ${path}: ${(error as Error).message}`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      this.corrupt(path, `not JSON (${(error as Error).message})`);
      return null;
    }
    const parsed = safeParseWire(CacheEntrySchema, json);
    if (!parsed.success) {
      this.corrupt(path, formatIssues(parsed.issues));
      return null;
    }
    if (parsed.data.cache_key !== key) {
      this.corrupt(path, `it holds the entry for ${parsed.data.cache_key}`);
      return null;
    }
    return parsed.data.score;
  }

  async put(key: string, score: BenchScore | BenchScoreInput): Promise<void> {
    const path = this.entryPath(key);
    const shard = join(this.dir, keyHex(key).slice(0, 2));
    const entry = { schema_version: CACHE_ENTRY_SCHEMA_VERSION, cache_key: key, stored_at: new Date().toISOString(), score };
    const checked = safeParseWire(CacheEntrySchema, entry);
    if (!checked.success) throw new Error(`ScoreCache.put: not a valid BenchScore: ${formatIssues(checked.issues)}`);
    await mkdir(shard, { recursive: true });
    const temp = join(shard, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
    await writeFile(temp, `${JSON.stringify(checked.data)}\n`, { flag: "wx", mode: 0o600 });
    try {
      await this.withLock(() => rename(temp, path));
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
  }

  /** Removes entries stored more than `olderThanDays` ago (by file mtime) and stale temporary files. */
  async gc(options: { olderThanDays?: number; now?: Date } = {}): Promise<GcResult> {
    const olderThanDays = options.olderThanDays ?? 90;
    if (!(olderThanDays >= 0)) throw new EvalError("EVAL_USAGE", `olderThanDays must be >= 0, got ${olderThanDays}`);
    const now = (options.now ?? new Date()).getTime();
    let removedEntries = 0;
    let removedTempFiles = 0;
    let keptEntries = 0;
    await this.withLock(async () => {
      for (const file of await this.files()) {
        if (file.kind === "entry" && now - file.mtimeMs > olderThanDays * DAY_MS) {
          await unlink(file.path).catch(ignoreMissing);
          removedEntries += 1;
        } else if (file.kind === "temp" && now - file.mtimeMs > TEMP_GRACE_MS) {
          await unlink(file.path).catch(ignoreMissing);
          removedTempFiles += 1;
        } else if (file.kind === "entry") {
          keptEntries += 1;
        }
      }
    });
    return { removedEntries, removedTempFiles, keptEntries };
  }

  async stats(): Promise<CacheStats> {
    let entries = 0;
    let bytes = 0;
    let orphanedTempFiles = 0;
    let oldest: number | null = null;
    let newest: number | null = null;
    for (const file of await this.files()) {
      if (file.kind === "temp") {
        orphanedTempFiles += 1;
        continue;
      }
      entries += 1;
      bytes += file.size;
      oldest = oldest === null ? file.mtimeMs : Math.min(oldest, file.mtimeMs);
      newest = newest === null ? file.mtimeMs : Math.max(newest, file.mtimeMs);
    }
    return {
      entries,
      bytes,
      orphanedTempFiles,
      oldestStoredAt: oldest === null ? null : new Date(oldest),
      newestStoredAt: newest === null ? null : new Date(newest),
    };
  }

  private async files(): Promise<Array<{ path: string; kind: "entry" | "temp"; mtimeMs: number; size: number }>> {
    const out: Array<{ path: string; kind: "entry" | "temp"; mtimeMs: number; size: number }> = [];
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return out;
      throw new EvalError("EVAL_IO", `cannot read cache directory ${this.dir}: ${(error as Error).message}`, { cause: error });
    }
    for (const shard of shards.filter((name) => /^[0-9a-f]{2}$/.test(name)).sort()) {
      const names = await readdir(join(this.dir, shard)).catch(() => [] as string[]);
      for (const name of names.sort()) {
        const kind = ENTRY_FILE.test(name) ? "entry" : name.startsWith(TEMP_PREFIX) ? "temp" : null;
        if (kind === null) continue;
        const path = join(this.dir, shard, name);
        const info = await stat(path).catch(() => null);
        if (info !== null) out.push({ path, kind, mtimeMs: info.mtimeMs, size: info.size });
      }
    }
    return out;
  }

  /**
   * Runs `work` holding the cache's lock. Callers in this process queue on a promise chain first, so
   * only one of them competes for the lock directory at a time (contending in-process on the
   * directory would mean retry back-off on every write).
   */
  private withLock<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(() => this.withDirectoryLock(work));
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async withDirectoryLock<T>(work: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true });
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(this.dir, {
        lockfilePath: join(this.dir, ".lock"),
        stale: 5_000,
        retries: { retries: 200, factor: 1.3, minTimeout: 2, maxTimeout: 100 },
        realpath: false,
      });
    } catch (error) {
      throw new EvalError("EVAL_IO", `cannot lock the cache at ${this.dir}: ${(error as Error).message}`, {
        hint: "another evalgate process is writing the cache; if none is, remove the .lock directory",
        cause: error,
      });
    }
    try {
      return await work();
    } finally {
      await release().catch(() => {});
    }
  }

  private corrupt(path: string, reason: string): void {
    this.onWarning({
      code: "cache.corrupt_entry",
      message: `cache entry ${path} is unreadable (${reason}); treating it as a miss`,
      details: { path },
    });
  }
}

function keyHex(key: string): string {
  const match = KEY_PATTERN.exec(key);
  if (match === null) throw new Error(`not a cache key (expected blake3:<64 hex>): ${key}`);
  return match[1]!;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}
