// A run against its baseline as the report views show it: the figures of both and the cases that changed.
import type { AnyBenchRunReport, CaseResult } from "@eval/models";

export interface BaselineSummary {
  readonly run_id: string;
  readonly mean_score: number;
  readonly lower_bound_95: number;
  readonly passed_count: number;
  readonly case_count: number;
  /** Cases in both runs whose pass/fail changed, each way. */
  readonly newly_passing: number;
  readonly newly_failing: number;
  /** Mean of (score - baseline score) over the cases in both runs; 0 when they share none. */
  readonly mean_score_change: number;
  readonly shared_cases: number;
}

/** `report` against `base`, matched by case id (trial 0's score per case; `evalgate compare` gives the paired bound). */
export function baselineSummary(report: AnyBenchRunReport, base: AnyBenchRunReport): BaselineSummary {
  const baseCases = new Map<string, CaseResult>(base.per_case.map((entry) => [entry.case_id, entry]));
  const shared = report.per_case.flatMap((entry) => {
    const old = baseCases.get(entry.case_id);
    return old === undefined ? [] : [{ now: entry.score, before: old.score }];
  });
  return {
    run_id: base.run_id,
    mean_score: base.mean_score,
    lower_bound_95: base.lower_bound_95,
    passed_count: base.passed_count,
    case_count: base.case_count,
    newly_passing: shared.filter(({ now, before }) => now.passed && !before.passed).length,
    newly_failing: shared.filter(({ now, before }) => !now.passed && before.passed).length,
    mean_score_change:
      shared.length === 0
        ? 0
        : shared.reduce((sum, { now, before }) => sum + now.score - before.score, 0) / shared.length,
    shared_cases: shared.length,
  };
}
