import type { z } from "zod";
import type { DeepReadonly } from "./freeze.ts";
import type { RunPlanSchema, ShardManifestSchema, ShardUnitSchema } from "./scale-out.ts";
import type {
  BenchCaseSchema,
  CaseTomlSchema,
  DigestsFileSchema,
  FailureModesFileSchema,
  SutCaseSchema,
} from "./case.ts";
import type { PromotionVerdictSchema, TrustTiersFileSchema } from "./promotion.ts";
import type {
  AnyBenchRunReportSchema,
  BenchRunReportSchema,
  BenchRunReportV1Schema,
  BenchRunReportV2Schema,
  BoundQuantitySchema,
  CaseResultSchema,
  ChainAnchorSchema,
  ChainRecordSchema,
  IsolationClassSchema,
  LowerBoundMethodSchema,
  ScoreKindSchema,
  SelectionSchema,
  SutIsolationSchema,
} from "./report.ts";
import type { ReliabilitySchema, TrialCaseResultSchema } from "./trials.ts";
import type { MeteredUsageSchema, RunMeteredSchema } from "./metered.ts";
import type { ComparisonSchema } from "./comparison.ts";
import type { HarnessOutputSchema, RubricRequestSchema, RubricResponseSchema } from "./rubric.ts";
import type { BenchScoreSchema, FailureModeSchema } from "./score.ts";
import type { SeveritySchema, SignatureSchema } from "./primitives.ts";
import type { FenceFailureSchema, FenceSummarySchema, SignResultSchema } from "./fence.ts";
import type { AgentAdapterNameSchema, CassetteMetaSchema } from "./cassette.ts";
import type {
  CliBackendMetadataSchema,
  CliErrorKindSchema,
  ComplianceReportSchema,
  ComplianceTrialSchema,
  EnvNameEntrySchema,
  SafetyDetectionSchema,
  SafetyStateSchema,
  TrialClassificationSchema,
  TrialClassSchema,
} from "./compliance.ts";
import type {
  TranscriptFormatSchema,
  TranscriptProviderSchema,
  TranscriptSchema,
  TranscriptToolCallSchema,
} from "./transcript.ts";
import type {
  CacheEntrySchema,
  CaseDetailSchema,
  SutRequestSchema,
  WorkspaceCaptureSchema,
  WorkspaceChangeSchema,
} from "./runner-files.ts";

/** Parsed (output) types: deeply readonly, snake_case exactly as on the wire. */
export type Severity = z.output<typeof SeveritySchema>;
export type FailureMode = DeepReadonly<z.output<typeof FailureModeSchema>>;
export type BenchScore = DeepReadonly<z.output<typeof BenchScoreSchema>>;
export type CaseToml = DeepReadonly<z.output<typeof CaseTomlSchema>>;
export type BenchCase = DeepReadonly<z.output<typeof BenchCaseSchema>>;
export type FailureModesFile = DeepReadonly<z.output<typeof FailureModesFileSchema>>;
export type DigestsFile = DeepReadonly<z.output<typeof DigestsFileSchema>>;
export type IsolationClass = z.output<typeof IsolationClassSchema>;
export type LowerBoundMethod = z.output<typeof LowerBoundMethodSchema>;
export type CaseResult = DeepReadonly<z.output<typeof CaseResultSchema>>;
export type BenchRunReport = DeepReadonly<z.output<typeof BenchRunReportSchema>>;
/** A report recorded before v2: verifiable and readable, never promotion evidence. */
export type BenchRunReportV1 = DeepReadonly<z.output<typeof BenchRunReportV1Schema>>;
/** A report recorded before trials per case (v2): readable, still promotion evidence. */
export type BenchRunReportV2 = DeepReadonly<z.output<typeof BenchRunReportV2Schema>>;
export type Reliability = DeepReadonly<z.output<typeof ReliabilitySchema>>;
export type TrialCaseResult = DeepReadonly<z.output<typeof TrialCaseResultSchema>>;
export type MeteredUsage = DeepReadonly<z.output<typeof MeteredUsageSchema>>;
export type RunMetered = DeepReadonly<z.output<typeof RunMeteredSchema>>;
export type Comparison = DeepReadonly<z.output<typeof ComparisonSchema>>;
export type AnyBenchRunReport = DeepReadonly<z.output<typeof AnyBenchRunReportSchema>>;
/**
 * What a report recorded before the current version never kept, set by the upgrade beside the values it filled
 * in (absent on a report that kept everything). A decision on a gap asks for it by name
 * (`report.unrecorded?.trials`), and a message about it names the version the run was recorded as.
 */
export interface Unrecorded {
  /** The (older) version the record was written in. */
  readonly recorded_as: Exclude<AnyBenchRunReport["schema_version"], BenchRunReport["schema_version"]>;
  /**
   * No trials per case: trials_per_case reads 1 and reliability is counted from per_case. Its pass^k is not a
   * recorded figure (nothing to judge or to find forged), and a run judged on it was judged on its own attempts.
   */
  readonly trials: true;
  /**
   * No harness error count: harness_error_count, harness_errored_case_ids and failed_trial_count are counted
   * from per_case by the runner's rules (zero when per_case is left out, as the report views read a run).
   */
  readonly harness_errors: true;
  /** No selection, SUT isolation, score kind or bound valid at small n: they read null (`bound_quantity === null`). */
  readonly bound: boolean;
}

