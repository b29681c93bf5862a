import { createHash, createHmac, type KeyObject } from "node:crypto";
import type { HashInput } from "./blake3.ts";

// SHA-256 and HMAC-SHA-256 through node:crypto (OpenSSL, native: faster than any JS or WebAssembly
// build, and in every Node). Strings are hashed as UTF-8.

/** SHA-256 of the concatenation of `parts`, as 32 bytes. */
export function sha256(...parts: readonly HashInput[]): Buffer {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** Lowercase hex SHA-256 of the concatenation of `parts`. */
export function sha256Hex(...parts: readonly HashInput[]): string {
  return sha256(...parts).toString("hex");
}

/** `sha256:<64 hex>` of the concatenation of `parts`: the form of chain identities and prompt hashes. */
export function sha256Digest(...parts: readonly HashInput[]): string {
  return `sha256:${sha256Hex(...parts)}`;
}

/** HMAC-SHA-256 with `key` over the concatenation of `parts`, as 32 bytes. */
export function hmacSha256(key: KeyObject | Uint8Array, ...parts: readonly HashInput[]): Buffer {
  const hmac = createHmac("sha256", key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
