import { randomBytes } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { CACHE_ENTRY_SCHEMA_VERSION, CacheEntrySchema, formatIssues, safeParseWire } from "@eval/models";
import type { BenchScore, BenchScoreInput } from "@eval/models";
import { EvalError, ignoreWarnings, ioError } from "@eval/errors";
import type { EvalWarning, WarningSink } from "@eval/errors";
import lockfile from "proper-lockfile";
import {
  assertKeyOutside,
  defaultKeyPath,
  KEY_TEMP_INFIX,
  loadOrCreateMacKey,
  readMacKey,
  sealEntry,
  splitEntry,
  verifyEntry,
} from "./entry-mac.ts";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export interface ScoreCacheOptions {
  /** The cache directory (created on first write), e.g. `.evalgate/cache`. */
  readonly dir: string;
  /**
   * The secret that authenticates entries (HMAC-SHA256): 32 random bytes as 64 hex digits and a newline,
   * mode 0600, created on first `get` of an existing entry or first `put`. Default `<dir>/../cache.key`
   * (`.evalgate/cache.key` for `.evalgate/cache`); it must not be inside `dir`. Whoever can read it can
   * forge entries; whoever deletes or replaces it turns every entry into a miss.
   */
  readonly keyPath?: string;
  readonly onWarning?: WarningSink;
}

export interface CacheStats {
  readonly entries: number;
  /**
   * Entries (counted in `entries` too) that `get` would ignore: no MAC, a wrong MAC (edited, copied from
   * another key, or written under another key file) or unreadable. All of them when no key file exists.
   */
  readonly unverified: number;
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
  /** Kept entries that do not verify (see `CacheStats.unverified`): left as evidence until a put overwrites them or they age out. */
  readonly unverifiedEntries: number;
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
 * which then read as corrupt or fail their MAC (a miss), never as a wrong score.
 *
 * Authentication: every entry carries an HMAC-SHA256 over the key it is filed under and its exact bytes,
 * keyed by the secret in `keyPath` (see entry-mac.ts). An entry whose MAC is missing or wrong is a miss with
 * a `cache.mac_mismatch` warning, never a score, so editing or copying entries cannot turn a failure into
 * a pass without the key file. The key is read (or created) once per ScoreCache.
 */
export class ScoreCache {
  readonly dir: string;
  /** Where the MAC key lives (`options.keyPath`, default `<dir>/../cache.key`, resolved). */
  readonly keyPath: string;
  private readonly onWarning: WarningSink;
  private queue: Promise<void> = Promise.resolve();
  private secret: Promise<KeyObject> | null = null;

  constructor(options: ScoreCacheOptions) {
    this.dir = options.dir;
    this.keyPath = options.keyPath === undefined ? defaultKeyPath(options.dir) : resolve(options.keyPath);
    assertKeyOutside(this.dir, this.keyPath);
    this.onWarning = options.onWarning ?? ignoreWarnings;
  }

  /** The path an entry for `key` lives at. */
  entryPath(key: string): string {
    const hex = keyHex(key);
    return join(this.dir, hex.slice(0, 2), `${hex}.json`);
  }

  async get(key: string): Promise<BenchScore | null> {
    const path = this.entryPath(key);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new EvalError("EVAL_IO", `cannot read cache entry ${path}: ${(error as Error).message}`, { cause: error });
    }
    const checked = this.check(key, path, bytes, await this.macKey());
    if ("warning" in checked) {
      this.onWarning(checked.warning);
      return null;
    }
    return checked.score;
  }

