import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blake3, blake3Digest } from "./blake3.ts";
import { digestDirectory } from "./digest.ts";

// The first 32 bytes of the `hash` outputs in BLAKE3's official test_vectors/test_vectors.json
// (BLAKE3-team/BLAKE3). Input: `input_len` bytes of 0, 1, ..., 250, 0, 1, ...
const OFFICIAL_VECTORS: ReadonlyArray<readonly [number, string]> = [
  [0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"],
  [1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"],
  [1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11"],
  [1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"],
  [1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"],
  [2048, "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a"],
  [2049, "5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b6879522563030"],
  [3072, "b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd2"],
  [3073, "7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd3"],
  [4096, "015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e969"],
  [4097, "9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb995"],
  [5120, "9cadc15fed8b5d854562b26a9536d9707cadeda9b143978f319ab34230535833"],
  [5121, "628bd2cb2004694adaab7bbd778a25df25c47b9d4155a55f8fbd79f2fe154cff"],
  [6144, "3e2e5b74e048f3add6d21faab3f83aa44d3b2278afb83b80b3c35164ebeca205"],
  [6145, "f1323a8631446cc50536a9f705ee5cb619424d46887f3c376c695b70e0f0507f"],
  [7168, "61da957ec2499a95d6b8023e2b0e604ec7f6b50e80a9678b89d2628e99ada77a"],
  [7169, "a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e7817"],
];

function vectorInput(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) bytes[index] = index % 251;
  return bytes;
}

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

/** The documented per-file entry, built independently of digest.ts. */
function fileEntry(path: string, executable: boolean, content: Buffer): Buffer {
  const pathBytes = Buffer.from(path, "utf8");
  return Buffer.concat([Buffer.from("evalgate.case-file.v1\0"), u64(pathBytes.length), pathBytes, Buffer.of(executable ? 1 : 0), u64(content.length), content]);
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

describe("BLAKE3", () => {
  it.each(OFFICIAL_VECTORS)("matches the official test vector for %i bytes", async (length, expected) => {
    expect(Buffer.from(await blake3(vectorInput(length))).toString("hex")).toBe(expected);
  });

  it("hashes split inputs like their concatenation", async () => {
    const input = vectorInput(5000);
    expect(await blake3Digest(input.subarray(0, 17), input.subarray(17))).toBe(await blake3Digest(input));
  });

  it.skipIf(!b3sumAvailable)("agrees with the native b3sum on inputs of many sizes (skipped when b3sum is not installed: apt-get install b3sum)", async () => {
    for (const length of [0, 1, 64, 1024, 1025, 8193, 65_537, 1_048_583, 3_000_001]) {
      const content = Buffer.alloc(length);
      for (let index = 0; index < length; index += 1) content[index] = (index * 7919) % 256;
      const path = join(dir, `input-${length}`);
      writeFileSync(path, content);
      expect(Buffer.from(await blake3(content)).toString("hex"), `length ${length}`).toBe(b3sum(path));
    }
  });
});

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
    const fileDigests = order.map((path) => blake3(fileEntry(path, path.endsWith(".sh"), readFileSync(join(dir, path)))));
    const resolved = await Promise.all(fileDigests);
    order.forEach((path, index) => expect(result.files[path]).toBe(`blake3:${Buffer.from(resolved[index]!).toString("hex")}`));
    expect(result.digest).toBe(await blake3Digest(Buffer.from("evalgate.case-tree.v1\0"), u64(order.length), ...resolved));
  });

  it.skipIf(!b3sumAvailable)("can be reproduced with b3sum over the serialized bytes", async () => {
    writeTree();
    const result = await digestDirectory(dir, { exclude: (path) => path === "case.toml" });
    const entryPath = join(dir, "..", `${dir.split("/").pop()}-entry`);
    writeFileSync(entryPath, fileEntry("input/a.txt", false, Buffer.from("alpha\n")));
    expect(result.files["input/a.txt"]).toBe(`blake3:${b3sum(entryPath)}`);
    const tree = Buffer.concat([Buffer.from("evalgate.case-tree.v1\0"), u64(4), ...Object.values(result.files).map((digest) => Buffer.from(digest.slice(7), "hex"))]);
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

  it("streams large files to the same digest", async () => {
    const big = Buffer.alloc(17 * 1024 * 1024 + 3, 9);
    writeFileSync(join(dir, "big.bin"), big);
    const result = await digestDirectory(dir);
    expect(result.files["big.bin"]).toBe(await blake3Digest(fileEntry("big.bin", false, big)));
  });

  it("rejects a symlink to /etc/passwd, naming it", async () => {
    writeTree();
    symlinkSync("/etc/passwd", join(dir, "input", "passwd"));
    await expect(digestDirectory(dir)).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH", message: expect.stringContaining(join(dir, "input", "passwd")) });
  });

  it("rejects a symlinked directory and a symlinked root", async () => {
    writeTree();
    symlinkSync("/etc", join(dir, "input", "etc"));
    await expect(digestDirectory(dir)).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH" });
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    await expect(digestDirectory(link)).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH", message: expect.stringContaining("symlink") });
    rmSync(link);
  });

  it("rejects a FIFO without blocking on it", async () => {
    if (spawnSync("mkfifo", [join(dir, "pipe")]).status !== 0) return;
    await expect(digestDirectory(dir)).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH", message: expect.stringContaining("not a regular file") });
  });

  it("refuses a non-directory root", async () => {
    writeFileSync(join(dir, "file"), "x");
    await expect(digestDirectory(join(dir, "file"))).rejects.toMatchObject({ code: "EVAL_CASE_UNSAFE_PATH" });
  });
});
