export type {
  AdapterCapabilities,
  AgentAdapter,
  ArgvOptions,
  AuthStatus,
  BuiltInvocation,
  ClassificationRules,
  ProcessFacts,
  StreamError,
  StreamFacts,
  StreamObserver,
} from "./adapter.ts";
export { classifyTrial, COMMON_REFUSAL_PHRASES, detectSafetyWith, FactsCollector, parseSemver } from "./adapter.ts";
export { ADAPTERS, getAdapter } from "./adapters.ts";
export { checkAdapterReadiness } from "./doctor.ts";
export type { AdapterReadiness, ReadinessCheck, ReadinessOptions } from "./doctor.ts";
export { buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
export { BACKEND_CAPABILITIES, CliSubscriptionBackend, ISOLATION_TAGS } from "./backend.ts";
export { installationOf, prepareAgentSandbox } from "./agent-sandbox.ts";
export type { BackendTask, CliSubscriptionBackendOptions, TrialResult } from "./backend.ts";
export { CASSETTE_FILES, readCassette, writeCassette } from "./cassette-files.ts";
export type { Cassette } from "./cassette-files.ts";
export {
  COMPLIANCE_MAX_AGE_DAYS,
  COMPLIANCE_THRESHOLD,
  findLatestComplianceReport,
  readComplianceReport,
  runComplianceCheck,
  verifyRecentCompliance,
} from "./compliance.ts";
export type {
  ComplianceCheckOptions,
  ComplianceCheckResult,
  ComplianceGateResult,
  ComplianceLookup,
} from "./compliance.ts";
export { BENIGN_TASKS, benignSolutions, suiteSha256 } from "./compliance-tasks.ts";
export type { BenignTask, ExpectedFile } from "./compliance-tasks.ts";
export {
  AgentAdapterInvalid,
  AgentBinaryNotFound,
  AgentTrialFailed,
  CassetteInvalid,
  CliSubscriptionNotOptedIn,
  ComplianceReportFailed,
  ComplianceReportMissing,
  WorkspaceInvalid,
} from "./errors.ts";
export { buildAgentPrompt, promptSha256 } from "./prompt.ts";
export { describeEnv, isSecretEnvName, REDACTED, redactArgv, scrubSecrets } from "./redaction.ts";
export type { WorkspaceSpec } from "./scratch.ts";
export { cassetteDirOf, createLiveSut, createReplaySut } from "./suts.ts";
export type { WireReplayOptions } from "./wire-replay.ts";
export type { LiveSutOptions } from "./suts.ts";
export type { TranscriptLogOptions } from "./transcript-log.ts";
export { checkAuthStatus, executeTrial, judgeSession } from "./trial.ts";
export type { TrialLimits, TrialRun } from "./trial.ts";
export { applyUnifiedDiff, unifiedDiff } from "./workspace-diff.ts";
export type { FileChange } from "./workspace-diff.ts";
export {
  classificationOf,
  complianceFailureHint,
  describeClassification,
  trialsInReportFile,
} from "./compliance-failure.ts";
export type { ComplianceClassification } from "./compliance-failure.ts";
