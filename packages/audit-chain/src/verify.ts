import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { GENESIS_PREV_HASH } from "@eval/models";
import { EvalError } from "@eval/errors";
import type { ChainFault } from "./errors.ts";
import { listRuns } from "./listing.ts";
import type { RunsListing } from "./listing.ts";
import { checkRecordFile, recordedAtOfFileName } from "./record-file.ts";
import type { CheckedRecord, LinkedRecord, RecordCheck } from "./record-file.ts";

export interface VerifyOptions {
  readonly runsDir: string;
  /** Verify only records recorded at or after this instant (ISO 8601); the record just before is the anchor. */
  readonly since?: string;
  /** Also validate every record against the wire schema, require mode 0600, and allow no foreign files (not even dotfiles). */
  readonly strict?: boolean;
  /** A chain_hash the chain must contain (e.g. the head committed to git): detects deleted newest records. */
  readonly expectHead?: string;
}

export interface VerifyResult {
  readonly ok: boolean;
  /** Records verified (those in the `since` window). */
  readonly records: number;
  readonly complete: number;
  readonly incomplete: number;
  /** The newest record's chain_hash (GENESIS_PREV_HASH when the chain is empty). */
  readonly head: string;
  /** The newest record's file name (null when the chain is empty or did not verify). */
  readonly headFile: string | null;
  readonly firstBad: ChainFault | null;
  /** Records before the `since` window, not rehashed. */
  readonly skipped: number;
  readonly hostFingerprint: string | null;
  /**
   * Run ids recorded more than once among the records walked (a run appended twice, e.g. by a retried
   * job), each once, at most 100. Under `strict` the first is a fault.
   */
  readonly duplicateRunIds?: readonly string[];
}

const SHA256_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Accepts `sha256:<hex>` or bare hex; anything else is a usage error. */
export function normalizeExpectedHead(value: string): string {
  const trimmed = value.trim().toLowerCase();
  const prefixed = trimmed.startsWith("sha256:") ? trimmed : `sha256:${trimmed}`;
  if (!SHA256_PATTERN.test(prefixed)) {
    throw new EvalError(
      "EVAL_USAGE",
      `--expect-head must be a chain hash (sha256:<64 hex>), got "${value.slice(0, 80)}"`,
      {
        hint: "pass the chain_hash of a record, e.g. the head committed to git",
      },
    );
  }
  return prefixed;
}

function parseSince(since: string): number {
  const ms = Date.parse(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(ms)) {
    throw new EvalError("EVAL_USAGE", `--since must be an ISO 8601 date or timestamp, got "${since.slice(0, 80)}"`, {
      hint: "e.g. --since 2026-11-01T00:00:00Z",
    });
  }
  return ms;
}

/**
 * Walks the chain in a runs directory and names the first bad file. Only top-level files count:
 * per-run detail directories, the staging directory and the lock are directories and are skipped.
 *
 * One streaming pass in name order: each file is checked on its own (bytes, fields, name, hashes), so
 * an edited, truncated, renamed, copied or foreign file is named itself, then its link to the record
 * before it (prev_hash, sequence, host). Only the previous record's fields are held, never every
 * record: memory does not grow with the chain. A broken link names the record after a deletion, or
 * the inserted record when the next one links past it.
 */
export async function verifyChain(options: VerifyOptions): Promise<VerifyResult> {
  const expectHead = options.expectHead === undefined ? undefined : normalizeExpectedHead(options.expectHead);
  const sinceMs = options.since === undefined ? undefined : parseSince(options.since);
  const listing = await listRuns(options.runsDir);
  const names = listing.records;
  const firstInWindow = sinceMs === undefined ? 0 : names.findIndex((name) => recordedAtOfFileName(name) >= sinceMs);
  const windowStart = firstInWindow === -1 ? names.length : firstInWindow;
  return walkChain(options.runsDir, listing, {
    windowStart,
    strict: options.strict === true,
    expectHead,
    anchorHash: null,
  });
}

/** Where an earlier full or incremental verification stopped: the first `records` records, ending at `head`. */
export interface VerifiedPrefix {
  readonly records: number;
  readonly head: string;
}

