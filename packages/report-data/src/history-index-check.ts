// `evalgate verify`'s look at the history index: the stored index compared with the chain, entry by entry. The
// index is derived data (views rebuild it from the chain when it is missing, unsealed or not a prefix of the
// records), but a view standing at the verified head reads it as it is: an entry that disagrees with its record
// would be shown as the record. So verify names each one; under --strict it is a failure.
import { isDeepStrictEqual } from "node:util";
import { listRuns, readRecordFile } from "@eval/audit-chain";
import type { ChainTampered } from "@eval/audit-chain";
import { EvalError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import { stateLayout } from "@eval/state-layout";
import { expectedSummary, readStoredHistoryIndex } from "./history-index.ts";
import type { IndexedSummary, StoredHistoryIndex } from "./history-index.ts";

/** Where verify failed: the index file, why, what was expected and found (as the chain walk names a record). */
type ChainFault = ChainTampered["fault"];

/** At most this many disagreements are listed (the count is kept whole). */
const LISTED = 100;

/** One index entry, or one record, on which the index and the chain disagree. */
export interface IndexDisagreement {
  readonly run_id: string;
  /** The record file (the one the entry names, for an entry the chain does not have). */
  readonly file: string;
  /** `summary`: fields differ; `missing`: a record the index skips; `extra`: an entry with no record; `order`. */
  readonly kind: "summary" | "missing" | "extra" | "order";
  readonly detail: string;
}

export interface HistoryIndexCheck {
  readonly path: string;
  /** `absent`: no index (the next view builds it); `agrees`; `unusable`: its MAC or version fails; `disagrees`. */
  readonly state: "absent" | "agrees" | "unusable" | "disagrees";
  readonly entries: number;
  /** Records after the index's newest entry: appended since a view last read it (the next view adds them). */
  readonly behind: number;
  /** Entries whose summary was compared with its record (those of records in the verified window). */
  readonly compared: number;
  readonly problem: string | null;
  readonly disagreements: number;
  /** The first disagreements, in chain order. */
  readonly listed: readonly IndexDisagreement[];
}

export interface HistoryIndexCheckOptions {
  readonly stateDir: string;
  /** The chain positions before this one were not rechecked (`verify --since`): their summaries are not compared. */
  readonly from?: number;
  /** A failure when the index is unusable or disagrees (`verify --strict`); else a warning to `onWarning`. */
  readonly strict: boolean;
  readonly onWarning: WarningSink;
}

/** How to rebuild: the index is derived, so removing it is safe; the next view builds it from the chain. */
const rebuildHint = (path: string): string =>
  `remove ${path}; the next \`evalgate runs\` (or show, report) rebuilds it from the chain`;

/** `verify --strict` on an index that is unusable or disagrees with the chain (exit 5): the fault names the index. */
export class HistoryIndexDisagrees extends EvalError {
  readonly fault: ChainFault;
  constructor(fault: ChainFault, path: string) {
    super("EVAL_HISTORY_INDEX_DISAGREES", `${fault.reason} (the chain itself verifies)`, {
      hint: rebuildHint(path),
      details: { ...fault },
    });
    this.fault = fault;
  }
}

/**
 * Compares the stored history index with the chain in `<stateDir>/runs` (call it once the chain verified). The
 * check and, when the index is unusable or disagrees, under `strict` a fault naming the index (verify fails), else
 * a `verify.history_index` warning with the rebuild hint.
 */
export async function checkHistoryIndex(
  options: HistoryIndexCheckOptions,
): Promise<{ check: HistoryIndexCheck; fault: HistoryIndexDisagrees | null }> {
  const check = await compareIndex(options.stateDir, options.from ?? 0);
  if (check.state === "absent" || check.state === "agrees") return { check, fault: null };
  const first = check.listed[0];
  const what =
    check.state === "unusable"
      ? `the history index ${check.problem}`
      : `the history index disagrees with the chain on ${check.disagreements} entr${check.disagreements === 1 ? "y" : "ies"}, first run ${first!.run_id} (${first!.kind}: ${first!.detail})`;
  if (options.strict)
    return {
      check,
      fault: new HistoryIndexDisagrees(
        {
          file: check.path,
          reason: what,
          expected: "an index that agrees with the chain",
          found: check.state === "unusable" ? check.problem! : `${first!.kind}: ${first!.run_id}`,
        },
        check.path,
      ),
    };
  options.onWarning({
    code: "verify.history_index",
    message: `${what}; the chain itself verifies: ${rebuildHint(check.path)}`,
    details: { path: check.path, disagreements: check.listed },
  });
  return { check, fault: null };
}

async function compareIndex(stateDir: string, from: number): Promise<HistoryIndexCheck> {
  const runsDir = stateLayout(stateDir).runs;
  const index = await readStoredHistoryIndex(stateDir);
  const names = (await listRuns(runsDir)).records;
  const base = { path: index.path, entries: index.length, problem: index.problem };
  if (!index.present)
    return { ...base, state: "absent", behind: names.length, compared: 0, disagreements: 0, listed: [] };
  if (index.problem !== null)
    return { ...base, state: "unusable", behind: 0, compared: 0, disagreements: 0, listed: [] };
  // The chain was just verified: its records are read without the schema check (ten times the read's cost).
  const expected = (file: string): IndexedSummary | string => {
    try {
      return expectedSummary(readRecordFile(runsDir, file, { schema: false }), file);
    } catch (error) {
      // A report the views cannot read either (not the shape of any version): no entry can agree with it.
      return `the record cannot be read as a report (${(error as Error).message}); \`verify --strict\` checks its schema`;
    }
  };
  const found = disagreements(index, names, expected, from);
  return {
    ...base,
    state: found.all.length === 0 ? "agrees" : "disagrees",
    behind: found.behind,
    compared: found.compared,
    disagreements: found.all.length,
    listed: found.all.slice(0, LISTED),
  };
}

/**
 * Every disagreement between the index's entries and the chain's records `names` (in chain order): an entry
 * whose record is not in the chain (extra), a record before the index's newest entry that no entry names
 * (missing), an entry listed after one whose record comes later in the chain (order), and an entry whose
 * summary is not the one its record gives (summary; only for records at chain position `from` or later).
 * Records after the newest entry are `behind`, not missing: views add them on their next read.
 */
function disagreements(
  index: StoredHistoryIndex,
  names: readonly string[],
  expected: (file: string) => IndexedSummary | string,
  from: number,
): { all: IndexDisagreement[]; behind: number; compared: number } {
  const position = new Map(names.map((name, at) => [name, at]));
  const indexed = new Set<number>();
  const all: { at: number; found: IndexDisagreement }[] = [];
  let newest = -1;
  let newestEntry = -1;
  let compared = 0;
  for (let entry = 0; entry < index.length; entry += 1) {
    const file = index.fileAt(entry);
    const at = position.get(file);
    if (at === undefined || indexed.has(at)) {
      const detail = at === undefined ? "the index lists a run the chain has no record of" : "listed twice";
      all.push({ at: at ?? names.length, found: { run_id: runIdOf(index, entry), file, kind: "extra", detail } });
      continue;
    }
    indexed.add(at);
    if (at < newest) {
      const detail = `index entry ${entry} comes after the entry of run ${runIdOf(index, newestEntry)}, which the chain records later`;
      all.push({ at, found: { run_id: runIdOf(index, entry), file, kind: "order", detail } });
    } else [newest, newestEntry] = [at, entry];
    if (at < from) continue;
    compared += 1;
    const record = expected(file);
    const summary = typeof record === "string" ? record : differences(index.summaryAt(entry), record);
    if (summary !== null)
      all.push({ at, found: { run_id: runIdOf(index, entry), file, kind: "summary", detail: summary } });
  }
  for (let at = 0; at < newest; at += 1) {
    if (indexed.has(at)) continue;
    const file = names[at]!;
    const detail = `the record at chain position ${at} has no index entry`;
    const record = expected(file);
    const runId = typeof record === "string" ? "(an unreadable record)" : record.run_id;
    all.push({ at, found: { run_id: runId, file, kind: "missing", detail } });
  }
  all.sort((a, b) => a.at - b.at);
  return { all: all.map((item) => item.found), behind: names.length - 1 - newest, compared };
}

function runIdOf(index: StoredHistoryIndex, entry: number): string {
  const runId = (index.summaryAt(entry) as { run_id?: unknown }).run_id;
  return typeof runId === "string" ? runId : "(no run id)";
}

/** The fields on which an entry and the summary its record gives differ, with both values; null when none. */
function differences(stored: IndexedSummary, expected: IndexedSummary): string | null {
  const fields = [...new Set([...Object.keys(expected), ...Object.keys(stored)])];
  const differing = fields.filter((field) => !isDeepStrictEqual(value(stored, field), value(expected, field)));
  if (differing.length === 0) return null;
  return differing
    .map((field) => `${field}: index ${clip(json(stored, field))}, record ${clip(json(expected, field))}`)
    .join("; ");
}

const value = (summary: IndexedSummary, field: string): unknown =>
  (summary as unknown as Record<string, unknown>)[field];
const json = (summary: IndexedSummary, field: string): string => JSON.stringify(value(summary, field)) ?? "(none)";

const clip = (text: string): string => (text.length <= 80 ? text : `${text.slice(0, 77)}...`);
