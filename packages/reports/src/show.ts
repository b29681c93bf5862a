import type { Transcript } from "@eval/models";
import { escapeTerminal } from "./escape.ts";
import { caseStatus } from "./report-data.ts";
import type { ReportCase, ReportData } from "./report-data.ts";

const oneLine = (text: string, max: number): string => {
  const flat = escapeTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
};

/** The terminal view of a run: its figures, verdicts and one line per case. */
export function renderRunText(data: ReportData): string {
  const run = data.run;
  const width = Math.max(4, ...data.cases.map((c) => c.case_id.length));
  const lines = [
    `run ${run.run_id} of ${run.task_class}${run.complete ? "" : " (INCOMPLETE)"}: SUT ${escapeTerminal(run.sut_label)}, ended ${run.ended_at}`,
    `${run.passed_count}/${run.case_count} passed; mean ${run.mean_score.toFixed(4)}, sd ${run.score_stddev.toFixed(4)}, one-sided 95% lower bound ${run.lower_bound_95.toFixed(4)} (${run.lower_bound_method}), cost $${run.total_cost_usd.toFixed(4)}`,
    `isolation: rubric ${run.isolation_class}, SUT ${run.schema_version !== "evalgate.bench_run_report.v1" ? run.sut_isolation : "unknown"}; chain head ${run.chain_head ?? "-"} (${data.chain.verified ? "verifies" : "DOES NOT VERIFY"})`,
    ...data.verdicts.map((v) => `${v.target_tier}: evidence ${v.evidence_sufficient ? "sufficient" : "NOT sufficient"}${v.evidence_sufficient ? "" : `: ${v.reasons.join("; ")}`}`),
    "",
    `${"case".padEnd(width)}  status  score  cache  failure modes`,
    ...data.cases.map(
      (c) =>
        `${c.case_id.padEnd(width)}  ${caseStatus(c).padEnd(6)}  ${c.score.score.toFixed(3)}  ${(c.cache_hit === null ? "-" : c.cache_hit ? "hit" : "miss").padEnd(5)}  ${c.score.failure_modes.map((m) => m.code).join(", ")}`,
    ),
    "",
    `one case: evalgate show ${run.run_id} --case <case-id>`,
  ];
  return `${lines.join("\n")}\n`;
}

function transcriptLines(transcript: Transcript): string[] {
  const lines = [`transcript: ${transcript.source.provider} (${transcript.source.format}), ${transcript.tool_calls.length} tool calls, ${transcript.messages.length} messages`];
  for (const message of transcript.messages) lines.push(`  ${message.role.padEnd(9)} ${oneLine(message.text, 160)}`);
  lines.push("tool calls:");
  for (const call of transcript.tool_calls) {
    const name = call.original_name === call.name ? call.name : `${call.name} (${call.original_name})`;
    lines.push(`  ${name.padEnd(10)} ${call.status.padEnd(7)} ${oneLine(JSON.stringify(call.input), 200)}`);
  }
  for (const error of transcript.errors) lines.push(`  error: ${oneLine(error, 200)}`);
  return lines;
}

/** The terminal view of one case: status, failure modes with details, breakdown, evidence, transcript. */
export function renderCaseText(data: ReportData, reportCase: ReportCase): string {
  const { score, evidence } = reportCase;
  const lines = [
    `case ${reportCase.case_id} of run ${data.run.run_id} (${data.run.task_class}): ${caseStatus(reportCase)}, score ${score.score.toFixed(3)}, ${reportCase.curation_class}`,
    `time ${(score.wall_clock_ms / 1000).toFixed(2)} s, cost $${score.cost_usd.toFixed(4)}${reportCase.cache_hit ? `, cache hit (executed in run ${evidence?.executed_in_run ?? "?"})` : ""}${reportCase.trials === null ? "" : `, trials ${reportCase.trials.passed} of ${reportCase.trials.total}`}`,
    `failure modes (${score.failure_modes.length}):`,
    ...score.failure_modes.map((mode) => `  ${mode.code} [${mode.severity}]${mode.detail === null ? "" : `: ${oneLine(mode.detail, 400)}`}`),
    "breakdown:",
    ...Object.entries(score.breakdown).map(([key, value]) => `  ${key} ${value}`),
  ];
  if (evidence === null) lines.push("no detail file for this case in the run");
  else {
    if (evidence.sut_error !== null) lines.push(`SUT error: ${oneLine(evidence.sut_error, 400)}`);
    if (evidence.diff !== null) {
      const changed = evidence.diff.split("\n").filter((line) => line.startsWith("+++ ")).map((line) => line.slice(4).replace(/^b\//, ""));
      lines.push(changed.length === 0 ? "workspace diff: no file changed" : `workspace diff: ${changed.length} file(s) changed: ${changed.map((file) => escapeTerminal(file)).join(", ")}`);
    }
  }
  lines.push(...(reportCase.transcript === null ? ["no transcript recorded for this case"] : transcriptLines(reportCase.transcript)));
  return `${lines.join("\n")}\n`;
}
