import { createBlake3, toHex, type HashInput } from "./blake3.ts";

/** How many bytes each part's big-endian length prefix takes. */
export type LengthPrefix = 4 | 8;

/**
 * `blake3:<hex>` of a domain tag and parts, each preceded by its byte length (big-endian, `lengthBytes`
 * wide): BLAKE3(len(domain) ‖ domain ‖ len(p1) ‖ p1 ‖ ...). Length-prefixing every field means no two
 * different tuples serialize to the same bytes (a value holding a separator cannot shift a boundary),
 * and the domain tag keeps digests of different kinds apart. Cache keys (evalgate.cache_key.v1) use
 * 4-byte lengths, every other framed digest 8-byte ones; both are persisted, so neither may change.
 */
export function framedDigest(domain: string, parts: readonly HashInput[], lengthBytes: LengthPrefix = 8): string {
  const hasher = createBlake3();
  const length = new Uint8Array(lengthBytes);
  const view = new DataView(length.buffer);
  for (const part of [domain, ...parts]) {
    const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : part;
    if (lengthBytes === 4) view.setUint32(0, bytes.length);
    else view.setBigUint64(0, BigInt(bytes.length));
    hasher.update(length).update(bytes);
  }
  return `blake3:${toHex(hasher.digest())}`;
}

/** 8 bytes: `value` as an unsigned 64-bit big-endian integer (the case-tree serialization's lengths). */
export function u64be(value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(value));
  return bytes;
}
