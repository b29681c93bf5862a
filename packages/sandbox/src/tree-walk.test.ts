// The bounded walker against what untrusted code can leave in a tree: special files, sparse giants, trees
// too deep for PATH_MAX, too many entries. Each is a real tree on disk.
import { execFileSync, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chownTree, DEFAULT_TREE_LIMITS, removeTree, TreeInvalid, walkTree, walkTreeSync } from "./tree-walk.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tree-walk-test-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fresh = (name: string): string => {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
};

/** A chain of `levels` directories named `name` below `dir`, made with relative steps (no path limit). */
function deepChain(dir: string, levels: number, name = "d"): void {
  execFileSync("/bin/sh", [
    "-c",
    `cd "$1" && i=0; while [ $i -lt ${levels} ]; do mkdir ${name} && cd ${name}; i=$((i+1)); done`,
    "sh",
    dir,
  ]);
}

async function walk(dir: string, limits = DEFAULT_TREE_LIMITS): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for await (const entry of walkTree(dir, limits)) out.push([entry.path, entry.kind]);
  return out;
}

describe("walkTree", () => {
  it("names every kind of entry for what it is, parents first, and never follows a symlink", async () => {
    const dir = fresh("kinds");
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "file.txt"), "x");
    symlinkSync("/etc", join(dir, "link"));
    expect(spawnSync("mkfifo", [join(dir, "fifo")]).status).toBe(0);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, "sock"), resolve));
    const isRoot = process.getuid?.() === 0;
    if (isRoot) expect(spawnSync("mknod", [join(dir, "null"), "c", "1", "3"]).status).toBe(0);
    try {
      expect(await walk(dir)).toEqual([
        ["fifo", "fifo"],
        ["link", "symlink"],
        ...(isRoot ? [["null", "device"] as [string, string]] : []),
        ["sock", "socket"],
        ["sub", "directory"],
        ["sub/file.txt", "file"],
      ]);
    } finally {
      server.close();
    }
  });

  it("refuses a tree deeper than its limit, naming where", async () => {
    const dir = fresh("deep");
    deepChain(dir, 5);
    await expect(walk(dir, { ...DEFAULT_TREE_LIMITS, maxDepth: 3 })).rejects.toMatchObject({
      name: "TreeInvalid",
      problem: "too_deep",
      path: "d/d/d",
    });
    expect((await walk(dir, { ...DEFAULT_TREE_LIMITS, maxDepth: 6 })).length).toBe(5);
  });

  it("refuses a tree deeper than PATH_MAX (within the default depth limit, its long names make the path too long) without throwing anything else", async () => {
    const dir = fresh("pathmax");
    deepChain(dir, 30, "n".repeat(200));
    const error = await walk(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TreeInvalid);
    expect((error as TreeInvalid).problem).toBe("unreadable");
    // The message stays one readable line however long the path is.
    expect((error as TreeInvalid).message.length).toBeLessThan(300);
    expect((error as TreeInvalid).message).toMatch(/^ENAMETOOLONG: …n+/);
    expect(await removeTree(dir)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses more entries than its limit", async () => {
    const dir = fresh("many");
    for (let i = 0; i < 10; i++) writeFileSync(join(dir, `f${i}`), "");
    await expect(walk(dir, { ...DEFAULT_TREE_LIMITS, maxEntries: 9 })).rejects.toMatchObject({
      problem: "too_many_entries",
      path: "f9",
    });
  });

  it("counts a sparse file at its full length: a 3 GiB file with no disk used is too large", async () => {
    const dir = fresh("sparse");
    const fd = openSync(join(dir, "sparse.bin"), "w");
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    expect(lstatSync(join(dir, "sparse.bin")).blocks).toBe(0);
    await expect(walk(dir)).rejects.toMatchObject({ problem: "too_large", path: "sparse.bin" });
  });

  it("a missing root is unreadable, named as the tree itself", () => {
    expect(() => [...walkTreeSync(join(root, "nowhere"))]).toThrow(/^ENOENT: the tree itself$/);
  });

  it("walks a tree bigger than one batch, yielding to the event loop between batches", async () => {
    const dir = fresh("batches");
    for (let i = 0; i < 2_500; i++) writeFileSync(join(dir, `f${i}`), "");
    // A callback queued before the walk runs while it is still going: the walk gave the event loop a turn.
    let yielded = false;
    setImmediate(() => (yielded = true));
    let seenBeforeEnd = false;
    let count = 0;
    for await (const _entry of walkTree(dir)) if (++count < 2_500 && yielded) seenBeforeEnd = true;
    expect(count).toBe(2_500);
    expect(seenBeforeEnd).toBe(true);
  });
});

describe("removeTree", () => {
  it("removes a missing path, a file, and a tree with special files and a symlink out (leaving its target)", async () => {
    expect(await removeTree(join(root, "never-was"))).toBe(true);
    const file = join(root, "lone-file");
    writeFileSync(file, "x");
    expect(await removeTree(file)).toBe(true);
    expect(existsSync(file)).toBe(false);
    const dir = fresh("mixed");
    const outside = fresh("outside");
    writeFileSync(join(outside, "keep.txt"), "keep");
    mkdirSync(join(dir, "a"));
    symlinkSync(outside, join(dir, "a", "out"));
    expect(spawnSync("mkfifo", [join(dir, "a", "fifo")]).status).toBe(0);
    for (let i = 0; i < 2_100; i++) writeFileSync(join(dir, `f${i}`), "");
    expect(await removeTree(dir)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(join(outside, "keep.txt"))).toBe(true);
  });
});

describe("chownTree", () => {
  it.runIf(process.getuid?.() === 0)(
    "changes the owner of a tree, a lone file and a symlink itself (not its target); a missing path is nothing to do",
    async () => {
      const dir = fresh("chown");
      const target = join(root, "chown-target");
      writeFileSync(target, "x");
      writeFileSync(join(dir, "f"), "x");
      symlinkSync(target, join(dir, "l"));
      await chownTree(dir, 65534, 65534);
      expect([lstatSync(dir).uid, lstatSync(join(dir, "f")).uid, lstatSync(join(dir, "l")).uid]).toEqual([
        65534, 65534, 65534,
      ]);
      expect(lstatSync(target).uid).toBe(0);
      await chownTree(target, 65534, 65534);
      expect(lstatSync(target).uid).toBe(65534);
      await expect(chownTree(join(root, "absent"), 65534, 65534)).resolves.toBeUndefined();
    },
  );
});
