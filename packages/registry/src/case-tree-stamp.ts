// A case tree's digest reused from a checkpoint when nothing in the tree can have changed since it was
// computed: every directory and file of the tree, by what a user cannot restore after changing it
// (device, inode, size, ctime and mtime in nanoseconds, `fileKey`). A directory's ctime and mtime move
// when an entry is added, removed or renamed in it, and a file's ctime when its content or mode changes,
// so comparing these keys with lstat alone (no listing, no reading) proves the tree is the one digested.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileKey } from "@eval/hashing";
import type { FileDigestCache } from "@eval/hashing";
import { digestCase, listFiles, type DigestOptions, type DirectoryDigest } from "./digest.ts";

/** Relative POSIX paths ("" for the root), directories and files, each with its `fileKey`. */
type StampEntries = readonly (readonly [string, string])[];

/** What a checkpoint entry records: the tree's entries with their keys, and the digest they gave. */
interface TreeStamp {
  readonly entries: StampEntries;
  readonly digest: string;
}

/**
 * A stamp is kept only when every entry's ctime is at least this far in the past: the kernel stamps
 * ctime from a coarse clock, so a rewrite of the same size within one tick after the stamp could
 * otherwise leave every key as it was.
 */
const SETTLED_NS = 2_000_000_000n;

/** Excluded names a stamp still keys: they sit beside the digested tree and are read on every run. */
const STAMPED_EXCLUSIONS = ["case.toml"];

/** Every directory under `root` ("" for itself), empty ones too: an entry added to one moves only its own keys. */
function directoriesOf(root: string): string[] {
  const directories = [""];
  for (let index = 0; index < directories.length; index += 1) {
    const relative = directories[index]!;
    for (const entry of readdirSync(relative === "" ? root : join(root, relative), { withFileTypes: true }))
      if (entry.isDirectory()) directories.push(relative === "" ? entry.name : `${relative}/${entry.name}`);
  }
  return directories;
}

/** The tree's directories and `listed` files with their keys; null when an entry is too fresh to vouch for. */
function stampOf(root: string, listed: readonly string[], exclude: DigestOptions["exclude"]): StampEntries | null {
  const paths = [...directoriesOf(root), ...listed, ...STAMPED_EXCLUSIONS.filter((path) => exclude?.(path) === true)];
  const settledBefore = BigInt(Date.now()) * 1_000_000n - SETTLED_NS;
  const entries: [string, string][] = [];
  for (const path of paths) {
    const stats = lstatSync(path === "" ? root : join(root, path), { bigint: true, throwIfNoEntry: false });
    if (stats === undefined) continue;
    if (stats.ctimeNs > settledBefore) return null;
    entries.push([path, fileKey(stats)]);
  }
  return entries;
}

/** The stamp's entries still hold the keys they were stamped with (any error: not proven, so no). */
function stampHolds(root: string, stamp: TreeStamp): boolean {
  try {
    return stamp.entries.every(
      ([path, key]) => fileKey(lstatSync(path === "" ? root : join(root, path), { bigint: true })) === key,
    );
  } catch {
    return false;
  }
}

function parseStamp(text: string | undefined): TreeStamp | null {
  if (text === undefined) return null;
  try {
    const parsed = JSON.parse(text) as Partial<TreeStamp>;
    if (typeof parsed.digest !== "string" || !Array.isArray(parsed.entries)) return null;
    const wellFormed = parsed.entries.every(
      (entry) => Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "string",
    );
    return wellFormed ? (parsed as TreeStamp) : null;
  } catch {
    return null;
  }
}

function sameEntries(a: StampEntries, b: StampEntries): boolean {
  return a.length === b.length && a.every(([path, key], index) => b[index]![0] === path && b[index]![1] === key);
}

/**
 * The case-tree digest of `root` (digest.ts), from `checkpoint` when its stamp for this tree and
 * `definition` (naming the serialization and what it excludes) still holds; else computed, and stamped
 * when nothing moved while it was read. A reused digest carries no per-file digests (`files` is empty):
 * a caller that finds it differs from the recorded one digests again to say which files differ. Whoever
 * keeps the checkpoint must seal it: an edited stamp would pass a changed tree.
 */
export function checkpointedDigest(
  root: string,
  options: DigestOptions & { readonly checkpoint: FileDigestCache; readonly definition: string },
): DirectoryDigest & { readonly reused: boolean } {
  const entryKey = `case-tree\0${options.definition}\0${root}`;
  const stamp = parseStamp(options.checkpoint.get(entryKey));
  if (stamp !== null && stampHolds(root, stamp)) return { digest: stamp.digest, files: {}, reused: true };
  const { exclude } = options;
  const listed = listFiles(root, exclude);
  const before = stampOf(root, listed, exclude);
  const computed = digestCase(root, exclude === undefined ? {} : { exclude });
  const after = before === null ? null : stampOf(root, Object.keys(computed.files), exclude);
  if (before !== null && after !== null && sameEntries(before, after))
    options.checkpoint.set(entryKey, JSON.stringify({ entries: after, digest: computed.digest } satisfies TreeStamp));
  return { ...computed, reused: false };
}

/** What a checkpoint entry for one file records: the file's key when it was read, and what reading it gave. */
interface FileStamp {
  readonly key: string;
  readonly value: unknown;
}

function parseFileStamp(text: string | undefined): FileStamp | null {
  if (text === undefined) return null;
  try {
    const parsed = JSON.parse(text) as Partial<FileStamp> | null;
    return typeof parsed?.key === "string" && "value" in parsed ? (parsed as FileStamp) : null;
  } catch {
    return null;
  }
}

/** The file's key when it is a regular file whose ctime is settled (see SETTLED_NS); else null. */
function settledFileKey(path: string): string | null {
  const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (stats === undefined || !stats.isFile()) return null;
  return stats.ctimeNs > BigInt(Date.now()) * 1_000_000n - SETTLED_NS ? null : fileKey(stats);
}

/**
 * What `read` makes of the regular file at `path` (parsed and validated: JSON data, or null when the file
 * is not valid), from `checkpoint` while the file's key is the one it was read under and `definition`
 * (naming the parser and the schema) is the same; else read, and kept when it is valid and the file did not
 * move while it was read. Whoever keeps the checkpoint must seal it: an edited entry would pass a changed
 * or invalid file.
 */
export async function checkpointedFile<T>(
  path: string,
  options: { readonly checkpoint: FileDigestCache; readonly definition: string },
  read: () => Promise<T | null>,
): Promise<{ readonly value: T | null; readonly reused: boolean }> {
  const entryKey = `file\0${options.definition}\0${path}`;
  const before = settledFileKey(path);
  const stamp = before === null ? null : parseFileStamp(options.checkpoint.get(entryKey));
  if (stamp !== null && stamp.key === before) return { value: stamp.value as T, reused: true };
  const value = await read();
  if (value !== null && before !== null && settledFileKey(path) === before)
    options.checkpoint.set(entryKey, JSON.stringify({ key: before, value } satisfies FileStamp));
  return { value, reused: false };
}
