import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { swapDirectory, swapDirectorySync } from "./swap.ts";

const root = mkdtempSync(join(tmpdir(), "durable-fs-swap-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("swapDirectory", () => {
  it("puts a directory in place whole, creating its parent, and leaves no staging sibling", async () => {
    const dir = join(root, "deep", "bundle");
    await swapDirectory(dir, async (staging) => writeFile(join(staging, "manifest.json"), "{}"), { replace: false });
    expect(readFileSync(join(dir, "manifest.json"), "utf8")).toBe("{}");
    expect(readdirSync(join(root, "deep"))).toEqual(["bundle"]);
  });

  it("without replace refuses an existing non-empty directory and keeps it; with replace swaps it", async () => {
    const dir = join(root, "kept");
    mkdirSync(dir);
    writeFileSync(join(dir, "old"), "old");
    await expect(
      swapDirectory(dir, async (staging) => writeFile(join(staging, "new"), "new"), { replace: false }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTEMPTY|EEXIST)$/) });
    expect(readdirSync(dir)).toEqual(["old"]);
    await swapDirectory(dir, async (staging) => writeFile(join(staging, "new"), "new"), { replace: true });
    expect(readdirSync(dir)).toEqual(["new"]);
    expect(readdirSync(root).filter((name) => name.startsWith(".kept"))).toEqual([]);
  });

  it("a failing fill leaves the old directory and no staging directory", async () => {
    const dir = join(root, "cassette");
    swapDirectorySync(dir, (staging) => writeFileSync(join(staging, "a"), "1"), { replace: true });
    expect(() =>
      swapDirectorySync(
        dir,
        (staging) => {
          writeFileSync(join(staging, "a"), "2");
          throw new Error("disk full");
        },
        { replace: true },
      ),
    ).toThrow("disk full");
    await expect(
      swapDirectory(
        dir,
        async () => {
          throw new Error("disk full");
        },
        { replace: true },
      ),
    ).rejects.toThrow("disk full");
    expect(readFileSync(join(dir, "a"), "utf8")).toBe("1");
    expect(readdirSync(root).filter((name) => name.startsWith(".cassette"))).toEqual([]);
    swapDirectorySync(dir, (staging) => writeFileSync(join(staging, "b"), "3"), { replace: true });
    expect(readdirSync(dir)).toEqual(["b"]);
    expect(() => swapDirectorySync(dir, () => {}, { replace: false })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^(ENOTEMPTY|EEXIST)$/) }),
    );
    expect(existsSync(join(dir, "b"))).toBe(true);
  });
});
