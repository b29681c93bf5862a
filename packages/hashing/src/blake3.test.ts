import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { blake3, blake3Digest, createBlake3, toHex } from "./blake3.ts";

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
const b3sumAvailable = spawnSync("b3sum", ["--version"]).status === 0;

function b3sum(path: string): string {
  const result = spawnSync("b3sum", ["--no-names", "--num-threads", "1", path], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout.trim();
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-hashing-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("BLAKE3", () => {
  it.each(OFFICIAL_VECTORS)("matches the official test vector for %i bytes", (length, expected) => {
    expect(toHex(blake3(vectorInput(length)))).toBe(expected);
    expect(toHex(createBlake3().update(vectorInput(length)).digest())).toBe(expected);
  });

  it.skipIf(!b3sumAvailable)(
    "agrees with the native b3sum on inputs of many sizes (skipped when b3sum is not installed: apt-get install b3sum)",
    () => {
      for (const length of [0, 1, 64, 1024, 1025, 8193, 65_537, 1_048_583, 3_000_001]) {
        const content = Buffer.alloc(length);
        for (let index = 0; index < length; index += 1) content[index] = (index * 7919) % 256;
        const path = join(dir, `input-${length}`);
        writeFileSync(path, content);
        expect(toHex(blake3(content)), `length ${length}`).toBe(b3sum(path));
      }
    },
  );

  it("agrees with @noble/hashes (an independent implementation) on any input fed in any pieces", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 5000 }), { maxLength: 8 }), (pieces) => {
        const whole = Buffer.concat(pieces);
        const expected = toHex(nobleBlake3(whole));
        const hasher = createBlake3();
        for (const piece of pieces) hasher.update(piece);
        expect(toHex(hasher.digest())).toBe(expected);
        expect(toHex(blake3(...pieces))).toBe(expected);
        expect(toHex(blake3(whole))).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("hashes strings as UTF-8, split inputs like their concatenation, and a reset hasher like a new one", () => {
    expect(blake3Digest("héllo")).toBe(`blake3:${toHex(nobleBlake3(Buffer.from("héllo", "utf8")))}`);
    expect(blake3Digest("hé", "llo")).toBe(blake3Digest("héllo"));
    const hasher = createBlake3().update("something else");
    hasher.digest();
    expect(toHex(hasher.reset().update("héllo").digest())).toBe(blake3Digest("héllo").slice(7));
  });
});

describe("createBlake3 with a reused buffer", () => {
  it("hashes the bytes fed, though the caller overwrites its buffer between updates (as file readers do)", () => {
    const content = vectorInput(300_001);
    const buffer = Buffer.alloc(70_000);
    const hasher = createBlake3();
    for (let offset = 0; offset < content.length; offset += buffer.length) {
      const length = content.copy(buffer, 0, offset, offset + buffer.length);
      hasher.update(buffer.subarray(0, length));
      buffer.fill(0xee);
    }
    const first = hasher.digest();
    expect(toHex(first)).toBe(toHex(nobleBlake3(content)));
    hasher.reset().update("other");
    expect(toHex(first)).toBe(toHex(nobleBlake3(content)));
  });
});
