import { framedDigest } from "@eval/hashing";

/** Everything a cached score depends on. Change any part and the key changes. */
export interface CacheKeyParts {
  readonly case_digest: string;
  readonly sut_digest: string;
  readonly rubric_digest: string;
  readonly cassette_corpus_digest: string;
  readonly harness_version: string;
  readonly cassette_canary_pin: string;
}

const FIELD_ORDER = [
  "case_digest",
  "sut_digest",
  "rubric_digest",
  "cassette_corpus_digest",
  "harness_version",
  "cassette_canary_pin",
] as const satisfies readonly (keyof CacheKeyParts)[];

const DOMAIN = "evalgate.cache_key.v1";

/**
 * `blake3:<hex>` over a domain tag and each part as `name=value`, every field length-prefixed with 4
 * bytes (@eval/hashing's framedDigest), so no two different tuples serialize to the same bytes (a
 * value containing a separator cannot shift a boundary).
 */
export function cacheKey(parts: CacheKeyParts): string {
  const fields = FIELD_ORDER.map((field) => {
    const value = parts[field];
    if (typeof value !== "string") throw new Error(`cacheKey: ${field} must be a string`);
    return `${field}=${value}`;
  });
  return framedDigest(DOMAIN, fields, 4);
}
