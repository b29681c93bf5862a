// The state directory checked before any work: a path that is a file or a directory evalgate cannot
// write fails at once with its own error, not as an internal error or a lock that is retried for half
// a minute.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { EvalError } from "@eval/errors";
import { WRITTEN_SUBDIRS } from "./names.ts";

/** The state directory (or a subdirectory evalgate writes into) exists and is not a directory. */
export class StateDirNotADirectory extends EvalError {
  constructor(stateDir: string, culprit: string) {
    const where = culprit === stateDir ? "" : ` (${culprit} is not a directory)`;
    super(
      "EVAL_STATE_DIR_NOT_A_DIRECTORY",
      `the state directory ${stateDir} cannot be used: it is not a directory${where}`,
      { details: { stateDir, culprit } },
    );
  }
}

/** evalgate cannot write into the state directory (a read-only mount, or no permission). */
export class StateDirReadOnly extends EvalError {
  constructor(stateDir: string, dir: string, errno: string) {
    const why = errno === "EROFS" ? "read-only file system" : "permission denied";
    super("EVAL_STATE_DIR_READ_ONLY", `the state directory ${stateDir} is not writable: ${dir}: ${why} (${errno})`, {
      details: { stateDir, dir, errno },
    });
  }
}

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
