// The chain checkpoint: how far the chain in a runs directory has been verified, so a run checks only
// what was appended since, not the whole history.
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { verifyChain, verifyChainFrom } from "@eval/audit-chain";
import type { VerifiedPrefix, VerifyResult } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry, verifyEntry } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import { writeFileAtomic } from "@eval/registry";

export const CHECKPOINT_FILE = "chain.checkpoint";
const SCHEMA_VERSION = "evalgate.chain_checkpoint.v1";
/**
 * The checkpoint is sealed like a cache entry (HMAC-SHA256 under `<state>/cache.key`). In the MAC's
 * cache-key slot it puts this tag, which can never be a cache key (those are `blake3:<hex>`), so an
 * entry and a checkpoint can never stand in for each other.
 */
const MAC_LABEL = "evalgate.chain_checkpoint";

export interface ChainCheckpointOptions {
  readonly stateDir: string;
  readonly runsDir: string;
  readonly onWarning: WarningSink;
}

interface CheckpointBody {
  readonly schema_version: typeof SCHEMA_VERSION;
  /** The runs directory it describes (absolute): a checkpoint never vouches for another chain. */
  readonly runs_dir: string;
  readonly records: number;
  readonly head: string;
}

/**
 * Verifies the chain for a run: from the checkpoint when there is a valid one (only newer records and
 * the link to the checkpoint's head are read), else the whole chain. A checkpoint that fails its MAC,
 * or describes another runs directory, is reported as a `chain.checkpoint_invalid` warning and ignored:
 * the full walk then checks everything it would have vouched for. A successful result moves the
 * checkpoint forward.
 */
export async function verifyChainForRun(options: ChainCheckpointOptions): Promise<VerifyResult> {
  const prefix = await readCheckpoint(options);
  const result = prefix === null ? await verifyChain({ runsDir: options.runsDir }) : await verifyChainFrom(options.runsDir, prefix);
  if (result.ok) await writeCheckpoint(options, { records: result.skipped + result.records, head: result.head });
  return result;
}

/**
 * The chain after this process appended one record: when the record was linked to the very head this
 * process had verified, the new prefix is that one plus the record (built under the lock by us, so
 * nothing needs rereading); otherwise other runs appended in between and their records are verified now.
 */
export async function verifyAfterAppend(
  options: ChainCheckpointOptions,
  verified: VerifyResult,
  appended: { readonly previous: VerifiedPrefix; readonly chainHash: string; readonly complete: boolean },
): Promise<VerifyResult> {
  const verifiedRecords = verified.skipped + verified.records;
  if (!verified.ok || verified.head !== appended.previous.head || verifiedRecords !== appended.previous.records) return verifyChainForRun(options);
  await writeCheckpoint(options, { records: verifiedRecords + 1, head: appended.chainHash });
  return {
    ...verified,
    records: verified.records + 1,
    head: appended.chainHash,
    complete: verified.complete + (appended.complete ? 1 : 0),
    incomplete: verified.incomplete + (appended.complete ? 0 : 1),
  };
}

function checkpointPath(stateDir: string): string {
  return join(stateDir, CHECKPOINT_FILE);
}

/** The verified prefix the checkpoint vouches for, or null (none, or one that does not verify: warned). */
export async function readCheckpoint(options: ChainCheckpointOptions): Promise<VerifiedPrefix | null> {
  const path = checkpointPath(options.stateDir);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const invalid = (why: string): null => {
    options.onWarning({ code: "chain.checkpoint_invalid", message: `the chain checkpoint ${path} ${why}: ignored it and verified the whole chain`, details: { path } });
    return null;
  };
  const stored = splitEntry(bytes);
  if (stored.kind !== "sealed") return invalid("has no valid MAC line (edited or truncated)");
  const key = await loadOrCreateMacKey(join(options.stateDir, "cache.key"));
  if (!verifyEntry(key, MAC_LABEL, stored)) return invalid("fails its MAC (edited, or sealed with another key)");
  const body = JSON.parse(stored.body.toString("utf8")) as CheckpointBody;
  if (body.schema_version !== SCHEMA_VERSION) return invalid(`has an unknown schema_version`);
  if (body.runs_dir !== resolve(options.runsDir)) return invalid(`describes another runs directory (${body.runs_dir})`);
  return { records: body.records, head: body.head };
}

/** Seals and writes the checkpoint atomically (readers see the old or the new one, never half). */
export async function writeCheckpoint(options: ChainCheckpointOptions, prefix: VerifiedPrefix): Promise<void> {
  const body: CheckpointBody = { schema_version: SCHEMA_VERSION, runs_dir: resolve(options.runsDir), records: prefix.records, head: prefix.head };
  const key = await loadOrCreateMacKey(join(options.stateDir, "cache.key"));
  await writeFileAtomic(checkpointPath(options.stateDir), sealEntry(key, MAC_LABEL, JSON.stringify(body)));
}
