// `evalgate run --with-verdict`: the trust tiers checked before the run, the verdict issued after it
// by @eval/promotion on the task class and chain the run itself loaded and verified.
import type { PromotionVerdict } from "@eval/models";
import type { TierConfig } from "@eval/promotion";
import type { RunEvalResult } from "@eval/runner";
import { stateLayout } from "@eval/state-layout";

/**
 * The trust tiers for --with-verdict, checked before anything runs: the file must load and name the
 * task class's current tier, or the verdict after a whole run could not be issued.
 */
export async function loadRunTiers(path: string, taskClassName: string): Promise<TierConfig> {
  const { loadTiersFor } = await import("@eval/promotion");
  return await loadTiersFor(path, taskClassName);
}

/** The read-only verdict on a run (on the chain as the run verified it after its append), written under `<state>/recommendations/`. */
export async function issueRunVerdict(
  config: TierConfig,
  run: RunEvalResult,
  stateDir: string,
): Promise<{ verdict: PromotionVerdict; path: string; tiersFile: string }> {
  const { issueVerdict } = await import("@eval/promotion");
  const { runs, recommendations } = stateLayout(stateDir);
  const { verdict, path } = await issueVerdict({
    config,
    runsDir: runs,
    recommendationsDir: recommendations,
    taskClass: run.taskClass,
    runId: run.report.run_id,
    ...(run.chain === null ? {} : { verified: run.chain }),
  });
  return { verdict, path, tiersFile: config.source };
}
