// What a run has finished so far, and the progress it reports from that.
import type { CaseRunResult, RunEvalOptions } from "./run-types.ts";
import { trialUnitId } from "./trials.ts";

/** The results of a run's units as they finish, with the counts its progress lines show. */
export class RunTally {
  readonly results = new Map<string, CaseRunResult>();
  cacheHits = 0;
  costUsd = 0;
  private executedMs = 0;
  private executedCount = 0;

  private readonly total: number;
  private readonly concurrency: number;
  private readonly options: Pick<RunEvalOptions, "onProgress" | "onCaseResult">;

  constructor(total: number, concurrency: number, options: Pick<RunEvalOptions, "onProgress" | "onCaseResult">) {
    this.total = total;
    this.concurrency = concurrency;
    this.options = options;
  }

  /** A finished unit: kept, and handed to `onCaseResult`. */
  add(result: CaseRunResult): void {
    this.results.set(trialUnitId(result.case_id, result.trial), result);
    if (result.cacheHit) this.cacheHits += 1;
    this.options.onCaseResult?.(result);
  }

  /** An executed unit's wall-clock time and spend (for the ETA and the cost cap). */
  executed(ms: number, costUsd: number): void {
    this.executedMs += ms;
    this.executedCount += 1;
    this.costUsd += costUsd;
  }

  /** Hands the counts so far to `onProgress` (the run's progress line). */
  emitProgress(): void {
    const { results, total } = this;
    this.options.onProgress?.({
      done: results.size,
      total,
      cacheHits: this.cacheHits,
      costUsd: this.costUsd,
      etaMs:
        this.executedCount === 0
          ? null
          : Math.round(((this.executedMs / this.executedCount) * (total - results.size)) / this.concurrency),
    });
  }
}