/**
 * Verifies only what was appended after a verified prefix: the prefix's last record is checked on its
 * own and must still be the record at that position with that chain hash (so a deletion or insertion
 * before it, which shifts positions, or a rewrite of it is caught), then every newer record and its
 * link, as `verifyChain` does. Cost: one directory listing plus the new records, whatever the chain's
 * length. `records` and `skipped` in the result count the new records and the prefix.
 */
export async function verifyChainFrom(
  runsDir: string,
  prefix: VerifiedPrefix,
  options: { readonly strict?: boolean; readonly listing?: RunsListing } = {},
): Promise<VerifyResult> {
  // A caller that listed the directory for its own use passes that listing: 100,000 names cost ~0.4 s and ~30 MB.
  const listing = options.listing ?? (await listRuns(runsDir));
  if (prefix.records > listing.records.length) {
    const fault = {
      file: listing.records.at(-1) ?? "(empty chain)",
      reason: "the chain has fewer records than were verified before: records were deleted",
      expected: `>= ${prefix.records} records`,
      found: String(listing.records.length),
    };
    return {
      ok: false,
      records: 0,
      complete: 0,
      incomplete: 0,
      head: GENESIS_PREV_HASH,
      headFile: null,
      firstBad: fault,
      skipped: 0,
      hostFingerprint: null,
    };
  }
  return walkChain(runsDir, listing, {
    windowStart: prefix.records,
    strict: options.strict === true,
    expectHead: undefined,
    anchorHash: prefix.records === 0 ? null : prefix.head,
  });
}

/**
 * The rebuild of a lost checkpoint: one streaming pass over the links. Every record is parsed and its
 * envelope checked: its name binds it, its chain_hash recomputes from its prev_hash and content_hash, and
 * it links to the record before it (prev_hash, sequence, host); the newest record is checked in full, as
 * `verifyChain` checks every one. A deletion, insertion, reordering, renamed or foreign file, or an edited
 * hash is caught as `verifyChain` catches it; whether each older report's bytes are canonical and still hash
 * to its content_hash (and its signature) is left to `verifyChain` (`evalgate verify`), as a valid
 * checkpoint leaves it for the records it covers.
 */
export async function verifyChainLinks(runsDir: string): Promise<VerifyResult> {
  const listing = await listRuns(runsDir);
  return walkChain(runsDir, listing, {
    windowStart: 0,
    strict: false,
    expectHead: undefined,
    anchorHash: null,
    linksBefore: listing.records.at(-1) ?? null,
  });
}

/**
 * The O(1) check for a runs directory known not to have changed since a prefix was verified (the
 * runner compares the directory's modification time): the prefix's last record, read on its own, is
 * still there with that chain hash and sequence. It cannot see a record added, removed or renamed; that
 * is what the caller's unchanged-directory test is for.
 */
export async function verifyHeadRecord(
  runsDir: string,
  prefix: VerifiedPrefix & { readonly file: string },
): Promise<VerifyResult> {
  const base = { records: 0, complete: 0, incomplete: 0, skipped: prefix.records };
  const failed = (fault: ChainFault): VerifyResult => ({
    ok: false,
    ...base,
    skipped: 0,
    head: GENESIS_PREV_HASH,
    headFile: null,
    firstBad: fault,
    hostFingerprint: null,
  });
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(runsDir, prefix.file));
  } catch {
    return failed({
      file: prefix.file,
      reason: "the last verified record is missing",
      expected: prefix.file,
      found: "no such file",
    });
  }
  const check = checkRecordFile(prefix.file, bytes, false);
  if (!check.ok) return failed(check.fault);
  if (check.record.chainHash !== prefix.head || check.record.sequence !== prefix.records - 1) {
    return failed({
      file: prefix.file,
      reason: "the last verified record is no longer at its place in the chain",
      expected: `${prefix.head} at ${prefix.records - 1}`,
      found: `${check.record.chainHash} at ${check.record.sequence}`,
    });
  }
  return {
    ok: true,
    ...base,
    head: prefix.head,
    headFile: prefix.file,
    firstBad: null,
    hostFingerprint: check.record.hostFingerprint,
  };
}

