import {
  CHAIN_RECORD_SCHEMA_VERSION,
  ChainRecordSchema,
  formatIssues,
  safeParseWire,
  SignatureSchema,
} from "@eval/models";
import type { Signature } from "@eval/models";
import type { ChainFault } from "./errors.ts";
import { blake3Digest } from "@eval/hashing";
import { canonicalJson, chainHashOf } from "./hashing.ts";
import { PAYLOAD_TYPES, signatureFault } from "./signing.ts";

/**
 * A record file is named `<recorded_at with ":" as "-">-<first 12 hex of chain_hash>.json`, e.g.
 * `2026-11-22T03-00-05.123Z-1f2e3d4c5b6a.json`. The fixed-width UTC stamp makes name order the
 * chain order (appends make `recorded_at` strictly increasing), and the name binds the file to its content.
 */
export const RECORD_FILE_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z)-([0-9a-f]{12})\.json$/;

const RECORDED_AT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SHA256_PATTERN = /^sha256:[0-9a-f]{64}$/;
const BLAKE3_PATTERN = /^blake3:[0-9a-f]{64}$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ENVELOPE_KEYS = [
  "chain_hash",
  "content_hash",
  "host_fingerprint",
  "prev_hash",
  "recorded_at",
  "report",
  "schema_version",
  "sequence",
];
const SIGNED_ENVELOPE_KEYS = [...ENVELOPE_KEYS, "signature"];

/**
 * What a record's signature signs: every envelope field but the report (bound by content_hash) and the
 * signature itself. prev_hash is among them, so a signed record vouches for the whole chain before it.
 */
export function signedRecordFields(record: { readonly [key: string]: unknown }): Record<string, unknown> {
  const { report: _report, signature: _signature, ...fields } = record;
  return fields;
}

export function recordFileName(recordedAt: string, chainHash: string): string {
  return `${recordedAt.replaceAll(":", "-")}-${chainHash.slice("sha256:".length, "sha256:".length + 12)}.json`;
}

/** Milliseconds since the epoch encoded in a record file name. */
export function recordedAtOfFileName(name: string): number {
  const stamp = RECORD_FILE_PATTERN.exec(name)?.[1];
  if (stamp === undefined) return Number.NaN;
  return Date.parse(`${stamp.slice(0, 10)}T${stamp.slice(11, 19).replaceAll("-", ":")}${stamp.slice(19)}`);
}

/** The fields that fix a record's place in the chain. */
export interface LinkedRecord {
  readonly file: string;
  readonly sequence: number;
  readonly hostFingerprint: string;
  readonly recordedAt: string;
  readonly prevHash: string;
  readonly chainHash: string;
}

/** The fields verification reads from a record that checked out on its own. */
export interface CheckedRecord extends LinkedRecord {
  readonly complete: boolean;
  readonly taskClass: string;
  /** The record's signature, checked against its own public key (whether that key is trusted is the reader's call). */
  readonly signature: Signature | null;
  /** The parsed file (plain JSON, not schema-validated unless `strict`). */
  readonly value: Record<string, unknown>;
}

export type RecordCheck =
  { readonly ok: true; readonly record: CheckedRecord } | { readonly ok: false; readonly fault: ChainFault };

