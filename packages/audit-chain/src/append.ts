import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AnyBenchRunReportSchema,
  BenchRunReportSchema,
  CHAIN_RECORD_SCHEMA_VERSION,
  ChainRecordSchema,
  GENESIS_PREV_HASH,
  formatIssues,
  parseWire,
  safeParseWire,
} from "@eval/models";
import type { AnyBenchRunReport, BenchRunReport, BenchRunReportInput, ChainRecord, Signature } from "@eval/models";
import { EvalError, ioError } from "@eval/errors";
import { withAppendLock } from "./append-lock.ts";
import type { AppendLock, AppendLockOptions } from "./append-lock.ts";
import { ChainConflict, ChainTampered } from "./errors.ts";
import { createFileExclusive } from "@eval/durable-fs";
import { RUNS_NAMES } from "@eval/state-layout";
import { blake3Digest } from "@eval/hashing";
import { canonicalJson, chainHashOf } from "./hashing.ts";
import { readHeadPointer, removeHeadPointer, writeHeadPointer } from "./head-pointer.ts";
import { listRuns } from "./listing.ts";
import { checkRecordFile, recordFileName, signedRecordFields } from "./record-file.ts";
import { PAYLOAD_TYPES, signDocument } from "./signing.ts";
import type { SigningKey } from "./signing.ts";

export interface ChainHead {
  /** The newest record's chain_hash, or GENESIS_PREV_HASH for an empty chain. */
  readonly head: string;
  /** The newest record's file name (null for an empty chain). */
  readonly file: string | null;
  readonly nextSequence: number;
  readonly records: number;
  /** The newest record's recorded_at (null for an empty chain). */
  readonly recordedAt: string | null;
  /** The host the chain belongs to (null for an empty chain). */
  readonly hostFingerprint: string | null;
  /** The newest record's signature, checked against its own key (null when unsigned or the chain is empty). */
  readonly signature: Signature | null;
}

/**
 * The current head, from the newest record alone: that record must check out on its own and its
 * sequence must equal the number of records before it. `verifyChain` walks the whole chain. Lists the
 * runs directory, unless `usePointer` and the head pointer (kept by every append under its lock) names
 * a record that checks out at its place, or `at` (the head a caller just verified) does: O(1) reads whatever
 * the chain's length.
 */
export async function readChainHead(
  runsDir: string,
  options: { readonly usePointer?: boolean; readonly at?: { readonly file: string; readonly records: number } } = {},
): Promise<ChainHead> {
  if (options.at !== undefined) {
    const head = checkNewest(runsDir, options.at.file, options.at.records, false);
    if (head !== null) return head;
  }
  if (options.usePointer === true) {
    const pointer = readHeadPointer(runsDir);
    const head = pointer === null ? null : checkNewest(runsDir, pointer.file, pointer.records, false);
    if (head !== null) return head;
  }
  const { records } = await listRuns(runsDir);
  const newest = records.at(-1);
  if (newest === undefined)
    return {
      head: GENESIS_PREV_HASH,
      file: null,
      nextSequence: 0,
      records: 0,
      recordedAt: null,
      hostFingerprint: null,
      signature: null,
    };
  return checkNewest(runsDir, newest, records.length, true)!;
}

/** The head if `file` is a record that checks out with sequence `records - 1`; else null, or ChainTampered when `strict`. */
function checkNewest(runsDir: string, file: string, records: number, strict: boolean): ChainHead | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(runsDir, file));
  } catch (error) {
    if (!strict) return null;
    throw error;
  }
  const check = checkRecordFile(file, bytes, false);
  if (!check.ok) {
    if (!strict) return null;
    throw new ChainTampered(check.fault, runsDir);
  }
  if (check.record.sequence !== records - 1) {
    if (!strict) return null;
    throw new ChainTampered(
      {
        file,
        reason: "the newest record's sequence does not match the number of records (a record was added or removed)",
        expected: String(records - 1),
        found: String(check.record.sequence),
      },
      runsDir,
    );
  }
  return {
    head: check.record.chainHash,
    file,
    nextSequence: records,
    records,
    recordedAt: check.record.recordedAt,
    hostFingerprint: check.record.hostFingerprint,
    signature: check.record.signature,
  };
}

export interface RecordPlacement {
  readonly prevHash: string;
  readonly sequence: number;
  /** `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
  readonly recordedAt: string;
  readonly hostFingerprint: string;
  /** Signs the record (its `signature` field) when given. */
  readonly signingKey?: SigningKey | null;
}

/**
 * The record a report becomes at a given place in a chain, its file name and its exact file bytes
 * (RFC 8785 canonical JSON + LF), signed when the placement carries a key. Pure: `appendRunRecord`
 * writes what this returns.
 */
export async function buildChainRecord(
  report: BenchRunReportInput | AnyBenchRunReport,
  placement: RecordPlacement,
): Promise<{ record: ChainRecord; fileName: string; text: string }> {
  const valid = parseWire(AnyBenchRunReportSchema, report);
  const contentHash = blake3Digest(canonicalJson({ ...valid, chain_head: null }));
  const chainHash = chainHashOf(placement.prevHash, contentHash);
  const fields = {
    schema_version: CHAIN_RECORD_SCHEMA_VERSION,
    sequence: placement.sequence,
    host_fingerprint: placement.hostFingerprint,
    recorded_at: placement.recordedAt,
    prev_hash: placement.prevHash,
    content_hash: contentHash,
    chain_hash: chainHash,
  };
  const key = placement.signingKey ?? null;
  const signature =
    key === null ? {} : { signature: signDocument(key, PAYLOAD_TYPES.record, signedRecordFields(fields)) };
  const record = parseWire(ChainRecordSchema, { ...fields, report: { ...valid, chain_head: chainHash }, ...signature });
  return { record, fileName: recordFileName(placement.recordedAt, chainHash), text: `${canonicalJson(record)}\n` };
}

