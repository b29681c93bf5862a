export { clopperPearsonLowerBound, fixedBetLowerBound } from "./bounds.ts";
export { caseGateStatistics, caseLevelScores, legacyBettingBounds, runStatistics, seededRandom } from "./statistics.ts";
export type { RunStatistics } from "./statistics.ts";
export { mcnemarExact, pairedLowerBound } from "./paired.ts";
export { passHatK, reliability } from "./reliability.ts";
export type { Reliability } from "./reliability.ts";
