// Turns what a rubric said (or what went wrong) into the BenchScore the harness records.
import { parseWire, BenchScoreSchema } from "@eval/models";
import type { BenchScore, FailureMode, FailureModesFile, ScoreKind } from "@eval/models";

/** The failure modes the harness itself records; all block severity. */
export const HARNESS_FAILURE_CODES = [
  "sut.exception",
  "sut.timeout",
  "sut.workspace_invalid",
  "rubric.malformed_output",
  "rubric.timeout",
  "rubric.unknown_breakdown_key",
  "rubric.unknown_failure_mode",
  "rubric.resource_limit",
  // Declared by the SUT itself (SUT_FAILURE_MODES in @eval/models).
  "agent.budget_exceeded",
  "replay.diverged",
  "agent.infrastructure",
  "sut.resource_limit",
  "agent.resource_limit",
] as const;
export type HarnessFailureCode = (typeof HARNESS_FAILURE_CODES)[number];

export interface Measured {
  /** Harness-measured wall clock of the whole case (SUT + rubric). */
  readonly wallClockMs: number;
  /** What the SUT reported spending (0 when it did not say). */
  readonly costUsd: number;
}

const DETAIL_LIMIT = 4000;
const clip = (text: string): string => (text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT - 1)}…` : text);

/** A case that could not be scored: score 0, not passed, one block-severity failure mode. */
export function harnessFailureScore(code: HarnessFailureCode, detail: string, measured: Measured): BenchScore {
  return parseWire(BenchScoreSchema, {
    passed: false,
    score: 0,
    breakdown: {},
    failure_modes: [{ code, severity: "block", detail: clip(detail) }],
    cost_usd: measured.costUsd,
    wall_clock_ms: Math.max(0, Math.round(measured.wallClockMs)),
  });
}

export interface ScoringContract {
  readonly breakdownKeys: ReadonlySet<string>;
  readonly failureModeTaxonomy: FailureModesFile;
  readonly scoreKind: ScoreKind;
}

/** Why a binary task class's score is not one, or null when it is (score 0 or 1, passed exactly when 1). */
function binaryViolation(score: BenchScore): string | null {
  if (score.score !== 0 && score.score !== 1) return `score_kind is binary: score must be 0 or 1, got ${score.score}`;
  if (score.passed !== (score.score === 1))
    return `score_kind is binary: passed must be true exactly when score is 1, got passed=${score.passed} with score ${score.score}`;
  return null;
}

/**
 * Checks a rubric's score against the task class and records what the harness measured:
 * - breakdown keys outside BREAKDOWN_KEYS are dropped and become one `rubric.unknown_breakdown_key`
 *   (detail: the keys), so a smuggled key such as `llm_confidence` never reaches a report;
 * - each failure code is resolved against failure_modes.yaml, which decides its severity (the
 *   rubric's own severity is not trusted); an unknown code becomes `rubric.unknown_failure_mode`
 *   with the original code in `detail`;
 * - `wall_clock_ms` and `cost_usd` are replaced by the measured values;
 * - any block-severity problem the harness adds makes the case not passed (its score is kept, except
 *   that a binary task class's case then scores 0);
 * - a binary task class's score must be 0 or 1 with passed exactly when it is 1, otherwise the case is
 *   `rubric.malformed_output`.
 */
export function resolveRubricScore(score: BenchScore, contract: ScoringContract, measured: Measured): BenchScore {
  const violation = contract.scoreKind === "binary" ? binaryViolation(score) : null;
  if (violation !== null) return harnessFailureScore("rubric.malformed_output", violation, measured);
  const breakdown: Record<string, number> = {};
  const unknownKeys: string[] = [];
  for (const [key, value] of Object.entries(score.breakdown)) {
    if (contract.breakdownKeys.has(key)) breakdown[key] = value;
    else unknownKeys.push(key);
  }
  const failureModes: FailureMode[] = [];
  let harnessBlock = false;
  for (const mode of score.failure_modes) {
    const known = Object.hasOwn(contract.failureModeTaxonomy, mode.code)
      ? contract.failureModeTaxonomy[mode.code]
      : undefined;
    if (known !== undefined) {
      failureModes.push({ code: mode.code, severity: known.severity, detail: mode.detail });
    } else {
      harnessBlock = true;
      failureModes.push({
        code: "rubric.unknown_failure_mode",
        severity: "block",
        detail: clip(mode.code + (mode.detail === null ? "" : `: ${mode.detail}`)),
      });
    }
  }
  if (unknownKeys.length > 0) {
    harnessBlock = true;
    failureModes.push({
      code: "rubric.unknown_breakdown_key",
      severity: "block",
      detail: clip(unknownKeys.sort().join(", ")),
    });
  }
  const passed = score.passed && !harnessBlock;
  return parseWire(BenchScoreSchema, {
    passed,
    // A binary score stays one: a case the harness fails scores 0, so the pass rate is the mean score.
    score: contract.scoreKind === "binary" && !passed ? 0 : score.score,
    breakdown,
    failure_modes: failureModes,
    cost_usd: measured.costUsd,
    wall_clock_ms: Math.max(0, Math.round(measured.wallClockMs)),
  });
}
