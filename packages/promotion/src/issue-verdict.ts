import { ChainTampered, runIdOfRecordFile, verifyAgainstAnchor } from "@eval/audit-chain";
import type { VerifyResult } from "@eval/audit-chain";
import type { EvalError } from "@eval/errors";
import type { ChainAnchor, PromotionVerdict } from "@eval/models";
import type { EvidenceCatalog } from "./evidence-catalog.ts";
import { chooseEvidence } from "./evidence.ts";
import { judgeRun } from "./judge.ts";
import type { JudgedTaskClass } from "./judge.ts";
import type { TierConfig } from "./tier-config.ts";
import { writeVerdict } from "./write-verdict.ts";

export interface IssueVerdictOptions {
  readonly config: TierConfig;
  readonly runsDir: string;
  /** Where the verdict is written (`<state>/recommendations`). */
  readonly recommendationsDir: string;
  /** The task class's name and its registration's min_cases_for_promotion. */
  readonly taskClass: JudgedTaskClass;
  /** The run to judge; default the newest complete run over the whole task class. */
  readonly runId?: string;
  /** A record file of the chain: judges the chained run it names (instead of `runId`; never the file's content). */
  readonly recordFile?: string;
  readonly targetTier?: string;
  readonly now?: Date;
  /** An anchor kept outside the state directory: the chain must extend it (verifyAgainstAnchor). */
  readonly anchor?: ChainAnchor;
  /** The chain as the caller just verified it (`run --with-verdict`: the run's own check): not walked again. */
  readonly verified?: VerifyResult;
  /** Where the task class's records are listed (default: the chain itself, every record read). */
  readonly catalog?: EvidenceCatalog;
}

export interface IssuedVerdict {
  readonly verdict: PromotionVerdict;
  readonly path: string;
  /** The chain as verified for this verdict: a caller reports a tampered chain (the verdict already says so). */
  readonly chain: VerifyResult;
  /** The error a caller reports when the chain did not verify or a record's figures were forged (exit 5), else null. */
  readonly tampered: EvalError | null;
}

/**
 * The whole read-only verdict step: choose the evidence from the audit chain (verifying it), evaluate
 * it against the target tier, and write the verdict under `recommendationsDir`. Never changes a tier.
 * A chain that does not verify still gets its verdict (which says so); `tampered` is then the error to report.
 */
export async function issueVerdict(options: IssueVerdictOptions): Promise<IssuedVerdict> {
  const runId = options.recordFile === undefined ? options.runId : await runIdOfRecordFile(options.recordFile);
  const verified =
    options.anchor === undefined ? options.verified : await verifyAgainstAnchor(options.runsDir, options.anchor);
  const evidence = await chooseEvidence({
    runsDir: options.runsDir,
    taskClass: options.taskClass.name,
    ...(runId === undefined ? {} : { runId }),
    ...(verified === undefined ? {} : { verified }),
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
  });
  const input = {
    config: options.config,
    runsDir: options.runsDir,
    taskClass: options.taskClass,
    report: evidence.report,
    chainVerified: evidence.chainVerified,
    ...(options.anchor === undefined ? {} : { anchor: options.anchor }),
    passedOver: evidence.passedOver,
    ...(options.targetTier === undefined ? {} : { targetTier: options.targetTier }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
  const { verdict, tampered } = await judgeRun({
    ...input,
    ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
  }).catch(async (error: unknown) => {
    // A record the index led to was edited after the checkpoint vouched for the chain: judged as a tampered
    // chain (an insufficient verdict, written), with that record named as the error to report.
    if (!(error instanceof ChainTampered) || options.catalog === undefined) throw error;
    return { verdict: (await judgeRun({ ...input, chainVerified: false })).verdict, tampered: error };
  });
  const path = await writeVerdict(verdict, options.recommendationsDir);
  const { chain } = evidence;
  return { verdict, path, chain, tampered: chain.ok ? tampered : new ChainTampered(chain.firstBad!, options.runsDir) };
}
