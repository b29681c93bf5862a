import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

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
 * `blake3:<hex>` over a domain tag and each part as `name=value`, every field length-prefixed, so no
 * two different tuples serialize to the same bytes (a value containing a separator cannot shift a
 * boundary).
 */
export function cacheKey(parts: CacheKeyParts): string {
  const hasher = blake3.create();
  const feed = (text: string): void => {
    const bytes = utf8ToBytes(text);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, bytes.length);
    hasher.update(length);
    hasher.update(bytes);
  };
  feed(DOMAIN);
  for (const field of FIELD_ORDER) {
    const value = parts[field];
    if (typeof value !== "string") throw new Error(`cacheKey: ${field} must be a string`);
    feed(`${field}=${value}`);
  }
  return `blake3:${bytesToHex(hasher.digest())}`;
}
