// Anchors: the chain's head written somewhere the state directory's owner cannot rewrite (a CI artifact, a
// commit). A chain verified against an anchor must still contain the anchored head as the same record
// number, so a truncated chain (newest records deleted, checkpoint and head pointer restored) is refused.
import { readFile } from "node:fs/promises";
import { CHAIN_ANCHOR_SCHEMA_VERSION, ChainAnchorSchema, formatIssues, safeParseWire } from "@eval/models";
import type { ChainAnchor } from "@eval/models";
import { EvalError } from "@eval/errors";
import { replaceFile } from "@eval/durable-fs";
import { readChainHead } from "./append.ts";
import { PAYLOAD_TYPES, signatureFault, signDocument } from "./signing.ts";
import type { SigningKey } from "./signing.ts";
import { verifyChain } from "./verify.ts";
import type { VerifyResult } from "./verify.ts";

/**
 * The anchor of the chain in `runsDir` as it stands (its newest record checked), signed when a key is given, so
 * it cannot be moved back without the key; null for an empty chain.
 */
export async function chainAnchor(runsDir: string, signingKey: SigningKey | null = null): Promise<ChainAnchor | null> {
  const head = await readChainHead(runsDir);
  if (head.records === 0) return null;
  const fields: ChainAnchor = {
    schema_version: CHAIN_ANCHOR_SCHEMA_VERSION,
    head: head.head,
    records: head.records,
    host_fingerprint: head.hostFingerprint!,
    recorded_at: head.recordedAt!,
  };
  return signingKey === null
    ? fields
    : { ...fields, signature: signDocument(signingKey, PAYLOAD_TYPES.anchor, fields) };
}

/** Writes an anchor file atomically (mode 0644: it is meant to be published). */
export async function writeAnchor(path: string, anchor: ChainAnchor): Promise<void> {
  try {
    await replaceFile(path, `${JSON.stringify(anchor)}\n`, { mode: 0o644 });
  } catch (error) {
    throw new EvalError("EVAL_IO", `cannot write the anchor ${path}: ${(error as Error).message}`, {
      hint: "write the anchor outside the state directory, to a writable path",
    });
  }
}

/** Reads and validates an anchor file; a missing or malformed one is a usage error naming the file. */
export async function readAnchor(path: string): Promise<ChainAnchor> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new EvalError("EVAL_USAGE", `cannot read the anchor ${path}: ${(error as Error).message}`, {
      hint: "pass the file `evalgate anchor --write <file>` wrote",
    });
  }
  const parsed = safeParseWire(ChainAnchorSchema, value);
  if (!parsed.success)
    throw new EvalError("EVAL_USAGE", `${path} is not a chain anchor: ${formatIssues(parsed.issues)}`, {
      hint: "pass the file `evalgate anchor --write <file>` wrote",
    });
  if (parsed.data.signature !== undefined) {
    const { signature, ...fields } = parsed.data;
    const problem = signatureFault(signature, PAYLOAD_TYPES.anchor, fields);
    if (problem !== null)
      throw new EvalError("EVAL_CHAIN_TAMPERED", `the anchor ${path} was altered: ${problem}`, {
        hint: "use the anchor file CI kept; a moved anchor cannot be re-signed without the key",
      });
  }
  return parsed.data;
}

/**
 * Verifies the whole chain and that it extends `anchor`: the anchored head is in it (so it sits at its own
 * record number: a chain hash fixes every record before it) and the chain holds at least as many records.
 * A chain that does not is reported as not verifying (first_bad names the anchor), as any tampering is.
 */
export async function verifyAgainstAnchor(
  runsDir: string,
  anchor: ChainAnchor,
  options: { readonly strict?: boolean } = {},
): Promise<VerifyResult> {
  const result = await verifyChain({
    runsDir,
    expectHead: anchor.head,
    ...(options.strict === undefined ? {} : { strict: options.strict }),
  });
  if (!result.ok)
    return {
      ...result,
      firstBad: {
        ...result.firstBad!,
        reason: `${result.firstBad!.reason} (anchor of ${anchor.records} records at ${anchor.recorded_at})`,
      },
    };
  const records = result.records + result.skipped;
  if (
    records < anchor.records ||
    (result.hostFingerprint !== null && result.hostFingerprint !== anchor.host_fingerprint)
  ) {
    const found = `${records} records of host ${result.hostFingerprint ?? "(none)"}`;
    return {
      ...result,
      ok: false,
      headFile: null,
      firstBad: {
        file: result.headFile ?? "(empty chain)",
        reason: "the chain does not extend its anchor",
        expected: `>= ${anchor.records} records of host ${anchor.host_fingerprint}`,
        found,
      },
    };
  }
  return result;
}
