import type { PromotionVerdict } from "@eval/models";
import { escapeMarkdown } from "./escape.ts";
import { caseStatus } from "./report-data.ts";
import type { ReportCase, ReportRun } from "./report-data.ts";

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

/** A GitHub job summary in Markdown: verdicts, the bound, and a table of the failed cases. */
export function renderMarkdownSummary(input: MarkdownSummaryInput): string {
  const { run } = input;
  const failed = input.cases.filter((c) => caseStatus(c) !== "pass");
  const limit = input.maxFailedRows ?? 50;
  const rows = failed.slice(0, limit).map((c) => {
    const modes = c.score.failure_modes.map((mode) => mode.code).join(", ");
    return `| ${escapeMarkdown(c.case_id)} | ${caseStatus(c)} | ${c.score.score.toFixed(3)} | ${escapeMarkdown(modes)} |`;
  });
  const lines = [
    `### evalgate: ${escapeMarkdown(run.task_class)}: ${run.passed_count} of ${run.case_count} cases passed${run.complete ? "" : " (INCOMPLETE)"}`,
    "",
    `One-sided 95% lower bound **${run.lower_bound_95.toFixed(4)}** (${run.lower_bound_method}), mean ${run.mean_score.toFixed(4)}, sd ${run.score_stddev.toFixed(4)}, cost $${run.total_cost_usd.toFixed(4)}.`,
    `SUT ${escapeMarkdown(run.sut_label)}; run ${escapeMarkdown(run.run_id)}; chain head ${escapeMarkdown(run.chain_head ?? "-")}.`,
    "",
    "#### Verdict",
    "",
    ...verdictLines(input.verdicts),
    "",
    `#### Failed cases (${failed.length})`,
    "",
  ];
  if (failed.length === 0) lines.push("None.");
  else lines.push("| case | status | score | failure modes |", "|---|---|---|---|", ...rows);
  if (failed.length > limit) lines.push("", `... and ${failed.length - limit} more (see the JUnit file or \`evalgate report\`).`);
  return `${lines.join("\n")}\n`;
}
