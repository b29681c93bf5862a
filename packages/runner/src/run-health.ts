// Whether a recorded run measured anything: a run in which every case failed in the SUT's
// infrastructure or the harness (not on its merits) is evidence of a broken set-up, not of the SUT's
// quality, and must not look like a successful run.
import type { BenchScore } from "@eval/models";
import { AllCasesErrored, RubricBroken } from "./errors.ts";
import { HARNESS_SIDE_FAILURES } from "@eval/models";
import { RUBRIC_FAULTS } from "./trials.ts";

/**
 * The harness-side failure of one score (its code and detail: one of HARNESS_SIDE_FAILURES, the SUT or the
 * harness failed, not the case), or null when it failed (or passed) on its merits.
 */
export function unscoredReason(score: {
  readonly failure_modes: ReadonlyArray<{ readonly code: string; readonly detail?: string | null }>;
}): { code: string; detail: string | null } | null {
  const mode = score.failure_modes.find((m) => HARNESS_SIDE_FAILURES.has(m.code));
  return mode === undefined ? null : { code: mode.code, detail: mode.detail ?? null };
}

/** A reason cut to one short line, for tables and one-line messages. */
export function shortReason(detail: string | null, max = 80): string {
  // A SUT's thrown plain Error is recorded as "Error: <message>": the message is the reason.
  const line = (
    (detail ?? "")
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? ""
  ).replace(/^Error: /, "");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A case's harness-side reason: null when any of its trials (`trials`, or its one `score`) was judged on its merits. */
function caseUnscoredReason(entry: {
  readonly score: BenchScore;
  readonly trials?: readonly BenchScore[];
}): { code: string; detail: string | null } | null {
  const reasons = (entry.trials ?? [entry.score]).map(unscoredReason);
  return reasons.some((reason) => reason === null) ? null : reasons[0]!;
}

/**
 * Throws AllCasesErrored when a run scored at least one case and every one of them failed for a
 * harness-side reason in every trial (the message names how many, the most common code and one case's
 * reason), and RubricBroken when the rubric failed on most units that reached it.
 */
export function assertSomeCaseScored(
  runId: string,
  cases: ReadonlyArray<{
    readonly case_id: string;
    readonly score: BenchScore;
    readonly trials?: readonly BenchScore[];
  }>,
): void {
  if (cases.length === 0) return;
  const reasons = cases.map((c) => ({ caseId: c.case_id, reason: caseUnscoredReason(c) }));
  if (reasons.some((r) => r.reason === null)) return assertRubricAnswered(runId, cases);
  const byCode = new Map<string, number>();
  for (const { reason } of reasons) byCode.set(reason!.code, (byCode.get(reason!.code) ?? 0) + 1);
  const [code] = [...byCode].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
  const example = reasons.find((r) => r.reason!.code === code)!;
  throw new AllCasesErrored(runId, cases.length, code, example.caseId, shortReason(example.reason!.detail, 160));
}

/**
 * Throws RubricBroken when the rubric failed (`rubric.malformed_output`, `rubric.timeout`) on more than
 * half of the units that reached it (every trial counts; units that ended in the SUT never reached it).
 * Why more than half: a correct rubric answers every case, whatever the SUT did; a SUT's output may still
 * provoke a rubric crash on a case, which stays that case's failure (never in the SUT's favour), but past
 * half the units the rubric is what they have in common, and the run's figures say nothing about the SUT.
 */
function assertRubricAnswered(
  runId: string,
  cases: ReadonlyArray<{
    readonly case_id: string;
    readonly score: BenchScore;
    readonly trials?: readonly BenchScore[];
  }>,
): void {
  const units = cases.flatMap((entry) =>
    (entry.trials ?? [entry.score]).map((score) => ({ caseId: entry.case_id, score })),
  );
  const reachedRubric = units.filter(
    ({ score }) => !score.failure_modes.some((mode) => /^(sut|agent|replay)\./.test(mode.code)),
  );
  const faults = reachedRubric.flatMap(({ caseId, score }) => {
    const mode = score.failure_modes.find((m) => RUBRIC_FAULTS.has(m.code));
    return mode === undefined ? [] : [{ caseId, mode }];
  });
  if (faults.length * 2 <= reachedRubric.length) return;
  const [first] = faults;
  throw new RubricBroken(
    runId,
    faults.length,
    reachedRubric.length,
    first!.mode.code,
    first!.caseId,
    shortReason(first!.mode.detail ?? null, 160),
  );
}
