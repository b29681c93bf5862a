// The verdict for each tier above a task class's current tier, for the report views (never written).
import { existsSync } from "node:fs";
import type { WarningSink } from "@eval/errors";
import type { AnyBenchRunReport, PromotionVerdict } from "@eval/models";
import type { ReportTier } from "@eval/reports";

export interface TierVerdicts {
  readonly verdicts: readonly PromotionVerdict[];
  readonly tiers: readonly ReportTier[];
}

/**
 * Evaluates `report` against every tier above the task class's current one with the promotion gate
 * (pure: nothing is written). Without a readable tier file or task class, returns no verdicts and says why.
 */
export async function tierVerdicts(report: AnyBenchRunReport, options: { tiersPath: string; benchRoot: string; chainVerified: boolean; onWarning: WarningSink }): Promise<TierVerdicts> {
  if (!existsSync(options.tiersPath)) {
    options.onWarning({ code: "report.no_tiers", message: `no trust-tier file at ${options.tiersPath}: the report shows no verdicts`, details: { path: options.tiersPath } });
    return { verdicts: [], tiers: [] };
  }
  const [{ loadTierConfig, PromotionGate }, { loadTaskClass, TaskClassRegistry }] = await Promise.all([import("@eval/promotion"), import("@eval/registry")]);
  const config = await loadTierConfig(options.tiersPath);
  const tiers = config.tiers.map((tier) => ({ name: tier.name, threshold: tier.threshold }));
  const current = config.current[report.task_class];
  let minCasesForPromotion: Readonly<Record<string, number>>;
  try {
    minCasesForPromotion = (await loadTaskClass(report.task_class, { benchRoot: options.benchRoot, registry: new TaskClassRegistry(), onWarning: options.onWarning })).minCasesForPromotion;
  } catch (error) {
    options.onWarning({ code: "report.no_task_class", message: `cannot load task class ${report.task_class} (${(error as Error).message}): the report shows no verdicts`, details: {} });
    return { verdicts: [], tiers };
  }
  if (current === undefined) {
    options.onWarning({ code: "report.no_current_tier", message: `${config.source} names no current tier for ${report.task_class}: the report shows no verdicts`, details: {} });
    return { verdicts: [], tiers };
  }
  const gate = new PromotionGate(config);
  const above = tiers.slice(tiers.findIndex((tier) => tier.name === current) + 1);
  const verdicts = above.map((tier) => gate.evaluate({ taskClass: report.task_class, report, minCasesForPromotion, chainVerified: options.chainVerified, targetTier: tier.name }));
  return { verdicts, tiers };
}
