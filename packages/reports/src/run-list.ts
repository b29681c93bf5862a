import type { ChainRecord, RecordedReport } from "@eval/models";
import { RECORDED_RUN_LINE_SCHEMA_VERSION } from "@eval/models/names";

/** One recorded run as `evalgate runs` lists it. */
export interface RunListEntry {
  readonly type: "recorded_run";
  readonly schema_version: typeof RECORDED_RUN_LINE_SCHEMA_VERSION;
  readonly run_id: string;
  /** When the chain recorded it (UTC, milliseconds). */
  readonly recorded_at: string;
  readonly task_class: string;
  readonly sut_label: string;
  readonly sut_digest: string;
  /** `full` or `subset`; null for v1 reports, which recorded no selection. */
  readonly scope: "full" | "subset" | null;
  readonly case_count: number;
  readonly mean_score: number;
  readonly lower_bound_95: number;
  readonly complete: boolean;
  /** True only when the record carries a signature; records are unsigned until signing exists. */
  readonly signed: boolean;
  readonly chain_hash: string;
}

export interface RunListFilter {
  readonly taskClass?: string;
  /** A SUT label (exactly) or a SUT digest (or a prefix of its hex, at least 8 characters). */
  readonly sut?: string;
  /** true: complete runs only; false: incomplete only. */
  readonly complete?: boolean;
}

/** The list entry of one chain record, read from its report in the current shape (as the chain reader gives it). */
export function runListEntry(record: ChainRecord, report: RecordedReport): RunListEntry {
  return {
    type: "recorded_run",
    schema_version: RECORDED_RUN_LINE_SCHEMA_VERSION,
    run_id: report.run_id,
    recorded_at: record.recorded_at,
    task_class: report.task_class,
    sut_label: report.sut_label,
    sut_digest: report.sut_digest,
    scope: report.selection?.scope ?? null,
    case_count: report.case_count,
    mean_score: report.mean_score,
    lower_bound_95: report.lower_bound_95,
    complete: report.complete,
    signed: "signature" in record && (record as { signature?: unknown }).signature != null,
    chain_hash: record.chain_hash,
  };
}

function matchesSut(entry: RunListEntry, sut: string): boolean {
  if (entry.sut_label === sut) return true;
  const hex = sut.replace(/^blake3:/, "");
  return /^[0-9a-f]{8,64}$/.test(hex) && entry.sut_digest.startsWith(`blake3:${hex}`);
}

export function matchesRunFilter(entry: RunListEntry, filter: RunListFilter): boolean {
  if (filter.taskClass !== undefined && entry.task_class !== filter.taskClass) return false;
  if (filter.sut !== undefined && !matchesSut(entry, filter.sut)) return false;
  return filter.complete === undefined || entry.complete === filter.complete;
}

/** The runs as a table, newest first (the order given). */
export function renderRunListText(entries: readonly RunListEntry[]): string {
  if (entries.length === 0) return "no recorded runs match\n";
  const rows = entries.map((e) => [
    e.run_id,
    e.recorded_at.replace("T", " ").replace(/\.\d{3}Z$/, "Z"),
    e.task_class,
    e.sut_label.length > 40 ? `${e.sut_label.slice(0, 39)}…` : e.sut_label,
    e.sut_digest.slice(0, 19),
    e.scope ?? "-",
    String(e.case_count),
    e.mean_score.toFixed(3),
    e.lower_bound_95.toFixed(3),
    e.complete ? "yes" : "no",
    e.signed ? "signed" : "unsigned",
  ]);
  const header = [
    "run id",
    "recorded",
    "task class",
    "sut",
    "sut digest",
    "scope",
    "cases",
    "mean",
    "bound",
    "complete",
    "signed",
  ];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
