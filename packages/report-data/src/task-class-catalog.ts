// A task class's evidence catalog, `<runs>/.index/catalog.<task class>.json`: what a verdict lists of each of the
// task class's records (run id, file, pooling key and signer, cases, place in the chain; each distinct key and
// case list stored once) and the figures of its newest evidence runs for the trend. A view of a 100,000-record
// history reads this file (about 150 bytes a record, one row parsed at a time) instead of the history index
// (about 600 bytes a record, every task class). Derived state like the index: sealed under the state's MAC key,
// used only when it stands at the chain's head just verified (a chain hash commits to every record before it),
// else brought there: extended by the records appended after it (read and verified directly when they are few,
// as after a run, so the first view after a run does not read the 60 MB index; else from the history index), or
// rebuilt from the index when it is not a prefix of the chain (warned as `history.catalog_rebuilt` when it was
// edited, truncated or replaced).
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ChainTampered, isRun, listRuns, readRecordFile, verifyChainFrom, verifyHeadRecord } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry, verifyEntry } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import type { ChainRecord } from "@eval/models";
import type { CatalogRun, EvidenceCatalog } from "@eval/promotion";
import type { TrendPoint } from "@eval/reports";
import { replaceFile } from "@eval/durable-fs";
import { stateLayout, taskClassCatalogPath } from "@eval/state-layout";
import { Interned, Pieces, recordSummary } from "./history-index.ts";
import type { History, RunSummary } from "./history-index.ts";

const SCHEMA_VERSION = "evalgate.task_class_catalog.v1";
/** The MAC's label: neither a cache key, the checkpoint's nor the history index's, so no sealed file stands in for another. */
const MAC_LABEL = "evalgate.task_class_catalog";

/**
 * How many runs the trend shows: the chart is 620 pixels wide, and a point per run of a 100,000-run history
 * made a 48 MB page. The newest runs are the ones a reader of one run compares it with.
 */
export const TREND_POINTS = 1000;

/** The chain's head as a caller just verified it: its record count, chain hash and file. */
export interface VerifiedHead {
  readonly records: number;
  readonly head: string;
  readonly file: string;
}

interface Header {
  readonly schema_version: typeof SCHEMA_VERSION;
  readonly task_class: string;
  /** The chain's records the catalog covers (every task class's) and the chain hash of the newest. */
  readonly records: number;
  readonly head: string;
  readonly keys: Pick<CatalogRun, "key" | "signer">[];
  readonly cases: CatalogRun["cases"][];
  /** The newest TREND_POINTS evidence runs (promotion's default rule), oldest first. */
  readonly trend: TrendPoint[];
}

/** One record: [run_id, file, key index, cases index, sequence, chain hash]. */
type Row = readonly [string, string, number, number, number, string];

export interface TaskClassCatalogOptions {
  readonly stateDir: string;
  readonly taskClass: string;
  readonly verified: VerifiedHead;
  readonly onWarning: WarningSink;
  /** The history index at `verified` (read only when the catalog must be brought to the head). */
  readonly history: () => Promise<History>;
}

