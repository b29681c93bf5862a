// Signed evidence: Ed25519 (node:crypto) over the DSSE pre-authentication encoding of a document's canonical
// JSON, so a record, bundle manifest or anchor cannot be altered or forged without the private key, and an
// in-toto attestation (attest.ts) is signed the same way. The key is held outside the state directory (a file
// or an environment variable: a CI secret); which public keys count is declared in trust-tiers.yaml.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { isInside } from "@eval/durable-fs";
import { EvalError } from "@eval/errors";
import { sha256Digest } from "@eval/hashing";
import type { Signature } from "@eval/models";
import { canonicalJson } from "./hashing.ts";

/** A private key ready to sign, with the public half and its id. */
export interface SigningKey {
  readonly privateKey: KeyObject;
  /** The raw 32-byte public key, base64. */
  readonly publicKey: string;
  /** SHA-256 of the raw public key: what a signature names and trust-tiers.yaml's signers are matched by. */
  readonly keyId: string;
}

/** The payload types evalgate signs (DSSE `payloadType`): one per document, so a signature never transfers. */
export const PAYLOAD_TYPES = {
  record: "application/vnd.evalgate.chain-record+json",
  anchor: "application/vnd.evalgate.chain-anchor+json",
  manifest: "application/vnd.evalgate.shard-manifest+json",
  inToto: "application/vnd.in-toto+json",
} as const;

/** DSSE v1 pre-authentication encoding: `DSSEv1 SP LEN(type) SP type SP LEN(body) SP body`, lengths in bytes. */
export function preAuthEncoding(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, "utf8"),
    type,
    Buffer.from(` ${body.length} `, "utf8"),
    body,
  ]);
}

/** The key id of a raw public key given in base64. */
export function keyIdOf(publicKeyBase64: string): string {
  return sha256Digest(Buffer.from(publicKeyBase64, "base64"));
}

function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" });
  return Buffer.from(jwk.x!, "base64url").toString("base64");
}

function signingKeyOf(privateKey: KeyObject): SigningKey {
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  return { privateKey, publicKey, keyId: keyIdOf(publicKey) };
}

/** A fresh key pair: the private key as PKCS#8 PEM (keep it secret), the public key and its id (declare them). */
export function generateSigningKey(): {
  readonly privateKeyPem: string;
  readonly publicKey: string;
  readonly keyId: string;
} {
  const { privateKey } = generateKeyPairSync("ed25519");
  const key = signingKeyOf(privateKey);
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKey: key.publicKey,
    keyId: key.keyId,
  };
}

/**
 * Generates a key pair and writes the private key to `path` (a new file, mode 0600: never overwritten).
 * Returns the public key and its id, to declare under trust-tiers.yaml's `signers`.
 */
export async function writeNewSigningKey(
  path: string,
): Promise<{ readonly publicKey: string; readonly keyId: string }> {
  const { privateKeyPem, publicKey, keyId } = generateSigningKey();
  try {
    await writeFile(path, privateKeyPem, { mode: 0o600, flag: "wx" });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalError(
      code === "EEXIST" ? "EVAL_USAGE" : "EVAL_IO",
      `cannot write the signing key ${path}: ${code === "EEXIST" ? "the file exists (a key is never overwritten)" : (code ?? (error as Error).message)}`,
      {
        hint: "choose a new path outside the state directory",
      },
    );
  }
  return { publicKey, keyId };
}

/** Parses a PKCS#8 PEM Ed25519 private key; anything else is a usage error naming `origin`. */
export function parseSigningKey(pem: string, origin: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: "pem" });
  } catch (error) {
    throw new EvalError("EVAL_USAGE", `${origin} is not a PEM private key: ${(error as Error).message}`, {
      hint: "create one with `evalgate key generate --write <file>`",
    });
  }
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new EvalError("EVAL_USAGE", `${origin} is a ${privateKey.asymmetricKeyType ?? "unknown"} key, not Ed25519`, {
      hint: "create one with `evalgate key generate --write <file>`",
    });
  }
  return signingKeyOf(privateKey);
}

export interface SigningKeySource {
  /** A PEM file (`--signing-key`). */
  readonly path?: string | undefined;
  /** The PEM text itself (`EVALGATE_SIGNING_KEY`, a CI secret). */
  readonly pem?: string | undefined;
  /** A key file inside this directory is refused: whoever can rewrite the chain could read it there. */
  readonly stateDir?: string | undefined;
}

/** The signing key from a file or PEM text (the file wins); null when neither is given. */
export async function loadSigningKey(source: SigningKeySource): Promise<SigningKey | null> {
  if (source.path !== undefined) {
    const path = resolve(source.path);
    if (source.stateDir !== undefined) {
      if (isInside(source.stateDir, path)) {
        throw new EvalError(
          "EVAL_USAGE",
          `the signing key ${path} is inside the state directory: whoever can rewrite the chain could sign with it`,
          { hint: "keep the key outside, e.g. a CI secret in EVALGATE_SIGNING_KEY" },
        );
      }
    }
    let pem: string;
    try {
      pem = await readFile(path, "utf8");
    } catch (error) {
      throw new EvalError(
        "EVAL_USAGE",
        `cannot read the signing key ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        { hint: "pass the file `evalgate key generate --write <file>` wrote" },
      );
    }
    return parseSigningKey(pem, `the signing key ${path}`);
  }
  if (source.pem !== undefined && source.pem.trim() !== "") return parseSigningKey(source.pem, "EVALGATE_SIGNING_KEY");
  return null;
}

/** The Ed25519 public key of its raw 32 bytes in base64, or null when they are not a curve point. */
export function ed25519PublicKey(publicKeyBase64: string): KeyObject | null {
  try {
    return createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKeyBase64, "base64").toString("base64url") },
      format: "jwk",
    });
  } catch {
    return null;
  }
}

/** Signs `fields` (a document without its `signature`): Ed25519 over PAE(payloadType, canonical JSON). */
export function signDocument(key: SigningKey, payloadType: string, fields: object): Signature {
  const value = sign(null, preAuthEncoding(payloadType, Buffer.from(canonicalJson(fields), "utf8")), key.privateKey);
  return { algorithm: "ed25519", key_id: key.keyId, public_key: key.publicKey, value: value.toString("base64") };
}

/**
 * Why `signature` does not sign `fields` under its own public key (or names another key than its key_id),
 * or null when it does. Says nothing about whether the key is trusted: that is the caller's list.
 */
export function signatureFault(signature: Signature, payloadType: string, fields: object): string | null {
  if (keyIdOf(signature.public_key) !== signature.key_id)
    return "the signature's key_id is not the hash of its public key";
  const publicKey = ed25519PublicKey(signature.public_key);
  if (publicKey === null) return "the signature's public key is not an Ed25519 key";
  const ok = verify(
    null,
    preAuthEncoding(payloadType, Buffer.from(canonicalJson(fields), "utf8")),
    publicKey,
    Buffer.from(signature.value, "base64"),
  );
  return ok
    ? null
    : "the signature does not verify: the document was altered after signing, or the signature was forged";
}
