// The one evidence rule: how a chosen run is judged against a tier, the same for a written verdict
// (`promote-verdict`, `run --with-verdict`) and a previewed one (`report`, `show`, the CI summary).
import type { EvalError } from "@eval/errors";
import type { ChainAnchor, PromotionVerdict, RecordedReport } from "@eval/models";
import { chainCatalog } from "./evidence-catalog.ts";
import type { EvidenceCatalog } from "./evidence-catalog.ts";
import { PromotionGate } from "./gate.ts";
import { poolEvidence } from "./pooled-evidence.ts";
import { checkRecordedFigures } from "./recorded-figures.ts";
import { signedEvidence } from "./signed-evidence.ts";
import type { TierConfig } from "./tier-config.ts";

/** A task class as the gate needs it: its name and its registration's minimums. */
export interface JudgedTaskClass {
  readonly name: string;
  readonly minCasesForPromotion: Readonly<Record<string, number>>;
  readonly minTrials?: number;
}

export interface JudgeRunInput {
  readonly config: TierConfig;
  readonly runsDir: string;
  readonly taskClass: JudgedTaskClass;
  /** The run the verdict is about, as the chain reader upgraded it. */
  readonly report: RecordedReport;
  readonly chainVerified: boolean;
  readonly passedOver?: readonly { readonly run_id: string; readonly reason: string }[];
  readonly targetTier?: string;
  readonly now?: Date;
  /** An anchor kept outside the state directory: its signature is part of the signed-evidence check. */
  readonly anchor?: ChainAnchor;
  /** Where the task class's records are listed (default: the chain itself, every record read). */
  readonly catalog?: EvidenceCatalog;
}

export interface JudgedRun {
  readonly verdict: PromotionVerdict;
  /** Why the report's stored figures cannot be trusted (the verdict says so), or null. */
  readonly tampered: EvalError | null;
}

/** A run's evidence made ready for the gate: recomputed figures, pooled attempts, and whether the stored figures lied. */
export interface ExaminedEvidence {
  readonly report: RecordedReport;
  readonly pool: PromotionVerdict["evidence_pool"] | null;
  readonly tampered: EvalError | null;
  /** Whether the judged SUT's records, the chain's head and the anchor are signed by declared signers. */
  readonly signatures: PromotionVerdict["signatures"];
}

/**
 * Prepares `report` for judging: figures recomputed from its per-case data, never the stored ones, and for a
 * run that recorded its trials every attempt the chain holds for the same SUT on its cases (pooled-evidence.ts);
 * and the signatures on the evidence checked against the tier file's signers (signed-evidence.ts). A run with
 * no bound a gate may read, or that recorded no trials (before v3), is judged on its own attempts, as it was
 * before pooling came with trials.
 */
export async function examineEvidence(
  input: Pick<JudgeRunInput, "runsDir" | "report" | "config" | "taskClass" | "anchor" | "catalog">,
): Promise<ExaminedEvidence> {
  const { runsDir, report } = input;
  const catalog = input.catalog ?? chainCatalog(runsDir);
  const signatures = await signedEvidence(
    runsDir,
    input.config,
    input.taskClass.name,
    report.sut_digest,
    input.anchor,
    catalog,
  );
  if (report.bound_quantity === null || report.unrecorded?.trials)
    return { ...checkRecordedFigures(report), pool: null, signatures };
  const pooled = await poolEvidence(runsDir, report, catalog);
  return { report: pooled.report, pool: pooled.pool, tampered: pooled.tampered, signatures };
}

/** The gate's verdict on examined evidence (pure: nothing is read or written). */
export function verdictOn(
  examined: ExaminedEvidence,
  input: Omit<JudgeRunInput, "runsDir" | "report" | "anchor" | "catalog">,
): PromotionVerdict {
  const { taskClass } = input;
  return new PromotionGate(input.config).evaluate({
    taskClass: taskClass.name,
    report: examined.report,
    minCasesForPromotion: taskClass.minCasesForPromotion,
    ...(taskClass.minTrials === undefined ? {} : { minTrials: taskClass.minTrials }),
    chainVerified: input.chainVerified,
    ...(examined.tampered === null ? {} : { tampered: examined.tampered.message }),
    ...(examined.pool === null ? {} : { evidencePool: examined.pool }),
    ...(examined.signatures === undefined ? {} : { signatures: examined.signatures }),
    ...(input.passedOver === undefined ? {} : { passedOver: input.passedOver }),
    ...(input.targetTier === undefined ? {} : { targetTier: input.targetTier }),
    ...(input.now === undefined ? {} : { now: input.now }),
  });
}

/** Judges `report` against one tier (default: the one above the current tier). */
export async function judgeRun(input: JudgeRunInput): Promise<JudgedRun> {
  const examined = await examineEvidence(input);
  return { verdict: verdictOn(examined, input), tampered: examined.tampered };
}
