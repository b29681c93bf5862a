import { constants } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { CaseUnsafePath } from "./errors.ts";
import { freshHasher, sharedHasher } from "./blake3.ts";

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

/** Files above this size are streamed instead of read whole. */
const STREAM_THRESHOLD = 16 * 1024 * 1024;
const STREAM_CHUNK = 4 * 1024 * 1024;
/** Reads in flight at once: enough to keep libuv's threads busy while the main thread hashes. */
const READ_CONCURRENCY = 8;

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

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Every regular file under `root` (relative POSIX paths); throws CaseUnsafePath on anything else. */
async function listFiles(root: string, exclude: ((relativePath: string) => boolean) | undefined): Promise<string[]> {
  const rootStat = await lstat(root);
  if (rootStat.isSymbolicLink()) throw new CaseUnsafePath(root, "is a symlink; a case directory must be a real directory");
  if (!rootStat.isDirectory()) throw new CaseUnsafePath(root, "is not a directory");
  const files: string[] = [];
  const walk = async (relativeDir: string): Promise<void> => {
    const entries = await readdir(relativeDir === "" ? root : join(root, relativeDir), { withFileTypes: true });
    for (const entry of entries) {
      const relativePath = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
      if (exclude?.(relativePath)) continue;
      const where = join(root, relativePath);
      if (entry.name.includes("\uFFFD")) throw new CaseUnsafePath(where, "file name is not valid UTF-8; rename it");
      if (entry.isSymbolicLink()) throw new CaseUnsafePath(where, "is a symlink; cases may hold only regular files and directories (copy the content in)");
      if (entry.isDirectory()) await walk(relativePath);
      else if (entry.isFile()) files.push(relativePath);
      else throw new CaseUnsafePath(where, "is not a regular file (device, FIFO or socket); remove it");
    }
  };
  await walk("");
  return files.sort(byteOrder);
}

async function digestFile(root: string, relativePath: string): Promise<Uint8Array> {
  const where = join(root, relativePath);
  let handle;
  try {
    // O_NOFOLLOW: a file swapped for a symlink after the listing is refused, not followed out of the tree.
    handle = await open(where, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new CaseUnsafePath(where, "is a symlink; cases may hold only regular files");
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new CaseUnsafePath(where, "is not a regular file");
    const path = Buffer.from(relativePath, "utf8");
    const header = Buffer.concat([FILE_TAG, u64(path.length), path, Buffer.of((stat.mode & 0o111) !== 0 ? 1 : 0), u64(stat.size)]);
    if (stat.size <= STREAM_THRESHOLD) {
      const content = await handle.readFile();
      if (content.length !== stat.size) throw new CaseUnsafePath(where, "changed size while it was read");
      const hasher = await sharedHasher();
      hasher.init();
      hasher.update(header);
      hasher.update(content);
      return hasher.digest("binary");
    }
    const hasher = await freshHasher();
    hasher.init();
    hasher.update(header);
    const chunk = Buffer.allocUnsafe(STREAM_CHUNK);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, STREAM_CHUNK, null);
      if (bytesRead === 0) break;
      hasher.update(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total !== stat.size) throw new CaseUnsafePath(where, "changed size while it was read");
    return hasher.digest("binary");
  } finally {
    await handle.close();
  }
}

/**
 * Digests a directory tree with the documented case-tree serialization. The loader uses it to
 * verify cases, `signBench` to record them, and the runner may reuse it for any tree.
 */
export async function digestDirectory(dir: string, options: DigestOptions = {}): Promise<DirectoryDigest> {
  const paths = await listFiles(dir, options.exclude);
  const digests: Uint8Array[] = new Array<Uint8Array>(paths.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const index = next;
      next += 1;
      digests[index] = await digestFile(dir, paths[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  const hasher = await sharedHasher();
  hasher.init();
  hasher.update(TREE_TAG);
  hasher.update(u64(paths.length));
  const files: Record<string, string> = {};
  paths.forEach((path, index) => {
    hasher.update(digests[index]!);
    files[path] = `blake3:${Buffer.from(digests[index]!).toString("hex")}`;
  });
  return { digest: `blake3:${hasher.digest("hex")}`, files };
}
