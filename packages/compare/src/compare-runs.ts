// A paired comparison of two recorded runs, read from the audit chain (never from the runner): the same task class
// and case set, per-case differences, the paired lower bound on the improvement, and McNemar for binary classes.
import { findRun, verifyChain } from "@eval/audit-chain";
import { EvalError } from "@eval/errors";
import { COMPARISON_SCHEMA_VERSION, ComparisonSchema, parseWire } from "@eval/models";
import type { RecordedReport, Comparison } from "@eval/models";
import { mcnemarExact, pairedLowerBound } from "@eval/statistics";

export interface CompareRunsOptions {
  /** The chained run log (`<state>/runs`). */
  readonly runsDir: string;
  /** Run ids, with or without their `partial:` prefix. */
  readonly baselineRunId: string;
  readonly candidateRunId: string;
  /** When the comparison is made (recorded in it); default now. */
  readonly now?: Date;
}

/** A case's value in a report: the mean of its trials (with more than one), else its score. */
function caseValues(report: RecordedReport): Map<string, { value: number; passed: boolean }> {
  return new Map(
    report.per_case.map((entry) => {
      const trials = entry.trials ?? [entry.score];
      const value = entry.case_value ?? entry.score.score;
      return [entry.case_id, { value, passed: trials.every((t) => t.passed) }];
    }),
  );
}

const listSome = (ids: readonly string[]): string =>
  `${ids.slice(0, 5).join(", ")}${ids.length > 5 ? `, ... (${ids.length} in all)` : ""}`;

/** Refuses (EVAL_COMPARE_MISMATCH, naming the difference) two runs that are not of one task class and case set. */
function checkComparable(baseline: RecordedReport, candidate: RecordedReport): void {
  if (baseline.task_class !== candidate.task_class) {
    throw new EvalError(
      "EVAL_COMPARE_MISMATCH",
      `run ${baseline.run_id} is of task class ${baseline.task_class} but run ${candidate.run_id} of ${candidate.task_class}: only runs of one task class compare`,
    );
  }
  const inBaseline = new Set(baseline.per_case.map((c) => c.case_id));
  const inCandidate = new Set(candidate.per_case.map((c) => c.case_id));
  const onlyBaseline = [...inBaseline].filter((id) => !inCandidate.has(id)).sort();
  const onlyCandidate = [...inCandidate].filter((id) => !inBaseline.has(id)).sort();
  if (onlyBaseline.length > 0 || onlyCandidate.length > 0) {
    const parts = [
      onlyBaseline.length > 0 ? `only in the baseline: ${listSome(onlyBaseline)}` : "",
      onlyCandidate.length > 0 ? `only in the candidate: ${listSome(onlyCandidate)}` : "",
    ].filter(Boolean);
    throw new EvalError(
      "EVAL_COMPARE_MISMATCH",
      `runs ${baseline.run_id} and ${candidate.run_id} scored different cases (${parts.join("; ")}): a paired comparison needs the same case set`,
    );
  }
  if (inBaseline.size === 0)
    throw new EvalError("EVAL_COMPARE_MISMATCH", `runs ${baseline.run_id} and ${candidate.run_id} scored no case`);
}

/** Differences compared to 12 places: 1 - 2/3 and 1/3 - 0 are the same change (ties sort by case id). */
const rounded = (value: number): number => Number(value.toFixed(12));

const isBinary = (report: RecordedReport): boolean => report.score_kind === "binary";

/**
 * Compares a candidate run with a baseline run of the same task class over the same cases. Per case d =
 * candidate - baseline (each a case value: the mean of its trials); the one-sided 95% lower bound on the mean d
 * is the paired fixed-bet bound (@eval/statistics pairedLowerBound), valid at small n for the bench in hand and
 * reading no order; binary task classes also get
 * the exact McNemar test on per-case outcomes (passed = every trial passed). Reads the chain only; never
 * changes anything. Throws EVAL_REPORT_NOT_FOUND for an unknown run id, EVAL_COMPARE_MISMATCH for runs that do
 * not pair.
 */
export async function compareRuns(options: CompareRunsOptions): Promise<Comparison> {
  const chain = await verifyChain({ runsDir: options.runsDir });
  const baseline = (await findRun(options.runsDir, options.baselineRunId)).report;
  const candidate = (await findRun(options.runsDir, options.candidateRunId)).report;
  checkComparable(baseline, candidate);
  const base = caseValues(baseline);
  const cand = caseValues(candidate);
  const ids = [...base.keys()].sort();
  const changes = ids.map((case_id) => ({
    case_id,
    baseline: base.get(case_id)!.value,
    candidate: cand.get(case_id)!.value,
    difference: cand.get(case_id)!.value - base.get(case_id)!.value,
  }));
  const mcnemar =
    isBinary(baseline) && isBinary(candidate)
      ? mcnemarExact(
          ids.map((id) => base.get(id)!.passed),
          ids.map((id) => cand.get(id)!.passed),
        )
      : null;
  const side = (report: RecordedReport, values: Map<string, { value: number }>) => ({
    run_id: report.run_id,
    sut_label: report.sut_label,
    sut_digest: report.sut_digest,
    trials_per_case: report.trials_per_case,
    mean: ids.reduce((sum, id) => sum + values.get(id)!.value, 0) / ids.length,
    chain_head: report.chain_head,
  });
  return parseWire(ComparisonSchema, {
    schema_version: COMPARISON_SCHEMA_VERSION,
    task_class: baseline.task_class,
    baseline: side(baseline, base),
    candidate: side(candidate, cand),
    case_count: ids.length,
    mean_difference: Math.max(-1, Math.min(1, changes.reduce((sum, c) => sum + c.difference, 0) / ids.length)),
    lower_bound_95: pairedLowerBound(
      changes.map((c) => c.baseline),
      changes.map((c) => c.candidate),
    ),
    lower_bound_method: "paired_fixed_bet",
    mcnemar:
      mcnemar === null
        ? null
        : { baseline_only: mcnemar.baselineOnly, candidate_only: mcnemar.candidateOnly, p_value: mcnemar.pValue },
    improved: changes
      .filter((c) => c.difference > 0)
      .sort((a, b) => rounded(b.difference) - rounded(a.difference) || a.case_id.localeCompare(b.case_id)),
    regressed: changes
      .filter((c) => c.difference < 0)
      .sort((a, b) => rounded(a.difference) - rounded(b.difference) || a.case_id.localeCompare(b.case_id)),
    unchanged_count: changes.filter((c) => c.difference === 0).length,
    chain_verified: chain.ok,
    compared_at: (options.now ?? new Date()).toISOString(),
    advisory_only: true,
  });
}

/** The CI policy of `compare --fail-on-regression <margin>`: true when the bound on the improvement is below the margin. */
export function regressionBeyondMargin(comparison: Comparison, margin: number): boolean {
  if (!(margin >= -1 && margin <= 1))
    throw new EvalError("EVAL_USAGE", `the regression margin must be in [-1, 1] (e.g. -0.05), got ${margin}`);
  return comparison.lower_bound_95 < margin;
}