  async put(key: string, score: BenchScore | BenchScoreInput): Promise<void> {
    const path = this.entryPath(key);
    const shard = join(this.dir, keyHex(key).slice(0, 2));
    const entry = {
      schema_version: CACHE_ENTRY_SCHEMA_VERSION,
      cache_key: key,
      stored_at: new Date().toISOString(),
      score,
    };
    const checked = safeParseWire(CacheEntrySchema, entry);
    if (!checked.success) throw new Error(`ScoreCache.put: not a valid BenchScore: ${formatIssues(checked.issues)}`);
    const content = sealEntry(await this.macKey(), key, JSON.stringify(checked.data));
    const temp = join(shard, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
    try {
      await mkdir(shard, { recursive: true });
      await writeFile(temp, content, { flag: "wx", mode: 0o600 });
      await this.withLock(() => rename(temp, path));
    } catch (error) {
      // Never a half-written temp file left behind (a full disk cuts the write short).
      await unlink(temp).catch(() => {});
      throw ioError(error, "cannot write", path);
    }
  }

  /**
   * Removes entries stored more than `olderThanDays` ago (by file mtime) and stale temporary files (in
   * the cache, and key files half-created beside `keyPath`), and counts kept entries that do not verify.
   * Never creates the key file.
   */
  async gc(options: { olderThanDays?: number; now?: Date } = {}): Promise<GcResult> {
    const olderThanDays = options.olderThanDays ?? RUN_DEFAULTS.cacheRetentionDays;
    if (!(olderThanDays >= 0)) throw new EvalError("EVAL_USAGE", `olderThanDays must be >= 0, got ${olderThanDays}`);
    const now = (options.now ?? new Date()).getTime();
    let removedEntries = 0;
    let removedTempFiles = 0;
    let keptEntries = 0;
    let unverifiedEntries = 0;
    const secret = await this.existingMacKey();
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
          if (!(await this.verifies(file.path, secret))) unverifiedEntries += 1;
        }
      }
    });
    return { removedEntries, removedTempFiles, keptEntries, unverifiedEntries };
  }

  /** Counts what is there; reads every entry to count those that do not verify. Never creates the key file. */
  async stats(): Promise<CacheStats> {
    const secret = await this.existingMacKey();
    let entries = 0;
    let unverified = 0;
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
      if (!(await this.verifies(file.path, secret))) unverified += 1;
      bytes += file.size;
      oldest = oldest === null ? file.mtimeMs : Math.min(oldest, file.mtimeMs);
      newest = newest === null ? file.mtimeMs : Math.max(newest, file.mtimeMs);
    }
    return {
      entries,
      unverified,
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
      throw new EvalError("EVAL_IO", `cannot read cache directory ${this.dir}: ${(error as Error).message}`, {
        cause: error,
      });
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
    // Key files a process died while creating (a pid-unique name, never read as a key).
    const keyTempPrefix = `${basename(this.keyPath)}${KEY_TEMP_INFIX}`;
    const keyDir = dirname(this.keyPath);
    for (const name of (await readdir(keyDir).catch(() => [] as string[])).sort()) {
      if (!name.startsWith(keyTempPrefix)) continue;
      const path = join(keyDir, name);
      const info = await stat(path).catch(() => null);
      if (info !== null) out.push({ path, kind: "temp", mtimeMs: info.mtimeMs, size: info.size });
    }
    return out;
  }

  /**
   * A stored entry's score, or why it is a miss. The MAC is checked over the stored bytes first; only an
   * authentic entry is parsed, and even then it must be a valid entry for `key` (defense in depth).
   */
  private check(
    key: string,
    path: string,
    bytes: Buffer,
    secret: KeyObject,
  ): { score: BenchScore } | { warning: EvalWarning } {
    const stored = splitEntry(bytes);
    if (stored.kind === "malformed") return { warning: corrupt(path, stored.reason) };
    if (stored.kind === "unsealed") {
      // Truncated garbage is corrupt; a complete entry without a MAC line predates authentication.
      if (parseJson(stored.body) === undefined) return { warning: corrupt(path, "not JSON, and no MAC") };
      return {
        warning: macWarning(
          path,
          "missing",
          `cache entry ${path} has no MAC (an entry written before cache entries were authenticated, or one made by hand); ignored it, treating it as a miss`,
        ),
      };
    }
    if (!verifyEntry(secret, key, stored)) {
      return {
        warning: macWarning(
          path,
          "mismatch",
          `cache entry ${path} failed MAC verification (changed after it was written, copied from another key, or written under another key file than ${this.keyPath}); ignored it, treating it as a miss`,
        ),
      };
    }
    const json = parseJson(stored.body);
    if (json === undefined) return { warning: corrupt(path, "not JSON") };
    const parsed = safeParseWire(CacheEntrySchema, json);
    if (!parsed.success) return { warning: corrupt(path, formatIssues(parsed.issues)) };
    if (parsed.data.cache_key !== key)
      return { warning: corrupt(path, `it holds the entry for ${parsed.data.cache_key}`) };
    return { score: parsed.data.score };
  }

  /** Whether the entry at `path` (named for its key) would be a hit; false for all when there is no key yet. */
  private async verifies(path: string, secret: KeyObject | null): Promise<boolean> {
    if (secret === null) return false;
    const bytes = await readFile(path).catch(() => null);
    return bytes !== null && "score" in this.check(`blake3:${basename(path, ".json")}`, path, bytes, secret);
  }

  /** The MAC key, read or created once per ScoreCache (a failure is not cached: the next call retries). */
  private macKey(): Promise<KeyObject> {
    this.secret ??= loadOrCreateMacKey(this.keyPath).catch((error: unknown) => {
      this.secret = null;
      throw error;
    });
    return this.secret;
  }

  /** The MAC key if the key file exists, without creating it (for stats and gc). */
  private async existingMacKey(): Promise<KeyObject | null> {
    if (this.secret !== null) return this.secret;
    const secret = await readMacKey(this.keyPath);
    if (secret !== null) this.secret ??= Promise.resolve(secret);
    return secret;
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
      // ELOCKED: a live holder kept the lock; anything else (EROFS, EACCES) is this directory, not another process.
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED")
        throw ioError(error, "cannot lock the cache at", this.dir);
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
}

function corrupt(path: string, reason: string): EvalWarning {
  return {
    code: "cache.corrupt_entry",
    message: `cache entry ${path} is unreadable (${reason}); treating it as a miss`,
    details: { path },
  };
}

function macWarning(path: string, reason: "missing" | "mismatch", message: string): EvalWarning {
  return { code: "cache.mac_mismatch", message, details: { path, reason } };
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return undefined;
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
