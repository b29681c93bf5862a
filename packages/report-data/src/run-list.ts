// `evalgate runs`: the recorded runs that match a filter, newest first, read from the history index.
import type { WarningSink } from "@eval/errors";
import { matchesRunFilter } from "@eval/reports";
import type { RunListEntry, RunListFilter } from "@eval/reports";
import { readHistory } from "./history-index.ts";

/** At most `limit` matching runs from `<stateDir>/runs`, newest first. */
export async function listRecordedRuns(
  stateDir: string,
  filter: RunListFilter,
  limit: number,
  onWarning: WarningSink,
): Promise<RunListEntry[]> {
  const entries: RunListEntry[] = [];
  for (const summary of (await readHistory({ stateDir, onWarning })).newestFirst()) {
    if (entries.length >= limit) break;
    const {
      file: _file,
      sequence: _sequence,
      ended_at: _endedAt,
      evidence: _evidence,
      pass_rate: _passRate,
      pooling: _pooling,
      cases: _cases,
      ...entry
    } = summary;
    if (matchesRunFilter(entry, filter)) entries.push(entry);
  }
  return entries;
}
