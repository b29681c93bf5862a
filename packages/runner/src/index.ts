export { runEval, scoreRun } from "./run-eval.ts";
export { caseFilterOf, cassetteCorpusDigest } from "./prepare-run.ts";
export { RunInterrupted } from "./run-types.ts";
export { aggregateTrials, trialCacheKey, trialInvocationTag, trialSeedFor, trialUnitId } from "./trials.ts";
export type { CaseTrialScores, TrialAggregate } from "./trials.ts";
export { removeAbandonedRunTemps } from "./run-temp.ts";
export { checkBench } from "./bench-check.ts";
export type { BenchCheckOptions, BenchCheckResult, ControlCheck, ControlExpectation } from "./bench-check.ts";
export { collectGarbage } from "./gc.ts";
export type { GarbageOptions, GarbageResult } from "./gc.ts";
export type { CaseRunResult, RunEvalOptions, RunEvalResult, RunProgress, ScoredRun, SutChooser } from "./run-types.ts";
export { BENCH_INVOCATION_TAG_ENV, canarySeedFor, checkSutOutput, digestOf, moduleSut, SutAborted } from "./sut.ts";
export type { SutFunction } from "./sut.ts";
export { commandSut, resolveProgram } from "./command-sut.ts";
export { defaultSutSpec, parseSutSpec, resolveSutSpec, splitCommand, sutFromSpec } from "./sut-spec.ts";
export type { AgentSutFactory, AgentSutRequest, ParsedSutSpec, SutResolveOptions } from "./sut-spec.ts";
export type { CommandSutOptions } from "./command-sut.ts";
export {
  dependencyReadPaths,
  networkNamespaceWrapper,
  prepareRubricLauncher,
  rubricIsolationClass,
  scrubbedRubricEnv,
} from "./rubric-isolation.ts";
export type {
  RubricLauncher,
  RubricLauncherOptions,
  SandboxMode,
  RubricLimits,
  RubricOutcome,
  RubricProcessReport,
  RubricRunInput,
  RubricSource,
  StreamExcerpt,
} from "./rubric-isolation.ts";
export { HARNESS_FAILURE_CODES, harnessFailureScore, resolveRubricScore } from "./scoring.ts";
export type { HarnessFailureCode, Measured, ScoringContract } from "./scoring.ts";
export { AllCasesErrored, NoCasesSelected } from "./errors.ts";
export { assertSomeCaseScored, shortReason, unscoredReason } from "./run-health.ts";
export { HARNESS_VERSION } from "./version.ts";
export { capturedDiff } from "./workspace-capture.ts";
export { rescoreRun } from "./rescore.ts";
export type { RescoreOptions } from "./rescore.ts";
export { buildRunReport } from "./aggregate.ts";
export type { RunFacts, ScoredCase } from "./aggregate.ts";
export { readCheckpoint, verifyAfterAppend, verifyChainForRun, writeCheckpoint } from "./chain-checkpoint.ts";
export type { ChainCheckpointOptions, Checkpoint, RunChainCheck } from "./chain-checkpoint.ts";
export { readBundle, writeBundle } from "./bundle.ts";
export type { BundleContent, BundleUnit, ReadBundle } from "./bundle.ts";
export { mergeBundles } from "./merge.ts";
export type { MergeOptions, MergeResult } from "./merge.ts";
export { parsePlan, planDifference, planIdOf, planRun } from "./plan.ts";
export type { PlanOptions } from "./plan.ts";
export { parseShard, planUnits, runShard, shardUnits } from "./shard.ts";
export type { PlanUnit, RunShardOptions, ShardResult, ShardSpec } from "./shard.ts";
export { isCachedDetail, readCaseDetail } from "./case-detail.ts";