function fault(file: string, reason: string, expected: string, found: string): RecordCheck {
  return { ok: false, fault: { file, reason, expected, found } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** True when every object in `value` lists its keys in RFC 8785 order (UTF-16 code units, ascending). */
function keysInCanonicalOrder(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(keysInCanonicalOrder);
  if (value === null || typeof value !== "object") return true;
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!keysInCanonicalOrder((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * The canonical text of `report` with `chain_head` null, cut out of the record's canonical text
 * (`body`, already proven equal to JSON.stringify of the record with canonical key order) instead of
 * serializing the report a second time. The cut is exact: the report is the value between
 * `"report":` and the two envelope fields after it, and `chain_head` sits after the keys that sort
 * before it, whose serialized lengths are measured. Null when the layout is not the expected one.
 */
function reportTextWithNullHead(
  body: string,
  report: Record<string, unknown>,
  schemaVersion: string,
  sequence: number,
  signature: unknown,
): string | null {
  const signed = signature === undefined ? "" : `,"signature":${JSON.stringify(signature)}`;
  const tail = `,"schema_version":${JSON.stringify(schemaVersion)},"sequence":${sequence}${signed}}`;
  const start = body.indexOf(',"report":{');
  if (start === -1 || !body.endsWith(tail)) return null;
  const text = body.slice(start + ',"report":'.length, body.length - tail.length);
  let offset = 1;
  for (const key of Object.keys(report)) {
    if (key === "chain_head") break;
    offset += JSON.stringify(key).length + 1 + JSON.stringify(report[key]).length + 1;
  }
  const head = `"chain_head":${JSON.stringify(report.chain_head)}`;
  if (!text.startsWith(head, offset)) return null;
  return `${text.slice(0, offset)}"chain_head":null${text.slice(offset + head.length)}`;
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * Checks one record file on its own (not its place in the chain): the bytes are exactly the RFC 8785
 * canonical JSON of the record plus one LF, the envelope is well-formed, the name matches the
 * content, and both hashes recompute. `strict` also validates the whole record against the wire schema.
 * `linksOnly` (a lost checkpoint's rebuild) checks the envelope, the name and the chain hash but not the
 * bytes' canonical form, the report's content hash nor the signature: what fixes the record's place, not
 * whether its report was edited under intact hashes.
 */
export function checkRecordFile(file: string, raw: Buffer, strict: boolean, linksOnly = false): RecordCheck {
  if (raw.length === 0) return fault(file, "the file is empty (truncated)", "a chain record", "0 bytes");
  if (raw[raw.length - 1] !== 0x0a)
    return fault(file, "the file does not end with a newline (truncated or edited)", "a final LF", "none");
  const body = raw.toString("utf8", 0, raw.length - 1);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return fault(
      file,
      "the file is not valid JSON (truncated or corrupted)",
      "valid JSON",
      clip((error as Error).message),
    );
  }
  if (!isPlainObject(value)) return fault(file, "the file is not a chain record", "a JSON object", typeof value);
  const keys = Object.keys(value).sort().join(",");
  if (keys !== ENVELOPE_KEYS.join(",") && keys !== SIGNED_ENVELOPE_KEYS.join(","))
    return fault(file, "the record's fields are wrong", ENVELOPE_KEYS.join(","), clip(keys));
  const {
    chain_hash,
    content_hash,
    host_fingerprint,
    prev_hash,
    recorded_at,
    report,
    schema_version,
    sequence,
    signature,
  } = value;
  if (schema_version !== CHAIN_RECORD_SCHEMA_VERSION)
    return fault(file, "unknown schema_version", CHAIN_RECORD_SCHEMA_VERSION, clip(String(schema_version)));
  if (typeof sequence !== "number" || !Number.isSafeInteger(sequence) || sequence < 0)
    return fault(file, "sequence is not a whole number", "an integer >= 0", clip(String(sequence)));
  if (typeof prev_hash !== "string" || !SHA256_PATTERN.test(prev_hash))
    return fault(file, "prev_hash is malformed", "sha256:<64 hex>", clip(String(prev_hash)));
  if (typeof chain_hash !== "string" || !SHA256_PATTERN.test(chain_hash))
    return fault(file, "chain_hash is malformed", "sha256:<64 hex>", clip(String(chain_hash)));
  if (typeof content_hash !== "string" || !BLAKE3_PATTERN.test(content_hash))
    return fault(file, "content_hash is malformed", "blake3:<64 hex>", clip(String(content_hash)));
  if (
    typeof recorded_at !== "string" ||
    !RECORDED_AT_PATTERN.test(recorded_at) ||
    Number.isNaN(Date.parse(recorded_at))
  ) {
    return fault(file, "recorded_at is malformed", "YYYY-MM-DDTHH:MM:SS.mmmZ", clip(String(recorded_at)));
  }
  if (typeof host_fingerprint !== "string" || !UUID_PATTERN.test(host_fingerprint))
    return fault(file, "host_fingerprint is malformed", "a UUID", clip(String(host_fingerprint)));
  if (!isPlainObject(report)) return fault(file, "report is not an object", "a JSON object", typeof report);

  // Canonical form. Fast path: when the parsed keys are already in canonical order, native
  // JSON.stringify reproduces RFC 8785 exactly (same string escaping and number formatting).
  // Integer-like keys (which JS reorders) fall through to the library.
  let reportForHash = "";
  if (linksOnly) {
    // The place-defining fields only: see the contract above.
  } else if (keysInCanonicalOrder(value) && JSON.stringify(value) === body) {
    reportForHash =
      reportTextWithNullHead(body, report, schema_version, sequence, signature) ??
      JSON.stringify({ ...report, chain_head: null });
  } else {
    const canonical = canonicalJson(value);
    if (canonical !== body) {
      return fault(
        file,
        "the bytes are not the canonical (RFC 8785) serialization of their content (edited)",
        "canonical JSON",
        "different bytes",
      );
    }
    reportForHash = canonicalJson({ ...report, chain_head: null });
  }
  // The decoded text round-trips; the bytes must too (invalid UTF-8 decodes to U+FFFD).
  if (!linksOnly && Buffer.byteLength(body) !== raw.length - 1)
    return fault(file, "the file is not valid UTF-8 (corrupted)", "UTF-8", "invalid byte sequences");

  const expectedName = recordFileName(recorded_at, chain_hash);
  if (expectedName !== file)
    return fault(file, "the file name disagrees with its content (renamed, swapped or copied)", expectedName, file);
  const computedContent = linksOnly ? content_hash : blake3Digest(reportForHash);
  if (computedContent !== content_hash)
    return fault(file, "the report was edited: its hash does not match content_hash", content_hash, computedContent);
  const computedChain = chainHashOf(prev_hash, content_hash);
  if (computedChain !== chain_hash)
    return fault(file, "chain_hash does not match sha256(prev_hash ‖ content_hash)", chain_hash, computedChain);
  if (report.chain_head !== chain_hash)
    return fault(
      file,
      "report.chain_head disagrees with the record's chain_hash",
      chain_hash,
      clip(String(report.chain_head)),
    );
  if (report.prev_hash !== prev_hash)
    return fault(
      file,
      "report.prev_hash disagrees with the record's prev_hash",
      prev_hash,
      clip(String(report.prev_hash)),
    );
  if (report.host_fingerprint !== host_fingerprint) {
    return fault(
      file,
      "report.host_fingerprint disagrees with the record's host_fingerprint",
      host_fingerprint,
      clip(String(report.host_fingerprint)),
    );
  }
  const signed = linksOnly
    ? { ok: true as const, signature: (signature ?? null) as Signature | null }
    : checkSignature(file, value, signature);
  if (!signed.ok) return signed;
  if (strict) {
    const parsed = safeParseWire(ChainRecordSchema, value);
    if (!parsed.success)
      return fault(
        file,
        "the record does not match the chain-record schema",
        "a valid evalgate.chain_record.v1",
        clip(formatIssues(parsed.issues)),
      );
  }
  return {
    ok: true,
    record: {
      file,
      sequence,
      hostFingerprint: host_fingerprint,
      recordedAt: recorded_at,
      prevHash: prev_hash,
      chainHash: chain_hash,
      complete: report.complete === true,
      taskClass: typeof report.task_class === "string" ? report.task_class : "",
      signature: signed.signature,
      value,
    },
  };
}

/** A record's signature, when it has one: well-formed and signing the record's other fields under its own key. */
function checkSignature(
  file: string,
  record: Record<string, unknown>,
  signature: unknown,
): { ok: true; signature: Signature | null } | { ok: false; fault: ChainFault } {
  if (signature === undefined) return { ok: true, signature: null };
  const parsed = safeParseWire(SignatureSchema, signature);
  if (!parsed.success)
    return {
      ok: false,
      fault: {
        file,
        reason: "the record's signature is malformed",
        expected: "an ed25519 signature",
        found: clip(formatIssues(parsed.issues)),
      },
    };
  const problem = signatureFault(parsed.data, PAYLOAD_TYPES.record, signedRecordFields(record));
  if (problem !== null)
    return {
      ok: false,
      fault: { file, reason: problem, expected: "a signature by the key it names", found: parsed.data.key_id },
    };
  return { ok: true, signature: parsed.data };
}
