import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { generateKeySync } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadDigestCache } from "./digest-cache.ts";

describe("loadDigestCache", () => {
  const root = mkdtempSync(join(tmpdir(), "evalgate-digest-cache-"));
  afterEach(() => rmSync(join(root, "cache.json"), { force: true }));
  const path = join(root, "cache.json");
  const seal = { key: generateKeySync("hmac", { length: 256 }), label: "evalgate.case_trees" };

  it("keeps entries across loads, sealed or not, and writes only when one changed", () => {
    for (const sealing of [undefined, seal]) {
      const first = loadDigestCache(path, sealing);
      first.save();
      expect(() => readFileSync(path)).toThrow();
      first.entries.set("a", "1");
      first.save();
      expect(loadDigestCache(path, sealing).entries.get("a")).toBe("1");
      rmSync(path);
    }
  });

  it("ignores a sealed file that was edited, unsealed or sealed under another key", () => {
    const cache = loadDigestCache(path, seal);
    cache.entries.set("case-tree", '{"digest":"blake3:aa"}');
    cache.save();
    const sealed = readFileSync(path, "utf8");
    writeFileSync(path, sealed.replace("blake3:aa", "blake3:bb"));
    expect(loadDigestCache(path, seal).entries.get("case-tree")).toBeUndefined();
    writeFileSync(path, sealed.split("\n")[0]!);
    expect(loadDigestCache(path, seal).entries.get("case-tree")).toBeUndefined();
    writeFileSync(path, sealed);
    expect(
      loadDigestCache(path, { ...seal, key: generateKeySync("hmac", { length: 256 }) }).entries.get("case-tree"),
    ).toBeUndefined();
    expect(loadDigestCache(path, { ...seal, label: "other" }).entries.get("case-tree")).toBeUndefined();
    expect(loadDigestCache(path, seal).entries.get("case-tree")).toBe('{"digest":"blake3:aa"}');
  });

  it("reads a damaged file as an empty cache, and a cache it cannot write costs nothing", () => {
    writeFileSync(path, "{not json");
    expect(loadDigestCache(path).entries.get("a")).toBeUndefined();
    writeFileSync(path, JSON.stringify({ version: 2, entries: { a: "1" } }));
    expect(loadDigestCache(path).entries.get("a")).toBeUndefined();
    const unwritable = loadDigestCache(join(path, "below-a-file", "cache.json"));
    unwritable.entries.set("a", "1");
    expect(() => unwritable.save()).not.toThrow();
  });
});
