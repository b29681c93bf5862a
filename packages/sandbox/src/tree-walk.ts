// The one walker for trees untrusted code left behind (a SUT's or an agent's workspace): bounded in depth,
// entry count and bytes, lstat before anything is opened, symlinks never followed, special files reported
// as what they are. Whatever the tree holds, a walk either yields
// its entries or throws TreeInvalid naming the first thing wrong; it never takes the harness down.
import { execFile } from "node:child_process";
import { existsSync, lchownSync, lstatSync, readdirSync, rmdirSync, unlinkSync, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

export interface TreeLimits {
  /** Directory levels below the root (the root's entries are at depth 1). */
  readonly maxDepth: number;
  /** Entries of any kind. */
  readonly maxEntries: number;
  /** The sum of regular files' apparent sizes (a sparse file counts at its full length). */
  readonly maxBytes: number;
}

/** Fits a generous repository checkout, and keeps a walk far from PATH_MAX and from the harness's memory. */
export const DEFAULT_TREE_LIMITS: TreeLimits = { maxDepth: 64, maxEntries: 200_000, maxBytes: 1024 * 1024 * 1024 };

export type EntryKind = "file" | "directory" | "symlink" | "fifo" | "socket" | "device";

export interface TreeEntry {
  /** Relative to the root, `/`-separated. */
  readonly path: string;
  readonly absolute: string;
  readonly kind: EntryKind;
  /** From lstat, before anything was opened. */
  readonly stats: Stats;
}

export type TreeProblem = "too_deep" | "too_many_entries" | "too_large" | "changed" | "unreadable";

/** A tree the harness refuses to handle further: what is wrong, and where (relative to the root). */
export class TreeInvalid extends Error {
  readonly problem: TreeProblem;
  readonly path: string;
  constructor(problem: TreeProblem, path: string, detail: string) {
    // The problem first: a path may be thousands of characters long (that may be the problem).
    super(`${detail}: ${path === "" ? "the tree itself" : path.length > 240 ? `…${path.slice(-240)}` : path}`);
    this.name = "TreeInvalid";
    this.problem = problem;
    this.path = path;
  }
}

function kindOf(stats: Stats): EntryKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isFIFO()) return "fifo";
  if (stats.isSocket()) return "socket";
  return "device";
}

const unreadable = (path: string, error: unknown): TreeInvalid =>
  new TreeInvalid("unreadable", path, (error as NodeJS.ErrnoException).code ?? (error as Error).message);

/** Entries examined between two yields to the event loop (a walk is synchronous system calls in batches). */
const BATCH = 2_000;

/**
 * Every entry below `root`, depth first, names sorted, parents before children; the root itself is not
 * yielded. Throws TreeInvalid at the first limit crossed or entry that cannot be examined. Each entry is
 * examined with a synchronous lstat (microseconds, where a thread-pool round trip per entry would make a
 * 100,000-file tree take seconds).
 */
export function* walkTreeSync(root: string, limits: TreeLimits = DEFAULT_TREE_LIMITS): Generator<TreeEntry> {
  let entries = 0;
  let bytes = 0;
  const pending: Array<{ readonly path: string; readonly depth: number }> = [{ path: "", depth: 0 }];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = readdirSync(join(root, dir.path)).sort();
    } catch (error) {
      throw unreadable(dir.path, error);
    }
    const children: Array<{ readonly path: string; readonly depth: number }> = [];
    for (const name of names) {
      const path = dir.path === "" ? name : `${dir.path}/${name}`;
      const absolute = join(root, path);
      let stats: Stats;
      try {
        stats = lstatSync(absolute);
      } catch (error) {
        throw unreadable(path, error);
      }
      if (++entries > limits.maxEntries)
        throw new TreeInvalid("too_many_entries", path, `more than ${limits.maxEntries} entries`);
      const kind = kindOf(stats);
      if (kind === "file" && (bytes += stats.size) > limits.maxBytes)
        throw new TreeInvalid("too_large", path, `more than ${limits.maxBytes} bytes in files`);
      if (kind === "directory" && dir.depth + 1 >= limits.maxDepth)
        throw new TreeInvalid("too_deep", path, `deeper than ${limits.maxDepth} levels`);
      yield { path, absolute, kind, stats };
      if (kind === "directory") children.push({ path, depth: dir.depth + 1 });
    }
    pending.push(...children.reverse());
  }
}

/** walkTreeSync, yielding to the event loop every BATCH entries so a big tree does not stall other cases. */
export async function* walkTree(root: string, limits: TreeLimits = DEFAULT_TREE_LIMITS): AsyncGenerator<TreeEntry> {
  let count = 0;
  for (const entry of walkTreeSync(root, limits)) {
    yield entry;
    if (++count % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

const execFileAsync = promisify(execFile);

/**
 * Removes a tree whatever it holds, in bounded memory: a depth-first walk unlinking as it goes, with
 * synchronous system calls in batches between yields to the event loop (Node's recursive rm keeps a
 * promise per entry: hundreds of MiB for 100,000 files). When that fails (a tree deeper than PATH_MAX:
 * ENAMETOOLONG; a directory its unprivileged owner left without write permission: EACCES), coreutils'
 * `rm -rf`, which walks with directory descriptors, after making every directory writable. Never follows
 * a symlink out of the tree. Resolves true when the path is gone.
 */
export async function removeTree(path: string): Promise<boolean> {
  try {
    await removeInBatches(path);
    return true;
  } catch {
    // Fall through to coreutils.
  }
  for (const argv of [
    ["rm", "-rf", "--one-file-system", "--", path],
    ["chmod", "-R", "u+rwx", "--", path],
    ["rm", "-rf", "--one-file-system", "--", path],
  ]) {
    await execFileAsync(argv[0]!, argv.slice(1), { timeout: 300_000 }).catch(() => undefined);
    if (argv[0] === "rm" && !existsSync(path)) return true;
  }
  return false;
}

async function removeInBatches(root: string): Promise<void> {
  const top = lstatSync(root, { throwIfNoEntry: false });
  if (top === undefined) return;
  if (!top.isDirectory()) return unlinkSync(root);
  const stack: Array<{ readonly dir: string; names: string[] | null }> = [{ dir: root, names: null }];
  let operations = 0;
  while (stack.length > 0) {
    const current = stack.at(-1)!;
    current.names ??= readdirSync(current.dir);
    const name = current.names.pop();
    if (name === undefined) {
      rmdirSync(current.dir);
      stack.pop();
      continue;
    }
    const path = join(current.dir, name);
    if (lstatSync(path).isDirectory()) stack.push({ dir: path, names: null });
    else unlinkSync(path);
    if (++operations % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** lchown of `root` and everything below it (bounded like any walk; symlinks are changed, not followed). */
export async function chownTree(
  root: string,
  uid: number,
  gid: number,
  limits: TreeLimits = DEFAULT_TREE_LIMITS,
): Promise<void> {
  const stats = await lstat(root).catch(() => null);
  if (stats === null) return;
  lchownSync(root, uid, gid);
  if (!stats.isDirectory()) return;
  for await (const entry of walkTree(root, limits)) lchownSync(entry.absolute, uid, gid);
}
