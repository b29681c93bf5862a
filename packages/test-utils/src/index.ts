export { copyGoldenState, GOLDEN_CHAIN_HEAD, goldenRuns } from "./golden.ts";
export type { GoldenCase, GoldenRecord, GoldenReport, GoldenRun } from "./golden.ts";
