export { compareRuns, regressionBeyondMargin } from "./compare-runs.ts";
export type { CompareRunsOptions } from "./compare-runs.ts";
export { writeComparison } from "./write-comparison.ts";
export { baselineSummary } from "./baseline.ts";
export type { BaselineSummary } from "./baseline.ts";
