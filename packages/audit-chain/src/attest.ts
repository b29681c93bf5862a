// DSSE envelopes (https://github.com/secure-systems-lab/dsse, JSON serialization): a payload signed as bytes,
// Ed25519 over PAE(payloadType, payload), the envelope carrying the payload base64. What evalgate's in-toto
// attestations travel in, so existing attestation tooling can check them.
import { sign, verify } from "node:crypto";
import { blake3Digest, sha256Digest } from "@eval/hashing";
import type { DsseEnvelope } from "@eval/models";
import { canonicalJson } from "./hashing.ts";
import { ed25519PublicKey, preAuthEncoding } from "./signing.ts";
import type { SigningKey } from "./signing.ts";

/** Signs `payload` (bytes of type `payloadType`) into a DSSE envelope; its one signature's keyid is the key's id. */
export function signEnvelope(key: SigningKey, payloadType: string, payload: Buffer): DsseEnvelope {
  const sig = sign(null, preAuthEncoding(payloadType, payload), key.privateKey);
  return {
    payloadType,
    payload: payload.toString("base64"),
    signatures: [{ keyid: key.keyId, sig: sig.toString("base64") }],
  };
}

/**
 * The payload of an envelope one of whose signatures verifies under a key of `publicKeys` (raw Ed25519, base64,
 * by key id), with that key's id; or why none does. The envelope's shape is the caller's to check first.
 */
export function openEnvelope(
  envelope: DsseEnvelope,
  publicKeys: ReadonlyMap<string, string>,
): { readonly payload: Buffer; readonly keyId: string } | { readonly fault: string } {
  const payload = Buffer.from(envelope.payload, "base64");
  if (payload.toString("base64") !== envelope.payload) return { fault: "the payload is not canonical base64" };
  const named = envelope.signatures.filter((signature) => publicKeys.has(signature.keyid));
  if (named.length === 0)
    return { fault: `no signature by a declared key (keyids: ${envelope.signatures.map((s) => s.keyid).join(", ")})` };
  const pae = preAuthEncoding(envelope.payloadType, payload);
  for (const signature of named) {
    const key = ed25519PublicKey(publicKeys.get(signature.keyid)!);
    if (key !== null && verify(null, pae, key, Buffer.from(signature.sig, "base64")))
      return { payload, keyId: signature.keyid };
  }
  return {
    fault:
      "the signature does not verify: the payload or its type was altered after signing, or the signature was forged",
  };
}

/**
 * The digests an attestation names a run's report by: SHA-256 and BLAKE3 (hex) of the canonical JSON the
 * record's `content_hash` covers (the report with `chain_head` null), so anyone holding the record can recompute them.
 */
export function reportDigests(report: Readonly<Record<string, unknown>>): {
  readonly sha256: string;
  readonly blake3: string;
} {
  const bytes = canonicalJson({ ...report, chain_head: null });
  return { sha256: sha256Digest(bytes).slice("sha256:".length), blake3: blake3Digest(bytes).slice("blake3:".length) };
}
