import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { GENESIS_PREV_HASH } from "@eval/models";
import { EvalError } from "@eval/errors";
import type { ChainFault } from "./errors.ts";
import { listRuns } from "./listing.ts";
import { checkRecordFile, recordedAtOfFileName } from "./record-file.ts";
import type { CheckedRecord } from "./record-file.ts";

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
  readonly firstBad: ChainFault | null;
  /** Records before the `since` window, not rehashed. */
  readonly skipped: number;
  readonly hostFingerprint: string | null;
}

const SHA256_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Accepts `sha256:<hex>` or bare hex; anything else is a usage error. */
export function normalizeExpectedHead(value: string): string {
  const trimmed = value.trim().toLowerCase();
  const prefixed = trimmed.startsWith("sha256:") ? trimmed : `sha256:${trimmed}`;
  if (!SHA256_PATTERN.test(prefixed)) {
    throw new EvalError("EVAL_USAGE", `--expect-head must be a chain hash (sha256:<64 hex>), got "${value.slice(0, 80)}"`, {
      hint: "pass the chain_hash of a record, e.g. the head committed to git",
    });
  }
  return prefixed;
}

function parseSince(since: string): number {
  const ms = Date.parse(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(ms)) {
    throw new EvalError("EVAL_USAGE", `--since must be an ISO 8601 date or timestamp, got "${since.slice(0, 80)}"`, { hint: "e.g. --since 2026-11-01T00:00:00Z" });
  }
  return ms;
}

/**
 * Walks the chain in a runs directory and names the first bad file. Only top-level files count:
 * per-run detail directories, the staging directory and the lock are directories and are skipped.
 *
 * Pass 1 checks each file on its own in name order (bytes, fields, name, hashes), so an edited,
 * truncated, renamed, copied or foreign file is named itself. Pass 2 checks the links: each
 * prev_hash is the previous chain_hash, sequences count up from 0, one host. A broken link names the
 * record after a deletion, or the inserted record when the next one links past it.
 */
export async function verifyChain(options: VerifyOptions): Promise<VerifyResult> {
  const { runsDir } = options;
  const strict = options.strict === true;
  const expectHead = options.expectHead === undefined ? undefined : normalizeExpectedHead(options.expectHead);
  const sinceMs = options.since === undefined ? undefined : parseSince(options.since);
  const listing = await listRuns(runsDir);
  const names = listing.records;
  const firstInWindow = sinceMs === undefined ? 0 : names.findIndex((name) => recordedAtOfFileName(name) >= sinceMs);
  const windowStart = firstInWindow === -1 ? names.length : firstInWindow;
  const checkFrom = Math.max(0, windowStart - 1); // the anchor record before the window is checked too
  const base = { records: names.length - windowStart, skipped: windowStart };
  const result = (firstBad: ChainFault | null, head: string, counts: { complete: number; incomplete: number }, host: string | null): VerifyResult => ({
    ok: firstBad === null,
    ...base,
    ...counts,
    head,
    firstBad,
    hostFingerprint: host,
  });

  // Pass 1, in name order over records and foreign files alike.
  const foreign = listing.others.filter((name) => strict || !name.startsWith("."));
  const checked: CheckedRecord[] = [];
  let firstBad: ChainFault | null = null;
  const candidates = [...names.slice(checkFrom).map((name) => ({ name, record: true })), ...foreign.map((name) => ({ name, record: false }))].sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  for (const { name, record } of candidates) {
    if (!record) {
      firstBad = { file: name, reason: "a file in the runs directory that is not a chain record (renamed or foreign)", expected: "<utc-iso>-<12 hex>.json", found: name };
      break;
    }
    const path = join(runsDir, name);
    // Synchronous reads: a verify is a startup check with nothing to interleave, and one blocking read
    // costs about a twentieth of a thread-pool round trip (10,000 small files: ~0.1 s versus ~2 s).
    const check = checkRecordFile(name, readFileSync(path), strict);
    if (!check.ok) {
      firstBad = check.fault;
      break;
    }
    if (strict) {
      const mode = statSync(path).mode & 0o777;
      if (mode !== 0o600) {
        firstBad = { file: name, reason: "the record file's permissions are not 0600", expected: "0600", found: mode.toString(8).padStart(4, "0") };
        break;
      }
    }
    checked.push(check.record);
  }
  const head = checked.at(-1)?.chainHash ?? GENESIS_PREV_HASH;
  if (firstBad !== null) return result(firstBad, head, { complete: 0, incomplete: 0 }, checked[0]?.hostFingerprint ?? null);

  // Pass 2: the links.
  const host = checked[0]?.hostFingerprint ?? null;
  const seen = new Map<string, number>(); // chain_hash -> index in `checked`
  let complete = 0;
  let incomplete = 0;
  for (let index = 0; index < checked.length; index += 1) {
    const record = checked[index]!;
    const position = checkFrom + index;
    const previous = index === 0 ? null : checked[index - 1]!;
    const expectedPrev = previous === null ? (position === 0 ? GENESIS_PREV_HASH : null) : previous.chainHash;
    if (expectedPrev !== null && record.prevHash !== expectedPrev) {
      const linked = seen.get(record.prevHash);
      if (linked !== undefined && linked < index - 1) {
        const inserted = checked[linked + 1]!;
        firstBad = {
          file: inserted.file,
          reason: `a record was inserted: ${record.file} links to ${checked[linked]!.file}, skipping this one`,
          expected: `no record between ${checked[linked]!.file} and ${record.file}`,
          found: inserted.file,
        };
      } else {
        firstBad = {
          file: record.file,
          reason:
            record.prevHash === GENESIS_PREV_HASH
              ? "a second chain starts here (prev_hash is the genesis hash): records were reordered or mixed in"
              : "prev_hash is not the previous record's chain_hash: a record before this one was deleted or records were reordered",
          expected: expectedPrev,
          found: record.prevHash,
        };
      }
      break;
    }
    if (record.sequence !== position) {
      firstBad = { file: record.file, reason: "sequence does not match the record's position in the chain", expected: String(position), found: String(record.sequence) };
      break;
    }
    if (record.hostFingerprint !== host) {
      firstBad = { file: record.file, reason: "the record comes from another host's chain", expected: String(host), found: record.hostFingerprint };
      break;
    }
    seen.set(record.chainHash, index);
    if (position >= windowStart) {
      if (record.complete) complete += 1;
      else incomplete += 1;
    }
  }
  if (firstBad === null && expectHead !== undefined && expectHead !== GENESIS_PREV_HASH && !seen.has(expectHead)) {
    const found = containsChainHash(runsDir, names.slice(0, checkFrom), expectHead);
    if (!found) {
      firstBad = {
        file: checked.at(-1)?.file ?? "(empty chain)",
        reason: "the expected head is not in the chain: the newest records were deleted or the chain was replaced",
        expected: expectHead,
        found: head,
      };
    }
  }
  return result(firstBad, head, firstBad === null ? { complete, incomplete } : { complete: 0, incomplete: 0 }, host);
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
