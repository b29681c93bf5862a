// The history index: one summary line per chain record, kept beside the chain (`<runs>/.index/history.json`),
// so the views (`runs`, `show` and `report`'s run choice and trend) read one small line per run instead of
// parsing every record. Derived state, never trusted over the chain: it is sealed under the state's MAC key
// (as the chain checkpoint is), checked on every read against the runs directory's listing (its record file
// names, in order, whose names carry each record's chain hash), extended from the records appended since, and
// rebuilt from the chain in one streaming pass when it is missing, unsealed or not a prefix of the listing.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { listRuns, readRecordFile } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry, verifyEntry } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import type { RecordedReport } from "@eval/models";
import type { ReadRecord } from "@eval/audit-chain";
import { notDefaultEvidence } from "@eval/promotion";
import { runListEntry } from "@eval/reports";
import type { RunListEntry } from "@eval/reports";
import { replaceFile } from "@eval/durable-fs";
import { RUNS_NAMES, stateLayout } from "@eval/state-layout";

const SCHEMA_VERSION = "evalgate.history_index.v1";
/** The MAC's label: never a cache key (those are `blake3:<hex>`) nor the checkpoint's, so no sealed file stands in for another. */
const MAC_LABEL = "evalgate.history_index";

/** What the index keeps of one record: its list entry, where it is, and what the trend needs. */
export interface RunSummary extends RunListEntry {
  /** The record's file name in the runs directory. */
  readonly file: string;
  readonly sequence: number;
  readonly ended_at: string;
  /** Whether promotion could read the run as evidence by default (complete, over the whole task class). */
  readonly evidence: boolean;
  /** Passed cases over the cases the record holds (0 for none). */
  readonly pass_rate: number;
}

export interface HistoryIndexOptions {
  readonly stateDir: string;
  readonly onWarning: WarningSink;
}

/** The summary of one chain record, as the chain reader gives it. */
export function summaryOf({ record, report }: ReadRecord, file: string): RunSummary {
  // `file` first: a stored entry is found by its name without being parsed.
  return {
    file,
    ...runListEntry(record, report),
    sequence: record.sequence,
    ended_at: report.ended_at,
    evidence: notDefaultEvidence(report) === null,
    pass_rate: passRate(report),
  };
}

const passRate = (report: RecordedReport): number =>
  report.per_case.length === 0 ? 0 : report.passed_count / report.per_case.length;

/**
 * The chain's history, oldest first. Entries are parsed when asked for: `runs --limit 20` parses 20 of them.
 * The stored text is one line of tab-separated JSON texts (JSON.stringify writes no raw tab or newline), the
 * first a header, each other one a summary starting with its `file`.
 */
export class History {
  readonly #pieces: readonly string[];
  readonly #parsed: (RunSummary | undefined)[];
  constructor(pieces: readonly string[]) {
    this.#pieces = pieces;
    this.#parsed = new Array<RunSummary | undefined>(pieces.length);
  }
  get length(): number {
    return this.#pieces.length;
  }
  at(index: number): RunSummary {
    return (this.#parsed[index] ??= JSON.parse(this.#pieces[index]!) as RunSummary);
  }
  /** The file of entry `index`, read without parsing the entry. */
  fileAt(index: number): string {
    const piece = this.#pieces[index]!;
    return piece.slice(FILE_START.length, piece.indexOf('"', FILE_START.length));
  }
  /** Every entry, oldest first. */
  *entries(): Generator<RunSummary> {
    for (let index = 0; index < this.length; index += 1) yield this.at(index);
  }
  /** Every entry, newest first. */
  *newestFirst(): Generator<RunSummary> {
    for (let index = this.length - 1; index >= 0; index -= 1) yield this.at(index);
  }
}

const FILE_START = '{"file":"';
const SEPARATOR = "\t";

/**
 * The history as the chain in `<stateDir>/runs` stands now: the stored index when it is sealed and still a
 * prefix of the listing, extended by the records after it; else rebuilt from every record (warned as
 * `history.index_rebuilt` when an index was there). A changed index is written back atomically; a state
 * directory that cannot take it (read-only, full) gives `history.index_unwritten`, and the next view reads
 * the same records again.
 */
export async function readHistory(options: HistoryIndexOptions): Promise<History> {
  const runsDir = stateLayout(options.stateDir).runs;
  const names = (await listRuns(runsDir)).records;
  const stored = await storedPieces(options);
  const usable = stored.pieces !== null && isPrefix(new History(stored.pieces), names);
  if (stored.problem !== null || (stored.pieces !== null && !usable)) {
    const why = stored.problem ?? "does not match the chain's records (records were removed, renamed or replaced)";
    options.onWarning({
      code: "history.index_rebuilt",
      message: `the history index ${indexPath(options.stateDir)} ${why}: rebuilt it from the chain`,
      details: { path: indexPath(options.stateDir) },
    });
  }
  const kept = usable ? stored.pieces! : [];
  if (kept.length === names.length && usable) return new History(kept);
  const pieces = [...kept];
  for (const file of names.slice(kept.length))
    pieces.push(JSON.stringify(summaryOf(readRecordFile(runsDir, file), file)));
  await writeIndex(options, pieces).catch((error: unknown) => {
    options.onWarning({
      code: "history.index_unwritten",
      message: `cannot write the history index ${indexPath(options.stateDir)} (${(error as Error).message}): the next view reads the new records again`,
      details: { path: indexPath(options.stateDir) },
    });
  });
  return new History(pieces);
}

function isPrefix(history: History, names: readonly string[]): boolean {
  if (history.length > names.length) return false;
  for (let index = 0; index < history.length; index += 1) if (history.fileAt(index) !== names[index]) return false;
  return true;
}

const indexPath = (stateDir: string): string => join(stateLayout(stateDir).runs, RUNS_NAMES.index, RUNS_NAMES.history);

/** The stored summaries' texts (null when there is no index), or the reason a stored index cannot be used. */
async function storedPieces(
  options: HistoryIndexOptions,
): Promise<{ pieces: string[] | null; problem: string | null }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(indexPath(options.stateDir));
  } catch {
    return { pieces: null, problem: null };
  }
  const stored = splitEntry(bytes);
  if (stored.kind !== "sealed") return { pieces: null, problem: "has no valid MAC line (edited or truncated)" };
  const key = await loadOrCreateMacKey(stateLayout(options.stateDir).cacheKey);
  if (!verifyEntry(key, MAC_LABEL, stored))
    return { pieces: null, problem: "fails its MAC (edited, or sealed with another key)" };
  const [header, ...pieces] = stored.body.toString("utf8").split(SEPARATOR);
  if (header !== HEADER) return { pieces: null, problem: "has an unknown schema_version" };
  return { pieces, problem: null };
}

const HEADER = JSON.stringify({ schema_version: SCHEMA_VERSION });

/** Seals and replaces the index atomically (readers see the old or the new one, never half). */
async function writeIndex(options: HistoryIndexOptions, pieces: readonly string[]): Promise<void> {
  const key = await loadOrCreateMacKey(stateLayout(options.stateDir).cacheKey);
  await mkdir(join(stateLayout(options.stateDir).runs, RUNS_NAMES.index), { recursive: true, mode: 0o700 });
  await replaceFile(indexPath(options.stateDir), sealEntry(key, MAC_LABEL, [HEADER, ...pieces].join(SEPARATOR)), {
    mode: 0o600,
    // Rebuilt from the chain whenever it is missing or stale: a power cut may lose it, a kill never tears it.
    survives: "crash",
  });
}
