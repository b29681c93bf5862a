// The digest of everything a program can read: a file, or a directory tree with every entry's path, kind
// and content (files by their full bytes, streamed; symlinks by their target, never followed). A file's
// content digest may be reused from a cache keyed on what a user cannot restore after changing it
// (device, inode, size, ctime), not on the mtime alone.
import { closeSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import type { BigIntStats } from "node:fs";
import { join } from "node:path";
import { createBlake3, toHex } from "./blake3.ts";
import { framedDigest } from "./framing.ts";

/** Content digests of files already read, by metadata key (see fileKey). */
export interface FileDigestCache {
  get(key: string): string | undefined;
  set(key: string, digest: string): void;
}

/**
 * What identifies a file's content without reading it: device, inode, size, and ctime and mtime in
 * nanoseconds. Rewriting a file in place and restoring its mtime (utimes) still moves its ctime, which
 * only the kernel sets.
 */
export function fileKey(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.ctimeNs}:${stats.mtimeNs}`;
}

const CHUNK = 1024 * 1024;
let chunk: Buffer | undefined;

/** BLAKE3 of a file's full content, read in 1 MiB chunks (never whole into memory). */
function fileContentDigest(path: string): string {
  chunk ??= Buffer.allocUnsafe(CHUNK);
  const hasher = createBlake3();
  const fd = openSync(path, "r");
  try {
    for (let read = readSync(fd, chunk, 0, CHUNK, null); read > 0; read = readSync(fd, chunk, 0, CHUNK, null))
      hasher.update(chunk.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return toHex(hasher.digest());
}

function cachedFileDigest(path: string, stats: BigIntStats, cache: FileDigestCache | undefined): string {
  const key = fileKey(stats);
  const known = cache?.get(key);
  if (known !== undefined) return known;
  const digest = fileContentDigest(path);
  // Changed while read (its ctime moved): the digest may mix two versions, so it is not kept.
  if (cache !== undefined && fileKey(lstatSync(path, { bigint: true })) === key) cache.set(key, digest);
  return digest;
}

/**
 * The digest of `root` (a file or a directory) and all it holds, as the framed list of `path kind
 * identity` entries in sorted order. Throws on anything that cannot be read (the caller must then not
 * use a digest at all) and past `maxEntries` entries.
 */
export function treeDigest(
  root: string,
  options: { readonly cache?: FileDigestCache; readonly maxEntries?: number } = {},
): string {
  const maxEntries = options.maxEntries ?? 1_000_000;
  const parts: string[] = [];
  const visit = (absolute: string, relative: string): void => {
    if (parts.length >= maxEntries) throw new Error(`more than ${maxEntries} entries under ${root}`);
    const stats = lstatSync(absolute, { bigint: true });
    if (stats.isSymbolicLink()) parts.push(`${relative}\0link\0${readlinkSync(absolute)}`);
    else if (stats.isFile())
      parts.push(
        `${relative}\0file\0${stats.mode & 0o111n ? "x" : "-"}${cachedFileDigest(absolute, stats, options.cache)}`,
      );
    else if (stats.isDirectory()) {
      parts.push(`${relative}\0dir`);
      for (const name of readdirSync(absolute).sort())
        visit(join(absolute, name), relative === "" ? name : `${relative}/${name}`);
    } else parts.push(`${relative}\0special`);
  };
  visit(root, "");
  return framedDigest("evalgate.tree.v1", parts);
}