interface Walk {
  /** Records before this index are not rechecked (the one just before is, as the anchor). */
  readonly windowStart: number;
  readonly strict: boolean;
  readonly expectHead: string | undefined;
  /** The chain hash the anchor must have (incremental verification), or null. */
  readonly anchorHash: string | null;
  /** Records named before this one get the links-only check (`checkRecordFile`'s `linksOnly`); null: none. */
  readonly linksBefore?: string | null;
}

interface Link {
  readonly file: string;
  readonly chainHash: string;
  readonly hostFingerprint: string;
}

type Listing = Awaited<ReturnType<typeof listRuns>>;

async function walkChain(runsDir: string, listing: Listing, walk: Walk): Promise<VerifyResult> {
  const names = listing.records;
  const checkFrom = Math.max(0, walk.windowStart - 1);
  const foreign = listing.others.filter((name) => walk.strict || !name.startsWith("."));
  const candidates = [
    ...names.slice(checkFrom).map((name) => ({ name, record: true })),
    ...foreign.map((name) => ({ name, record: false })),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  let previous: Link | null = null;
  let host: string | null = null;
  let expectFound = walk.expectHead === undefined || walk.expectHead === GENESIS_PREV_HASH;
  const counts = { complete: 0, incomplete: 0 };
  let position = checkFrom;
  const runIds = new Map<string, string>();
  const duplicateRunIds = new Set<string>();
  const done = (firstBad: ChainFault | null): VerifyResult => ({
    ok: firstBad === null,
    records: names.length - walk.windowStart,
    skipped: walk.windowStart,
    ...(firstBad === null ? counts : { complete: 0, incomplete: 0 }),
    head: previous?.chainHash ?? GENESIS_PREV_HASH,
    headFile: firstBad === null ? (previous?.file ?? null) : null,
    firstBad,
    hostFingerprint: host,
    ...(duplicateRunIds.size === 0 ? {} : { duplicateRunIds: [...duplicateRunIds] }),
  });
  // A file bad on its own is named before any broken link, wherever it sorts: after a link fault the
  // walk goes on checking files on their own only (a renamed record is named, not the gap it leaves).
  let linkBad: ChainFault | null = null;
  for (const { name, record } of candidates) {
    if (!record)
      return done({
        file: name,
        reason: "a file in the runs directory that is not a chain record (renamed or foreign)",
        expected: "<utc-iso>-<12 hex>.json",
        found: name,
      });
    const own = checkOwn(runsDir, name, walk.strict, walk.linksBefore != null && name < walk.linksBefore);
    if (!own.ok) return done(own.fault);
    if (linkBad !== null) continue;
    const checked = own.record;
    linkBad = checkLink(runsDir, names, checked, walk, { position, checkFrom, previous, host });
    if (linkBad !== null) continue;
    previous = { file: name, chainHash: checked.chainHash, hostFingerprint: checked.hostFingerprint };
    host ??= checked.hostFingerprint;
    if (checked.chainHash === walk.expectHead) expectFound = true;
    if (position >= walk.windowStart) counts[checked.complete ? "complete" : "incomplete"] += 1;
    position += 1;
    const duplicate = noteRunId(checked, runIds, duplicateRunIds);
    if (duplicate !== null && walk.strict) return done(duplicate);
  }
  if (linkBad !== null) return done(linkBad);
  if (!expectFound && !containsChainHash(runsDir, names.slice(0, checkFrom), walk.expectHead!)) {
    return done({
      file: previous?.file ?? "(empty chain)",
      reason: "the expected head is not in the chain: the newest records were deleted or the chain was replaced",
      expected: walk.expectHead!,
      found: previous?.chainHash ?? GENESIS_PREV_HASH,
    });
  }
  return done(null);
}

/** Records the record's run id; a fault naming the record when the id was recorded before, else null. */
function noteRunId(record: CheckedRecord, seen: Map<string, string>, duplicates: Set<string>): ChainFault | null {
  const report = record.value.report as { run_id?: unknown } | undefined;
  const runId = typeof report?.run_id === "string" ? report.run_id : null;
  if (runId === null) return null;
  const first = seen.get(runId);
  if (first === undefined) {
    seen.set(runId, record.file);
    return null;
  }
  if (duplicates.size < 100) duplicates.add(runId);
  return {
    file: record.file,
    reason: `run ${runId} is recorded a second time (first in ${first}): the same run was appended twice`,
    expected: "each run id once",
    found: runId,
  };
}

interface Place {
  readonly position: number;
  readonly checkFrom: number;
  readonly previous: Link | null;
  readonly host: string | null;
}

/** Checks one record file on its own (and, strictly, its mode); `linksOnly`: its envelope and hashes only. */
function checkOwn(runsDir: string, name: string, strict: boolean, linksOnly: boolean): RecordCheck {
  const path = join(runsDir, name);
  // Synchronous reads: a verify is a startup check with nothing to interleave, and one blocking read
  // costs about a twentieth of a thread-pool round trip (10,000 small files: ~0.1 s versus ~2 s).
  const check = checkRecordFile(name, readFileSync(path), strict, linksOnly);
  if (!check.ok || !strict) return check;
  const mode = statSync(path).mode & 0o777;
  if (mode !== 0o600)
    return {
      ok: false,
      fault: {
        file: name,
        reason: "the record file's permissions are not 0600",
        expected: "0600",
        found: mode.toString(8).padStart(4, "0"),
      },
    };
  return check;
}

/** Checks a record's place: the anchor's hash, the link to the previous record, its sequence and host. */
function checkLink(
  runsDir: string,
  names: readonly string[],
  record: LinkedRecord,
  walk: Walk,
  place: Place,
): ChainFault | null {
  const { position, previous, host } = place;
  const name = record.file;
  if (previous === null && walk.anchorHash !== null && record.chainHash !== walk.anchorHash) {
    return {
      file: name,
      reason:
        "the last verified record is no longer at its place in the chain: records before it were deleted, inserted or rewritten",
      expected: walk.anchorHash,
      found: record.chainHash,
    };
  }
  const expectedPrev = previous === null ? (position === 0 ? GENESIS_PREV_HASH : null) : previous.chainHash;
  if (expectedPrev !== null && record.prevHash !== expectedPrev)
    return linkFault(runsDir, names, record, expectedPrev, place);
  if (record.sequence !== position)
    return {
      file: name,
      reason: "sequence does not match the record's position in the chain",
      expected: String(position),
      found: String(record.sequence),
    };
  if (host !== null && record.hostFingerprint !== host)
    return {
      file: name,
      reason: "the record comes from another host's chain",
      expected: host,
      found: record.hostFingerprint,
    };
  return null;
}

/**
 * The fault for a record whose prev_hash is not the previous chain_hash. When it links to an older
 * record (found by the 12 hex its file name carries, then confirmed), the record after that one was
 * inserted; otherwise a record before this one was deleted, or records were reordered or mixed in.
 */
function linkFault(
  runsDir: string,
  names: readonly string[],
  record: LinkedRecord,
  expectedPrev: string,
  place: Place,
): ChainFault {
  const short = record.prevHash.slice("sha256:".length, "sha256:".length + 12);
  for (let index = place.position - 2; index >= place.checkFrom; index -= 1) {
    const name = names[index]!;
    if (!name.endsWith(`-${short}.json`)) continue;
    const linked = checkRecordFile(name, readFileSync(join(runsDir, name)), false);
    if (!linked.ok || linked.record.chainHash !== record.prevHash) continue;
    const inserted = names[index + 1]!;
    return {
      file: inserted,
      reason: `a record was inserted: ${record.file} links to ${name}, skipping this one`,
      expected: `no record between ${name} and ${record.file}`,
      found: inserted,
    };
  }
  return {
    file: record.file,
    reason:
      record.prevHash === GENESIS_PREV_HASH
        ? "a second chain starts here (prev_hash is the genesis hash): records were reordered or mixed in"
        : "prev_hash is not the previous record's chain_hash: a record before this one was deleted or records were reordered",
    expected: expectedPrev,
    found: record.prevHash,
  };
}

/** Whether any of `names` (records before a `since` window) has this chain hash. */
function containsChainHash(runsDir: string, names: readonly string[], chainHash: string): boolean {
  const short = chainHash.slice("sha256:".length, "sha256:".length + 12);
  for (const name of names) {
    if (!name.endsWith(`-${short}.json`)) continue;
    const check = checkRecordFile(name, readFileSync(join(runsDir, name)), false);
    if (check.ok && check.record.chainHash === chainHash) return true;
  }
  return false;
}
