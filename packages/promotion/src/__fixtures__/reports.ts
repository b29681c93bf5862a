// This package's report shapes over the shared builder in @eval/test-utils, validated.
import { BenchRunReportSchema, BenchRunReportV1Schema, parseWire } from "@eval/models";
import type { BenchRunReport, BenchRunReportInput, BenchRunReportV1 } from "@eval/models";
import { legacyRunReport, runReport } from "@eval/test-utils";

export interface ReportShape {
  readonly lowerBound: number;
  readonly passed: number;
  readonly heldOut: number;
  readonly ragDerived?: number;
  readonly blockCodes?: readonly string[];
  readonly complete?: boolean;
  readonly isolation?: BenchRunReportInput["isolation_class"];
  readonly taskClass?: string;
  readonly runId?: string;
  /** The task class's size when this run scored a subset of it (default: the run covers it all). */
  readonly subsetOf?: number;
  /** Trials per case (default 1) and the run's pass^k (default passed / cases). */
  readonly trials?: number;
  readonly passHatK?: number;
}

function shaped(shape: ReportShape): BenchRunReportInput {
  const { ragDerived, ...rest } = shape;
  const cases = Math.max(shape.heldOut + (ragDerived ?? 0), shape.passed, 1);
  // An interrupted run here left 3 selected cases unscored.
  return runReport({ ...rest, cases, unfinished: 3, failScore: 0.2, subsetFilter: "0*", chainHead: `sha256:${"e".repeat(64)}` });
}

/** A valid report with the given numbers: `passed` of the cases pass; block codes sit on the first case. */
export function reportWith(shape: ReportShape): BenchRunReport {
  return parseWire(BenchRunReportSchema, shaped(shape));
}

/** The same run as recorded before report v2: a data-dependent bound and no selection. */
export function legacyReportWith(shape: ReportShape): BenchRunReportV1 {
  return parseWire(BenchRunReportV1Schema, legacyRunReport(shaped(shape)));
}
