import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileKey, treeDigest } from "./tree-digest.ts";
import { lstatSync } from "node:fs";

const root = mkdtempSync(join(tmpdir(), "tree-digest-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function memoryCache() {
  const map = new Map<string, string>();
  return {
    map,
    cache: { get: (key: string) => map.get(key), set: (key: string, value: string) => void map.set(key, value) },
  };
}

describe("treeDigest", () => {
  it("covers every entry's path, kind, mode bit and full content; symlinks by target, never followed", () => {
    const dir = join(root, "tree");
    mkdirSync(join(dir, "lib"), { recursive: true });
    writeFileSync(join(dir, "main.py"), "import helper\n");
    writeFileSync(join(dir, "lib", "helper.py"), "x = 1\n");
    const first = treeDigest(dir);
    expect(treeDigest(dir)).toBe(first);
    writeFileSync(join(dir, "lib", "helper.py"), "x = 2\n");
    const edited = treeDigest(dir);
    expect(edited).not.toBe(first);
    chmodSync(join(dir, "main.py"), 0o755);
    expect(treeDigest(dir)).not.toBe(edited);
    symlinkSync("/etc/passwd", join(dir, "link"));
    const linked = treeDigest(dir);
    rmSync(join(dir, "link"));
    symlinkSync("/etc/group", join(dir, "link"));
    expect(treeDigest(dir)).not.toBe(linked);
    expect(treeDigest(join(dir, "main.py"))).toMatch(/^blake3:[0-9a-f]{64}$/);
  });

  it("a file larger than 4 MiB rewritten in place with its mtime restored changes the digest, cache or not", () => {
    const file = join(root, "big.bin");
    writeFileSync(file, Buffer.alloc(5 * 1024 * 1024, 1));
    const { cache, map } = memoryCache();
    const before = treeDigest(file, { cache });
    expect(map.size).toBe(1);
    const { atime, mtime } = statSync(file);
    const changed = Buffer.alloc(5 * 1024 * 1024, 1);
    changed[4 * 1024 * 1024 + 7] = 2;
    writeFileSync(file, changed);
    utimesSync(file, atime, mtime);
    expect(statSync(file).mtimeMs).toBe(mtime.getTime());
    expect(treeDigest(file, { cache })).not.toBe(before);
    expect(treeDigest(file)).toBe(treeDigest(file, { cache }));
  });

  it("reuses a cached content digest only under the same device, inode, size, ctime and mtime", () => {
    const file = join(root, "cached.txt");
    writeFileSync(file, "content");
    const { cache, map } = memoryCache();
    treeDigest(file, { cache });
    const key = fileKey(lstatSync(file, { bigint: true }));
    expect([...map.keys()]).toEqual([key]);
    // A planted entry under the file's exact key is used: the key is the whole contract.
    map.set(key, "0".repeat(64));
    expect(treeDigest(file, { cache })).not.toBe(treeDigest(file));
  });

  it("throws on what it cannot read, and past its entry bound", () => {
    expect(() => treeDigest(join(root, "missing"))).toThrow(/ENOENT/);
    const wide = join(root, "wide");
    mkdirSync(wide);
    for (let i = 0; i < 5; i++) writeFileSync(join(wide, String(i)), "");
    expect(() => treeDigest(wide, { maxEntries: 3 })).toThrow(/more than 3 entries/);
    if (process.getuid?.() !== 0) {
      const closed = join(root, "closed");
      writeFileSync(closed, "x");
      chmodSync(closed, 0o000);
      expect(() => treeDigest(closed)).toThrow(/EACCES/);
    }
  });
});
