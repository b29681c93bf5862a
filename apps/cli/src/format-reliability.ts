// Human lines for trials per case: the per-case k-of-n table and the run's reliability figures.
import type { BenchRunReport } from "@eval/models";

const fixed = (value: number): string => value.toFixed(3);

/** One row per case: mean of its trials, k-of-n passes, and the failure codes seen in any trial. */
export function formatTrialTable(report: BenchRunReport): string[] {
  const k = report.trials_per_case;
  const width = Math.max(7, ...report.per_case.map((entry) => entry.case_id.length));
  const lines = [`${"case".padEnd(width)}  mean   passed  flaky  failure modes (any trial)`];
  for (const entry of report.per_case) {
    const trials = entry.trials ?? [entry.score];
    const passes = trials.filter((t) => t.passed).length;
    const codes = [...new Set(trials.flatMap((t) => t.failure_modes.map((m) => m.code)))].sort();
    const flaky = passes > 0 && passes < k;
    lines.push(
      `${entry.case_id.padEnd(width)}  ${fixed(entry.case_value ?? entry.score.score)}  ${`${passes}/${k}`.padEnd(6)}  ${flaky ? "yes  " : "no   "}  ${codes.join(", ")}`,
    );
  }
  return lines;
}

/** The run's reliability and error lines; with one trial per case only pass@1 means anything, and nothing is flaky. */
export function formatReliabilityLines(report: BenchRunReport): string[] {
  const { reliability: r, trials_per_case: k } = report;
  const errors = `harness errors: ${report.harness_error_count} trial${report.harness_error_count === 1 ? "" : "s"}${report.harness_errored_case_ids.length === 0 ? "" : ` in ${report.harness_errored_case_ids.join(", ")} (\`run --retry-errors\` reruns them)`}; SUT failures: ${report.failed_trial_count} trial${report.failed_trial_count === 1 ? "" : "s"}`;
  if (k === 1)
    return [
      `reliability: 1 trial per case, pass@1 ${fixed(r.pass_at_1)} over ${r.case_count} cases (--trials k for pass^k and flaky cases)`,
      errors,
    ];
  return [
    `reliability over ${r.case_count} cases x ${k} trials: pass@1 ${fixed(r.pass_at_1)}, pass@${k} ${fixed(r.pass_at_k)}, pass^${k} ${fixed(r.pass_hat_k)} (the case is the unit: the bound is over cases, each the mean of its trials)`,
    `flaky cases (${r.flaky_case_ids.length}): ${r.flaky_case_ids.join(", ") || "none"}`,
    errors,
  ];
}
