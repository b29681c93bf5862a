// What `evalgate run` prints about a finished run: the summary line and the human table.
import type { BenchRunReport, FailureMode } from "@eval/models";
import type { RunEvalResult } from "@eval/runner";
import { formatReliabilityLines, formatTrialTable } from "./format-reliability.ts";
import { escapeTerminal, meteredText } from "@eval/reports/terminal";
import { RUN_CASE_LINE_SCHEMA_VERSION, RUN_SUMMARY_LINE_SCHEMA_VERSION } from "@eval/models/names";

export type RunSummary = ReturnType<typeof runSummary>;

/** The aggregate line of a run (`type: "run"`): the report's summary, its chain head and record path. */
export function runSummary(result: RunEvalResult) {
  const { report } = result;
  return {
    type: "run",
    schema_version: RUN_SUMMARY_LINE_SCHEMA_VERSION,
    run_id: report.run_id,
    task_class: report.task_class,
    sut_label: report.sut_label,
    complete: report.complete,
    case_count: report.case_count,
    scope: report.selection.scope,
    task_class_case_count: report.selection.task_class_case_count,
    scored: report.per_case.length,
    cache_hits: result.caseResults.filter((r) => r.cacheHit).length,
    mean_score: report.mean_score,
    score_stddev: report.score_stddev,
    score_kind: report.score_kind,
    lower_bound_95: report.lower_bound_95,
    lower_bound_method: report.lower_bound_method,
    bound_quantity: report.bound_quantity,
    informational: report.informational,
    passed_count: report.passed_count,
    trials_per_case: report.trials_per_case,
    reliability: report.reliability,
    harness_error_count: report.harness_error_count,
    harness_errored_case_ids: report.harness_errored_case_ids,
    failed_trial_count: report.failed_trial_count,
    total_cost_usd: report.total_cost_usd,
    block_severity_failure_modes: report.block_severity_failure_modes,
    isolation_class: report.isolation_class,
    sut_isolation: report.sut_isolation,
    chain_head: report.chain_head,
    record_path: result.recordPath,
    ...(report.metered === undefined ? {} : { metered: report.metered }),
  };
}

/** The run's case lines (`type: "case"`), one per case, or per trial when the run had trials. */
export function runCaseLines(result: RunEvalResult): Array<Record<string, unknown>> {
  const withTrial = result.report.trials_per_case !== 1;
  return result.caseResults.map((r) => ({
    type: "case",
    schema_version: RUN_CASE_LINE_SCHEMA_VERSION,
    case_id: r.case_id,
    ...(withTrial ? { trial: r.trial } : {}),
    score: r.score,
    cache_hit: r.cacheHit,
  }));
}

/** The human table of a run: one row per case (or the trial table), then the summary lines. */
export function formatRunHuman(
  result: RunEvalResult,
  summary: RunSummary,
  cell: (modes: readonly FailureMode[]) => string,
): string {
  const report: BenchRunReport = result.report;
  const { caseResults } = result;
  const width = Math.max(7, ...caseResults.map((r) => r.case_id.length));
  const lines =
    report.trials_per_case > 1
      ? formatTrialTable(report)
      : [`${"case".padEnd(width)}  score  pass  cache  failure modes`];
  for (const r of report.trials_per_case > 1 ? [] : caseResults) {
    lines.push(
      `${r.case_id.padEnd(width)}  ${r.score.score.toFixed(3)}  ${r.score.passed ? "yes " : "no  "}  ${r.cacheHit ? "hit  " : "miss "}  ${cell(r.score.failure_modes)}`,
    );
  }
  lines.push(
    "",
    `task class ${summary.task_class}: ${summary.scored}/${summary.case_count} cases${summary.complete ? "" : " (INCOMPLETE)"}${summary.scope === "subset" ? ` (SUBSET of ${summary.task_class_case_count}: cannot support a promotion)` : ""}, ${summary.passed_count} passed${report.trials_per_case > 1 ? " every trial" : ""}, ${summary.cache_hits} from cache`,
    `mean ${summary.mean_score.toFixed(3)}, sd ${summary.score_stddev.toFixed(3)}, one-sided 95% lower bound ${summary.lower_bound_95.toFixed(3)} of the ${summary.bound_quantity.replace("_", " ")} (${summary.lower_bound_method}), cost $${summary.total_cost_usd.toFixed(4)}`,
    ...(meteredText(report) === null ? [] : [meteredText(report)!]),
    ...formatReliabilityLines(report),
    `block failure modes: ${summary.block_severity_failure_modes.join(", ") || "none"}`,
    `isolation: rubric ${summary.isolation_class}, SUT ${summary.sut_isolation}; run ${summary.run_id}; chain head ${summary.chain_head}`,
    `record ${summary.record_path}`,
  );
  // Case ids, SUT labels and failure details (a SUT's stderr among them) are untrusted text.
  return escapeTerminal(`${lines.join("\n")}\n`);
}
