import { lstatSync, readFileSync } from "node:fs";

export type EntryKind = "file" | "directory" | "symlink" | "other" | "missing";

// The loader checks thousands of small paths: synchronous calls cost microseconds each, against tens
// of microseconds for a round trip through libuv's thread pool.

/** What is at `path`, without following a symlink. */
export async function entryKind(path: string): Promise<EntryKind> {
  try {
    // No exception for the common miss (a case without a cassette): building one costs more than the lstat.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return "missing";
    if (stat.isSymbolicLink()) return "symlink";
    if (stat.isFile()) return "file";
    if (stat.isDirectory()) return "directory";
    return "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return "missing";
    throw error;
  }
}

export async function readText(path: string): Promise<string> {
  return readFileSync(path, "utf8");
}
