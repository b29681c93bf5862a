// Atomic replace: the one policy for a file that is rewritten whole (a detail, a pointer, a verdict).
import {
  chmodSync,
  chownSync,
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { processAlive } from "./owner.ts";

export interface ReplaceOptions {
  /** The file's mode (default: the replaced file's mode, or 0666 less the umask for a new file). */
  readonly mode?: number;
  /**
   * `"power-loss"` (default): the file and its directory are fsynced, so the new content survives a power
   * cut. `"crash"`: no fsync; a killed process still leaves the old file or the new one, never a torn one,
   * but a power cut may lose the latest write (for files that can be recomputed: cache entries, pointers).
   */
  readonly survives?: "power-loss" | "crash";
}

/**
 * Replaces `path` with `data` atomically: a temporary file beside it, written whole, then renamed over
 * it. A reader sees the old content or the new, never part of either. A write may be short (a nearly full
 * file system accepts part of it and returns the count): the writes loop until every byte is down, and the
 * failure that ends a loop (ENOSPC) removes the temporary file and leaves the old content in place. Errors
 * are the system's, for the caller to name (`ioError`).
 */
export async function replaceFile(path: string, data: string | Buffer, options: ReplaceOptions = {}): Promise<void> {
  const plan = planReplace(path, options);
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const handle = await open(plan.temp, "wx", plan.mode ?? 0o666);
  let renamed = false;
  try {
    try {
      for (let done = 0; done < bytes.length;)
        done = advanced(done, (await handle.write(bytes, done, bytes.length - done)).bytesWritten, bytes.length);
      if (plan.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    keepOwnerAndMode(plan);
    await rename(plan.temp, plan.target);
    renamed = true;
  } finally {
    if (!renamed) await rm(plan.temp, { force: true });
  }
  if (plan.durable) await syncDirectory(dirname(plan.target));
}

/** `replaceFile` for synchronous callers. */
export function replaceFileSync(path: string, data: string | Buffer, options: ReplaceOptions = {}): void {
  const plan = planReplace(path, options);
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const fd = openSync(plan.temp, "wx", plan.mode ?? 0o666);
  let renamed = false;
  try {
    try {
      writeAllSync(fd, bytes);
      if (plan.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    keepOwnerAndMode(plan);
    renameSync(plan.temp, plan.target);
    renamed = true;
  } finally {
    if (!renamed) rmSync(plan.temp, { force: true });
  }
  if (plan.durable) syncDirectorySync(dirname(plan.target));
}

/** Writes every byte of `bytes` to `fd` from its current offset: a short write is followed by the rest. */
function writeAllSync(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;)
    done = advanced(done, writeSync(fd, bytes, done, bytes.length - done), bytes.length);
}

/** The offset after a write of `wrote` bytes; a write that made no progress ends the loop as EIO, never spins. */
function advanced(done: number, wrote: number, length: number): number {
  if (wrote <= 0)
    throw Object.assign(new Error(`write returned ${wrote} with ${length - done} bytes left`), { code: "EIO" });
  return done + wrote;
}

interface ReplacePlan {
  /** The file renamed over: `path` with its symlinks resolved, so a link keeps pointing at the new content. */
  readonly target: string;
  readonly temp: string;
  readonly durable: boolean;
  readonly mode: number | undefined;
  /** The replaced file's owner, kept when root rewrites someone else's file. */
  readonly owner: { readonly uid: number; readonly gid: number } | undefined;
}

/** A replace's temporary file is `<file>.replacing-<pid>-<count>-<8 hex>`: the pid of the process writing it. */
const TEMP_MARK = ".replacing-";
const TEMP_NAME = /\.replacing-([0-9]+)-[0-9]+-[0-9a-f]{8}$/;
/**
 * A temporary file is removed only once it is this old too: a live write takes milliseconds, and a pid that is
 * gone here may be a live writer's in another pid namespace (a container sharing the directory).
 */
const ABANDONED_AFTER_MS = 60_000;

/**
 * Removes, under `root` at any depth (symbolic links not followed), the temporary files of replaces whose
 * process is gone (killed mid-write: a SIGKILL, an OOM kill) and that were last written over a minute before
 * `now`; a live process's are left alone (its rename needs them). Returns the paths removed. The file each
 * one was replacing is untouched: it holds the old content or, renamed already, the new.
 */
export function removeAbandonedReplaceTemps(root: string, now = Date.now()): string[] {
  const removed: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // gone meanwhile (a run removing its temp dir), or unreadable: nothing of ours to collect
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && isAbandoned(path, entry.name, now)) {
        rmSync(path, { force: true });
        removed.push(path);
      }
    }
  };
  walk(root);
  return removed;
}

function isAbandoned(path: string, name: string, now: number): boolean {
  const pid = TEMP_NAME.exec(name)?.[1];
  if (pid === undefined || processAlive(Number(pid))) return false;
  try {
    return statSync(path).mtimeMs <= now - ABANDONED_AFTER_MS;
  } catch {
    return false;
  }
}

/** Counts this process's replaces, so two temporary names never meet (with the pid and random bytes). */
let replaces = 0;

function planReplace(path: string, options: ReplaceOptions): ReplacePlan {
  let target = path;
  try {
    target = realpathSync(path);
  } catch {
    // a file not created yet
  }
  let existing: { mode: number; uid: number; gid: number } | undefined;
  try {
    existing = statSync(target);
  } catch {
    existing = undefined;
  }
  replaces += 1;
  return {
    target,
    temp: `${target}${TEMP_MARK}${process.pid}-${replaces}-${randomBytes(4).toString("hex")}`,
    durable: (options.survives ?? "power-loss") === "power-loss",
    mode: options.mode ?? (existing === undefined ? undefined : existing.mode & 0o7777),
    owner: existing === undefined ? undefined : { uid: existing.uid, gid: existing.gid },
  };
}

/** The mode asked for (not less the umask) and, as root, the replaced file's owner. */
function keepOwnerAndMode(plan: ReplacePlan): void {
  if (plan.owner !== undefined && process.getuid?.() === 0) chownSync(plan.temp, plan.owner.uid, plan.owner.gid);
  if (plan.mode !== undefined) chmodSync(plan.temp, plan.mode);
}

/** Fsyncs a directory, so an entry just created, linked or renamed in it survives a power cut. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function syncDirectorySync(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
