import { createBLAKE3, type IHasher } from "hash-wasm";

// BLAKE3 through hash-wasm's WebAssembly build (about 20x the pure-JS @noble/hashes here). One shared
// instance serves every hash: each use runs init, update and digest without an await in between, so
// no two uses can interleave.
let shared: Promise<IHasher> | undefined;

/** The shared hasher; use it only between awaits (init, update, digest in one synchronous run). */
export function sharedHasher(): Promise<IHasher> {
  shared ??= createBLAKE3(256);
  return shared;
}

/** BLAKE3-256 of the concatenation of `parts`, as 32 bytes. */
export async function blake3(...parts: readonly Uint8Array[]): Promise<Uint8Array> {
  const hasher = await sharedHasher();
  hasher.init();
  for (const part of parts) hasher.update(part);
  return hasher.digest("binary");
}

/** `blake3:<hex>` of the concatenation of `parts`. */
export async function blake3Digest(...parts: readonly Uint8Array[]): Promise<string> {
  return `blake3:${Buffer.from(await blake3(...parts)).toString("hex")}`;
}
