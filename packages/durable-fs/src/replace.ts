// Atomic replace: the one policy for a file that is rewritten whole (a detail, a pointer, a verdict).
import { closeSync, fsyncSync, openSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";

export interface ReplaceOptions {
  /** The file's mode (default: write-file-atomic's, the replaced file's mode or 0666 less the umask). */
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
 * it. A reader sees the old content or the new, never part of either; a failed write (a full disk)
 * removes its temporary file. Errors are the system's, for the caller to name (`ioError`).
 */
export async function replaceFile(path: string, data: string | Buffer, options: ReplaceOptions = {}): Promise<void> {
  const durable = (options.survives ?? "power-loss") === "power-loss";
  await writeFileAtomic(path, data, { ...(options.mode === undefined ? {} : { mode: options.mode }), fsync: durable });
  if (durable) await syncDirectory(dirname(path));
}

/** `replaceFile` for synchronous callers. */
export function replaceFileSync(path: string, data: string | Buffer, options: ReplaceOptions = {}): void {
  const durable = (options.survives ?? "power-loss") === "power-loss";
  writeFileAtomic.sync(path, data, { ...(options.mode === undefined ? {} : { mode: options.mode }), fsync: durable });
  if (durable) syncDirectorySync(dirname(path));
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
