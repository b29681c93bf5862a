// The disk a running sandbox uses. RLIMIT_FSIZE caps one file; many files each under it could fill the
// host's disk before the deadline, so while a sandboxed process runs the harness sums what its writable
// trees allocate and stops it past its disk limit (process-runner.ts).
import { DEFAULT_TREE_LIMITS, walkTree } from "./tree-walk.ts";

/**
 * Bytes allocated under `roots` (st_blocks: a sparse file counts what it uses, not its length), each
 * hard-linked file once, the roots themselves not counted; stops early once past `cap` (the value then
 * exceeds it). A tree the walker refuses (deeper than 64 levels, more than 200,000 entries) or that changes
 * under it counts what was seen before: the walk after the process ends refuses it anyway.
 */
export async function allocatedBytes(roots: readonly string[], cap: number): Promise<number> {
  let total = 0;
  const linked = new Set<string>();
  for (const root of roots) {
    try {
      for await (const entry of walkTree(root, { ...DEFAULT_TREE_LIMITS, maxBytes: Number.POSITIVE_INFINITY })) {
        if (entry.kind !== "directory" && entry.stats.nlink > 1) {
          const key = `${entry.stats.dev}:${entry.stats.ino}`;
          if (linked.has(key)) continue;
          linked.add(key);
        }
        total += entry.stats.blocks * 512;
        if (total > cap) return total;
      }
    } catch {
      // Refused or gone: what was counted stands.
    }
  }
  return total;
}
