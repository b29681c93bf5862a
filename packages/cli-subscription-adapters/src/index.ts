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
} from "./adapter-contract.ts";
export {
  classifyTrial,
  COMMON_REFUSAL_PHRASES,
  detectSafetyWith,
  FactsCollector,
  parseSemver,
} from "./adapter-contract.ts";
export { ADAPTERS, getAdapter } from "./adapter-registry.ts";
export { checkAdapterReadiness } from "./doctor.ts";
export type { AdapterReadiness, ReadinessCheck, ReadinessOptions } from "./doctor.ts";
export { binaryEnvName, buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
export { BACKEND_CAPABILITIES, CliSubscriptionBackend, ISOLATION_TAGS } from "./backend.ts";
export { installationOf, prepareAgentSandbox } from "./agent-sandbox.ts";
export type { BackendTask, CliSubscriptionBackendOptions, TrialResult } from "./backend.ts";
export {
  binarySha256,
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
export { BENIGN_TASKS, benignSessions, benignSolutions, suiteSha256 } from "./compliance-tasks.ts";
export type { BenignTask, ExpectedFile } from "./compliance-tasks.ts";
export {
  AgentAdapterInvalid,
  AgentBinaryNotFound,
  AgentBudgetExceeded,
  AgentInfrastructureFailure,
  AgentResourceLimit,
  AgentTrialFailed,
  CassetteInvalid,
  CliSubscriptionNotOptedIn,
  ComplianceReportFailed,
  ComplianceReportMissing,
  ReplayDiverged,
  WorkspaceInvalid,
} from "./errors.ts";
export { agentArgsFor } from "./agent-args.ts";
export type { AgentNetworkRecord } from "./agent-network.ts";
export { buildAgentPrompt, promptSha256 } from "./prompt.ts";
export { describeEnv, isSecretEnvName, REDACTED, redactArgv, scrubSecrets } from "./redaction.ts";
export type { WorkspaceSpec } from "./scratch.ts";
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
