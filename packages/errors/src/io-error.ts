import { EvalError } from "./eval-error.ts";

/**
 * The errno codes that mean the storage refused the operation (full, over quota, read-only, no
 * permission): the machine's state, not a bug in evalgate. Each has one phrase and one thing to do.
 */
const STORAGE_FAULTS: Readonly<Record<string, { readonly what: string; readonly hint: (dir: string) => string }>> = {
  ENOSPC: {
    what: "no space left on the device",
    hint: (dir) =>
      `free space on the file system of ${dir} (\`df -h ${dir}\`; \`evalgate gc\` removes what killed runs left) or point --out at another disk, then rerun`,
  },
  EDQUOT: {
    what: "disk quota exceeded",
    hint: (dir) =>
      `free space in your quota on the file system of ${dir} (\`evalgate gc\` removes what killed runs left) or point --out elsewhere, then rerun`,
  },
  EROFS: {
    what: "read-only file system",
    hint: (dir) => `remount ${dir} read-write, or point --out (or EVALGATE_STATE_DIR) at a writable directory`,
  },
  EACCES: {
    what: "permission denied",
    hint: (dir) =>
      `give this user write permission on ${dir}, or point --out (or EVALGATE_STATE_DIR) at a directory it owns`,
  },
  EPERM: {
    what: "operation not permitted",
    hint: (dir) =>
      `give this user write permission on ${dir}, or point --out (or EVALGATE_STATE_DIR) at a directory it owns`,
  },
};

/** The errno of a system error (`ENOSPC`, ...), or null. */
export function errnoOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : null;
}

/** Whether `error` is a system error saying the storage refused a write (full, quota, read-only, permission). */
export function isStorageFault(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno !== null && Object.hasOwn(STORAGE_FAULTS, errno);
}

/** Whether `error` (a system error, or an EvalError made by `ioError` from one) says the disk is full or over quota. */
export function isOutOfSpace(error: unknown): boolean {
  const errno = error instanceof EvalError ? error.details.errno : errnoOf(error);
  return errno === "ENOSPC" || errno === "EDQUOT";
}

function parentOf(path: string): string {
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  return cut <= 0 ? (cut === 0 ? "/" : ".") : path.slice(0, cut);
}

/**
 * The one line for a failed file operation: `EVAL_IO`, naming the file and what went wrong, with a
 * hint that says what to do for a full disk, a quota, a read-only mount or a missing permission.
 * `action` is what was being done ("cannot write", "cannot append to"); `path` null when the system did
 * not say which file. An EvalError passes through.
 */
export function ioError(error: unknown, action: string, path: string | null): EvalError {
  if (error instanceof EvalError) return error;
  const errno = errnoOf(error);
  const fault = errno === null ? undefined : STORAGE_FAULTS[errno];
  const why =
    fault === undefined ? (error instanceof Error ? error.message : String(error)) : `${fault.what} (${errno})`;
  return new EvalError("EVAL_IO", `${path === null ? action : `${action} ${path}`}: ${why}`, {
    cause: error,
    details: { path, errno },
    ...(fault === undefined ? {} : { hint: fault.hint(path === null ? "the state directory" : parentOf(path)) }),
  });
}
