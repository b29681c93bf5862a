import { blake3Digest, sha256Digest } from "@eval/hashing";
import canonicalize from "canonicalize";

/** RFC 8785 (JCS) canonical JSON of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("canonicalJson: value has no JSON form");
  return text;
}

/**
 * A record's content hash: BLAKE3 over the UTF-8 bytes of the RFC 8785 canonical JSON of the report
 * with `chain_head` set to null (the head is only known after hashing).
 */
export async function contentHashOfReport(report: Readonly<Record<string, unknown>>): Promise<string> {
  return blake3Digest(canonicalJson({ ...report, chain_head: null }));
}

/**
 * A record's chain hash (its identity and the head after it): SHA-256 over the UTF-8 bytes of
 * `prev_hash + "\n" + content_hash`, both in their prefixed text form (`sha256:<hex>`, `blake3:<hex>`).
 */
export function chainHashOf(prevHash: string, contentHash: string): string {
  return sha256Digest(`${prevHash}\n${contentHash}`);
}
