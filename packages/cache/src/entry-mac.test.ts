import { mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertKeyOutside, loadOrCreateMacKey, readMacKey, sealEntry, splitEntry, verifyEntry } from "./entry-mac.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-entry-mac-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cacheKey = `blake3:${"1".repeat(64)}`;

describe("the cache key file", () => {
  it("sixteen concurrent creators in one process all get the one key that landed on disk", async () => {
    const keyPath = join(dir, "state", "cache.key");
    const keys = await Promise.all(Array.from({ length: 16 }, () => loadOrCreateMacKey(keyPath)));
    const onDisk = await readMacKey(keyPath);
    expect(onDisk).not.toBeNull();
    for (const key of keys) expect(key.equals(onDisk!)).toBe(true);
    expect(await readdir(join(dir, "state"))).toEqual(["cache.key"]);
  });

  it("is an EvalError, not a new key, when it cannot be read or created", async () => {
    await writeFile(join(dir, "file"), "x");
    await expect(loadOrCreateMacKey(join(dir, "file", "cache.key"))).rejects.toMatchObject({
      code: "EVAL_IO",
      message: expect.stringMatching(/cannot read the cache key file/),
    });
    await symlink(join(dir, "nowhere"), join(dir, "dangling.key"));
    await expect(loadOrCreateMacKey(join(dir, "dangling.key"))).rejects.toMatchObject({
      code: "EVAL_IO",
      hint: expect.stringMatching(/dangling symbolic link/),
    });
    expect((await readdir(dir)).sort()).toEqual(["dangling.key", "file"]); // no temp file left behind
    await writeFile(join(dir, "huge.key"), "a".repeat(5000), { mode: 0o600 });
    await expect(readMacKey(join(dir, "huge.key"))).rejects.toMatchObject({
      message: expect.stringMatching(/malformed/),
    });
  });

  it("reports a key file it cannot create as an EvalError", async () => {
    // A 250-character name is fine, but its temporary sibling's name is over NAME_MAX (255).
    const keyPath = join(dir, "k".repeat(250));
    await expect(loadOrCreateMacKey(keyPath)).rejects.toMatchObject({
      code: "EVAL_IO",
      message: expect.stringMatching(/cannot create the cache key file/),
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it("must lie outside the cache directory", () => {
    expect(() => assertKeyOutside("/s/cache", "/s/cache.key")).not.toThrow();
    expect(() => assertKeyOutside("/s/cache", "/elsewhere/k")).not.toThrow();
    expect(() => assertKeyOutside("/s/cache", "/s/cache/..key")).toThrow(/must not be inside/);
    expect(() => assertKeyOutside("/s/cache", "/s/cache/node-compile/k")).toThrow(/must not be inside/);
  });
});

describe("entry MACs", () => {
  it("seal and verify over the exact bytes and the cache key", async () => {
    const secret = await loadOrCreateMacKey(join(dir, "cache.key"));
    const sealed = Buffer.from(sealEntry(secret, cacheKey, '{"a":1}'));
    const stored = splitEntry(sealed);
    expect(stored.kind).toBe("sealed");
    if (stored.kind !== "sealed") return;
    expect(stored.body.toString()).toBe('{"a":1}');
    expect(verifyEntry(secret, cacheKey, stored)).toBe(true);
    expect(verifyEntry(secret, `blake3:${"2".repeat(64)}`, stored)).toBe(false);
    expect(verifyEntry(secret, cacheKey, { ...stored, body: Buffer.from('{"a":2}') })).toBe(false);
    const other = await loadOrCreateMacKey(join(dir, "other.key"));
    expect(verifyEntry(other, cacheKey, stored)).toBe(false);
  });

  it("split tells an entry without a MAC line from a damaged MAC line", () => {
    expect(splitEntry(Buffer.from('{"a":1}\n'))).toMatchObject({ kind: "unsealed" });
    expect(splitEntry(Buffer.from('{"a":1'))).toMatchObject({ kind: "unsealed" });
    expect(splitEntry(Buffer.from(""))).toMatchObject({ kind: "unsealed" });
    expect(splitEntry(Buffer.from(`{"a":1}\nhmac-sha256:${"0".repeat(64)}`))).toMatchObject({ kind: "malformed" }); // no final newline
    expect(splitEntry(Buffer.from(`{"a":1}\nhmac-sha256:${"0".repeat(63)}\n`))).toMatchObject({ kind: "malformed" });
    expect(splitEntry(Buffer.from(`{"a":1}\nsha256:${"0".repeat(64)}\n`))).toMatchObject({ kind: "malformed" });
  });
});
