import { createSecretKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hmacSha256, sha256, sha256Digest, sha256Hex } from "./sha256.ts";

describe("SHA-256", () => {
  it("matches the FIPS 180-2 examples, over split and string inputs alike", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("a", Buffer.from("b"), "c")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256Digest("")).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256("abc")).toHaveLength(32);
  });

  it("computes HMAC-SHA-256 as RFC 4231 test case 2, with a raw key or a KeyObject", () => {
    const expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    expect(hmacSha256(Buffer.from("Jefe"), "what do ya want ", "for nothing?").toString("hex")).toBe(expected);
    expect(hmacSha256(createSecretKey(Buffer.from("Jefe")), "what do ya want for nothing?").toString("hex")).toBe(
      expected,
    );
  });
});
