import type { PromotionVerdict } from "@eval/models";
import { escapeMarkdown } from "./escape.ts";
import { caseStatus, currentRun, failingTrials, incompleteReasonText, isFlaky, meteredText } from "./report-data.ts";
import type { CurrentRun, ReportCase, ReportRun } from "./report-data.ts";

export interface MarkdownSummaryInput {
  readonly run: ReportRun;
  readonly cases: readonly ReportCase[];
  readonly verdicts: readonly PromotionVerdict[];
  /** Failed cases listed at most (default 50); the rest are counted. */
  readonly maxFailedRows?: number;
}

function verdictLines(verdicts: readonly PromotionVerdict[]): string[] {
  if (verdicts.length === 0) return ["No verdict: no trust-tier file was read."];
  return verdicts.flatMap((verdict) => [
    `- **${escapeMarkdown(verdict.target_tier)}**: evidence ${verdict.evidence_sufficient ? "sufficient" : "**NOT sufficient**"} (threshold ${verdict.threshold_at_target})`,
    ...(verdict.evidence_sufficient ? [] : verdict.reasons.map((reason) => `  - ${escapeMarkdown(reason)}`)),
  ]);
}

const isSubset = (run: CurrentRun): boolean => run.selection?.scope === "subset";

/** Why a run is incomplete and how much it scored; that a subset cannot support a promotion. */
function scopeLines(run: CurrentRun, scored: number): string[] {
  const lines: string[] = [];
  if (!run.complete)
    lines.push(
      `**Incomplete**: ${incompleteReasonText(run.incomplete_reason)}; ${scored} of ${run.case_count} selected cases were scored, the rest are skipped. An incomplete run never supports a promotion.`,
    );
  if (run.selection?.scope === "subset") {
    lines.push(
      `**Subset**: ${run.selection.selected_case_count} of the ${run.selection.task_class_case_count} cases of the task class (filter ${escapeMarkdown(run.selection.filter ?? "none")}): it cannot support a promotion.`,
    );
  }
  return lines.length === 0 ? [] : [...lines, ""];
}

/** With trials: pass@1, pass^k and the flaky cases (nothing with one trial per case). */
function reliabilityLines(run: CurrentRun): string[] {
  if (run.trials_per_case === 1) return [];
  const { reliability: r, trials_per_case: k } = run;
  const flaky =
    r.flaky_case_ids.length === 0 ? "none" : r.flaky_case_ids.map((id) => `\`${id.replace(/`/g, "")}\``).join(", ");
  return [
    "",
    `${k} trials per case: pass@1 **${r.pass_at_1.toFixed(4)}**, pass^${k} **${r.pass_hat_k.toFixed(4)}** (every trial passes), pass@${k} ${r.pass_at_k.toFixed(4)}, over ${r.case_count} cases. Flaky (trials disagree): ${flaky}.`,
  ];
}

/** A GitHub job summary in Markdown: verdicts, the bound, and a table of the failed cases. */
export function renderMarkdownSummary(input: MarkdownSummaryInput): string {
  const run = currentRun(input.run);
  const failed = input.cases.filter((c) => caseStatus(c) !== "pass");
  const limit = input.maxFailedRows ?? 50;
  const withTrials = input.cases.some((c) => c.trials !== null);
  const rows = failed.slice(0, limit).map((c) => {
    const scores = c.trial_runs === null ? [c.score] : failingTrials(c).map((trial) => trial.score);
    const modes = [...new Set(scores.flatMap((score) => score.failure_modes.map((mode) => mode.code)))].join(", ");
    const trials = c.trials === null ? "" : ` ${c.trials.passed} of ${c.trials.total}${isFlaky(c) ? " (flaky)" : ""} |`;
    return `| ${escapeMarkdown(c.case_id)} | ${caseStatus(c)} | ${c.score.score.toFixed(3)} |${withTrials ? trials || " - |" : ""} ${escapeMarkdown(modes)} |`;
  });
  const lines = [
    `### evalgate: ${escapeMarkdown(run.task_class)}: ${run.passed_count} of ${run.case_count} cases passed${run.complete ? "" : " (INCOMPLETE)"}${isSubset(run) ? " (SUBSET)" : ""}`,
    "",
    ...scopeLines(run, input.cases.length),
    `One-sided 95% lower bound **${run.lower_bound_95.toFixed(4)}** (${run.lower_bound_method}), mean ${run.mean_score.toFixed(4)}, sd ${run.score_stddev.toFixed(4)}, cost $${run.total_cost_usd.toFixed(4)}.`,
    ...(meteredText(run) === null ? [] : [`${escapeMarkdown(meteredText(run)!)}.`]),
    `SUT ${escapeMarkdown(run.sut_label)}; run ${escapeMarkdown(run.run_id)}; chain head ${escapeMarkdown(run.chain_head ?? "-")}.`,
    ...reliabilityLines(run),
    "",
    "#### Verdict",
    "",
    ...verdictLines(input.verdicts),
    "",
    `#### Failed cases (${failed.length})`,
    "",
  ];
  if (failed.length === 0) lines.push("None.");
  else if (withTrials)
    lines.push(
      "| case | status | score (trial 0) | trials passed | failure modes (failing trials) |",
      "|---|---|---|---|---|",
      ...rows,
    );
  else lines.push("| case | status | score | failure modes |", "|---|---|---|---|", ...rows);
  if (failed.length > limit)
    lines.push("", `... and ${failed.length - limit} more (see the JUnit file or \`evalgate report\`).`);
  return `${lines.join("\n")}\n`;
}
