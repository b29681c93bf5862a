import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cacheKey } from "./index.ts";
import type { CacheKeyParts } from "./index.ts";

const base: CacheKeyParts = {
  case_digest: `blake3:${"1".repeat(64)}`,
  sut_digest: `blake3:${"2".repeat(64)}`,
  rubric_digest: `blake3:${"3".repeat(64)}`,
  cassette_corpus_digest: `blake3:${"4".repeat(64)}`,
  harness_version: "0.1.0",
  cassette_canary_pin: "a".repeat(32),
};

const partsArbitrary = fc.record({
  case_digest: fc.string(),
  sut_digest: fc.string(),
  rubric_digest: fc.string(),
  cassette_corpus_digest: fc.string(),
  harness_version: fc.string(),
  cassette_canary_pin: fc.string(),
});

describe("cacheKey", () => {
  it("is a blake3 digest, stable for the same parts", () => {
    expect(cacheKey(base)).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(cacheKey({ ...base })).toBe(cacheKey(base));
  });

  it("changes when any single part changes", () => {
    const keys = new Set([cacheKey(base)]);
    for (const field of Object.keys(base) as (keyof CacheKeyParts)[]) {
      keys.add(cacheKey({ ...base, [field]: `${base[field]}x` }));
    }
    expect(keys.size).toBe(7);
  });

  it("does not let a value shift a field boundary", () => {
    const a = cacheKey({ ...base, harness_version: "1", cassette_canary_pin: "2" });
    const b = cacheKey({ ...base, harness_version: "1cassette_canary_pin=2", cassette_canary_pin: "" });
    expect(a).not.toBe(b);
  });

  it("property: deterministic, and distinct tuples give distinct keys", () => {
    fc.assert(
      fc.property(partsArbitrary, partsArbitrary, (x, y) => {
        expect(cacheKey(x)).toBe(cacheKey({ ...x }));
        const same = (Object.keys(x) as (keyof CacheKeyParts)[]).every((k) => x[k] === y[k]);
        expect(cacheKey(x) === cacheKey(y)).toBe(same);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects a non-string part (a programmer error)", () => {
    expect(() => cacheKey({ ...base, sut_digest: undefined as unknown as string })).toThrow(/sut_digest/);
  });
});
