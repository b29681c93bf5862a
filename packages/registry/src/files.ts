import { lstatSync, readFileSync } from "node:fs";
import { rename, writeFile, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

export type EntryKind = "file" | "directory" | "symlink" | "other" | "missing";

// The loader checks thousands of small paths: synchronous calls cost microseconds each, against tens
// of microseconds for a round trip through libuv's thread pool.

/** What is at `path`, without following a symlink. */
export async function entryKind(path: string): Promise<EntryKind> {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return "symlink";
    if (stat.isFile()) return "file";
    if (stat.isDirectory()) return "directory";
    return "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return "missing";
    throw error;
  }
}

export async function readText(path: string): Promise<string> {
  return readFileSync(path, "utf8");
}

/** Replaces `path` atomically: readers see the old content or the new, never half a file. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, content, { flag: "wx", flush: true });
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
