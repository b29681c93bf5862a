export { blake3, blake3Digest, createBlake3, toHex } from "./blake3.ts";
export type { Blake3Hasher } from "./blake3.ts";
export { framedDigest, u64be } from "./framing.ts";
export { hmacSha256, sha256, sha256Digest, sha256Hex } from "./sha256.ts";
export { fileKey, treeDigest } from "./tree-digest.ts";
export type { FileDigestCache } from "./tree-digest.ts";