/** A report recorded before v2 in the current shape: it kept no selection, SUT isolation, score kind or valid bound. */
export type UnboundReport = DeepReadonly<
  Omit<
    z.output<typeof BenchRunReportSchema>,
    "sut_isolation" | "selection" | "score_kind" | "bound_quantity" | "lower_bound_method"
  > & {
    sut_isolation: null;
    selection: null;
    score_kind: null;
    /** null: the report holds no bound a gate may read (it never supports a promotion). */
    bound_quantity: null;
    lower_bound_method: z.output<typeof BenchRunReportV1Schema>["lower_bound_method"];
  }
> & { readonly unrecorded: Unrecorded };
/**
 * A recorded report of any version in the current shape: what the chain reader (`@eval/audit-chain`) returns,
 * upgraded once on read. Code past the reader asks what a report holds (`bound_quantity === null`,
 * `unrecorded?.trials`), never which version it was recorded as.
 */
export type RecordedReport = (BenchRunReport & { readonly unrecorded?: Unrecorded }) | UnboundReport;
export type ScoreKind = z.output<typeof ScoreKindSchema>;
export type SutIsolation = z.output<typeof SutIsolationSchema>;
/** A case as a system under test sees it: no path into the bench. */
export type SutCase = DeepReadonly<z.output<typeof SutCaseSchema>>;
export type BoundQuantity = z.output<typeof BoundQuantitySchema>;
export type Selection = DeepReadonly<z.output<typeof SelectionSchema>>;
export type ChainRecord = DeepReadonly<z.output<typeof ChainRecordSchema>>;
export type ChainAnchor = DeepReadonly<z.output<typeof ChainAnchorSchema>>;
export type Signature = DeepReadonly<z.output<typeof SignatureSchema>>;
export type TrustTiersFile = DeepReadonly<z.output<typeof TrustTiersFileSchema>>;
export type PromotionVerdict = DeepReadonly<z.output<typeof PromotionVerdictSchema>>;
export type HarnessOutput = DeepReadonly<z.output<typeof HarnessOutputSchema>>;
export type RubricRequest = DeepReadonly<z.output<typeof RubricRequestSchema>>;
export type RubricResponse = DeepReadonly<z.output<typeof RubricResponseSchema>>;

/** Input types: what a producer may hand to a schema (defaults not yet applied). */
export type FailureModeInput = z.input<typeof FailureModeSchema>;
export type BenchScoreInput = z.input<typeof BenchScoreSchema>;
export type BenchRunReportInput = z.input<typeof BenchRunReportSchema>;
export type AgentAdapterName = z.output<typeof AgentAdapterNameSchema>;
export type CassetteMeta = DeepReadonly<z.output<typeof CassetteMetaSchema>>;
export type CacheEntry = DeepReadonly<z.output<typeof CacheEntrySchema>>;
export type CaseDetail = DeepReadonly<z.output<typeof CaseDetailSchema>>;
export type WorkspaceCapture = DeepReadonly<z.output<typeof WorkspaceCaptureSchema>>;
export type WorkspaceChange = DeepReadonly<z.output<typeof WorkspaceChangeSchema>>;
export type RunPlan = DeepReadonly<z.output<typeof RunPlanSchema>>;
export type ShardUnit = DeepReadonly<z.output<typeof ShardUnitSchema>>;
export type ShardManifest = DeepReadonly<z.output<typeof ShardManifestSchema>>;
export type Transcript = DeepReadonly<z.output<typeof TranscriptSchema>>;
export type TranscriptInput = z.input<typeof TranscriptSchema>;
export type TranscriptToolCall = DeepReadonly<z.output<typeof TranscriptToolCallSchema>>;
export type TranscriptProvider = z.output<typeof TranscriptProviderSchema>;
export type TranscriptFormat = z.output<typeof TranscriptFormatSchema>;
export type TrialClass = z.output<typeof TrialClassSchema>;
export type CliErrorKind = z.output<typeof CliErrorKindSchema>;
export type SafetyState = z.output<typeof SafetyStateSchema>;
export type SafetyDetection = DeepReadonly<z.output<typeof SafetyDetectionSchema>>;
export type TrialClassification = DeepReadonly<z.output<typeof TrialClassificationSchema>>;
export type EnvNameEntry = DeepReadonly<z.output<typeof EnvNameEntrySchema>>;
export type CliBackendMetadata = DeepReadonly<z.output<typeof CliBackendMetadataSchema>>;
export type ComplianceTrial = DeepReadonly<z.output<typeof ComplianceTrialSchema>>;
export type ComplianceReport = DeepReadonly<z.output<typeof ComplianceReportSchema>>;
export type SutRequest = DeepReadonly<z.output<typeof SutRequestSchema>>;
export type FenceFailure = DeepReadonly<z.output<typeof FenceFailureSchema>>;
export type FenceSummary = DeepReadonly<z.output<typeof FenceSummarySchema>>;
export type SignResultLine = DeepReadonly<z.output<typeof SignResultSchema>>;
