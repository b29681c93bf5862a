// `evalgate runs`: the recorded runs that match a filter, newest first.
import { recordsNewestFirst } from "@eval/audit-chain";
import { matchesRunFilter, runListEntry } from "@eval/reports";
import type { RunListEntry, RunListFilter } from "@eval/reports";
import { stateLayout } from "@eval/state-layout";

/** At most `limit` matching runs from `<stateDir>/runs`, newest first. */
export async function listRecordedRuns(stateDir: string, filter: RunListFilter, limit: number): Promise<RunListEntry[]> {
  const entries: RunListEntry[] = [];
  for await (const { record } of recordsNewestFirst(stateLayout(stateDir).runs, filter.taskClass ?? null)) {
    if (entries.length >= limit) break;
    const entry = runListEntry(record);
    if (matchesRunFilter(entry, filter)) entries.push(entry);
  }
  return entries;
}
