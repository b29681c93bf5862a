export { caseFilterOf, cassetteCorpusDigest, runEval, RunInterrupted } from "./run-eval.ts";
export { aggregateTrials, HARNESS_SIDE_FAILURES, isHarnessSideFailure, trialCacheKey, trialDetailFile, trialInvocationTag, trialSeedFor } from "./trials.ts";
export type { CaseTrialScores, TrialAggregate } from "./trials.ts";
export { removeAbandonedRunTemps } from "./run-temp.ts";
export { collectGarbage } from "./gc.ts";
export type { GarbageOptions, GarbageResult } from "./gc.ts";
export type { CaseRunResult, RunEvalOptions, RunEvalResult, RunProgress } from "./run-eval.ts";
export { BENCH_INVOCATION_TAG_ENV, canarySeedFor, checkSutOutput, digestOf, moduleSut, SutAborted } from "./sut.ts";
export type { SutFunction } from "./sut.ts";
export { commandSut, resolveProgram } from "./command-sut.ts";
export type { CommandSutOptions } from "./command-sut.ts";
export { dependencyReadPaths, networkNamespaceWrapper, prepareRubricLauncher, rubricIsolationClass, scrubbedRubricEnv } from "./rubric-isolation.ts";
export type { RubricLauncher, RubricLauncherOptions, SandboxMode, RubricLimits, RubricOutcome, RubricProcessReport, RubricRunInput, RubricSource, StreamExcerpt } from "./rubric-isolation.ts";
export { HARNESS_FAILURE_CODES, harnessFailureScore, resolveRubricScore } from "./scoring.ts";
export type { HarnessFailureCode, Measured, ScoringContract } from "./scoring.ts";
export { bettingLowerBound, clopperPearsonLowerBound } from "@eval/statistics";
export { NoCasesSelected } from "./errors.ts";
export {
  bcaLowerBound,
  bcaLowerBoundFromDistribution,
  bootstrapMeans,
  normalCdf,
  normalQuantile,
  runStatistics,
  seededRandom,
  welford,
  wilsonLowerBound,
} from "@eval/statistics";
export type { BcaResult, RunStatistics, WelfordResult } from "@eval/statistics";
export { HARNESS_VERSION } from "./version.ts";
