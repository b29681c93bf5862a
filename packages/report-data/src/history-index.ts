// The history index: one summary line per chain record, kept beside the chain (`<runs>/.index/history.json`),
// so the views (`runs`, `show` and `report`'s run choice and trend) read one small line per run instead of
// parsing every record. Derived state, never trusted over the chain: it is sealed under the state's MAC key
// (as the chain checkpoint is), checked on every read against the runs directory's listing (its record file
// names, in order, whose names carry each record's chain hash), extended from the records appended since, and
// rebuilt from the chain in one streaming pass when it is missing, unsealed or not a prefix of the listing.
// It also keeps what a verdict needs of each record (its pooling key, cases and signer, each distinct one stored
// once), from which each task class's evidence catalog is built (task-class-catalog.ts).
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { listRuns, readRecordFile } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry, verifyEntry } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import type { RecordedReport } from "@eval/models";
import type { ReadRecord } from "@eval/audit-chain";
import { catalogRunOf, notDefaultEvidence } from "@eval/promotion";
import type { CatalogRun } from "@eval/promotion";
import { runListEntry } from "@eval/reports";
import type { RunListEntry } from "@eval/reports";
import { replaceFile } from "@eval/durable-fs";
import { RUNS_NAMES, stateLayout } from "@eval/state-layout";

const SCHEMA_VERSION = "evalgate.history_index.v2";
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
  /** The record's pooling key and signer: an index into the stored table of distinct ones. */
  readonly pooling: number;
  /** The record's cases: an index into the stored table of distinct case lists. */
  readonly cases: number;
}

/** What a verdict needs of a record besides its summary, each distinct value stored once. */
interface Tables {
  /** The pooling key but its SUT (the summary's `sut_digest`), and the signer. */
  readonly pooling: { readonly key: Omit<CatalogRun["key"], "sut_digest">; readonly signer: string | null }[];
  readonly cases: CatalogRun["cases"][];
}

export interface HistoryIndexOptions {
  readonly stateDir: string;
  readonly onWarning: WarningSink;
  /**
   * The chain as the caller just verified it (its record count and head chain hash). A sealed index whose newest
   * entry is that head, at that count, is the chain's history as verified (a chain hash commits to every record
   * before it), so it is read without listing the runs directory; any other index is checked against the listing.
   */
  readonly verifiedHead?: { readonly records: number; readonly head: string };
}

/** What the index keeps of one record but its interned fields, and what a verdict lists of it. */
export function recordSummary(
  { record, report }: ReadRecord,
  file: string,
): { readonly summary: Omit<RunSummary, "pooling" | "cases">; readonly run: CatalogRun } {
  // `file` first: a stored entry is found by its name without being parsed.
  const summary = {
    file,
    ...runListEntry(record, report),
    sequence: record.sequence,
    ended_at: report.ended_at,
    evidence: notDefaultEvidence(report) === null,
    pass_rate: passRate(report),
  };
  return { summary, run: catalogRunOf(record, file) };
}

/** The summary of one chain record, as the chain reader gives it; its pooling key, cases and signer interned. */
function summaryOf(read: ReadRecord, file: string, tables: Interner): RunSummary {
  const { summary, run } = recordSummary(read, file);
  return {
    ...summary,
    pooling: tables.intern("pooling", { key: withoutSut(run.key), signer: run.signer }),
    cases: tables.intern("cases", run.cases),
  };
}

function withoutSut(key: CatalogRun["key"]): Omit<CatalogRun["key"], "sut_digest"> {
  const { sut_digest: _sut, ...rest } = key;
  return rest;
}

