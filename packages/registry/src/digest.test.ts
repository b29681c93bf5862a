import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blake3, blake3Digest } from "@eval/hashing";
import { digestCase, digestDirectory } from "./digest.ts";

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

/** The documented per-file entry, built independently of digest.ts. */
function fileEntry(path: string, executable: boolean, content: Buffer): Buffer {
  const pathBytes = Buffer.from(path, "utf8");
  return Buffer.concat([
    Buffer.from("evalgate.case-file.v1\0"),
    u64(pathBytes.length),
    pathBytes,
    Buffer.of(executable ? 1 : 0),
    u64(content.length),
    content,
  ]);
}

const b3sumAvailable = spawnSync("b3sum", ["--version"]).status === 0;

function b3sum(path: string): string {
  const result = spawnSync("b3sum", ["--no-names", "--num-threads", "1", path], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout.trim();
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-digest-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("digestDirectory (evalgate.case-tree.v1)", () => {
  function writeTree(): void {
    mkdirSync(join(dir, "input", "sub"), { recursive: true });
    mkdirSync(join(dir, "expected"));
    mkdirSync(join(dir, "empty"));
    writeFileSync(join(dir, "case.toml"), "ignored = true\n");
    writeFileSync(join(dir, "input", "a.txt"), "alpha\n");
    writeFileSync(join(dir, "input", "sub", "run.sh"), "#!/bin/sh\n");
    chmodSync(join(dir, "input", "sub", "run.sh"), 0o755);
    writeFileSync(join(dir, "expected", "a.txt"), "ALPHA\n");
    writeFileSync(join(dir, "input", "B.txt"), "");
  }

  it("follows the documented serialization exactly (recomputed independently)", async () => {
    writeTree();
    const result = await digestDirectory(dir, { exclude: (path) => path === "case.toml" });
    const order = ["expected/a.txt", "input/B.txt", "input/a.txt", "input/sub/run.sh"];
    expect(Object.keys(result.files)).toEqual(order);
    const { readFileSync } = await import("node:fs");
    const resolved = order.map((path) => blake3(fileEntry(path, path.endsWith(".sh"), readFileSync(join(dir, path)))));
    order.forEach((path, index) =>
      expect(result.files[path]).toBe(`blake3:${Buffer.from(resolved[index]!).toString("hex")}`),
    );
    expect(result.digest).toBe(blake3Digest(Buffer.from("evalgate.case-tree.v1\0"), u64(order.length), ...resolved));
  });

  it.skipIf(!b3sumAvailable)("can be reproduced with b3sum over the serialized bytes", async () => {
    writeTree();
    const result = await digestDirectory(dir, { exclude: (path) => path === "case.toml" });
    const entryPath = join(dir, "..", `${dir.split("/").pop()}-entry`);
    writeFileSync(entryPath, fileEntry("input/a.txt", false, Buffer.from("alpha\n")));
    expect(result.files["input/a.txt"]).toBe(`blake3:${b3sum(entryPath)}`);
    const tree = Buffer.concat([
      Buffer.from("evalgate.case-tree.v1\0"),
      u64(4),
      ...Object.values(result.files).map((digest) => Buffer.from(digest.slice(7), "hex")),
    ]);
    writeFileSync(entryPath, tree);
    expect(result.digest).toBe(`blake3:${b3sum(entryPath)}`);
    rmSync(entryPath);
  });

  it("changes with content, the executable bit and renames; ignores excluded files and empty dirs", async () => {
    writeTree();
    const exclude = (path: string) => path === "case.toml";
    const base = (await digestDirectory(dir, { exclude })).digest;
    writeFileSync(join(dir, "case.toml"), "changed = true\n");
    mkdirSync(join(dir, "another-empty"));
    expect((await digestDirectory(dir, { exclude })).digest).toBe(base);
    chmodSync(join(dir, "input", "a.txt"), 0o744);
    const executable = (await digestDirectory(dir, { exclude })).digest;
    expect(executable).not.toBe(base);
    chmodSync(join(dir, "input", "a.txt"), 0o644);
    expect((await digestDirectory(dir, { exclude })).digest).toBe(base);
    writeFileSync(join(dir, "expected", "a.txt"), "ALPHb\n");
    expect((await digestDirectory(dir, { exclude })).digest).not.toBe(base);
    writeFileSync(join(dir, "expected", "a.txt"), "ALPHA\n");
    const { renameSync } = await import("node:fs");
    renameSync(join(dir, "input", "a.txt"), join(dir, "input", "c.txt"));
    expect((await digestDirectory(dir, { exclude })).digest).not.toBe(base);
  });

  it("digests a case (evalgate.case-tree.v2) over every file, case.toml included, under its own tree tag", async () => {
    writeTree();
    const result = await digestCase(dir);
    const order = ["case.toml", "expected/a.txt", "input/B.txt", "input/a.txt", "input/sub/run.sh"];
    expect(Object.keys(result.files)).toEqual(order);
    const { readFileSync } = await import("node:fs");
    const resolved = order.map((path) => blake3(fileEntry(path, path.endsWith(".sh"), readFileSync(join(dir, path)))));
    expect(result.digest).toBe(blake3Digest(Buffer.from("evalgate.case-tree.v2\0"), u64(order.length), ...resolved));
    // The same files under the v1 tag give another digest: a v1 digest is never read as a v2 one.
    expect(blake3Digest(Buffer.from("evalgate.case-tree.v1\0"), u64(order.length), ...resolved)).not.toBe(
      result.digest,
    );
    const before = result.digest;
    writeFileSync(join(dir, "case.toml"), 'ignored = true\nprompt = "edited"\n');
    expect((await digestCase(dir)).digest).not.toBe(before);
  });

  it("streams large files to the same digest", async () => {
    const big = Buffer.alloc(17 * 1024 * 1024 + 3, 9);
    writeFileSync(join(dir, "big.bin"), big);
    const result = await digestDirectory(dir);
    expect(result.files["big.bin"]).toBe(blake3Digest(fileEntry("big.bin", false, big)));
  });

  it("rejects a symlink to /etc/passwd, naming it", async () => {
    writeTree();
    symlinkSync("/etc/passwd", join(dir, "input", "passwd"));
    await expect(digestDirectory(dir)).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining(join(dir, "input", "passwd")),
    });
  });

  it("rejects a symlinked directory and a symlinked root", async () => {
    writeTree();
    symlinkSync("/etc", join(dir, "input", "etc"));
    await expect(digestDirectory(dir)).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH" });
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    await expect(digestDirectory(link)).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining("symlink"),
    });
    rmSync(link);
  });

  it("rejects a FIFO without blocking on it", async () => {
    if (spawnSync("mkfifo", [join(dir, "pipe")]).status !== 0) return;
    await expect(digestDirectory(dir)).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining("not a regular file"),
    });
  });

  it("refuses a non-directory root", async () => {
    writeFileSync(join(dir, "file"), "x");
    await expect(digestDirectory(join(dir, "file"))).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH" });
  });
});
