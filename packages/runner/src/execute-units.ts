// Step 3 of a run: execute the cache misses in a bounded pool; the cost cap and an outer abort cancel
// what is outstanding.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { executeCase } from "./execute-case.ts";
import type { CaseContext } from "./execute-case.ts";
import { runPool } from "./pool.ts";
import { prepareRubricLauncher } from "./rubric-isolation.ts";
import type { RubricLauncher } from "./rubric-isolation.ts";
import type { PreparedRun } from "./prepare-run.ts";
import type { RunTally } from "./run-tally.ts";
import { createRunTempRoot } from "./run-temp.ts";
import { RunInterrupted } from "./run-types.ts";
import type { RunEvalOptions, TrialItem } from "./run-types.ts";
import { isHarnessSideFailure, trialInvocationTag } from "./trials.ts";

/** How execution ended. */
export interface Execution {
  readonly costCapExceeded: boolean;
  readonly cancelled: boolean;
  readonly interrupted: boolean;
}

type ExecuteOptions = Pick<RunEvalOptions, "signal" | "sandbox" | "networkIsolation">;

/** The per-run part of every unit's context: one rubric launcher and one cases directory, made on first use. */
function unitContextFactory(plan: PreparedRun, options: ExecuteOptions, cancel: AbortSignal, tempRoot: string): (item: TrialItem) => CaseContext {
  const { taskClass, runDir, runId } = plan;
  let launcher: Promise<RubricLauncher> | null = null;
  let casesDirReady: Promise<unknown> | null = null;
  const casesDir = (): Promise<unknown> => (casesDirReady ??= mkdir(join(runDir, "cases"), { recursive: true }));
  const getLauncher = (): Promise<RubricLauncher> =>
    (launcher ??= prepareRubricLauncher(taskClass, {
      sandbox: options.sandbox ?? "bwrap",
      tempRoot,
      ...(options.networkIsolation === undefined ? {} : { networkIsolation: options.networkIsolation }),
      compileCacheDir: join(plan.settings.cacheDir, "node-compile", taskClass.rubricDigest.replace("blake3:", "")),
    }));
  return ({ benchCase, trial, key }) => ({
    taskClass,
    sut: plan.sut,
    launcher: getLauncher,
    cancel,
    timeoutMs: plan.settings.timeoutMs,
    invocationTag: trialInvocationTag(`bench:${plan.startedAt.toISOString()}:${taskClass.name}:${benchCase.case_id}`, trial),
    trial,
    runId,
    runDir,
    cacheKey: key,
    casesDir,
    tempRoot,
    blobsDir: join(plan.settings.stateDir, "blobs"),
  });
}

/**
 * Executes `misses`, adding each to the tally once its cache entry is on disk. A case starts only while
 * the spend so far is below the cap; past it, outstanding cases are cancelled. A failed cache write
 * stops the pool and is thrown once every started write has settled.
 */
export async function executeUnits(plan: PreparedRun, misses: readonly TrialItem[], tally: RunTally, options: ExecuteOptions): Promise<Execution> {
  const { maxCostUsd, onWarning } = plan.settings;
  const cancel = new AbortController();
  let costCapExceeded = false;
  const stopAtCostCap = (): void => {
    if (costCapExceeded) return;
    costCapExceeded = true;
    onWarning({ code: "run.cost_cap", message: `spent $${tally.costUsd.toFixed(4)} of the cap of $${maxCostUsd}: no further case starts, outstanding cases are cancelled`, details: { costUsd: tally.costUsd, maxCostUsd } });
    cancel.abort(new Error("cost cap"));
  };
  const onOuterAbort = (): void => cancel.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  // Every workspace and rubric cwd of this run lives below one temp dir, removed when execution ends.
  const tempRoot = createRunTempRoot(plan.runId);
  const contextOf = unitContextFactory(plan, options, cancel.signal, tempRoot.path);
  // A case's cache entry is written after its slot is free: the next case's SUT and rubric start
  // while the write (temp file, lock, rename: a few ms of latency) completes. Writes are still atomic
  // and all of them finish before the run is aggregated and appended.
  const cacheWrites: Promise<void>[] = [];
  let cacheWriteError: { error: unknown } | null = null;
  const runUnit = async (item: TrialItem): Promise<void> => {
    // The cap is checked before a case starts: once the spend so far has reached it, nothing new is paid for.
    if (tally.costUsd >= maxCostUsd) return stopAtCostCap();
    const started = performance.now();
    const executed = await executeCase(item.benchCase, contextOf(item));
    if (executed === null) return; // cancelled
    tally.executed(performance.now() - started, executed.score.cost_usd);
    if (tally.costUsd > maxCostUsd) stopAtCostCap();
    // A failure of the harness or its environment is not the case's result: the next run retries it.
    const stored = isHarnessSideFailure(executed.score) ? Promise.resolve() : plan.cache.put(item.key, executed.score);
    const done = (): void => {
      // A case counts as done (result, progress) once its cache entry is on disk.
      tally.add({ case_id: item.benchCase.case_id, trial: item.trial, cacheKey: item.key, cacheHit: false, score: executed.score, detailPath: executed.detailPath });
      tally.report();
    };
    cacheWrites.push(stored.then(done, (error: unknown) => void (cacheWriteError ??= { error })));
  };
  try {
    await runPool(misses, plan.settings.concurrency, runUnit, () => cancel.signal.aborted || cacheWriteError !== null);
    await Promise.all(cacheWrites);
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
    tempRoot.remove();
  }
  if (cacheWriteError !== null) throw (cacheWriteError as { error: unknown }).error;
  const cancelled = cancel.signal.aborted && !costCapExceeded;
  return { costCapExceeded, cancelled, interrupted: cancelled && options.signal?.reason instanceof RunInterrupted };
}
