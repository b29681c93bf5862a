export { deepFreeze, formatIssues, parseWire, safeParseWire } from "./freeze.ts";
export type { DeepReadonly, WireIssue, WireParseResult } from "./freeze.ts";
export {
  Blake3DigestSchema,
  CanaryPinSchema,
  CaseIdSchema,
  FailureModeCodeSchema,
  FiniteNumberSchema,
  SeveritySchema,
  Sha256DigestSchema,
  SignatureSchema,
  TaskClassNameSchema,
  TierNameSchema,
  TimestampSchema,
  UnitIntervalSchema,
  UsdSchema,
} from "./primitives.ts";
export { BenchScoreSchema, FailureModeSchema } from "./score.ts";
export {
  BenchCaseSchema,
  CaseSourceSchema,
  CaseTomlSchema,
  CurationClassSchema,
  DifficultySchema,
  DigestsFileSchema,
  DispositionSchema,
  FailureModesFileSchema,
  SutCaseSchema,
  sutCaseOf,
} from "./case.ts";
export {
  AnyBenchRunReportSchema,
  BenchRunReportSchema,
  BenchRunReportV1Schema,
  BenchRunReportV2Schema,
  BoundQuantitySchema,
  CaseResultSchema,
  CHAIN_ANCHOR_SCHEMA_VERSION,
  CHAIN_RECORD_SCHEMA_VERSION,
  ChainAnchorSchema,
  ChainRecordSchema,
  GENESIS_PREV_HASH,
  InformationalBoundsSchema,
  IsolationClassSchema,
  LowerBoundMethodSchema,
  RUN_REPORT_SCHEMA_VERSION,
  RUN_REPORT_V1_SCHEMA_VERSION,
  RUN_REPORT_V2_SCHEMA_VERSION,
  SANDBOXED_ISOLATION_CLASSES,
  ScoreKindSchema,
  SelectionSchema,
  SutIsolationSchema,
} from "./report.ts";
export { HARNESS_SIDE_FAILURES, isHarnessSideFailure } from "./harness-failures.ts";
export { unrecordedIn, upgradeReport } from "./upgrade.ts";
export { ReliabilitySchema, TrialCaseResultSchema } from "./trials.ts";
export { MeteredUsageSchema, RunMeteredSchema } from "./metered.ts";
export { COMPARISON_SCHEMA_VERSION, ComparisonSchema } from "./comparison.ts";
export {
  PassedOverRunSchema,
  PROMOTION_VERDICT_SCHEMA_VERSION,
  PromotionVerdictSchema,
  EXCLUDED_RUNS_SAMPLE,
  TrustTiersFileSchema,
} from "./promotion.ts";
export {
  HarnessOutputSchema,
  RUBRIC_REQUEST_SCHEMA_VERSION,
  RUBRIC_RESPONSE_SCHEMA_VERSION,
  RubricRequestSchema,
  RubricResponseSchema,
} from "./rubric.ts";
export { AgentAdapterNameSchema, CASSETTE_SCHEMA_VERSION, CassetteMetaSchema } from "./cassette.ts";
export {
  ToolCallStatusSchema,
  TRANSCRIPT_SCHEMA_VERSION,
  TranscriptFormatSchema,
  TranscriptProviderSchema,
  TranscriptSchema,
  TranscriptToolCallSchema,
} from "./transcript.ts";
export {
  CACHE_ENTRY_SCHEMA_VERSION,
  CacheEntrySchema,
  CASE_DETAIL_SCHEMA_VERSION,
  CaseDetailSchema,
  StreamExcerptSchema,
  MAX_CAPTURED_CHANGES,
  SUT_REQUEST_SCHEMA_VERSION,
  SutRequestSchema,
} from "./runner-files.ts";
export {
  BundleFileSchema,
  PlanCaseSchema,
  RUN_PLAN_SCHEMA_VERSION,
  RunPlanSchema,
  SHARD_MANIFEST_SCHEMA_VERSION,
  SHARD_UNIT_SCHEMA_VERSION,
  ShardManifestSchema,
  ShardUnitSchema,
} from "./scale-out.ts";
export type { SutInvocation, SutOutput, SutStreams, SystemUnderTest } from "./sut.ts";
export {
  CliBackendMetadataSchema,
  CliErrorKindSchema,
  COMPLIANCE_REPORT_SCHEMA_VERSION,
  COMPLIANCE_TRIAL_SCHEMA_VERSION,
  ComplianceReportSchema,
  ComplianceTrialSchema,
  EnvNameEntrySchema,
  SafetyDetectionSchema,
  SafetyStateSchema,
  TrialClassificationSchema,
  TrialClassSchema,
} from "./compliance.ts";
export type {
  CliBackendMetadata,
  CliErrorKind,
  ComplianceReport,
  ComplianceTrial,
  EnvNameEntry,
  SafetyDetection,
  SafetyState,
  TrialClass,
  TrialClassification,
} from "./types.ts";
export {
  BenchCheckResultSchema,
  FenceAssertionSchema,
  FenceFailureSchema,
  FenceSummarySchema,
  SignResultSchema,
} from "./fence.ts";
export { WIRE_SCHEMAS } from "./wire-schemas.ts";
export { allJsonSchemas, toJsonSchema } from "./json-schema.ts";
export type {
  Transcript,
  TranscriptFormat,
  TranscriptInput,
  TranscriptProvider,
  TranscriptToolCall,
  AgentAdapterName,
  CacheEntry,
  CaseDetail,
  WorkspaceCapture,
  WorkspaceChange,
  RunPlan,
  ShardManifest,
  ShardUnit,
  SutRequest,
  CassetteMeta,
  BenchCase,
  AnyBenchRunReport,
  RecordedReport,
  UnboundReport,
  Unrecorded,
  BenchRunReport,
  BenchRunReportInput,
  BenchRunReportV1,
  BenchRunReportV2,
  Comparison,
  Reliability,
  TrialCaseResult,
  MeteredUsage,
  RunMetered,
  BoundQuantity,
  BenchScore,
  BenchScoreInput,
  CaseResult,
  CaseToml,
  ChainAnchor,
  ChainRecord,
  DigestsFile,
  FailureMode,
  FailureModeInput,
  FailureModesFile,
  FenceFailure,
  FenceSummary,
  HarnessOutput,
  IsolationClass,
  LowerBoundMethod,
  PromotionVerdict,
  RubricRequest,
  RubricResponse,
  ScoreKind,
  Selection,
  SignResultLine,
  SutCase,
  SutIsolation,
  Severity,
  Signature,
  TrustTiersFile,
} from "./types.ts";
export {
  AGENT_ADAPTER_NAMES,
  BENCH_CHECK_SCHEMA_VERSION,
  FENCE_FAILURE_SCHEMA_VERSION,
  FENCE_SUMMARY_SCHEMA_VERSION,
  SIGN_RESULT_SCHEMA_VERSION,
  SUT_FAILURE_MODES,
  TRANSCRIPT_FORMATS,
  TRANSCRIPT_PROVIDERS,
} from "./names.ts";
export { EvalgateConfigSchema } from "./config-file.ts";
export type { EvalgateConfig } from "./config-file.ts";
export { TaskAgentSchema } from "./task-agent.ts";
export type { TaskAgent } from "./task-agent.ts";
export { TaskLimitsSchema } from "./sandbox-limits.ts";
export type { SandboxLimitOverrides, TaskLimits } from "./sandbox-limits.ts";
export {
  ATTESTATION_LINE_SCHEMA_VERSION,
  DsseEnvelopeSchema,
  IN_TOTO_PAYLOAD_TYPE,
  IN_TOTO_STATEMENT_TYPE,
  RUN_PREDICATE_TYPE,
  RunStatementSchema,
} from "./attestation.ts";
export type { DsseEnvelope, RunPredicate, RunStatement } from "./attestation.ts";
