export type { AgentAdapter } from "./adapter-contract.ts";
export { ADAPTERS, getAdapter } from "./adapter-registry.ts";
export { checkAdapterReadiness } from "./doctor.ts";
export type { AdapterReadiness, ReadinessCheck } from "./doctor.ts";
export { binaryEnvName, resolveBinary } from "./binary.ts";
export { CliSubscriptionBackend } from "./backend.ts";
export { installationOf } from "./agent-sandbox.ts";
export type { CliSubscriptionBackendOptions, TrialResult } from "./backend.ts";
export { binarySha256, runComplianceCheck, verifyRecentCompliance } from "./compliance.ts";
export { benignSolutions } from "./compliance-tasks.ts";
export { benignSessions } from "./compliance-tasks.ts";
export {
  AgentAdapterInvalid,
  AgentBudgetExceeded,
  AgentInfrastructureFailure,
  AgentResourceLimit,
  AgentTrialFailed,
  CassetteInvalid,
  CliSubscriptionNotOptedIn,
  ComplianceReportFailed,
  ReplayDiverged,
} from "./errors.ts";
export { agentArgsFor } from "./agent-args.ts";
export type { AgentNetworkRecord } from "./agent-network.ts";
export { buildAgentPrompt, promptSha256 } from "./prompt.ts";
export { judgeSession } from "./trial.ts";
export { applyUnifiedDiff } from "./workspace-diff.ts";
export { classificationOf } from "./compliance-failure.ts";
