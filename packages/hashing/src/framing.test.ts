import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toHex } from "./blake3.ts";
import { framedDigest, u64be } from "./framing.ts";

/** The documented framing, built independently: each of domain and parts as length ‖ bytes. */
function reference(domain: string, parts: readonly (string | Uint8Array)[], lengthBytes: 4 | 8): string {
  const chunks = [domain, ...parts].flatMap((part) => {
    const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part);
    const length = Buffer.alloc(lengthBytes);
    if (lengthBytes === 4) length.writeUInt32BE(bytes.length);
    else length.writeBigUInt64BE(BigInt(bytes.length));
    return [length, bytes];
  });
  return `blake3:${toHex(nobleBlake3(Buffer.concat(chunks)))}`;
}

describe("framedDigest", () => {
  it("is BLAKE3 over length-prefixed domain and parts, for either prefix width", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 300 })), { maxLength: 6 }),
        fc.constantFrom(4 as const, 8 as const),
        (domain, parts, width) => {
          expect(framedDigest(domain, parts, width)).toBe(reference(domain, parts, width));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("defaults to 8-byte lengths and keeps shifted boundaries and domains apart", () => {
    expect(framedDigest("d", ["ab", "c"])).toBe(reference("d", ["ab", "c"], 8));
    expect(framedDigest("d", ["ab", "c"])).not.toBe(framedDigest("d", ["a", "bc"]));
    expect(framedDigest("d", ["x"])).not.toBe(framedDigest("e", ["x"]));
    expect(framedDigest("d", ["x"], 4)).not.toBe(framedDigest("d", ["x"], 8));
  });

  it("writes u64 big-endian", () => {
    expect([...u64be(0x0102_0304_0506)]).toEqual([0, 0, 1, 2, 3, 4, 5, 6]);
  });
});
