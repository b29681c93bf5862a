export { compareRuns, regressionBeyondMargin } from "./compare-runs.ts";
export { writeComparison } from "./write-comparison.ts";
export { baselineSummary } from "./baseline.ts";
