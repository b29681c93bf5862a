// Step 3 of a run: execute the cache misses in a bounded pool; the cost cap and an outer abort cancel
// what is outstanding.
import { mkdir } from "node:fs/promises";
import { EvalError } from "@eval/errors";
import { RUN_DIR_NAMES, stateLayout } from "@eval/state-layout";
import type { WarningSink } from "@eval/errors";
import { join } from "node:path";
import { executeCase } from "./execute-case.ts";
import type { CaseContext } from "./execute-case.ts";
import { runPool } from "./pool.ts";
import { prepareRubricLauncher } from "./rubric-isolation.ts";
import { sandboxLimits } from "./sandbox-limits.ts";
import type { RubricLauncher } from "./rubric-isolation.ts";
import type { PreparedRun } from "./prepare-run.ts";
import type { RunTally } from "./run-tally.ts";
import { createRunTempRoot } from "./run-temp.ts";
import { RunInterrupted } from "./run-types.ts";
import type { RunEvalOptions, TrialItem } from "./run-types.ts";
import { isCacheable, trialInvocationTag } from "./trials.ts";

/** How execution ended. */
export interface Execution {
  readonly costCapExceeded: boolean;
  readonly cancelled: boolean;
  readonly interrupted: boolean;
  /** A fault outside every case that stopped the run (a cache write, an escaped error), or null. */
  readonly harnessError: string | null;
}

type ExecuteOptions = Pick<RunEvalOptions, "signal" | "sandbox" | "networkIsolation">;

/** The per-run part of every unit's context: one rubric launcher and one cases directory, made on first use. */
function unitContextFactory(
  plan: PreparedRun,
  options: ExecuteOptions,
  cancel: AbortSignal,
  tempRoot: string,
): (item: TrialItem) => CaseContext {
  const { taskClass, runDir, runId } = plan;
  let launcher: Promise<RubricLauncher> | null = null;
  let casesDirReady: Promise<unknown> | null = null;
  const casesDir = (): Promise<unknown> =>
    (casesDirReady ??= mkdir(join(runDir, RUN_DIR_NAMES.cases), { recursive: true }));
  const getLauncher = (): Promise<RubricLauncher> =>
    (launcher ??= prepareRubricLauncher(taskClass, {
      sandbox: options.sandbox ?? "bwrap",
      tempRoot,
      ...(options.networkIsolation === undefined ? {} : { networkIsolation: options.networkIsolation }),
      compileCacheDir: join(plan.settings.cacheDir, "node-compile", taskClass.rubricDigest.replace("blake3:", "")),
      resourceLimits: sandboxLimits(taskClass.limits?.rubric),
    }));
  return ({ benchCase, trial, key }) => ({
    taskClass,
    sut: plan.sut,
    launcher: getLauncher,
    cancel,
    timeoutMs: plan.settings.timeoutMs,
    invocationTag: trialInvocationTag(
      `bench:${plan.startedAt.toISOString()}:${taskClass.name}:${benchCase.case_id}`,
      trial,
    ),
    trial,
    runId,
    runDir,
    cacheKey: key,
    casesDir,
    tempRoot,
    blobsDir: stateLayout(plan.settings.stateDir).blobs,
  });
}

/**
 * Executes `misses`, adding each to the tally once its cache entry is on disk. A case starts only while
 * the spend so far is below the cap; past it, outstanding cases are cancelled. Never throws once units
 * started: a failed cache write or an error escaping a case stops the run (outstanding cases are
 * cancelled and awaited) and comes back as `harnessError`, so what finished is still recorded.
 */
export async function executeUnits(
  plan: PreparedRun,
  misses: readonly TrialItem[],
  tally: RunTally,
  options: ExecuteOptions,
): Promise<Execution> {
  const { maxCostUsd, onWarning } = plan.settings;
  const cancel = new AbortController();
  let costCapExceeded = false;
  const stopAtCostCap = (): void => {
    if (costCapExceeded) return;
    costCapExceeded = true;
    onWarning({
      code: "run.cost_cap",
      message: `spent $${tally.costUsd.toFixed(4)} of the cap of $${maxCostUsd}: no further case starts, outstanding cases are cancelled`,
      details: { costUsd: tally.costUsd, maxCostUsd },
    });
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
  let harnessError: string | null = null;
  const stopOnError = (error: unknown): void => {
    if (harnessError !== null) return;
    harnessError = describeFault(error);
    onWarning({
      code: "run.harness_error",
      message: `${harnessError}: no further case starts; the cases that finished are recorded as an incomplete run`,
      details: { error: harnessError },
    });
    cancel.abort(new Error(harnessError));
  };
  const runUnit = async (item: TrialItem): Promise<void> => {
    // The cap is checked before a case starts: once the spend so far has reached it, nothing new is paid for.
    if (tally.costUsd >= maxCostUsd) return stopAtCostCap();
    const started = performance.now();
    const executed = await executeCase(item.benchCase, contextOf(item)).catch(
      (error: unknown) => void stopOnError(error),
    );
    if (executed === null || executed === undefined) return; // cancelled, or stopped the run
    tally.executed(performance.now() - started, executed.score.cost_usd);
    if (tally.costUsd > maxCostUsd) stopAtCostCap();
    // Anything the rubric got wrong (or the harness around it) is not the case's result: the next run scores
    // it again. A SUT's crash or timeout is its attempt, cached like any other.
    const stored = isCacheable(executed.score) ? plan.cache.put(item.key, executed.score) : Promise.resolve();
    const done = (): void => {
      // A case counts as done (result, progress) once its cache entry is on disk.
      tally.add({
        case_id: item.benchCase.case_id,
        trial: item.trial,
        cacheKey: item.key,
        cacheHit: false,
        score: executed.score,
        detailPath: executed.detailPath,
        ...(executed.metered === null ? {} : { metered: executed.metered }),
      });
      tally.emitProgress();
    };
    cacheWrites.push(
      stored.then(done, (error: unknown) =>
        stopOnError(
          new EvalError(
            "EVAL_IO",
            `cannot write the score cache entry of ${item.benchCase.case_id}: ${describeFault(error)}`,
            { cause: error },
          ),
        ),
      ),
    );
  };
  try {
    await runPool(misses, plan.settings.concurrency, runUnit, () => cancel.signal.aborted);
    await Promise.all(cacheWrites);
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
    removeTempRoot(tempRoot.path, tempRoot.remove, onWarning);
  }
  const cancelled = cancel.signal.aborted && !costCapExceeded && harnessError === null;
  return {
    costCapExceeded,
    cancelled,
    interrupted: cancelled && options.signal?.reason instanceof RunInterrupted,
    harnessError,
  };
}

/** One line for a fault: an EvalError's message, a system error's message (it names the syscall and path). */
function describeFault(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The run's temp dir is removed at the end; a failure (a process still writing into it) is left to `evalgate gc`. */
function removeTempRoot(path: string, remove: () => void, onWarning: WarningSink): void {
  try {
    remove();
  } catch (error) {
    onWarning({
      code: "run.temp_left",
      message: `could not remove the run's temp dir ${path} (${describeFault(error)}): \`evalgate gc\` removes it once this process is gone`,
      details: { path },
    });
  }
}
