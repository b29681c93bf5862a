// Which recorded run a verdict reads, and whether the chain that holds it verifies.
import { isRun, verifyChain } from "@eval/audit-chain";
import type { VerifyResult } from "@eval/audit-chain";
import { upgradeReport } from "@eval/models";
import type { RecordedReport } from "@eval/models";
import { EvalError } from "@eval/errors";
import { chainCatalog } from "./evidence-catalog.ts";
import type { EvidenceCatalog } from "./evidence-catalog.ts";

export interface ChosenEvidence {
  /** The chosen run's report, upgraded on read. */
  readonly report: RecordedReport;
  /** The record's file name in the runs directory. */
  readonly file: string;
  /** Newer runs of the task class that were not chosen, newest first, each with the reason. */
  readonly passedOver: readonly { readonly run_id: string; readonly reason: string }[];
  /** The whole chain, verified now. */
  readonly chain: VerifyResult;
  /** True when the chain verifies (the chosen record is in it by construction). */
  readonly chainVerified: boolean;
}

export interface ChooseEvidenceOptions {
  readonly runsDir: string;
  readonly taskClass: string;
  /** A run id (with or without its `partial:` prefix); default: the newest complete full-scope run. */
  readonly runId?: string;
  /** The chain as the caller just verified it (e.g. a run, from its checkpoint): not walked again. */
  readonly verified?: VerifyResult;
  /** Where the task class's records are listed (default: the chain itself, read newest first). */
  readonly catalog?: EvidenceCatalog;
}

/** Why a run cannot be the default evidence, or null when it can (complete, whole task class): the one rule. */
export function notDefaultEvidence(report: RecordedReport): string | null {
  if (!report.complete) return `incomplete (${report.per_case.length} of ${report.case_count} cases)`;
  if (report.selection?.scope === "subset") {
    return `subset (${report.selection.selected_case_count} of ${report.selection.task_class_case_count} cases, filter ${JSON.stringify(report.selection.filter)})`;
  }
  return null;
}

/**
 * Picks the run a verdict is about, from the audit chain only: the named run, or by default the
 * newest complete run over the whole task class (newer subset or incomplete runs are listed as passed
 * over). Verifies the whole chain, so the verdict can say whether its evidence is intact. Throws
 * EVAL_REPORT_NOT_FOUND when no such run exists.
 */
export async function chooseEvidence(options: ChooseEvidenceOptions): Promise<ChosenEvidence> {
  const chain = options.verified ?? (await verifyChain({ runsDir: options.runsDir }));
  const passedOver: { run_id: string; reason: string }[] = [];
  let chosen: { report: RecordedReport; file: string } | null = null;
  const catalog = options.catalog ?? chainCatalog(options.runsDir);
  for await (const run of catalog.newestFirst(options.taskClass)) {
    if (options.runId !== undefined) {
      if (isRun(run, options.runId)) {
        chosen = { report: upgradeReport((await catalog.read(run.file)).report), file: run.file };
        break;
      }
      continue;
    }
    // Only the record itself says whether it can be the evidence, never the catalog.
    const report = upgradeReport((await catalog.read(run.file)).report);
    const reason = notDefaultEvidence(report);
    if (reason === null) {
      chosen = { report, file: run.file };
      break;
    }
    passedOver.push({ run_id: report.run_id, reason });
  }
  if (chosen === null) {
    const what = options.runId === undefined ? "no complete run of the whole task class" : `no run ${options.runId}`;
    throw new EvalError(
      "EVAL_REPORT_NOT_FOUND",
      `${what} of ${options.taskClass} in ${options.runsDir}${passedOver.length > 0 ? ` (${passedOver.length} subset or incomplete runs passed over)` : ""}`,
      {
        hint:
          options.runId === undefined
            ? `run \`evalgate run --task-class ${options.taskClass}\` without --cases first`
            : `\`evalgate runs --task-class ${options.taskClass}\` lists the recorded run ids`,
      },
    );
  }
  return { ...chosen, passedOver, chain, chainVerified: chain.ok };
}
