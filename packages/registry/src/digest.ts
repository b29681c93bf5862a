import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { createBlake3, toHex, u64be, type Blake3Hasher } from "@eval/hashing";
import { CaseUnsafePath } from "./errors.ts";

/**
 * The case-tree serialization `evalgate.case-tree.v1` (documented in docs/bench-authoring.md):
 *
 *   file digest = BLAKE3("evalgate.case-file.v1\0" ‖ u64be(len(path)) ‖ path ‖ mode ‖ u64be(len(content)) ‖ content)
 *   tree digest = BLAKE3("evalgate.case-tree.v1\0" ‖ u64be(file count) ‖ file digest ‖ file digest ‖ ...)
 *
 * `path` is the UTF-8 relative POSIX path, files are ordered by the bytes of that path, `mode` is one
 * byte: 1 if any executable bit is set, else 0. Only regular files count (an empty directory adds
 * nothing). Symlinks, devices, FIFOs and sockets are rejected, as are names that are not valid UTF-8.
 */
export const CASE_TREE_SERIALIZATION = "evalgate.case-tree.v1";
const FILE_TAG = Buffer.from("evalgate.case-file.v1\0", "utf8");
const TREE_TAG = Buffer.from(`${CASE_TREE_SERIALIZATION}\0`, "utf8");

/** Files are read through one reused buffer in chunks of at most this size. */
const CHUNK = 4 * 1024 * 1024;

export interface DirectoryDigest {
  /** `blake3:<hex>` of the whole tree. */
  readonly digest: string;
  /** Each file's `blake3:<hex>` by relative POSIX path, in serialization order. */
  readonly files: Readonly<Record<string, string>>;
}

export interface DigestOptions {
  /** Leaves out files (and whole directories) whose relative POSIX path it accepts. */
  readonly exclude?: (relativePath: string) => boolean;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Every regular file under `root` (relative POSIX paths, in serialization order); throws
 * CaseUnsafePath on anything else. Synchronous on purpose, like the hashing below: thousands of small
 * files cost a few microseconds each this way, against tens through the thread pool.
 */
export function listFiles(root: string, exclude: ((relativePath: string) => boolean) | undefined): string[] {
  const rootStat = lstatSync(root);
  if (rootStat.isSymbolicLink())
    throw new CaseUnsafePath(root, "is a symlink; a case directory must be a real directory");
  if (!rootStat.isDirectory()) throw new CaseUnsafePath(root, "is not a directory");
  const files: string[] = [];
  const walk = (relativeDir: string): void => {
    for (const entry of readdirSync(relativeDir === "" ? root : join(root, relativeDir), { withFileTypes: true })) {
      const relativePath = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
      if (exclude?.(relativePath)) continue;
      const where = join(root, relativePath);
      if (entry.name.includes("\uFFFD")) throw new CaseUnsafePath(where, "file name is not valid UTF-8; rename it");
      if (entry.isSymbolicLink())
        throw new CaseUnsafePath(
          where,
          "is a symlink; cases may hold only regular files and directories (copy the content in)",
        );
      if (entry.isDirectory()) walk(relativePath);
      else if (entry.isFile()) files.push(relativePath);
      else throw new CaseUnsafePath(where, "is not a regular file (device, FIFO or socket); remove it");
    }
  };
  walk("");
  return files.sort(byteOrder);
}

let readBuffer = Buffer.allocUnsafe(64 * 1024);

/** The file digest of one entry, hashed with `hasher` (reset, fed and digested here). */
function digestFile(hasher: Blake3Hasher, root: string, relativePath: string): Uint8Array {
  const where = join(root, relativePath);
  let fd: number;
  try {
    // O_NOFOLLOW: a file swapped for a symlink after the listing is refused, not followed out of the tree.
    // O_NONBLOCK: a file swapped for a FIFO cannot hang the open.
    fd = openSync(where, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      throw new CaseUnsafePath(where, "is a symlink; cases may hold only regular files");
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new CaseUnsafePath(where, "is not a regular file");
    const path = Buffer.from(relativePath, "utf8");
    hasher.reset();
    hasher.update(
      Buffer.concat([
        FILE_TAG,
        u64be(path.length),
        path,
        Buffer.of((stat.mode & 0o111) !== 0 ? 1 : 0),
        u64be(stat.size),
      ]),
    );
    const want = Math.min(Math.max(stat.size, 1), CHUNK);
    if (readBuffer.length < want) readBuffer = Buffer.allocUnsafe(want);
    let total = 0;
    for (;;) {
      const bytesRead = readSync(fd, readBuffer, 0, readBuffer.length, null);
      if (bytesRead === 0) break;
      hasher.update(readBuffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total !== stat.size) throw new CaseUnsafePath(where, "changed size while it was read");
    return hasher.digest();
  } finally {
    closeSync(fd);
  }
}

/**
 * Digests a directory tree with the documented case-tree serialization. The loader uses it to
 * verify cases, `signBench` to record them, and the runner may reuse it for any tree.
 */
export async function digestDirectory(dir: string, options: DigestOptions = {}): Promise<DirectoryDigest> {
  return digestDirectorySync(dir, options);
}

/** `digestDirectory` for synchronous callers (the rubric digest's dependency closure). */
export function digestDirectorySync(dir: string, options: DigestOptions = {}): DirectoryDigest {
  const hasher = createBlake3();
  const paths = listFiles(dir, options.exclude);
  const digests = paths.map((path) => digestFile(hasher, dir, path));
  hasher.reset();
  hasher.update(TREE_TAG);
  hasher.update(u64be(paths.length));
  const files: Record<string, string> = {};
  paths.forEach((path, index) => {
    hasher.update(digests[index]!);
    files[path] = `blake3:${toHex(digests[index]!)}`;
  });
  return { digest: `blake3:${toHex(hasher.digest())}`, files };
}
