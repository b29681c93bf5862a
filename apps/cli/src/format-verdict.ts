import type { PromotionVerdict } from "@eval/models";
import { escapeTerminal } from "@eval/reports/terminal";

const round = (value: number): number => Number(value.toFixed(4));

/** The runs left out, per reason: how many, and the newest few. */
function excludedLine(excluded: NonNullable<PromotionVerdict["evidence_pool"]>["runs_excluded"]): string {
  const count = excluded.reduce((sum, group) => sum + group.count, 0);
  const groups = excluded.map(
    (group) =>
      `${group.count} ${group.reason} (newest ${group.newest.join(", ")}${group.count > group.newest.length ? ", ..." : ""})`,
  );
  return `${count} run(s) excluded${groups.length === 0 ? "" : `: ${groups.join("; ")}`}`;
}

/** What the verdict pooled, and the named run's own figures (shown, never judged). */
function poolLines(verdict: PromotionVerdict): string[] {
  const pool = verdict.evidence_pool;
  if (pool === undefined) return [];
  const own = pool.run_figures;
  return [
    `pooled ${pool.runs_pooled.length} run(s), ${pool.attempts_per_case} attempt(s) per case (${pool.attempts_recorded} distinct attempts recorded, ${pool.attempts_unused} beyond the fewest any case has, ${pool.harness_faults_excluded} harness faults left out); ${excludedLine(pool.runs_excluded)}`,
    `run ${own.run_id} alone: lower bound ${round(own.lower_bound_95)}, mean ${round(own.mean_score)}, passed ${own.passed_count} (shown only: the verdict is on the pooled attempts)`,
    `${pool.distinct_suts_on_held_out} distinct SUT(s) have run on this task class's held-out cases under its current rubric`,
  ];
}

/** A verdict as people read it: the decision, every failing reason, the numbers, the run and SUT it judged. */
export function formatVerdictHuman(verdict: PromotionVerdict, path: string, tiersFile: string): string {
  const lines = [
    `${verdict.task_class}: ${verdict.current_tier} -> ${verdict.target_tier}: evidence ${verdict.evidence_sufficient ? "SUFFICIENT" : "NOT sufficient"}`,
    ...verdict.reasons.map((reason) => `  - ${reason}`),
    `one-sided 95% lower bound ${round(verdict.lower_bound_95)} of the ${verdict.bound_quantity?.replace("_", " ") ?? "score"} (${verdict.lower_bound_method}; threshold ${verdict.threshold_at_target})`,
    `cases ${verdict.case_count} (min ${verdict.min_cases_at_target}, scope ${verdict.report_scope}), passed ${verdict.passed_count} (min ${verdict.min_passed_at_target}), held-out ${verdict.held_out_count} (min ${verdict.min_held_out_at_target}), isolation ${verdict.isolation_class}`,
    `sut ${verdict.sut_label} (${verdict.sut_digest})`,
    `run ${verdict.report_run_id}; thresholds ${verdict.thresholds_calibrated ? "calibrated" : "NOT calibrated"}`,
    ...poolLines(verdict),
    ...(verdict.passed_over.length === 0
      ? []
      : [
          `passed over ${verdict.passed_over.length} newer run(s): ${verdict.passed_over.map((run) => `${run.run_id} (${run.reason})`).join("; ")}`,
        ]),
    `advisory only: a person promotes by a reviewed change to ${tiersFile}`,
    `verdict written to ${path}`,
  ];
  return escapeTerminal(`${lines.join("\n")}\n`);
}