export interface AppendOptions extends AppendLockOptions {
  readonly runsDir: string;
  readonly hostFingerprint: string;
  /** The clock (tests). */
  readonly now?: () => Date;
  /**
   * Find the head from the head pointer instead of listing the runs directory. Only for a caller that
   * knows nothing but this version's appends (which all keep the pointer under the lock) wrote to the
   * directory since it last verified it; otherwise (the default) the directory is listed.
   */
  readonly trustHeadPointer?: boolean;
  /** The append lock the caller already holds (`withAppendLock`); without it the append takes the lock itself. */
  readonly lock?: AppendLock;
  /** Signs the record (loadSigningKey); without it the record is unsigned, as before signing existed. */
  readonly signingKey?: SigningKey | null;
}

// Appends stage record files in RUNS_NAMES.staging; every `*.tmp` there is a leftover whenever the append lock is free.

/** A record this version appended: its report is always the current version. */
export type AppendedRecord = ChainRecord & { readonly report: BenchRunReport };

/**
 * Appends one run to the chain. Under an exclusive lock it reads the current head and links the run
 * to it: a run is an event, so its content does not depend on the record before it, and concurrent
 * runs all land, in the order they take the lock (`report.prev_hash` as given is ignored and replaced
 * by the head). A fork can only come from outside this function, and `verifyChain` reports it. The
 * record file is written exclusively and atomically, mode 0600. Returns the record, whose
 * `report.chain_head` is the new head, and the head it linked to.
 */
export async function appendRunRecord(
  report: BenchRunReportInput,
  options: AppendOptions,
): Promise<{ record: AppendedRecord; path: string; previous: ChainHead }> {
  const valid = validForAppend(report, options.hostFingerprint);
  if (options.lock !== undefined) return appendLocked(valid, options, options.lock);
  return withAppendLock(options.runsDir, (lock) => appendLocked(valid, options, lock), options);
}

function validForAppend(report: BenchRunReportInput, hostFingerprint: string): BenchRunReport {
  const parsed = safeParseWire(BenchRunReportSchema, report);
  if (!parsed.success)
    throw new EvalError("EVAL_REPORT_INVALID", `cannot append an invalid report: ${formatIssues(parsed.issues)}`);
  const valid = parsed.data;
  if (valid.chain_head !== null)
    throw new EvalError(
      "EVAL_REPORT_INVALID",
      "cannot append a report whose chain_head is already set: append fills it in",
    );
  if (valid.host_fingerprint !== hostFingerprint) {
    throw new EvalError(
      "EVAL_REPORT_INVALID",
      `report.host_fingerprint ${valid.host_fingerprint} is not this host's ${hostFingerprint}`,
    );
  }
  return valid;
}

async function appendLocked(
  valid: BenchRunReport,
  options: AppendOptions,
  lock: AppendLock,
): Promise<{ record: AppendedRecord; path: string; previous: ChainHead }> {
  const { runsDir } = options;
  if (lock.runsDir !== runsDir)
    throw new EvalError("EVAL_IO", `the append lock held is for ${lock.runsDir}, not ${runsDir}`);
  const head = await readChainHead(runsDir, { usePointer: options.trustHeadPointer === true });
  if (head.hostFingerprint !== null && head.hostFingerprint !== options.hostFingerprint) {
    throw new ChainConflict(
      `the audit chain in ${runsDir} belongs to host ${head.hostFingerprint}, not this host (${options.hostFingerprint})`,
      { runsDir },
    );
  }
  const now = (options.now ?? (() => new Date()))().getTime();
  // Strictly increasing, even if the clock steps back: name order must stay chain order.
  const recordedAtMs = head.recordedAt === null ? now : Math.max(now, Date.parse(head.recordedAt) + 1);
  const recordedAt = new Date(recordedAtMs).toISOString();
  const built = await buildChainRecord(
    { ...valid, prev_hash: head.head },
    {
      prevHash: head.head,
      sequence: head.nextSequence,
      recordedAt,
      hostFingerprint: options.hostFingerprint,
      signingKey: options.signingKey ?? null,
    },
  );
  lock.assertHeld();
  await removeHeadPointer(runsDir).catch((error: unknown) => {
    throw ioError(error, "cannot update the head pointer in", runsDir);
  });
  const path = await createFileExclusive(runsDir, built.fileName, built.text, {
    mode: 0o600,
    stagingDir: join(runsDir, RUNS_NAMES.staging),
  }).catch((error: unknown) => {
    throw ioError(error, "cannot write the audit record", join(runsDir, built.fileName));
  });
  // A pointer that fails to be written is only a missed shortcut: with none, the next append lists.
  await writeHeadPointer(runsDir, { file: built.fileName, records: head.records + 1 }).catch(() => {});
  // Validated as the current report version above, and buildChainRecord keeps it.
  return { record: built.record as AppendedRecord, path, previous: head };
}