/** Values stored once each, looked up by their JSON text: a value seen before keeps its index. */
export class Interned<T> {
  readonly values: T[];
  readonly #indexes = new Map<string, number>();
  constructor(values: readonly T[]) {
    this.values = [...values];
    this.values.forEach((value, index) => this.#indexes.set(JSON.stringify(value), index));
  }
  of(value: T): number {
    const text = JSON.stringify(value);
    let index = this.#indexes.get(text);
    if (index === undefined) this.#indexes.set(text, (index = this.values.push(value) - 1));
    return index;
  }
}

/** The index's stored tables, each value stored once. */
class Interner {
  readonly #tables: { readonly [T in keyof Tables]: Interned<Tables[T][number]> };
  constructor(tables: Tables) {
    this.#tables = { pooling: new Interned(tables.pooling), cases: new Interned(tables.cases) };
  }
  get tables(): Tables {
    return { pooling: this.#tables.pooling.values, cases: this.#tables.cases.values };
  }
  intern<T extends keyof Tables>(name: T, value: Tables[T][number]): number {
    return (this.#tables[name] as Interned<Tables[T][number]>).of(value);
  }
}

const passRate = (report: RecordedReport): number =>
  report.per_case.length === 0 ? 0 : report.passed_count / report.per_case.length;

/**
 * The chain's history, oldest first. Entries are parsed when asked for: `runs --limit 20` parses 20 of them.
 * The stored text is one line of tab-separated JSON texts (JSON.stringify writes no raw tab or newline), the
 * first a header, each other one a summary starting with its `file`.
 */
export class History {
  readonly #pieces: Pieces;
  readonly #parsed: (RunSummary | undefined)[];
  readonly #tables: Tables;
  constructor(pieces: Pieces, tables: Tables) {
    this.#pieces = pieces;
    this.#parsed = new Array<RunSummary | undefined>(pieces.length);
    this.#tables = tables;
  }
  get length(): number {
    return this.#pieces.length;
  }
  at(index: number): RunSummary {
    return (this.#parsed[index] ??= JSON.parse(this.#pieces.at(index)) as RunSummary);
  }
  /** The file of entry `index`, read without parsing the entry. */
  fileAt(index: number): string {
    return this.#pieces.fileAt(index);
  }
  /** Every entry from `start`, oldest first (parsed as reached and not kept: memory follows one entry, not the history). */
  *entries(start = 0): Generator<RunSummary> {
    for (let index = start; index < this.length; index += 1) yield this.#entry(index);
  }
  /** The chain hash of the newest record the index covers, or null when it covers none. */
  get head(): string | null {
    return this.length === 0 ? null : this.at(this.length - 1).chain_hash;
  }
  /** What a verdict needs of an entry besides its summary: its pooling key (with its SUT), signer and cases. */
  evidenceOf(summary: RunSummary): Pick<CatalogRun, "key" | "signer" | "cases"> {
    const { key, signer } = this.#tables.pooling[summary.pooling]!;
    return { key: { ...key, sut_digest: summary.sut_digest }, signer, cases: this.#tables.cases[summary.cases]! };
  }
  /** Every entry, newest first (parsed as reached and not kept). */
  *newestFirst(): Generator<RunSummary> {
    for (let index = this.length - 1; index >= 0; index -= 1) yield this.#entry(index);
  }
  /** Entry `index`, parsed now unless `at` kept it (a view walking the history keeps none). */
  #entry(index: number): RunSummary {
    return this.#parsed[index] ?? (JSON.parse(this.#pieces.at(index)) as RunSummary);
  }
}

const FILE_START = '{"file":"';

/**
 * The summaries' texts: slices of the stored index's bytes, decoded one at a time when read (the bytes are the
 * only copy: a 100,000-record index is 60 MB), then the texts added since it was read.
 */
export class Pieces {
  readonly #bytes: Buffer;
  readonly #starts: number[];
  readonly #ends: number[];
  readonly #added: string[] = [];
  constructor(bytes: Buffer = Buffer.alloc(0), starts: number[] = [], ends: number[] = []) {
    this.#bytes = bytes;
    this.#starts = starts;
    this.#ends = ends;
  }
  get length(): number {
    return this.#starts.length + this.#added.length;
  }
  at(index: number): string {
    return index < this.#starts.length
      ? this.#bytes.toString("utf8", this.#starts[index], this.#ends[index])
      : this.#added[index - this.#starts.length]!;
  }
  /** The `file` an entry starts with, decoded alone (record file names are ASCII). */
  fileAt(index: number): string {
    const piece =
      index < this.#starts.length
        ? this.#bytes.toString("latin1", this.#starts[index], Math.min(this.#ends[index]!, this.#starts[index]! + 120))
        : this.#added[index - this.#starts.length]!;
    return piece.slice(FILE_START.length, piece.indexOf('"', FILE_START.length));
  }
  push(text: string): void {
    this.#added.push(text);
  }
  /** The stored bytes: `header`, the stored pieces as they were (not decoded), the added ones, tab-separated. */
  bytes(header: string): Buffer {
    const stored = this.#starts.length === 0 ? [] : [this.#bytes.subarray(this.#starts[0], this.#ends.at(-1))];
    const added = this.#added.length === 0 ? [] : [Buffer.from(SEPARATOR + this.#added.join(SEPARATOR))];
    return Buffer.concat([Buffer.from(header), ...stored.flatMap((bytes) => [TAB, bytes]), ...added]);
  }
  /** The pieces of a stored body after its header (tab-separated), and the header's text. */
  static split(body: Buffer): { header: string; pieces: Pieces } {
    const tab = SEPARATOR.charCodeAt(0);
    const first = body.indexOf(tab);
    if (first === -1) return { header: body.toString("utf8"), pieces: new Pieces() };
    const starts: number[] = [];
    const ends: number[] = [];
    for (let start = first + 1; start <= body.length;) {
      const end = body.indexOf(tab, start);
      starts.push(start);
      ends.push(end === -1 ? body.length : end);
      start = end === -1 ? body.length + 1 : end + 1;
    }
    return { header: body.toString("utf8", 0, first), pieces: new Pieces(body, starts, ends) };
  }
}
const SEPARATOR = "\t";
const TAB = Buffer.from(SEPARATOR);

/**
 * The history as the chain in `<stateDir>/runs` stands now: the stored index when it is sealed and still a
 * prefix of the listing, extended by the records after it; else rebuilt from every record (warned as
 * `history.index_rebuilt` when an index was there). A changed index is written back atomically; a state
 * directory that cannot take it (read-only, full) gives `history.index_unwritten`, and the next view reads
 * the same records again.
 */
export async function readHistory(options: HistoryIndexOptions): Promise<History> {
  const runsDir = stateLayout(options.stateDir).runs;
  const stored = await storedPieces(options);
  const tables = stored.tables ?? { pooling: [], cases: [] };
  if (stored.pieces !== null && standsAt(new History(stored.pieces, tables), options.verifiedHead))
    return new History(stored.pieces, tables);
  const names = (await listRuns(runsDir)).records;
  const usable = stored.pieces !== null && isPrefix(new History(stored.pieces, tables), names);
  if (stored.problem !== null || (stored.pieces !== null && !usable)) {
    const why = stored.problem ?? "does not match the chain's records (records were removed, renamed or replaced)";
    options.onWarning({
      code: "history.index_rebuilt",
      message: `the history index ${indexPath(options.stateDir)} ${why}: rebuilt it from the chain`,
      details: { path: indexPath(options.stateDir) },
    });
  }
  const pieces = usable ? stored.pieces! : new Pieces();
  if (pieces.length === names.length && usable) return new History(pieces, tables);
  const interner = new Interner(usable ? tables : { pooling: [], cases: [] });
  for (const file of names.slice(pieces.length))
    pieces.push(JSON.stringify(summaryOf(readRecordFile(runsDir, file), file, interner)));
  await writeIndex(options, pieces, interner.tables).catch((error: unknown) => {
    options.onWarning({
      code: "history.index_unwritten",
      message: `cannot write the history index ${indexPath(options.stateDir)} (${(error as Error).message}): the next view reads the new records again`,
      details: { path: indexPath(options.stateDir) },
    });
  });
  return new History(pieces, interner.tables);
}

/** Whether the index's newest entry is the verified head at the verified count (one listing per view, not two). */
function standsAt(history: History, head: HistoryIndexOptions["verifiedHead"]): boolean {
  return head !== undefined && history.length > 0 && history.length === head.records && history.head === head.head;
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
): Promise<{ pieces: Pieces | null; tables?: Tables; problem: string | null }> {
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
  const { header, pieces } = Pieces.split(stored.body);
  const { schema_version: version, ...tables } = JSON.parse(header) as { schema_version: unknown } & Tables;
  if (version !== SCHEMA_VERSION) return { pieces: null, problem: "has an unknown schema_version" };
  return { pieces, tables, problem: null };
}

/** Seals and replaces the index atomically (readers see the old or the new one, never half). */
async function writeIndex(options: HistoryIndexOptions, pieces: Pieces, tables: Tables): Promise<void> {
  const key = await loadOrCreateMacKey(stateLayout(options.stateDir).cacheKey);
  // The header holds the tables: one JSON text, like every piece free of raw tabs and newlines.
  const header = JSON.stringify({ schema_version: SCHEMA_VERSION, ...tables });
  await mkdir(join(stateLayout(options.stateDir).runs, RUNS_NAMES.index), { recursive: true, mode: 0o700 });
  await replaceFile(indexPath(options.stateDir), sealEntry(key, MAC_LABEL, pieces.bytes(header)), {
    mode: 0o600,
    // Rebuilt from the chain whenever it is missing or stale: a power cut may lose it, a kill never tears it.
    survives: "crash",
  });
}

/** An index entry with its pooling key, signer and cases written out: what verify compares with a record. */
export type IndexedSummary = Omit<RunSummary, "pooling" | "cases"> & {
  readonly pooling: Tables["pooling"][number] | undefined;
  readonly cases: Tables["cases"][number] | undefined;
};

/** The stored index as it stands: neither rebuilt, extended nor written (what `evalgate verify` reads). */
export interface StoredHistoryIndex {
  readonly path: string;
  /** Whether there is an index file at all (none: the next view builds it). */
  readonly present: boolean;
  /** Why the stored index cannot be used (its MAC line, its MAC, its version), or null. */
  readonly problem: string | null;
  readonly length: number;
  /** The record file entry `index` names, read without parsing the entry. */
  fileAt(index: number): string;
  summaryAt(index: number): IndexedSummary;
}

/** The index in `<stateDir>/runs` as stored, for a comparison with the chain (readHistory is what views call). */
export async function readStoredHistoryIndex(stateDir: string): Promise<StoredHistoryIndex> {
  const path = indexPath(stateDir);
  const stored = await storedPieces({ stateDir, onWarning: () => undefined });
  const pieces = stored.pieces ?? new Pieces();
  const tables = stored.tables ?? { pooling: [], cases: [] };
  return {
    path,
    present: stored.pieces !== null || stored.problem !== null,
    problem: stored.problem,
    length: pieces.length,
    fileAt: (index) => pieces.fileAt(index),
    summaryAt: (index) => written(JSON.parse(pieces.at(index)) as RunSummary, tables),
  };
}

/** What the index should hold for the record in `file`, as `readStoredHistoryIndex` gives an entry. */
export function expectedSummary(read: ReadRecord, file: string): IndexedSummary {
  const interner = new Interner({ pooling: [], cases: [] });
  return written(summaryOf(read, file, interner), interner.tables);
}

function written(summary: RunSummary, tables: Tables): IndexedSummary {
  return { ...summary, pooling: tables.pooling[summary.pooling], cases: tables.cases[summary.cases] };
}
