// The agent's scratch copy of its workspace, and what comes back from it. What the agent leaves is walked
// with the one bounded walker (@eval/sandbox walkTree): a tree too deep, too large (apparent sizes: a
// sparse file counts at its length), with too many entries, or one that cannot be examined or copied back
// throws TreeInvalid, which the runner records as the SUT's `sut.workspace_invalid`. File contents are
// streamed: only files up to DIFF_CONTENT_CAP are ever held in memory (for the diff).
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, rmdirSync, rmSync } from "node:fs";
import type { Stats } from "node:fs";
import { copyFile, mkdir, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createBlake3, toHex } from "@eval/hashing";
import { removeTree, TreeInvalid, walkTree } from "@eval/sandbox";
import { WorkspaceInvalid } from "./errors.ts";
import type { FileChange } from "./workspace-diff.ts";
import { assertSafeRelativePath } from "./workspace-paths.ts";

/** What the CLI may see: files and directories relative to `root`; `"."` means all of it. */
export interface WorkspaceSpec {
  readonly root: string;
  readonly editable: readonly string[];
  readonly readonly: readonly string[];
}

/** A file as copied in: its size and digest, and its content when it is small enough for a diff. */
interface FileSnapshot {
  readonly size: number;
  readonly digest: string;
  readonly content: Buffer | null;
}

export interface Scratch {
  readonly dir: string;
  /** Every file copied in, by workspace-relative path. */
  readonly before: ReadonlyMap<string, FileSnapshot>;
  readonly isEditable: (path: string) => boolean;
}

/** The largest file whose content a diff carries; a larger one is compared by digest and copied back by the file system. */
export const DIFF_CONTENT_CAP = 1024 * 1024;
const READ_CHUNK = 1024 * 1024;

function covers(prefixes: readonly string[], path: string): boolean {
  return prefixes.some((prefix) => prefix === "." || path === prefix || path.startsWith(`${prefix}/`));
}

/** A regular file's snapshot, read in chunks: its content kept only while it is within DIFF_CONTENT_CAP. */
async function snapshot(path: string): Promise<FileSnapshot> {
  const hasher = createBlake3();
  const handle = await open(path, "r");
  let chunks: Buffer[] | null = [];
  let size = 0;
  let buffer = Buffer.allocUnsafe(READ_CHUNK);
  try {
    for (;;) {
      // A chunk kept for the content needs a buffer of its own; past the cap one buffer is reused.
      if (chunks !== null && chunks.length > 0) buffer = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hasher.update(chunk);
      size += bytesRead;
      chunks = chunks === null || size > DIFF_CONTENT_CAP ? null : [...chunks, chunk];
    }
  } finally {
    await handle.close();
  }
  return { size, digest: toHex(hasher.digest()), content: chunks === null ? null : Buffer.concat(chunks) };
}

/** The regular files under a declared path (the bench's own files): a symlink or special file is refused. */
async function declaredFiles(root: string, declared: string): Promise<string[]> {
  const absolute = declared === "." ? root : join(root, declared);
  let stats: Stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    throw new WorkspaceInvalid(`declared workspace path "${declared}" does not exist under ${root}`, {
      path: declared,
    });
  }
  const refuse = (path: string, what: string): never => {
    throw new WorkspaceInvalid(`workspace path "${path}" ${what}`, { path });
  };
  if (stats.isSymbolicLink()) refuse(declared, "is a symlink; declare regular files only");
  if (stats.isFile()) return [declared];
  if (!stats.isDirectory()) refuse(declared, "is not a regular file or directory");
  const files: string[] = [];
  for await (const entry of walkTree(absolute)) {
    const path = declared === "." ? entry.path : `${declared}/${entry.path}`;
    if (entry.kind === "symlink") refuse(path, "is a symlink; declare regular files only");
    else if (entry.kind === "file") files.push(path);
    else if (entry.kind !== "directory") refuse(path, "is not a regular file or directory");
  }
  return files;
}

/**
 * A fresh temporary directory holding only the declared editable and read-only files (read-only ones
 * with mode 0444). This is for reproducibility and a clean diff; the sandbox decides what else the CLI sees.
 */
export async function prepareScratch(spec: WorkspaceSpec): Promise<Scratch> {
  const editable = spec.editable.map(assertSafeRelativePath);
  const readonly = spec.readonly.map(assertSafeRelativePath);
  const files = new Set<string>();
  for (const declared of [...editable, ...readonly])
    for (const path of await declaredFiles(spec.root, declared)) files.add(path);
  const dir = mkdtempSync(join(tmpdir(), "evalgate-cli-"));
  const before = new Map<string, FileSnapshot>();
  const isEditable = (path: string): boolean => covers(editable, path);
  try {
    for (const path of [...files].sort()) {
      const target = join(dir, path);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(spec.root, path), target);
      before.set(path, await snapshot(target));
      if (!isEditable(path)) chmodSync(target, 0o444);
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, before, isEditable };
}

/** A change the agent left: `file` changes carry their content when small; other kinds are never copied back. */
export interface ScratchChange extends FileChange {
  /** What the path is now in the scratch directory (null when deleted). */
  readonly kind: "file" | "symlink" | "fifo" | "socket" | "device" | null;
}

