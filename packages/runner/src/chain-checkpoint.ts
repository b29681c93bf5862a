// The chain checkpoint: how far the chain in a runs directory has been verified, so a run checks only
// what was appended since, not the whole history.
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { verifyChainFrom, verifyChainLinks, verifyHeadRecord } from "@eval/audit-chain";
import type { VerifiedPrefix, VerifyResult } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry, verifyEntry } from "@eval/cache";
import { ioError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import { replaceFile } from "@eval/durable-fs";
import { stateLayout } from "@eval/state-layout";

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
  /** A view's check: a checkpoint that cannot be written (read-only or full state directory) is a warning, not an error. */
  readonly bestEffort?: boolean;
}

interface CheckpointBody {
  readonly schema_version: typeof SCHEMA_VERSION;
  /** The runs directory it describes (absolute): a checkpoint never vouches for another chain. */
  readonly runs_dir: string;
  readonly records: number;
  readonly head: string;
  /** The head record's file name (null for an empty chain). */
  readonly head_file: string | null;
  /**
   * The runs directory's modification time (ns) when the prefix was known to be the whole chain: equal
   * at the next run means nothing was added, removed or renamed at its top level since.
   */
  readonly dir_mtime_ns: string | null;
}

/** What the checkpoint vouches for. */
export interface Checkpoint extends VerifiedPrefix {
  readonly headFile: string | null;
  readonly dirMtimeNs: string | null;
}

/** A run's chain check: the verification, and whether the runs directory was untouched since the checkpoint. */
export type RunChainCheck = VerifyResult & {
  /** True when no record can have been added since the checkpoint: an append may trust the head pointer. */
  readonly directoryUnchanged: boolean;
};

/** The runs directory's mtime in nanoseconds, or null when it does not exist. */
export function runsDirMtime(runsDir: string): string | null {
  try {
    return statSync(runsDir, { bigint: true }).mtimeNs.toString();
  } catch {
    return null;
  }
}

/**
 * Verifies the chain for a run: from the checkpoint when there is a valid one (only newer records and
 * the link to the checkpoint's head are read), else one streaming pass over every record's links, the
 * newest record in full (`verifyChainLinks`): a lost checkpoint is rebuilt with what a valid one vouches
 * for, the links, while every report's content hash stays `evalgate verify`'s to check. A checkpoint that
 * fails its MAC, or describes another runs directory, is reported as a `chain.checkpoint_invalid` warning
 * and rebuilt the same way. A successful result moves the checkpoint forward.
 */
export async function verifyChainForRun(options: ChainCheckpointOptions): Promise<RunChainCheck> {
  // Taken before anything is read: a change made while verifying shows up as a mismatch next time.
  const mtime = runsDirMtime(options.runsDir);
  const checkpoint = await readCheckpoint(options);
  if (checkpoint !== null && checkpoint.headFile !== null && mtime !== null && checkpoint.dirMtimeNs === mtime) {
    // Nothing at the top of the runs directory changed since the checkpoint: one file is read.
    const result = await verifyHeadRecord(options.runsDir, {
      records: checkpoint.records,
      head: checkpoint.head,
      file: checkpoint.headFile,
    });
    if (result.ok) return { ...result, directoryUnchanged: true };
  }
  const result =
    checkpoint === null ? await verifyChainLinks(options.runsDir) : await verifyChainFrom(options.runsDir, checkpoint);
  // An empty chain costs nothing to verify: no checkpoint (nor the key that seals it) is written for it,
  // so a run refused before it starts leaves a fresh state directory as it found it.
  if (result.ok && result.skipped + result.records > 0) {
    await writeCheckpoint(options, {
      records: result.skipped + result.records,
      head: result.head,
      headFile: result.headFile,
      dirMtimeNs: mtime,
    }).catch((error: unknown) => {
      if (options.bestEffort !== true) throw error;
      options.onWarning({
        code: "chain.checkpoint_unwritten",
        message: `${(error as Error).message}: the next check verifies the same records again`,
        details: {},
      });
    });
  }
  return { ...result, directoryUnchanged: false };
}

/**
 * The chain after this process appended one record: when the record was linked to the very head this
 * process had verified, the new prefix is that one plus the record (built under the lock by us, so
 * nothing needs rereading); otherwise other runs appended in between and their records are verified now.
 */
export async function verifyAfterAppend(
  options: ChainCheckpointOptions,
  verified: VerifyResult,
  appended: {
    readonly previous: VerifiedPrefix;
    readonly chainHash: string;
    readonly file: string;
    readonly complete: boolean;
  },
): Promise<VerifyResult> {
  const mtime = runsDirMtime(options.runsDir); // after the append released its lock
  const verifiedRecords = verified.skipped + verified.records;
  if (!verified.ok || verified.head !== appended.previous.head || verifiedRecords !== appended.previous.records)
    return verifyChainForRun(options);
  await writeCheckpoint(options, {
    records: verifiedRecords + 1,
    head: appended.chainHash,
    headFile: appended.file,
    dirMtimeNs: mtime,
  });
  return {
    ...verified,
    records: verified.records + 1,
    head: appended.chainHash,
    headFile: appended.file,
    complete: verified.complete + (appended.complete ? 1 : 0),
    incomplete: verified.incomplete + (appended.complete ? 0 : 1),
  };
}

function checkpointPath(stateDir: string): string {
  return stateLayout(stateDir).checkpoint;
}

/** The verified prefix the checkpoint vouches for, or null (none, or one that does not verify: warned). */
export async function readCheckpoint(options: ChainCheckpointOptions): Promise<Checkpoint | null> {
  const path = checkpointPath(options.stateDir);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const invalid = (why: string): null => {
    options.onWarning({
      code: "chain.checkpoint_invalid",
      message: `the chain checkpoint ${path} ${why}: ignored it and rebuilt it from one pass over the chain's links`,
      details: { path },
    });
    return null;
  };
  const stored = splitEntry(bytes);
  if (stored.kind !== "sealed") return invalid("has no valid MAC line (edited or truncated)");
  const key = await loadOrCreateMacKey(stateLayout(options.stateDir).cacheKey);
  if (!verifyEntry(key, MAC_LABEL, stored)) return invalid("fails its MAC (edited, or sealed with another key)");
  const body = JSON.parse(stored.body.toString("utf8")) as CheckpointBody;
  if (body.schema_version !== SCHEMA_VERSION) return invalid(`has an unknown schema_version`);
  if (body.runs_dir !== resolve(options.runsDir)) return invalid(`describes another runs directory (${body.runs_dir})`);
  return {
    records: body.records,
    head: body.head,
    headFile: body.head_file ?? null,
    dirMtimeNs: body.dir_mtime_ns ?? null,
  };
}

/** Seals and writes the checkpoint atomically (readers see the old or the new one, never half). */
export async function writeCheckpoint(options: ChainCheckpointOptions, prefix: Checkpoint): Promise<void> {
  const body: CheckpointBody = {
    schema_version: SCHEMA_VERSION,
    runs_dir: resolve(options.runsDir),
    records: prefix.records,
    head: prefix.head,
    head_file: prefix.headFile,
    dir_mtime_ns: prefix.dirMtimeNs,
  };
  const key = await loadOrCreateMacKey(stateLayout(options.stateDir).cacheKey);
  const path = checkpointPath(options.stateDir);
  await replaceFile(path, sealEntry(key, MAC_LABEL, JSON.stringify(body))).catch((error: unknown) => {
    throw ioError(error, "cannot write the chain checkpoint", path);
  });
}
