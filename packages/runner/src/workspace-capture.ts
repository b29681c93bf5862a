// What a SUT did to its workspace, as the harness sees it (for every SUT kind): the files it added,
// changed and deleted against the case's input, their bytes kept content-addressed in the state
// directory's blob store, so a later `show` can display the diff and `rescore` can rebuild the workspace.
import { createRequire } from "node:module";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { blake3Digest } from "@eval/hashing";
import { MAX_CAPTURED_CHANGES } from "@eval/models";
import type { WorkspaceCapture, WorkspaceChange } from "@eval/models";
import { replaceFileSync } from "@eval/durable-fs";
import { readBlob, writeBlob } from "./blob-store.ts";

// Loaded on first use: only rendering a captured diff needs it (loading it cost every run's start-up).
const requireHere = createRequire(import.meta.url);
/** A unified diff of two texts (3 lines of context), with the `diff` package's header. */
function unifiedPatch(oldName: string, newName: string, before: string, after: string): string {
  const { createTwoFilesPatch } = requireHere("diff") as typeof import("diff");
  return createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3 });
}

/** A file larger than this is kept by size (and digest, when read) only. */
const MAX_STORED_FILE_BYTES = 1024 * 1024;
/** At most this many bytes of one unit's files enter the blob store. */
const MAX_STORED_UNIT_BYTES = 16 * 1024 * 1024;
/** A file larger than this is not even read: its size alone says it changed. */
const MAX_READ_FILE_BYTES = 64 * 1024 * 1024;

/** One side of a comparison: the bytes when read (null past MAX_READ_FILE_BYTES), and the size. */
interface FileBytes {
  readonly bytes: number;
  readonly content: Buffer | null;
}

/**
 * Reads a file the SUT may have left: opened without following a symlink, without blocking on a FIFO
 * swapped in after the walk, and read only up to MAX_READ_FILE_BYTES.
 */
function readFileBounded(path: string): FileBytes {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_READ_FILE_BYTES) return { bytes: stat.size, content: null };
    const buffer = Buffer.allocUnsafe(stat.size);
    let offset = 0;
    while (offset < stat.size) {
      const read = readSync(fd, buffer, offset, stat.size - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return { bytes: offset, content: buffer.subarray(0, offset) };
  } finally {
    closeSync(fd);
  }
}

export interface CaptureInput {
  /** The case's `input/` (trusted: loaded and digest-checked by the registry). */
  readonly inputRoot: string;
  /** Its regular files, relative POSIX paths. */
  readonly inputFiles: readonly string[];
  /** The workspace the SUT left. */
  readonly workspaceRoot: string;
  /** Its regular files after the walk removed everything else (the one walk of the workspace). */
  readonly workspaceFiles: readonly string[];
  /** `<state dir>/blobs`. */
  readonly blobsDir: string;
}

/** Compares the workspace the SUT left with the case's input and stores what changed. */
export function captureWorkspace(input: CaptureInput): WorkspaceCapture {
  const before = new Set(input.inputFiles);
  const after = new Set(input.workspaceFiles);
  const paths = [...new Set([...input.inputFiles, ...input.workspaceFiles])].sort();
  const changes: WorkspaceChange[] = [];
  let unchanged = 0;
  let budget = MAX_STORED_UNIT_BYTES;
  let complete = true;
  const keep = (file: FileBytes): NonNullable<WorkspaceChange["after"]> => {
    if (file.content === null) return { digest: null, bytes: file.bytes, stored: false };
    const digest = blake3Digest(file.content);
    const fits = file.bytes <= MAX_STORED_FILE_BYTES && file.bytes <= budget;
    if (fits) {
      budget -= file.bytes;
      writeBlob(input.blobsDir, digest, file.content);
    }
    return { digest, bytes: file.bytes, stored: fits };
  };
  for (const path of paths) {
    const old = before.has(path) ? readFileBounded(join(input.inputRoot, path)) : null;
    const now = after.has(path) ? readFileBounded(join(input.workspaceRoot, path)) : null;
    if (
      old !== null &&
      now !== null &&
      old.content !== null &&
      now.content !== null &&
      old.content.equals(now.content)
    ) {
      unchanged += 1;
      continue;
    }
    if (changes.length === MAX_CAPTURED_CHANGES) {
      complete = false;
      break;
    }
    const change: WorkspaceChange = {
      path,
      status: old === null ? "added" : now === null ? "deleted" : "changed",
      before: old === null ? null : keep(old),
      after: now === null ? null : keep(now),
    };
    if (change.after !== null && !change.after.stored) complete = false;
    changes.push(change);
  }
  return { changes, unchanged, complete };
}

const isBinary = (content: Buffer): boolean => content.includes(0);

/**
 * The capture as a unified diff (`a/` and `b/` prefixes, `/dev/null` for added and deleted files), from
 * the blob store. A file whose bytes were not kept, or are binary, gets a one-line note instead of hunks.
 */
export function capturedDiff(blobsDir: string, capture: WorkspaceCapture): string {
  const parts: string[] = [];
  for (const change of capture.changes) {
    const side = (content: WorkspaceChange["before"]): Buffer | null | "missing" =>
      content === null
        ? null
        : content.stored && content.digest !== null
          ? (readBlob(blobsDir, content.digest) ?? "missing")
          : "missing";
    const old = side(change.before);
    const now = side(change.after);
    const oldName = change.before === null ? "/dev/null" : `a/${change.path}`;
    const newName = change.after === null ? "/dev/null" : `b/${change.path}`;
    if (old === "missing" || now === "missing") {
      parts.push(
        `--- ${oldName}\n+++ ${newName}\n# ${change.status}, ${change.after?.bytes ?? 0} bytes: content not kept (past the capture's size caps)\n`,
      );
    } else if ((old !== null && isBinary(old)) || (now !== null && isBinary(now))) {
      parts.push(
        `--- ${oldName}\n+++ ${newName}\n# ${change.status}: binary file, ${change.after?.bytes ?? 0} bytes\n`,
      );
    } else {
      const patch = unifiedPatch(oldName, newName, old?.toString("utf8") ?? "", now?.toString("utf8") ?? "");
      parts.push(patch.replace(/^=+\n/, ""));
    }
  }
  if (!capture.complete && capture.changes.length === MAX_CAPTURED_CHANGES)
    parts.push(`# more than ${MAX_CAPTURED_CHANGES} files changed: the rest are not listed\n`);
  return parts.join("");
}

/**
 * Rebuilds in `root` (a fresh copy of the case's input) the workspace a capture describes: deleted files
 * removed, added and changed files written from the blob store. Throws when the capture is incomplete or
 * a blob is missing or does not match its digest: a workspace that cannot be rebuilt exactly is not scored.
 */
export function restoreWorkspace(root: string, blobsDir: string, capture: WorkspaceCapture): void {
  if (!capture.complete) throw new Error("the captured workspace is incomplete (past the capture's size caps)");
  for (const change of capture.changes) {
    // A detail file is data anyone with the state directory can edit: no path may leave the workspace.
    if (change.path.split("/").some((segment) => segment === "" || segment === "." || segment === ".."))
      throw new Error(`the captured path ${JSON.stringify(change.path)} is not a plain relative path`);
    const target = join(root, change.path);
    if (change.after === null) {
      rmSync(target, { force: true });
      continue;
    }
    const content = change.after.digest === null ? null : readBlob(blobsDir, change.after.digest);
    if (content === null) throw new Error(`the captured content of ${change.path} is missing from the blob store`);
    mkdirSync(dirname(target), { recursive: true });
    replaceFileSync(target, content, { survives: "crash" });
  }
}
