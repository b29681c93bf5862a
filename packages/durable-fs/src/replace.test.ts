import { spawn } from "node:child_process";
import { linkSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mountTmpfs } from "@eval/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { replaceFile, replaceFileSync, syncDirectory } from "./replace.ts";

const root = mkdtempSync(join(tmpdir(), "durable-fs-replace-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const tmpfs = mountTmpfs(256);
afterAll(() => {
  if ("unmount" in tmpfs) tmpfs.unmount();
});

describe("replaceFile", () => {
  it("replaces a file whole, with the mode asked, durably by default and without fsync on request", async () => {
    const path = join(root, "a.json");
    await replaceFile(path, "one\n", { mode: 0o600 });
    expect(readFileSync(path, "utf8")).toBe("one\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await replaceFile(path, Buffer.from("two\n"), { survives: "crash" });
    replaceFileSync(path, "three\n");
    expect(readFileSync(path, "utf8")).toBe("three\n");
    replaceFileSync(path, "four\n", { mode: 0o640, survives: "crash" });
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readdirSync(root).filter((name) => name.startsWith("a.json"))).toEqual(["a.json"]);
  });

  it("never writes through a hard link: the other name keeps its bytes (an in-place write would change both)", async () => {
    const original = join(root, "executed.json");
    const linked = join(root, "hit.json");
    writeFileSync(original, "evidence of the run that executed\n");
    linkSync(original, linked);
    await replaceFile(linked, "rewritten\n");
    replaceFileSync(linked, "rewritten again\n");
    expect(readFileSync(original, "utf8")).toBe("evidence of the run that executed\n");
    expect(readFileSync(linked, "utf8")).toBe("rewritten again\n");
  });

  it("a reader polling the file while another process rewrites it 60 times never sees a partial file", async () => {
    const path = join(root, "polled.json");
    const big = (n: number): string => `${JSON.stringify({ n, pad: "x".repeat(64 * 1024) })}\n`;
    replaceFileSync(path, big(-1));
    const writer = spawn(
      process.execPath,
      [
        "--conditions=@eval/source",
        "--input-type=module",
        "-e",
        `import { replaceFileSync } from ${JSON.stringify(join(import.meta.dirname, "replace.ts"))};
       for (let n = 0; n < 60; n += 1) replaceFileSync(${JSON.stringify(path)}, JSON.stringify({ n, pad: "x".repeat(64 * 1024) }) + "\\n", { survives: "crash" });`,
      ],
      { stdio: "inherit" },
    );
    const exited = new Promise<number | null>((resolve) => writer.on("exit", resolve));
    let reads = 0;
    const torn: number[] = [];
    let done = false;
    void exited.then(() => {
      done = true;
    });
    while (!done) {
      const text = readFileSync(path, "utf8");
      reads += 1;
      try {
        JSON.parse(text);
      } catch {
        torn.push(text.length);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await exited).toBe(0);
    expect(torn).toEqual([]);
    expect(reads).toBeGreaterThan(10);
    expect(JSON.parse(readFileSync(path, "utf8")).n).toBe(59);
  }, 120_000);

  it("fails with the system's error and leaves no temporary file when the directory is missing", async () => {
    await expect(replaceFile(join(root, "missing", "x.json"), "x")).rejects.toMatchObject({ code: "ENOENT" });
    expect(() => replaceFileSync(join(root, "missing", "x.json"), "x")).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
    await expect(syncDirectory(join(root, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  // A nearly full file system takes part of a write and returns the count (a short write, not an error):
  // 300 KiB into 256 KiB of tmpfs gives one. Each write must then loop, meet ENOSPC, and leave the old file.
  it.skipIf("skip" in tmpfs)(
    "a short write on a nearly full file system never renames a torn file into place",
    async () => {
      if (!("path" in tmpfs)) return;
      const path = join(tmpfs.path, "verdict.json");
      replaceFileSync(path, "old\n");
      const big = Buffer.alloc(300 * 1024, 0x61);
      expect(() => replaceFileSync(path, big)).toThrow(expect.objectContaining({ code: "ENOSPC" }));
      expect(readFileSync(path, "utf8")).toBe("old\n");
      await expect(replaceFile(path, big.toString())).rejects.toMatchObject({ code: "ENOSPC" });
      expect(readFileSync(path, "utf8")).toBe("old\n");
      expect(readdirSync(tmpfs.path)).toEqual(["verdict.json"]);
      const fits = Buffer.alloc(200 * 1024, 0x62);
      replaceFileSync(path, fits);
      expect(readFileSync(path).equals(fits)).toBe(true);
    },
  );
});