/** A task class's records as stored, one row parsed when reached. */
export class TaskClassCatalog {
  readonly #header: Header;
  readonly #rows: Pieces;
  constructor(header: Header, rows: Pieces) {
    this.#header = header;
    this.#rows = rows;
  }
  get trend(): readonly TrendPoint[] {
    return this.#header.trend;
  }
  /** The newest run of the task class (the one `runId` names, with or without `partial:`), or undefined. */
  find(runId?: string): { readonly run_id: string; readonly file: string } | undefined {
    for (let index = this.#rows.length - 1; index >= 0; index -= 1) {
      const [id, file] = this.#row(index);
      if (runId === undefined || isRun({ run_id: id }, runId)) return { run_id: id, file };
    }
    return undefined;
  }
  /**
   * The catalog as a verdict lists the records. A record the verdict reads is read from `runsDir` and checked on
   * its own first (bytes, hashes and name, at the sequence and chain hash the catalog gives), so a record edited
   * in place since it was chained fails with ChainTampered instead of being judged.
   */
  evidence(runsDir: string, head: VerifiedHead): EvidenceCatalog {
    let last: Row | undefined;
    const rowOf = (file: string): Row | undefined => {
      if (last?.[1] === file) return last;
      for (let index = 0; index < this.#rows.length; index += 1)
        if (this.#row(index)[1] === file) return this.#row(index);
      return undefined;
    };
    const listed = (taskClass: string, newestFirst: boolean): Generator<CatalogRun> => {
      if (taskClass !== this.#header.task_class)
        throw new Error(`the catalog of ${this.#header.task_class} was asked for ${taskClass}`);
      return this.#runs(newestFirst, (row) => (last = row));
    };
    return {
      head: { file: head.file, records: head.records },
      runs: (taskClass) => listed(taskClass, false),
      newestFirst: (taskClass) => listed(taskClass, true),
      read: async (file) => readChecked(runsDir, file, rowOf(file)),
    };
  }
  *#runs(newestFirst: boolean, reached: (row: Row) => void): Generator<CatalogRun> {
    const count = this.#rows.length;
    for (let step = 0; step < count; step += 1) {
      const row = this.#row(newestFirst ? count - 1 - step : step);
      reached(row);
      const { key, signer } = this.#header.keys[row[2]]!;
      yield { run_id: row[0], file: row[1], key, signer, cases: this.#header.cases[row[3]]! };
    }
  }
  #row(index: number): Row {
    return JSON.parse(this.#rows.at(index)) as Row;
  }
}

/** A record a verdict reads: checked on its own at the place the catalog gives it, then parsed. */
async function readChecked(runsDir: string, file: string, row: Row | undefined): Promise<ChainRecord> {
  const place = { records: (row?.[4] ?? -2) + 1, head: row?.[5] ?? "(not in the catalog)", file };
  const own = await verifyHeadRecord(runsDir, place);
  if (!own.ok) throw new ChainTampered(own.firstBad!, runsDir);
  return readRecordFile(runsDir, file).record;
}

/**
 * The task class's catalog at the verified head: the stored one when it stands there; else brought there from
 * the history index and written back (best effort: `history.catalog_unwritten` when the state directory cannot
 * take it). Undefined when the history index is not at that head either: the verdict then reads the records.
 */
export async function readTaskClassCatalog(options: TaskClassCatalogOptions): Promise<TaskClassCatalog | undefined> {
  const path = taskClassCatalogPath(stateLayout(options.stateDir).runs, options.taskClass);
  const stored = await storedCatalog(options, path);
  const { verified } = options;
  if ("header" in stored && stored.header.records === verified.records && stored.header.head === verified.head)
    return new TaskClassCatalog(stored.header, stored.rows);
  const appended = "header" in stored ? await appendedSince(options, stored.header) : undefined;
  if (appended !== undefined) return saved(options, path, extended(stored as Stored, appended, options, verified));
  const history = await options.history();
  if (history.length !== verified.records || history.head !== verified.head) return undefined;
  const prefix = "header" in stored && isPrefix(stored.header, history) ? stored : null;
  const problem =
    "problem" in stored
      ? stored.problem
      : "header" in stored && prefix === null
        ? "does not match the chain's records (records were removed, renamed or replaced)"
        : null;
  if (problem !== null)
    options.onWarning({
      code: "history.catalog_rebuilt",
      message: `the task-class catalog ${path} ${problem}: rebuilt it from the history index`,
      details: { path },
    });
  const entries = fromHistory(history, prefix?.header.records ?? 0, options.taskClass);
  return saved(options, path, extended(prefix, entries, options, { records: history.length, head: history.head! }));
}

/** The catalog of `body`, written back first (best effort: `history.catalog_unwritten` when it cannot be). */
async function saved(options: TaskClassCatalogOptions, path: string, body: Buffer): Promise<TaskClassCatalog> {
  const built = Pieces.split(body);
  await writeCatalog(options.stateDir, path, body).catch((error: unknown) => {
    options.onWarning({
      code: "history.catalog_unwritten",
      message: `cannot write the task-class catalog ${path} (${(error as Error).message}): the next view builds it again`,
      details: { path },
    });
  });
  return new TaskClassCatalog(JSON.parse(built.header) as Header, built.pieces);
}

/** At most this many records appended since the catalog are read directly; more, and the history index serves. */
const DIRECT_RECORDS = 1000;

/** What the catalog takes of one record: its summary's figures and what a verdict lists of it. */
interface Entry {
  readonly summary: Omit<RunSummary, "pooling" | "cases">;
  readonly run: Pick<CatalogRun, "key" | "signer" | "cases">;
}

/** The task class's entries of the history index from `start`, oldest first. */
function* fromHistory(history: History, start: number, taskClass: string): Generator<Entry> {
  for (const summary of history.entries(start))
    if (summary.task_class === taskClass) yield { summary, run: history.evidenceOf(summary) };
}

/**
 * The task class's records appended after a stored catalog, read from the runs directory: only when they are
 * few, and only when the records after the catalog's head verify as the chain up to the head just verified
 * (each record's hashes and links, from the catalog's head on). Undefined otherwise: the history index serves.
 */
async function appendedSince(options: TaskClassCatalogOptions, header: Header): Promise<Entry[] | undefined> {
  const { verified } = options;
  const count = verified.records - header.records;
  if (header.records === 0 || count <= 0 || count > DIRECT_RECORDS) return undefined;
  const runsDir = stateLayout(options.stateDir).runs;
  const listing = await listRuns(runsDir);
  const names = listing.records;
  const segment = await verifyChainFrom(runsDir, { records: header.records, head: header.head }, { listing });
  if (!segment.ok || names[verified.records - 1] !== verified.file) return undefined;
  const entries: Entry[] = [];
  let last = header.head;
  for (const file of names.slice(header.records, verified.records)) {
    const { summary, run } = recordSummary(readRecordFile(runsDir, file), file);
    // The key's fields in the history index's order (its SUT last), so an equal key is stored once.
    const { sut_digest, ...key } = run.key;
    if (summary.task_class === options.taskClass)
      entries.push({ summary, run: { ...run, key: { ...key, sut_digest } } });
    last = summary.chain_hash;
  }
  return last === verified.head ? entries : undefined;
}

function isPrefix(header: Header, history: History): boolean {
  return (
    header.records <= history.length &&
    (header.records === 0 || history.at(header.records - 1).chain_hash === header.head)
  );
}

type Stored = { header: Header; rows: Pieces };

/** The stored bytes of the catalog extended from `prefix` (none: from the first record) by `entries`, to `head`. */
function extended(
  prefix: Stored | null,
  entries: Iterable<Entry>,
  options: Pick<TaskClassCatalogOptions, "taskClass">,
  head: Pick<VerifiedHead, "records" | "head">,
): Buffer {
  const keys = new Interned(prefix?.header.keys ?? []);
  const cases = new Interned(prefix?.header.cases ?? []);
  const trend = [...(prefix?.header.trend ?? [])];
  const rows = prefix?.rows ?? new Pieces();
  for (const { summary, run } of entries) {
    const row: Row = [
      summary.run_id,
      summary.file,
      keys.of({ key: run.key, signer: run.signer }),
      cases.of(run.cases),
      summary.sequence,
      summary.chain_hash,
    ];
    rows.push(JSON.stringify(row));
    if (summary.evidence) {
      const { run_id, ended_at, mean_score, lower_bound_95, pass_rate } = summary;
      trend.push({ run_id, ended_at, mean_score, lower_bound_95, pass_rate });
    }
  }
  const header: Header = {
    schema_version: SCHEMA_VERSION,
    task_class: options.taskClass,
    records: head.records,
    head: head.head,
    keys: keys.values,
    cases: cases.values,
    trend: trend.slice(-TREND_POINTS),
  };
  return rows.bytes(JSON.stringify(header));
}

/** The stored catalog, nothing (no file), or why a stored one cannot be used. */
async function storedCatalog(
  options: TaskClassCatalogOptions,
  path: string,
): Promise<{ header: Header; rows: Pieces } | { problem: string } | { none: true }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return { none: true };
  }
  const stored = splitEntry(bytes);
  if (stored.kind !== "sealed") return { problem: "has no valid MAC line (edited or truncated)" };
  const key = await loadOrCreateMacKey(stateLayout(options.stateDir).cacheKey);
  if (!verifyEntry(key, MAC_LABEL, stored)) return { problem: "fails its MAC (edited, or sealed with another key)" };
  const { header: text, pieces } = Pieces.split(stored.body);
  const header = JSON.parse(text) as Header;
  if (header.schema_version !== SCHEMA_VERSION) return { problem: "has an unknown schema_version" };
  if (header.task_class !== options.taskClass) return { problem: `is the catalog of ${header.task_class}` };
  return { header, rows: pieces };
}

/** Seals and replaces the catalog atomically (readers see the old or the new one, never half). */
async function writeCatalog(stateDir: string, path: string, body: Buffer): Promise<void> {
  const key = await loadOrCreateMacKey(stateLayout(stateDir).cacheKey);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Rebuilt from the history index whenever it is missing or stale: a power cut may lose it, a kill never tears it.
  await replaceFile(path, sealEntry(key, MAC_LABEL, body), { mode: 0o600, survives: "crash" });
}
