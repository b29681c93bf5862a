// Step 2 of a run: the cache probe. Hits become results (with the executing run's detail linked);
// misses are what the pool executes.
import { EvalError } from "@eval/errors";
import { caseDetailFile } from "@eval/state-layout";
import { linkCachedDetail } from "./case-detail.ts";
import { checkRetryMisses, erroredCasesOfLastRun } from "./retry-errors.ts";
import type { PreparedRun } from "./prepare-run.ts";
import type { RunTally } from "./run-tally.ts";
import type { RunEvalOptions, TrialItem } from "./run-types.ts";

/**
 * Probes the cache for every unit of the plan (none with `noCache`), adds each hit to the tally, and
 * returns the misses. With `retryErrors`, the cases that errored in the last run are executed again (their
 * cached failure is not reused: the retry is asked for, and recorded), and the run is refused unless the
 * misses are exactly those cases.
 */
export async function probeCache(
  plan: PreparedRun,
  tally: RunTally,
  options: Pick<RunEvalOptions, "noCache" | "retryErrors">,
): Promise<TrialItem[]> {
  const { runsDir } = plan.settings;
  if (options.retryErrors === true && options.noCache === true)
    throw new EvalError(
      "EVAL_USAGE",
      "--retry-errors takes the cases that did not error from the cache: it cannot be combined with --no-cache",
    );
  const errored =
    options.retryErrors === true
      ? await erroredCasesOfLastRun(runsDir, plan.taskClass.name, plan.sut.digest, plan.sut.label)
      : null;
  const misses: TrialItem[] = [];
  for (const item of plan.items) {
    const { benchCase, key, trial } = item;
    const retried = errored?.caseIds.has(benchCase.case_id) === true;
    const cached = options.noCache === true || retried ? null : await plan.cache.get(key);
    if (cached === null) {
      misses.push(item);
      continue;
    }
    // A hit spends nothing now: the recorded cost is this run's spend.
    const detailPath = linkCachedDetail(runsDir, key, plan.runId, caseDetailFile(benchCase.case_id, trial));
    tally.add({
      case_id: benchCase.case_id,
      trial,
      cacheKey: key,
      cacheHit: true,
      score: { ...cached, cost_usd: 0 },
      detailPath,
    });
  }
  if (errored !== null)
    checkRetryMisses(
      misses.map((item) => item.benchCase.case_id),
      errored,
    );
  return misses;
}
