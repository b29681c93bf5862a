// The state directory (`.evalgate/` by default) checked before any work: a path that is a file or a
// directory evalgate cannot write fails at once with its own error, not as an internal error or a lock
// that is retried for half a minute.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { StateDirNotADirectory, StateDirReadOnly } from "./errors.ts";

/** The subdirectories evalgate writes into; each must be a writable directory when it exists. */
const WRITTEN_SUBDIRS = ["runs", "cache", "recommendations", "compliance", "transcripts", "blobs"] as const;

function kindOf(path: string): "directory" | "other" | "missing" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent is a file; walking up finds it.
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw error;
  }
}

function assertWritable(stateDir: string, dir: string): void {
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new StateDirReadOnly(stateDir, dir, (error as NodeJS.ErrnoException).code ?? "EACCES");
  }
}

/**
 * Checks that `stateDir` can serve as evalgate's state directory. It must be a directory or not exist
 * yet (then its nearest existing ancestor must be a directory); with `write`, that directory and each
 * existing subdirectory evalgate writes into must be writable. Throws StateDirNotADirectory or
 * StateDirReadOnly; creates nothing. Returns the absolute path.
 */
export function checkStateDir(stateDir: string, options: { readonly write: boolean }): string {
  const path = resolve(stateDir);
  let existing = path;
  while (kindOf(existing) === "missing" && dirname(existing) !== existing) existing = dirname(existing);
  if (kindOf(existing) !== "directory") throw new StateDirNotADirectory(path, existing);
  if (!options.write) return path;
  assertWritable(path, existing);
  if (existing !== path) return path;
  for (const name of WRITTEN_SUBDIRS) {
    const sub = join(path, name);
    const kind = kindOf(sub);
    if (kind === "other") throw new StateDirNotADirectory(path, sub);
    if (kind === "directory") assertWritable(path, sub);
  }
  return path;
}
