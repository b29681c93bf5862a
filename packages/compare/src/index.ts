export { compareRuns, regressionBeyondMargin } from "./compare-runs.ts";
export type { CompareRunsOptions } from "./compare-runs.ts";
export { writeComparison } from "./write-comparison.ts";
