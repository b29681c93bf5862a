// Gathers one recorded run and what surrounds it from the state dir, for `report`, `show` and CI outputs.
import { join } from "node:path";
import { recordsNewestFirst, verifyChain } from "@eval/audit-chain";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { AnyBenchRunReport, CaseResult, ChainRecord } from "@eval/models";
import { REPORT_DATA_SCHEMA_VERSION } from "@eval/reports";
import type { ReportBaseline, ReportData, ReportRun, TrendPoint } from "@eval/reports";
import { reportCaseOf, TranscriptIndex } from "./case-evidence.ts";
import { tierVerdicts } from "./verdicts.ts";

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

const sameRun = (record: ChainRecord, runId: string): boolean => record.report.run_id === runId || record.report.run_id === `partial:${runId}`;

function pickRun(records: readonly ChainRecord[], options: GatherOptions): ChainRecord {
  const candidates = options.taskClass === undefined ? records : records.filter((r) => r.report.task_class === options.taskClass);
  const found = options.runId === undefined ? candidates[0] : candidates.find((r) => sameRun(r, options.runId!));
  if (found !== undefined) return found;
  const what = options.runId === undefined ? `no run${options.taskClass === undefined ? "" : ` of ${options.taskClass}`} is recorded` : `no run ${options.runId}${options.taskClass === undefined ? "" : ` of ${options.taskClass}`} is recorded`;
  throw new EvalError("EVAL_REPORT_NOT_FOUND", `${what} in ${join(options.stateDir, "runs")}`, { hint: "`evalgate show` lists the newest run; run `evalgate run` first, or pass --out <state dir>" });
}

/** Complete runs over the whole task class, oldest first: the evidence a promotion could read. */
function trendOf(records: readonly ChainRecord[], taskClass: string): TrendPoint[] {
  return records
    .filter((r) => r.report.task_class === taskClass && r.report.complete && r.report.schema_version !== "evalgate.bench_run_report.v1" && r.report.selection.scope === "full")
    .map((r) => ({ run_id: r.report.run_id, ended_at: r.report.ended_at, mean_score: r.report.mean_score, lower_bound_95: r.report.lower_bound_95 }))
    .reverse();
}

function baselineOf(report: AnyBenchRunReport, base: AnyBenchRunReport): ReportBaseline {
  const before = new Map(base.per_case.map((entry) => [entry.case_id, entry]));
  const shared = report.per_case.filter((entry) => before.has(entry.case_id));
  const change = (entry: CaseResult): number => entry.score.score - before.get(entry.case_id)!.score.score;
  return {
    run_id: base.run_id,
    mean_score: base.mean_score,
    lower_bound_95: base.lower_bound_95,
    passed_count: base.passed_count,
    case_count: base.case_count,
    newly_passing: shared.filter((entry) => entry.score.passed && !before.get(entry.case_id)!.score.passed).length,
    newly_failing: shared.filter((entry) => !entry.score.passed && before.get(entry.case_id)!.score.passed).length,
    mean_score_change: shared.length === 0 ? 0 : shared.reduce((sum, entry) => sum + change(entry), 0) / shared.length,
    shared_cases: shared.length,
  };
}

/**
 * Everything the report views show about one recorded run: the record and chain state, the verdict per
 * tier, the trend of full runs, each case with its detail and transcript, and an optional baseline.
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
  const baseCases = base === null ? null : new Map(base.per_case.map((entry) => [entry.case_id, entry]));
  const { verdicts, tiers } = await tierVerdicts(report, { tiersPath: options.tiersPath, benchRoot: options.benchRoot, chainVerified: chain.ok, onWarning });
  const transcripts = new TranscriptIndex(join(options.stateDir, "transcripts"));
  const { per_case: perCase, ...run } = report;
  return {
    schema_version: REPORT_DATA_SCHEMA_VERSION,
    generated_at: (options.now ?? new Date()).toISOString(),
    harness_version: options.harnessVersion,
    run: run as ReportRun,
    record: { file: files.get(chosen)!, sequence: chosen.sequence, recorded_at: chosen.recorded_at, content_hash: chosen.content_hash, chain_hash: chosen.chain_hash },
    chain: { head: chain.head, verified: chain.ok, records: chain.records, problem: chain.firstBad === null ? null : `${chain.firstBad.file}: ${chain.firstBad.reason}` },
    verdicts,
    tiers,
    trend: trendOf(records, report.task_class),
    cases: perCase.map((entry) =>
      reportCaseOf(entry, { runsDir, blobsDir: join(options.stateDir, "blobs"), runId: report.run_id, taskClass: report.task_class, transcripts, baseline: baseCases === null ? undefined : (baseCases.get(entry.case_id) ?? null) }),
    ),
    baseline: base === null ? null : baselineOf(report, base),
  };
}
