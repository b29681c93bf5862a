export { caseFilterOf, cassetteCorpusDigest, HARNESS_SIDE_FAILURES, runEval, RunInterrupted } from "./run-eval.ts";
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
export { bettingLowerBound, clopperPearsonLowerBound } from "./bounds.ts";
export { AllCasesErrored, NoCasesSelected, StateDirNotADirectory, StateDirReadOnly } from "./errors.ts";
export { assertSomeCaseScored, shortReason, UNSCORED_FAILURE_CODES, unscoredReason } from "./run-health.ts";
export { checkStateDir } from "./state-dir.ts";
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
} from "./statistics.ts";
export type { BcaResult, RunStatistics, WelfordResult } from "./statistics.ts";
export { HARNESS_VERSION } from "./version.ts";
