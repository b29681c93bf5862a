// The runs directory's append lock: a file created exclusively that names its holder (pid, host, the
// process's start time and a token). A holder of this host that is gone is known at once, so its lock is
// broken at once; another host's holder cannot be checked from here and is never broken automatically.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, open, readFile, rm, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { currentOwner, ownerState, parseOwner } from "@eval/durable-fs";
import type { ProcessOwner } from "@eval/durable-fs";
import { ioError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import { RUNS_NAMES } from "@eval/state-layout";
import { ChainConflict } from "./errors.ts";

/** Proof that the caller holds a runs directory's append lock (from `withAppendLock`). */
export interface AppendLock {
  readonly runsDir: string;
  /** Throws ChainConflict when the lock was lost (its file was broken or removed) since it was taken. */
  assertHeld(): void;
}

export interface AppendLockOptions {
  /**
   * A lock that names no holder (an older version's directory lock, or a holder killed between creating
   * the file and writing it) is taken over once its mtime is older than this; default 10 s, minimum 2 s.
   */
  readonly lockStaleMs?: number;
  /** How long to wait for a live holder before giving up with ChainConflict; default 30 s. */
  readonly lockWaitMs?: number;
  /** Told when a dead holder's lock is broken. */
  readonly onWarning?: WarningSink;
}

/** What is at the lock's path, judged. `text` is the file's content (null for a directory lock). */
interface Seen {
  readonly state: "gone" | "live" | "dead" | "foreign" | "unnamed" | "unnamed-stale";
  readonly text: string | null;
  readonly owner: ProcessOwner | null;
}

const BREAK_SUFFIX = ".break"; // listing.ts skips `<lock>.break` too
/** A breaker's own lock is held for milliseconds: one older than this was left by a killed breaker. */
const BREAKER_STALE_MS = 10_000;

/**
 * Runs `fn` holding the runs directory's append lock: no record is appended by anyone else meanwhile.
 * For a decision that must not race an append (is this run already in the chain, is the head still the
 * expected one, which detail directories are no run's), and for appending after it (`lock` option).
 */
export async function withAppendLock<T>(
  runsDir: string,
  fn: (lock: AppendLock) => Promise<T>,
  options: AppendLockOptions = {},
): Promise<T> {
  await mkdir(runsDir, { recursive: true, mode: 0o700 });
  const lockPath = join(runsDir, RUNS_NAMES.appendLock);
  const token = await acquire(runsDir, lockPath, options);
  const lock: AppendLock = {
    runsDir,
    assertHeld: () => {
      if (tokenAt(lockPath) !== token)
        throw new ChainConflict(`lost the audit-chain lock while appending: ${lockPath} no longer names this process`, {
          runsDir,
        });
    },
  };
  try {
    return await fn(lock);
  } finally {
    if (tokenAt(lockPath) === token) await unlink(lockPath).catch(() => {});
  }
}

async function acquire(runsDir: string, lockPath: string, options: AppendLockOptions): Promise<string> {
  const waitMs = options.lockWaitMs ?? 30_000;
  const staleMs = Math.max(options.lockStaleMs ?? 10_000, 2_000);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const token = randomUUID();
    if (await createLockFile(lockPath, `${JSON.stringify({ ...currentOwner(), token })}\n`)) return token;
    const seen = await inspect(lockPath, staleMs);
    if (seen.state === "dead" || seen.state === "unnamed-stale") {
      if (await breakIfStill(lockPath, seen, staleMs)) options.onWarning?.(brokenWarning(lockPath, seen));
      continue;
    }
    if (seen.state === "gone") continue;
    if (Date.now() >= deadline)
      throw new ChainConflict(stillLocked(runsDir, lockPath, seen, waitMs), { runsDir, lockPath });
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 50)));
  }
}

/** Creates the file with `text` in one write, never over another; false when something is already there. */
async function createLockFile(path: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw ioError(error, "cannot lock", path);
  }
  try {
    await handle.writeFile(text);
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw ioError(error, "cannot lock", path);
  }
  await handle.close();
  return true;
}

async function inspect(lockPath: string, staleMs: number): Promise<Seen> {
  let info;
  let text: string | null = null;
  try {
    info = await stat(lockPath);
    if (!info.isDirectory()) text = await readFile(lockPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "gone", text: null, owner: null };
    throw ioError(error, "cannot read the append lock", lockPath);
  }
  const owner = text === null ? null : parseOwner(text);
  if (owner === null) {
    const stale = Date.now() - info.mtimeMs > staleMs;
    return { state: stale ? "unnamed-stale" : "unnamed", text, owner: null };
  }
  return { state: ownerState(owner), text, owner };
}

/**
 * Removes the lock if it is still the one judged breakable. Breakers take turns (`<lock>.break`, created
 * exclusively) and judge again in their turn: a lock taken meanwhile by a live process is never removed,
 * and of two breakers of the same lock exactly one removes it. True when this call removed it.
 */
async function breakIfStill(lockPath: string, seen: Seen, staleMs: number): Promise<boolean> {
  const breakPath = `${lockPath}${BREAK_SUFFIX}`;
  if (!(await createLockFile(breakPath, `${JSON.stringify(currentOwner())}\n`))) {
    await clearDeadBreaker(breakPath);
    return false;
  }
  try {
    const now = await inspect(lockPath, staleMs);
    if (now.state !== seen.state || now.text !== seen.text) return false;
    await rm(lockPath, { recursive: true, force: true });
    return true;
  } finally {
    await unlink(breakPath).catch(() => {});
  }
}

/** A breaker killed in its turn leaves `<lock>.break`: removed when its process is gone or it is old. */
async function clearDeadBreaker(breakPath: string): Promise<void> {
  try {
    const [text, info] = await Promise.all([readFile(breakPath, "utf8"), stat(breakPath)]);
    const owner = parseOwner(text);
    const dead = owner !== null && ownerState(owner) === "dead";
    if (dead || Date.now() - info.mtimeMs > BREAKER_STALE_MS) await unlink(breakPath);
  } catch {
    // gone meanwhile, or not ours to judge: the next turn sees
  }
}

/** The token in the lock file now, or null. */
function tokenAt(lockPath: string): string | null {
  try {
    const value = JSON.parse(readFileSync(lockPath, "utf8")) as { token?: unknown };
    return typeof value.token === "string" ? value.token : null;
  } catch {
    return null;
  }
}

function holderOf(seen: Seen): string {
  const owner = seen.owner;
  if (owner === null) return "a holder that left no name";
  return `pid ${owner.pid} on host ${owner.host}${owner.started_at === "" ? "" : ` (since ${owner.started_at})`}`;
}

function brokenWarning(lockPath: string, seen: Seen) {
  const why =
    seen.owner === null
      ? "named no holder and was not refreshed"
      : "its process is gone (or its pid now belongs to another process)";
  return {
    code: "chain.stale_lock_broken",
    message: `broke the audit-chain append lock ${lockPath} held by ${holderOf(seen)}: ${why}`,
    details: { lockPath, ...(seen.owner === null ? {} : { pid: seen.owner.pid, host: seen.owner.host }) },
  };
}

function stillLocked(runsDir: string, lockPath: string, seen: Seen, waitMs: number): string {
  const base = `the audit chain in ${runsDir} stayed locked by another append (${holderOf(seen)}) for ${Math.round(waitMs / 1000)} s`;
  if (seen.state !== "foreign") return base;
  return `${base}; a lock held from another host is never broken automatically: if that process is gone, remove ${lockPath} by hand`;
}
