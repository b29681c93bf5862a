// A task class's evidence catalog, `<runs>/.index/catalog.<task class>.json`: what a verdict lists of each of the
// task class's records (run id, file, pooling key and signer, cases, place in the chain; each distinct key and
// case list stored once) and the figures of its newest evidence runs for the trend. A view of a 100,000-record
// history reads this file (about 150 bytes a record, one row parsed at a time) instead of the history index
// (about 600 bytes a record, every task class). Derived state like the index: sealed under the state's MAC key,
// used only when it stands at the chain's head just verified (a chain hash commits to every record before it),
// else brought there from the history index: extended by the records after it, or rebuilt when it is not a
// prefix of the chain (warned as `history.catalog_rebuilt` when it was edited, truncated or replaced).
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ChainTampered, isRun, readRecordFile, verifyHeadRecord } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry, verifyEntry } from "@eval/cache";
import type { WarningSink } from "@eval/errors";
import type { ChainRecord } from "@eval/models";
import type { CatalogRun, EvidenceCatalog } from "@eval/promotion";
import type { TrendPoint } from "@eval/reports";
import { replaceFile } from "@eval/durable-fs";
import { stateLayout, taskClassCatalogPath } from "@eval/state-layout";
import { Pieces } from "./history-index.ts";
import type { History } from "./history-index.ts";

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
  const text = extended(prefix, history, options.taskClass);
  const built = Pieces.split(Buffer.from(text));
  await writeCatalog(options.stateDir, path, text).catch((error: unknown) => {
    options.onWarning({
      code: "history.catalog_unwritten",
      message: `cannot write the task-class catalog ${path} (${(error as Error).message}): the next view builds it again`,
      details: { path },
    });
  });
  return new TaskClassCatalog(JSON.parse(built.header) as Header, built.pieces);
}

function isPrefix(header: Header, history: History): boolean {
  return (
    header.records <= history.length &&
    (header.records === 0 || history.at(header.records - 1).chain_hash === header.head)
  );
}

/** The stored text of the catalog extended from `prefix` (none: from the first record) to the history's head. */
function extended(prefix: { header: Header; rows: Pieces } | null, history: History, taskClass: string): string {
  const keys = new Interned(prefix?.header.keys ?? []);
  const cases = new Interned(prefix?.header.cases ?? []);
  const trend = [...(prefix?.header.trend ?? [])];
  const rows = prefix?.rows ?? new Pieces();
  for (const summary of history.entries(prefix?.header.records ?? 0)) {
    if (summary.task_class !== taskClass) continue;
    const { key, signer, cases: refs } = history.evidenceOf(summary);
    const row: Row = [
      summary.run_id,
      summary.file,
      keys.of({ key, signer }),
      cases.of(refs),
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
    task_class: taskClass,
    records: history.length,
    head: history.head!,
    keys: keys.values,
    cases: cases.values,
    trend: trend.slice(-TREND_POINTS),
  };
  return rows.text(JSON.stringify(header));
}

/** Values stored once each, looked up by their JSON text. */
class Interned<T> {
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
async function writeCatalog(stateDir: string, path: string, text: string): Promise<void> {
  const key = await loadOrCreateMacKey(stateLayout(stateDir).cacheKey);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Rebuilt from the history index whenever it is missing or stale: a power cut may lose it, a kill never tears it.
  await replaceFile(path, sealEntry(key, MAC_LABEL, text), { mode: 0o600, survives: "crash" });
}
