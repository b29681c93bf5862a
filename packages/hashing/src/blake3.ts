import { createHasher, hash } from "blake3-jit";

// BLAKE3 through blake3-jit (WebAssembly SIMD compiled synchronously at first use, pure JS where
// SIMD is missing): the fastest implementation measured here that matches the official vectors and
// b3sum (README.md has the figures, scripts/benchmarks/hashing.bench.ts measures them). Synchronous,
// so no caller has to load anything first. Only 32-byte outputs are used: the library's longer XOF
// outputs are not relied on anywhere.

/** Bytes to hash: strings are taken as their UTF-8 encoding. */
export type HashInput = string | Uint8Array;

const encoder = new TextEncoder();

function bytesOf(input: HashInput): Uint8Array {
  return typeof input === "string" ? encoder.encode(input) : input;
}

/** An incremental BLAKE3-256 over everything `update`d since creation or the last `reset`. */
export interface Blake3Hasher {
  update(input: HashInput): Blake3Hasher;
  /** The 32-byte digest of what was fed; the hasher can then be `reset` and reused. */
  digest(): Uint8Array;
  reset(): Blake3Hasher;
}

/** A fresh incremental BLAKE3-256 hasher. */
export function createBlake3(): Blake3Hasher {
  const inner = createHasher();
  const hasher: Blake3Hasher = {
    update(input) {
      inner.update(bytesOf(input));
      return hasher;
    },
    digest: () => inner.finalize(32),
    reset() {
      inner.reset();
      return hasher;
    },
  };
  return hasher;
}

/** BLAKE3-256 of the concatenation of `parts`, as 32 bytes. */
export function blake3(...parts: readonly HashInput[]): Uint8Array {
  if (parts.length === 1) return hash(bytesOf(parts[0]!), 32);
  const hasher = createBlake3();
  for (const part of parts) hasher.update(part);
  return hasher.digest();
}

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** `blake3:<64 hex>` of the concatenation of `parts`: the form every evalgate content digest takes. */
export function blake3Digest(...parts: readonly HashInput[]): string {
  return `blake3:${toHex(blake3(...parts))}`;
}
