import { z } from "zod";
import {
  FailureModeCodeSchema,
  FiniteNumberSchema,
  SeveritySchema,
  UnitIntervalSchema,
  UsdSchema,
} from "./primitives.ts";

/** Evidence of one way a case went wrong. Codes resolve against the task class's failure_modes.yaml. */
export const FailureModeSchema = z.strictObject({
  code: FailureModeCodeSchema,
  severity: SeveritySchema,
  detail: z.string().max(4000).nullable().default(null),
});

/**
 * The score of one case. A rubric produces it; the harness then overwrites `wall_clock_ms` and
 * `cost_usd` with what it measured and what the SUT reported (a rubric's own claims are not trusted).
 * `score` and `passed` may disagree (high partial credit, task not done): both are kept.
 */
export const BenchScoreSchema = z.strictObject({
  passed: z.boolean(),
  score: UnitIntervalSchema,
  /** Keys are checked against the task class's BREAKDOWN_KEYS by the runner. */
  breakdown: z.record(z.string().min(1).max(64), FiniteNumberSchema),
  failure_modes: z.array(FailureModeSchema),
  cost_usd: UsdSchema,
  wall_clock_ms: z.number().int().min(0),
});
