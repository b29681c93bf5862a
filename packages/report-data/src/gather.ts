// Gathers one recorded run and what surrounds it from the state dir, for `report` and `show`.
import { isRun, readRecordFile } from "@eval/audit-chain";
import { baselineSummary } from "@eval/compare";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { AnyBenchRunReport } from "@eval/models";
import { tierVerdicts } from "@eval/promotion";
import { REPORT_DATA_SCHEMA_VERSION } from "@eval/reports";
import type { ReportCase, ReportData, ReportRun, TrendPoint } from "@eval/reports";
import { reportCaseOf, TranscriptIndex } from "./case-evidence.ts";
import type { History } from "./history-index.ts";
import { TREND_POINTS } from "./task-class-catalog.ts";
import type { TaskClassCatalog } from "./task-class-catalog.ts";
import { taskClassForVerdicts } from "./task-class.ts";
import { catalogAt, checkedChain } from "./verified-history.ts";
import type { CheckedChain } from "./verified-history.ts";
import { stateLayout } from "@eval/state-layout";

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

interface PickedRun {
  readonly file: string;
  readonly taskClass: string;
}

/** The run the options name (newest first), from the task class's catalog, or EVAL_REPORT_NOT_FOUND. */
function pickFromCatalog(catalog: TaskClassCatalog, taskClass: string, options: GatherOptions): PickedRun {
  const found = catalog.find(options.runId);
  if (found === undefined) notFound({ ...options, taskClass });
  return { file: found.file, taskClass };
}

/** The run the options name (newest first), from the history index, or EVAL_REPORT_NOT_FOUND. */
function pickRun(history: History, options: GatherOptions): PickedRun {
  for (const summary of history.newestFirst()) {
    if (options.taskClass !== undefined && summary.task_class !== options.taskClass) continue;
    if (options.runId === undefined || isRun(summary, options.runId))
      return { file: summary.file, taskClass: summary.task_class };
  }
  notFound(options);
}

function notFound(options: GatherOptions): never {
  const what =
    options.runId === undefined
      ? `no run${options.taskClass === undefined ? "" : ` of ${options.taskClass}`} is recorded`
      : `no run ${options.runId}${options.taskClass === undefined ? "" : ` of ${options.taskClass}`} is recorded`;
  throw new EvalError("EVAL_REPORT_NOT_FOUND", `${what} in ${stateLayout(options.stateDir).runs}`, {
    hint: "`evalgate show` lists the newest run; run `evalgate run` first, or pass --out <state dir>",
  });
}

/** The newest TREND_POINTS runs of the task class a promotion could read as evidence (promotion's rule), oldest first. */
function trendOf(history: History, taskClass: string): TrendPoint[] {
  const points: TrendPoint[] = [];
  for (const r of history.newestFirst()) {
    if (points.length === TREND_POINTS) break;
    if (r.task_class === taskClass && r.evidence)
      points.push({
        run_id: r.run_id,
        ended_at: r.ended_at,
        mean_score: r.mean_score,
        lower_bound_95: r.lower_bound_95,
        pass_rate: r.pass_rate,
      });
  }
  return points.reverse();
}

/** Each case of `report` with its detail, transcript and (with a baseline) the baseline's score. */
export function reportCases(report: AnyBenchRunReport, stateDir: string, base: AnyBenchRunReport | null): ReportCase[] {
  const baseCases = base === null ? null : new Map(base.per_case.map((entry) => [entry.case_id, entry]));
  const layout = stateLayout(stateDir);
  const transcripts = new TranscriptIndex(layout.transcripts);
  const context = {
    runsDir: layout.runs,
    blobsDir: layout.blobs,
    runId: report.run_id,
    taskClass: report.task_class,
    transcripts,
  };
  return report.per_case.map((entry) =>
    reportCaseOf(entry, {
      ...context,
      baseline: baseCases === null ? undefined : (baseCases.get(entry.case_id) ?? null),
    }),
  );
}

/** A report without its per-case entries (the views read them as `cases`). */
export function reportRunOf(report: AnyBenchRunReport): ReportRun {
  const { per_case: _perCase, ...run } = report;
  return run as ReportRun;
}

/**
 * The run the views show and its task class's catalog. The task class is the one given, else the chain head's
 * (the newest run of any class is the head): its catalog alone then finds the run. A run named without its
 * task class is found in the history index. Without a catalog (the chain did not verify, the index is not at
 * its head) the history index serves alone.
 */
async function chooseRun(
  checked: CheckedChain,
  options: GatherOptions,
  onWarning: WarningSink,
): Promise<{ summary: PickedRun; catalog: TaskClassCatalog | undefined }> {
  const runsDir = stateLayout(options.stateDir).runs;
  const known =
    options.taskClass ??
    (options.runId === undefined && checked.head !== undefined
      ? readRecordFile(runsDir, checked.head.file).report.task_class
      : undefined);
  const catalog = known === undefined ? undefined : await catalogAt(options.stateDir, checked, known, onWarning);
  if (catalog !== undefined) return { summary: pickFromCatalog(catalog, known!, options), catalog };
  const summary = pickRun(await checked.history(), options);
  return { summary, catalog: await catalogAt(options.stateDir, checked, summary.taskClass, onWarning) };
}

/**
 * Everything the report views show about one recorded run: the record and chain state, the verdict per
 * tier, the trend of evidence runs, each case with its detail and transcript, and an optional baseline.
 * Throws EVAL_REPORT_NOT_FOUND when the run (or baseline) is not in the chain.
 */
export async function gatherReportData(options: GatherOptions): Promise<ReportData> {
  const onWarning = options.onWarning ?? ignoreWarnings;
  const runsDir = stateLayout(options.stateDir).runs;
  const checked = await checkedChain(options.stateDir, onWarning);
  const { chain } = checked;
  const { summary, catalog } = await chooseRun(checked, options, onWarning);
  const chosen = readRecordFile(runsDir, summary.file).record;
  const report = chosen.report;
  const baseOptions = { ...options, taskClass: report.task_class, runId: options.baselineRunId };
  const base =
    options.baselineRunId === undefined
      ? null
      : readRecordFile(
          runsDir,
          catalog === undefined
            ? pickRun(await checked.history(), baseOptions).file
            : pickFromCatalog(catalog, report.task_class, baseOptions).file,
        ).record.report;
  const taskClass = await taskClassForVerdicts(report.task_class, options.benchRoot, onWarning);
  const { verdicts, tiers } = await tierVerdicts({
    tiersPath: options.tiersPath,
    runsDir,
    report,
    taskClass,
    chainVerified: chain.ok,
    onWarning,
    ...(catalog === undefined ? {} : { catalog: catalog.evidence(runsDir, checked.head!) }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return {
    schema_version: REPORT_DATA_SCHEMA_VERSION,
    generated_at: (options.now ?? new Date()).toISOString(),
    harness_version: options.harnessVersion,
    run: reportRunOf(report),
    record: {
      file: summary.file,
      sequence: chosen.sequence,
      recorded_at: chosen.recorded_at,
      content_hash: chosen.content_hash,
      chain_hash: chosen.chain_hash,
    },
    chain: {
      head: chain.head,
      verified: chain.ok,
      records: chain.skipped + chain.records,
      problem: chain.firstBad === null ? null : `${chain.firstBad.file}: ${chain.firstBad.reason}`,
    },
    verdicts,
    tiers,
    trend: catalog === undefined ? trendOf(await checked.history(), report.task_class) : [...catalog.trend],
    cases: reportCases(report, options.stateDir, base),
    baseline: base === null ? null : baselineSummary(report, base),
  };
}
