// Gathers one recorded run and what surrounds it from the state dir, for `report` and `show`.
import { join } from "node:path";
import { isRun, recordsNewestFirst, verifyChain } from "@eval/audit-chain";
import { baselineSummary } from "@eval/compare";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { AnyBenchRunReport, ChainRecord } from "@eval/models";
import { notDefaultEvidence, tierVerdicts } from "@eval/promotion";
import { REPORT_DATA_SCHEMA_VERSION } from "@eval/reports";
import type { ReportCase, ReportData, ReportRun, TrendPoint } from "@eval/reports";
import { reportCaseOf, TranscriptIndex } from "./case-evidence.ts";
import { taskClassForVerdicts } from "./task-class.ts";

export interface GatherOptions {
  readonly stateDir: string;
  readonly benchRoot: string;
  /** The trust-tier file for verdicts and the chart's thresholds; a missing file gives none. */
  readonly tiersPath: string;
  /** Default: the task class of the chosen run. */
  readonly taskClass?: string;
  /** Default: the newest run (of `taskClass` when given). `partial:` may be left off. */
  readonly runId?: string;
  readonly baselineRunId?: string;
  readonly harnessVersion: string;
  readonly onWarning?: WarningSink;
  /** When the data is generated (default now). */
  readonly now?: Date;
}

function pickRun(records: readonly ChainRecord[], options: GatherOptions): ChainRecord {
  const candidates = options.taskClass === undefined ? records : records.filter((r) => r.report.task_class === options.taskClass);
  const found = options.runId === undefined ? candidates[0] : candidates.find((r) => isRun(r.report, options.runId!));
  if (found !== undefined) return found;
  const what = options.runId === undefined ? `no run${options.taskClass === undefined ? "" : ` of ${options.taskClass}`} is recorded` : `no run ${options.runId}${options.taskClass === undefined ? "" : ` of ${options.taskClass}`} is recorded`;
  throw new EvalError("EVAL_REPORT_NOT_FOUND", `${what} in ${join(options.stateDir, "runs")}`, { hint: "`evalgate show` lists the newest run; run `evalgate run` first, or pass --out <state dir>" });
}

/** The runs of the task class a promotion could read as evidence (promotion's rule), oldest first. */
function trendOf(records: readonly ChainRecord[], taskClass: string): TrendPoint[] {
  return records
    .filter((r) => r.report.task_class === taskClass && notDefaultEvidence(r.report) === null)
    .map((r) => ({ run_id: r.report.run_id, ended_at: r.report.ended_at, mean_score: r.report.mean_score, lower_bound_95: r.report.lower_bound_95, pass_rate: r.report.per_case.length === 0 ? 0 : r.report.passed_count / r.report.per_case.length }))
    .reverse();
}

/** Each case of `report` with its detail, transcript and (with a baseline) the baseline's score. */
export function reportCases(report: AnyBenchRunReport, stateDir: string, base: AnyBenchRunReport | null): ReportCase[] {
  const baseCases = base === null ? null : new Map(base.per_case.map((entry) => [entry.case_id, entry]));
  const transcripts = new TranscriptIndex(join(stateDir, "transcripts"));
  const context = { runsDir: join(stateDir, "runs"), blobsDir: join(stateDir, "blobs"), runId: report.run_id, taskClass: report.task_class, transcripts };
  return report.per_case.map((entry) => reportCaseOf(entry, { ...context, baseline: baseCases === null ? undefined : (baseCases.get(entry.case_id) ?? null) }));
}

/** A report without its per-case entries (the views read them as `cases`). */
export function reportRunOf(report: AnyBenchRunReport): ReportRun {
  const { per_case: _perCase, ...run } = report;
  return run as ReportRun;
}

/**
 * Everything the report views show about one recorded run: the record and chain state, the verdict per
 * tier, the trend of evidence runs, each case with its detail and transcript, and an optional baseline.
 * Throws EVAL_REPORT_NOT_FOUND when the run (or baseline) is not in the chain.
 */
export async function gatherReportData(options: GatherOptions): Promise<ReportData> {
  const onWarning = options.onWarning ?? ignoreWarnings;
  const runsDir = join(options.stateDir, "runs");
  const chain = await verifyChain({ runsDir });
  const records: ChainRecord[] = [];
  const files = new Map<ChainRecord, string>();
  for await (const { record, file } of recordsNewestFirst(runsDir, null)) {
    records.push(record);
    files.set(record, file);
  }
  const chosen = pickRun(records, options);
  const report = chosen.report;
  const base = options.baselineRunId === undefined ? null : pickRun(records, { ...options, taskClass: report.task_class, runId: options.baselineRunId }).report;
  const taskClass = await taskClassForVerdicts(report.task_class, options.benchRoot, onWarning);
  const { verdicts, tiers } = await tierVerdicts({ tiersPath: options.tiersPath, runsDir, report, taskClass, chainVerified: chain.ok, onWarning, ...(options.now === undefined ? {} : { now: options.now }) });
  return {
    schema_version: REPORT_DATA_SCHEMA_VERSION,
    generated_at: (options.now ?? new Date()).toISOString(),
    harness_version: options.harnessVersion,
    run: reportRunOf(report),
    record: { file: files.get(chosen)!, sequence: chosen.sequence, recorded_at: chosen.recorded_at, content_hash: chosen.content_hash, chain_hash: chosen.chain_hash },
    chain: { head: chain.head, verified: chain.ok, records: chain.records, problem: chain.firstBad === null ? null : `${chain.firstBad.file}: ${chain.firstBad.reason}` },
    verdicts,
    tiers,
    trend: trendOf(records, report.task_class),
    cases: reportCases(report, options.stateDir, base),
    baseline: base === null ? null : baselineSummary(report, base),
  };
}
