// The few lines `evalgate run` ends with: what a person needs at a glance after a run (the verdict per
// tier, the bound, the pass rate, the first failing cases, what did not run, where the report is).
import type { PromotionVerdict } from "@eval/models";
import { escapeTerminal } from "./escape.ts";
import { caseStatus, failingTrials, incompleteReasonText } from "./report-data.ts";
import { currentRun } from "./report-data.ts";
import type { ReportCase, ReportRun } from "./report-data.ts";

export interface RunGlanceInput {
  readonly run: ReportRun;
  readonly cases: readonly ReportCase[];
  /** One verdict per tier above the current one (previewed, never written); empty with `noVerdict`. */
  readonly verdicts: readonly PromotionVerdict[];
  /** Why there is no verdict (no tier file, no current tier for the task class), when there is none. */
  readonly noVerdict: string | null;
  /** Selected cases the run did not score (cancelled, cut by the cost cap or a signal). */
  readonly unscored: number;
  /** The run's record file. */
  readonly recordPath: string;
  /** Failing cases named at most (default 5); the rest are counted. */
  readonly maxFailing?: number;
}

const LABEL = 11;
const row = (label: string, text: string): string => `${label.padEnd(LABEL)}${text}`;

/** `PASS` or `FAIL` per tier above the current one, with the first reason a tier is not met. */
function verdictRows(input: RunGlanceInput): string[] {
  if (input.verdicts.length === 0)
    return [row("verdict", `none: ${input.noVerdict ?? "no tier above the current one"}`)];
  const current = input.verdicts[0]!.current_tier;
  return input.verdicts.map((verdict, index) => {
    const mark = verdict.evidence_sufficient ? "PASS" : "FAIL";
    const more = verdict.reasons.length > 1 ? ` (+${verdict.reasons.length - 1} more)` : "";
    const why = verdict.evidence_sufficient
      ? `bound ${verdict.lower_bound_95.toFixed(3)} >= ${verdict.threshold_at_target}`
      : `${verdict.reasons[0] ?? "evidence not sufficient"}${more}`;
    return row(index === 0 ? "verdict" : "", `${mark} ${current} -> ${verdict.target_tier}: ${why}`);
  });
}

/** A case's failure codes (over its failing trials when it had trials), each once. */
function failureCodes(reportCase: ReportCase): string[] {
  const scores =
    reportCase.trial_runs === null ? [reportCase.score] : failingTrials(reportCase).map((trial) => trial.score);
  return [...new Set(scores.flatMap((score) => score.failure_modes.map((mode) => mode.code)))];
}

function failingRows(cases: readonly ReportCase[], max: number): string[] {
  const failing = cases.filter((c) => caseStatus(c) !== "pass");
  if (failing.length === 0) return [row("failing", "none")];
  const shown = failing.slice(0, max).map((c) => {
    const trials = c.trials === null ? "" : ` ${c.trials.passed} of ${c.trials.total} trials`;
    const codes = failureCodes(c);
    return row(
      "",
      `${c.case_id}  ${caseStatus(c)}${trials}  ${codes.length === 0 ? "(no failure mode named)" : codes.join(", ")}`,
    );
  });
  const rest = failing.length - shown.length;
  return [
    row("failing", `${failing.length} of ${cases.length} scored cases`),
    ...shown,
    ...(rest > 0 ? [row("", `... and ${rest} more`)] : []),
  ];
}

/**
 * Why the run is incomplete and how many selected cases it did not score (nothing for a complete run), and its
 * harness errors: their count, or that the run's record kept none (never a count of 0 it did not make).
 */
function incompleteRows(input: RunGlanceInput): string[] {
  const run = currentRun(input.run);
  const errors = run.harness_error_count;
  const rows: string[] = [];
  if (!run.complete) {
    const reason = run.incomplete_reason;
    rows.push(
      row(
        "INCOMPLETE",
        `${incompleteReasonText(reason)}: ${input.unscored} of ${run.case_count} selected cases not scored; it cannot support a promotion`,
      ),
    );
  }
  if (run.unrecorded?.harness_errors)
    rows.push(
      row(
        "errors",
        `harness errors not recorded (the run was recorded as ${run.unrecorded.recorded_as}, which kept no count)`,
      ),
    );
  else if (errors > 0)
    rows.push(
      row("errors", `${errors} case(s) decided by a harness-side failure (timeout or crash), not by the rubric`),
    );
  return rows;
}

/**
 * The at-a-glance summary of a run just recorded, for a terminal: every line passes through the
 * terminal sanitizer (case ids, failure codes and verdict reasons can carry what a SUT or rubric wrote).
 */
export function renderRunGlance(input: RunGlanceInput): string {
  const run = currentRun(input.run);
  const quantity = run.bound_quantity === null ? "score" : run.bound_quantity.replace("_", " ");
  const scored = input.cases.length;
  const rate = scored === 0 ? "-" : (run.passed_count / scored).toFixed(3);
  const lines = [
    "-- summary ".padEnd(60, "-"),
    ...verdictRows(input),
    row(
      "bound",
      `${run.lower_bound_95.toFixed(3)}: one-sided 95% lower bound of the ${quantity} (${run.lower_bound_method})`,
    ),
    row(
      "pass rate",
      `${rate} (${run.passed_count} of ${scored} scored cases passed${scored === run.case_count ? "" : `, ${run.case_count} selected`}); mean score ${run.mean_score.toFixed(3)}`,
    ),
    ...failingRows(input.cases, input.maxFailing ?? 5),
    ...incompleteRows(input),
    row("record", input.recordPath),
    row(
      "report",
      `evalgate report --run ${run.run_id} -o report.html  (one case: evalgate show ${run.run_id} --case <id>)`,
    ),
  ];
  return escapeTerminal(`${lines.join("\n")}\n`);
}