/**
 * Every file the CLI added, changed or deleted in its scratch directory, and every symlink or special
 * file it made (never copied back). Walks with the bounded walker: throws TreeInvalid when what the
 * agent left cannot be handled.
 */
export async function collectChanges(scratch: Scratch): Promise<ScratchChange[]> {
  const changes: ScratchChange[] = [];
  const seen = new Set<string>();
  for await (const entry of walkTree(scratch.dir)) {
    if (entry.kind === "directory") continue;
    seen.add(entry.path);
    const before = scratch.before.get(entry.path) ?? null;
    if (entry.kind !== "file") {
      changes.push({
        path: entry.path,
        kind: entry.kind,
        before: before?.content ?? (before === null ? null : Buffer.alloc(0)),
        after: Buffer.alloc(0),
        omitted: true,
      });
      continue;
    }
    const after = await snapshot(entry.absolute).catch((error: unknown) => {
      throw new TreeInvalid(
        "unreadable",
        entry.path,
        `cannot read what the agent left (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    });
    if (before !== null && before.digest === after.digest) continue;
    const omitted = after.content === null || (before !== null && before.content === null);
    changes.push({
      path: entry.path,
      kind: "file",
      before: before === null ? null : (before.content ?? Buffer.alloc(0)),
      after: after.content ?? Buffer.alloc(0),
      ...(omitted ? { omitted } : {}),
    });
  }
  for (const [path, before] of scratch.before) {
    if (!seen.has(path))
      changes.push({
        path,
        kind: null,
        before: before.content ?? Buffer.alloc(0),
        after: null,
        ...(before.content === null ? { omitted: true } : {}),
      });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Copies changed editable files back into the real workspace; returns the changes it did not copy (not
 * editable, not a regular file, or in the way of what the workspace still holds). Deletions first, so a
 * directory the agent replaced by a file (or a file by a directory) is out of the way when its
 * replacement is written. File contents are copied by the file system, never through memory.
 */
export async function copyBack(
  scratch: Scratch,
  root: string,
  changes: readonly ScratchChange[],
): Promise<{ copied: ScratchChange[]; undeclared: ScratchChange[] }> {
  const copied: ScratchChange[] = [];
  const undeclared: ScratchChange[] = [];
  const wanted = changes.filter(
    (change) => scratch.isEditable(change.path) && (change.kind === "file" || change.kind === null),
  );
  for (const change of changes) if (!wanted.includes(change)) undeclared.push(change);
  for (const change of wanted.filter((change) => change.kind === null)) {
    const target = join(root, change.path);
    guarded(change.path, () => entryAt(target)?.isFile() === true && rmSync(target));
    copied.push(change);
  }
  // Directories the agent removed (emptied by the deletions), deepest first: a file written in place of one needs it gone.
  for (const dir of emptiedDirectories(wanted))
    if (entryAt(join(scratch.dir, dir))?.isDirectory() !== true) rmdirQuietly(join(root, dir));
  for (const change of wanted.filter((change) => change.kind === "file")) {
    if (await guarded(change.path, () => writeBack(join(scratch.dir, change.path), join(root, change.path))))
      copied.push(change);
    else undeclared.push(change);
  }
  const byPath = (a: ScratchChange, b: ScratchChange): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { copied: copied.sort(byPath), undeclared: undeclared.sort(byPath) };
}

/** Runs one step of the copy-back; a failure is what the agent left, named by path (TreeInvalid), never a crash. */
function guarded<T>(path: string, step: () => T): T {
  const fail = (error: unknown): never => {
    throw new TreeInvalid(
      "unreadable",
      path,
      `cannot copy back what the agent left (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  };
  try {
    const result = step();
    return (result instanceof Promise ? result.catch(fail) : result) as T;
  } catch (error) {
    return fail(error);
  }
}

/** The directories holding deleted files, deepest first. */
function emptiedDirectories(changes: readonly ScratchChange[]): string[] {
  const dirs = new Set<string>();
  for (const change of changes) {
    if (change.kind !== null) continue;
    for (let dir = dirname(change.path); dir !== "."; dir = dirname(dir)) dirs.add(dir);
  }
  return [...dirs].sort((a, b) => b.split("/").length - a.split("/").length);
}

/** What is at a path, if anything (undefined also when a component of it is not a directory). */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return undefined;
    throw error;
  }
}

function rmdirQuietly(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // Not empty (it holds files the agent could not change), or not there: left as it is.
  }
}

/**
 * Writes one file back; false when the workspace holds something in its way the agent could not remove
 * (a directory with other files at its path, or a file where it needs a directory).
 */
async function writeBack(source: string, target: string): Promise<boolean> {
  const existing = entryAt(target);
  if (existing !== undefined && !existing.isFile()) {
    if (!existing.isDirectory()) return false;
    rmdirQuietly(target);
    if (entryAt(target) !== undefined) return false;
  }
  try {
    await mkdir(dirname(target), { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR" || (error as NodeJS.ErrnoException).code === "EEXIST")
      return false;
    throw error;
  }
  await copyFile(source, target);
  return true;
}

/** Removes the scratch directory whatever the agent left in it; true when it is gone. */
export function removeScratch(scratch: Scratch): Promise<boolean> {
  return removeTree(scratch.dir);
}
