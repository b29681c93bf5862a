export {
  BETTING_TRUNCATION,
  betaQuantile,
  bettingLowerBound,
  clopperPearsonLowerBound,
  compensatedSum,
  fixedBetLowerBound,
  logGamma,
  regularizedBeta,
  studentTLowerBound,
  studentTQuantile,
} from "./bounds.ts";
export type { BettingOptions } from "./bounds.ts";
export {
  bcaLowerBound,
  bcaLowerBoundFromDistribution,
  bootstrapMeans,
  caseGateStatistics,
  caseLevelScores,
  gateLowerBound,
  legacyBettingBounds,
  normalCdf,
  normalQuantile,
  runStatistics,
  seededRandom,
  welford,
  wilsonLowerBound,
} from "./statistics.ts";
export type { BcaResult, GateStatistics, RunStatistics, ScoreKind, WelfordResult } from "./statistics.ts";
export { mcnemarExact, pairedLowerBound } from "./paired.ts";
export type { McNemarResult } from "./paired.ts";
export { passAtK, passHatK, reliability } from "./reliability.ts";
export type { CaseTrials, Reliability } from "./reliability.ts";
