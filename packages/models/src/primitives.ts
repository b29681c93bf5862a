import { z } from "zod";

/** `blake3:` + 64 lowercase hex: content digests (cases, files, rubrics, SUTs, reports). */
export const Blake3DigestSchema = z.string().regex(/^blake3:[0-9a-f]{64}$/, "expected blake3:<64 lowercase hex>");

/** `sha256:` + 64 lowercase hex: audit-chain identities and prompt hashes. */
export const Sha256DigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, "expected sha256:<64 lowercase hex>");

/** An RFC 3339 timestamp with an explicit offset (`Z` or `+hh:mm`): never a local time. */
export const TimestampSchema = z.iso.datetime({ offset: true });

/** A task-class slug, e.g. `vuln-remediation`: lowercase letters, digits and dashes. */
export const TaskClassNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "expected a lowercase slug such as vuln-remediation");

/** A case id, equal to its directory name: lowercase letters, digits, `.`, `_` and `-`. */
export const CaseIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "expected lowercase letters, digits, '.', '_' or '-'");

/** A failure-mode code, e.g. `still_vulnerable` or `rubric.timeout`. */
export const FailureModeCodeSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/, "expected a code such as still_vulnerable or rubric.timeout");

/** A trust-tier name, e.g. `silver`. A string, not an enum: tiers are data in docs/trust-tiers.yaml. */
export const TierNameSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z][a-z0-9-]*$/, "expected a lowercase tier name such as silver");

export const SeveritySchema = z.enum(["block", "warn", "info"]);

/** A pinned canary seed: 32 lowercase hex characters (16 bytes). */
export const CanaryPinSchema = z.string().regex(/^[0-9a-f]{32}$/, "expected 32 lowercase hex characters");

/** `-0` becomes `0`: JSON cannot carry negative zero, and canonical hashes must not depend on it. */
const withoutNegativeZero = (value: number): number => (Object.is(value, -0) ? 0 : value);

/** A finite number (no NaN or Infinity, which JSON cannot carry). */
export const FiniteNumberSchema = z.number().finite().transform(withoutNegativeZero);

/** Money is never negative and always finite. */
export const UsdSchema = z.number().min(0).finite().transform(withoutNegativeZero);

/** A unit-interval number: scores and bounds. */
export const UnitIntervalSchema = z.number().min(0).max(1).transform(withoutNegativeZero);

/**
 * An Ed25519 signature over a document's DSSE pre-authentication encoding (docs/audit-and-promotion.md,
 * "Signed evidence"): the signer's public key travels with it so anyone can check it, and `key_id`
 * (SHA-256 of the 32 raw public-key bytes) is what trust-tiers.yaml's `signers` declare trusted.
 */
export const SignatureSchema = z.strictObject({
  algorithm: z.literal("ed25519"),
  key_id: Sha256DigestSchema,
  /** The raw 32-byte public key, base64. */
  public_key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "a base64 Ed25519 public key (32 bytes)"),
  /** The 64-byte signature, base64. */
  value: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, "a base64 Ed25519 signature (64 bytes)"),
});
