import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import canonicalize from "canonicalize";
import { createBLAKE3 } from "hash-wasm";

type Blake3 = Awaited<ReturnType<typeof createBLAKE3>>;
let blake3Loading: Promise<Blake3> | undefined;
let blake3: Blake3 | undefined;

/**
 * Loads the BLAKE3 implementation once (WebAssembly instantiation is asynchronous). Every public entry
 * point awaits this before hashing. Why hash-wasm and not @noble/hashes' BLAKE3: the pure-JS one runs
 * at ~60 MB/s here, which alone took about a second per 10,000 records; the WebAssembly one is ~7x
 * faster with identical output (the tests cross-check against @noble/hashes).
 */
export async function loadHashing(): Promise<void> {
  blake3 ??= await (blake3Loading ??= createBLAKE3());
}

/** RFC 8785 (JCS) canonical JSON of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("canonicalJson: value has no JSON form");
  return text;
}

/** `blake3:<hex>` of the UTF-8 bytes of `text`. Requires `loadHashing()` first. */
export function blake3Digest(text: string): string {
  if (blake3 === undefined) throw new Error("blake3Digest called before loadHashing()");
  return `blake3:${blake3.init().update(text).digest("hex")}`;
}

/**
 * A record's content hash: BLAKE3 over the UTF-8 bytes of the RFC 8785 canonical JSON of the report
 * with `chain_head` set to null (the head is only known after hashing).
 */
export async function contentHashOfReport(report: Readonly<Record<string, unknown>>): Promise<string> {
  await loadHashing();
  return blake3Digest(canonicalJson({ ...report, chain_head: null }));
}

/**
 * A record's chain hash (its identity and the head after it): SHA-256 over the UTF-8 bytes of
 * `prev_hash + "\n" + content_hash`, both in their prefixed text form (`sha256:<hex>`, `blake3:<hex>`).
 */
export function chainHashOf(prevHash: string, contentHash: string): string {
  return `sha256:${bytesToHex(sha256(utf8ToBytes(`${prevHash}\n${contentHash}`)))}`;
}
