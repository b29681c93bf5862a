// A verdict for every tier above a task class's current one, previewed (never written): what `report`,
// `show` and a run's CI summary show, judged exactly as `promote-verdict` judges (judge.ts).
import type { WarningSink } from "@eval/errors";
import { upgradeReport } from "@eval/models";
import type { AnyBenchRunReport, PromotionVerdict } from "@eval/models";
import type { EvidenceCatalog } from "./evidence-catalog.ts";
import { PromotionGate } from "./gate.ts";
import { examineEvidence, verdictOn } from "./judge.ts";
import type { JudgedTaskClass } from "./judge.ts";
import { loadTierConfig } from "./tier-config.ts";
import type { TierConfig } from "./tier-config.ts";

export interface TierThreshold {
  readonly name: string;
  readonly threshold: number;
}

export interface TierVerdicts {
  readonly verdicts: readonly PromotionVerdict[];
  /** Every tier of the file, lowest first (for a chart's thresholds); empty without a tier file. */
  readonly tiers: readonly TierThreshold[];
}

export interface TierVerdictsInput {
  readonly tiersPath: string;
  readonly runsDir: string;
  /** The run as the chain recorded it (upgraded here, once). */
  readonly report: AnyBenchRunReport;
  /** The task class's minimums, or the reason it could not be loaded (then no verdict is given). */
  readonly taskClass: JudgedTaskClass | { readonly unavailable: string };
  readonly chainVerified: boolean;
  readonly onWarning: WarningSink;
  readonly now?: Date;
  /** Where the task class's records are listed (default: the chain itself, every record read). */
  readonly catalog?: EvidenceCatalog;
}

/** Loads the tier file and checks it names `taskClass`'s current tier (EVAL_TIER_CONFIG_INVALID otherwise). */
export async function loadTiersFor(path: string, taskClass: string): Promise<TierConfig> {
  const config = await loadTierConfig(path);
  new PromotionGate(config).currentTier(taskClass);
  return config;
}

/**
 * The verdict of `report` for each tier above its task class's current tier. Without a tier file, a
 * loadable task class or a current tier for it, gives no verdict and tells `onWarning` why.
 */
export async function tierVerdicts(input: TierVerdictsInput): Promise<TierVerdicts> {
  const { report, onWarning } = input;
  const config = await loadTierConfig(input.tiersPath, { optional: true });
  if (config === null) {
    onWarning({
      code: "report.no_tiers",
      message: `no trust-tier file at ${input.tiersPath}: the report shows no verdicts`,
      details: { path: input.tiersPath },
    });
    return { verdicts: [], tiers: [] };
  }
  const tiers = config.tiers.map((tier) => ({ name: tier.name, threshold: tier.threshold }));
  if ("unavailable" in input.taskClass) {
    onWarning({
      code: "report.no_task_class",
      message: `cannot load task class ${report.task_class} (${input.taskClass.unavailable}): the report shows no verdicts`,
      details: {},
    });
    return { verdicts: [], tiers };
  }
  const current = config.current[report.task_class];
  if (current === undefined) {
    onWarning({
      code: "report.no_current_tier",
      message: `${config.source} names no current tier for ${report.task_class}: the report shows no verdicts`,
      details: {},
    });
    return { verdicts: [], tiers };
  }
  const above = tiers.slice(tiers.findIndex((tier) => tier.name === current) + 1);
  const { taskClass, chainVerified } = input;
  const examined = await examineEvidence({
    runsDir: input.runsDir,
    report: upgradeReport(report),
    config,
    taskClass,
    ...(input.catalog === undefined ? {} : { catalog: input.catalog }),
  });
  const verdicts = above.map((tier) =>
    verdictOn(examined, {
      config,
      taskClass,
      chainVerified,
      targetTier: tier.name,
      ...(input.now === undefined ? {} : { now: input.now }),
    }),
  );
  return { verdicts, tiers };
}
