// The CI views of a run just recorded (`run` and `merge` --junit / --summary-md): built from the report the
// caller holds, with no second walk of the chain and no second load of a task class it already has.
import { verifyChain } from "@eval/audit-chain";
import type { VerifyResult } from "@eval/audit-chain";
import type { WarningSink } from "@eval/errors";
import type { AnyBenchRunReport, PromotionVerdict } from "@eval/models";
import { tierVerdicts } from "@eval/promotion";
import type { JudgedTaskClass } from "@eval/promotion";
import type { ReportCase, ReportRun } from "@eval/reports";
import { reportCases, reportRunOf } from "./gather.ts";
import { taskClassForVerdicts } from "./task-class.ts";
import { stateLayout } from "@eval/state-layout";

export interface RecordedRunViewsInput {
  readonly stateDir: string;
  readonly tiersPath: string;
  readonly report: AnyBenchRunReport;
  /** The chain as the caller verified it after its append; null: verified here. */
  readonly chain: VerifyResult | null;
  /** The task class the run loaded, or where to load it from (a merge has none loaded). */
  readonly taskClass: JudgedTaskClass | { readonly benchRoot: string };
  /** Verdicts are needed for a summary only: false skips them (and their warnings). */
  readonly withVerdicts: boolean;
  readonly onWarning: WarningSink;
}

export interface RecordedRunViews {
  readonly run: ReportRun;
  readonly cases: readonly ReportCase[];
  readonly verdicts: readonly PromotionVerdict[];
}

export async function recordedRunViews(input: RecordedRunViewsInput): Promise<RecordedRunViews> {
  const { report, stateDir } = input;
  const views = { run: reportRunOf(report), cases: reportCases(report, stateDir, null) };
  if (!input.withVerdicts) return { ...views, verdicts: [] };
  const runsDir = stateLayout(stateDir).runs;
  const chain = input.chain ?? (await verifyChain({ runsDir }));
  const taskClass =
    "benchRoot" in input.taskClass
      ? await taskClassForVerdicts(report.task_class, input.taskClass.benchRoot, input.onWarning)
      : input.taskClass;
  const { verdicts } = await tierVerdicts({
    tiersPath: input.tiersPath,
    runsDir,
    report,
    taskClass,
    chainVerified: chain.ok,
    onWarning: input.onWarning,
  });
  return { ...views, verdicts };
}
