import type { z } from "zod";
import { BenchCaseSchema, CaseTomlSchema, DigestsFileSchema, FailureModesFileSchema } from "./case.ts";
import { PromotionVerdictSchema, PromotionVerdictV2Schema, TrustTiersFileSchema } from "./promotion.ts";
import { ComparisonSchema } from "./comparison.ts";
import { AttestationLineSchema, DsseEnvelopeSchema, RunStatementSchema } from "./attestation.ts";
import {
  BenchRunReportSchema,
  BenchRunReportV1Schema,
  BenchRunReportV2Schema,
  ChainAnchorSchema,
  ChainRecordSchema,
} from "./report.ts";
import { HarnessOutputSchema, RubricRequestSchema, RubricResponseSchema } from "./rubric.ts";
import { BenchScoreSchema, FailureModeSchema } from "./score.ts";
import { CassetteMetaSchema } from "./cassette.ts";
import { BenchCheckResultSchema, FenceFailureSchema, FenceSummarySchema, SignResultSchema } from "./fence.ts";
import { CliBackendMetadataSchema, ComplianceReportSchema, ComplianceTrialSchema } from "./compliance.ts";
import { TranscriptSchema } from "./transcript.ts";
import { CacheEntrySchema, CaseDetailSchema, SutRequestSchema } from "./runner-files.ts";
import { RunPlanSchema, ShardManifestSchema, ShardUnitSchema } from "./scale-out.ts";
import { EvalgateConfigSchema } from "./config-file.ts";
import {
  AdapterLineSchema,
  AdapterReadinessLineSchema,
  AnchorLineSchema,
  BenchCaseLineSchema,
  BenchShowLineSchema,
  BenchTaskClassLineSchema,
  CacheGcLineSchema,
  CacheStatsLineSchema,
  ComparisonLineSchema,
  GcLineSchema,
  MergeLineSchema,
  ModelStubLineSchema,
  ModelStubStoppedLineSchema,
  PlanLineSchema,
  RecordedRunLineSchema,
  ReportCaseLineSchema,
  ReportDataSchema,
  ReportLineSchema,
  RunCaseLineSchema,
  RunSummaryLineSchema,
  ShardLineSchema,
  VerdictLineSchema,
  VerifyLineSchema,
  WarningLineSchema,
} from "./cli-lines.ts";

/**
 * Every document that crosses a process or disk boundary, by the file name of its JSON Schema
 * (`packages/models/schemas/<name>.schema.json`). Adding a wire type: add it here, then run
 * `pnpm schemas`; a test fails when the committed files drift from these schemas.
 */
export const WIRE_SCHEMAS: Readonly<Record<string, z.ZodType>> = Object.freeze({
  "failure-mode": FailureModeSchema,
  "bench-score": BenchScoreSchema,
  "case-toml": CaseTomlSchema,
  "bench-case": BenchCaseSchema,
  "failure-modes-file": FailureModesFileSchema,
  "digests-file": DigestsFileSchema,
  "bench-run-report": BenchRunReportSchema,
  "bench-run-report-v2": BenchRunReportV2Schema,
  comparison: ComparisonSchema,
  "bench-run-report-v1": BenchRunReportV1Schema,
  "chain-record": ChainRecordSchema,
  "chain-anchor": ChainAnchorSchema,
  "trust-tiers-file": TrustTiersFileSchema,
  "promotion-verdict": PromotionVerdictSchema,
  "promotion-verdict-v2": PromotionVerdictV2Schema,
  "harness-output": HarnessOutputSchema,
  "rubric-request": RubricRequestSchema,
  "rubric-response": RubricResponseSchema,
  "cassette-meta": CassetteMetaSchema,
  "fence-failure": FenceFailureSchema,
  "fence-summary": FenceSummarySchema,
  "sign-result": SignResultSchema,
  "bench-check": BenchCheckResultSchema,
  "cache-entry": CacheEntrySchema,
  "case-detail": CaseDetailSchema,
  "sut-request": SutRequestSchema,
  transcript: TranscriptSchema,
  "run-plan": RunPlanSchema,
  "shard-unit": ShardUnitSchema,
  "shard-manifest": ShardManifestSchema,
  "compliance-trial": ComplianceTrialSchema,
  "compliance-report": ComplianceReportSchema,
  "cli-backend-metadata": CliBackendMetadataSchema,
  "evalgate-config": EvalgateConfigSchema,
  // The lines the CLI prints in its machine format (cli-lines.ts).
  "run-case-line": RunCaseLineSchema,
  "run-summary-line": RunSummaryLineSchema,
  "verdict-line": VerdictLineSchema,
  "comparison-line": ComparisonLineSchema,
  "shard-line": ShardLineSchema,
  "plan-line": PlanLineSchema,
  "merge-line": MergeLineSchema,
  "verify-line": VerifyLineSchema,
  "recorded-run-line": RecordedRunLineSchema,
  "report-line": ReportLineSchema,
  "report-data": ReportDataSchema,
  "report-case-line": ReportCaseLineSchema,
  "anchor-line": AnchorLineSchema,
  "gc-line": GcLineSchema,
  "cache-gc-line": CacheGcLineSchema,
  "cache-stats-line": CacheStatsLineSchema,
  "warning-line": WarningLineSchema,
  "attestation-line": AttestationLineSchema,
  "dsse-envelope": DsseEnvelopeSchema,
  "run-statement": RunStatementSchema,
  "bench-task-class-line": BenchTaskClassLineSchema,
  "bench-case-line": BenchCaseLineSchema,
  "bench-show-line": BenchShowLineSchema,
  "adapter-line": AdapterLineSchema,
  "adapter-readiness-line": AdapterReadinessLineSchema,
  "model-stub-line": ModelStubLineSchema,
  "model-stub-stopped-line": ModelStubStoppedLineSchema,
});
