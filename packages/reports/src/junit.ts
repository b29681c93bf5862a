import { escapeXml } from "./escape.ts";
import type { BenchScore } from "@eval/models";
import { caseStatus, failingTrials, incompleteReasonText, isFlaky, runMetered, trialStatus } from "./report-data.ts";
import type { CaseEvidence, ReportCase, ReportRun } from "./report-data.ts";

export interface JunitInput {
  readonly run: ReportRun;
  readonly cases: readonly ReportCase[];
  /** Selected cases an incomplete run did not score: each a skipped testcase saying why. */
  readonly unscored?: readonly string[];
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** The run's start as an ISO 8601 date-time in UTC with its zone (`Z`), whole seconds, as CI servers parse it. */
const utcTimestamp = (iso: string): string => `${new Date(iso).toISOString().slice(0, 19)}Z`;

/** One scored attempt's lines: its score, its failure modes with details, the SUT's error. */
function scoreLines(score: BenchScore, evidence: CaseEvidence | null, indent: string): string[] {
  return [
    ...score.failure_modes.map(
      (mode) => `${indent}${mode.code} [${mode.severity}]${mode.detail === null ? "" : `: ${mode.detail}`}`,
    ),
    ...(evidence?.sut_error ? [`${indent}SUT error: ${evidence.sut_error}`] : []),
  ];
}

/** The message and body of a case that did not pass: with trials, k of n and every failing trial's modes. */
function failureText(reportCase: ReportCase): { message: string; type: string; body: string } {
  const { score, trials } = reportCase;
  const failing = failingTrials(reportCase);
  if (trials === null || failing.length === 0) {
    const codes = score.failure_modes.map((mode) => mode.code);
    return {
      message: `score ${score.score.toFixed(3)}${codes.length === 0 ? "" : `: ${codes.join(", ")}`}`,
      type: codes.join(",") || "not_passed",
      body: [`score ${score.score} (passed: ${score.passed})`, ...scoreLines(score, reportCase.evidence, "")].join(
        "\n",
      ),
    };
  }
  const codes = [...new Set(failing.flatMap((trial) => trial.score.failure_modes.map((mode) => mode.code)))];
  return {
    message: `${trials.passed} of ${trials.total} trials passed${isFlaky(reportCase) ? " (flaky)" : ""}${codes.length === 0 ? "" : `: ${codes.join(", ")}`}`,
    type: codes.join(",") || "not_passed",
    body: failing
      .flatMap((trial) => [
        `trial ${trial.trial}: ${trialStatus(trial.score)}, score ${trial.score.score} (passed: ${trial.score.passed})`,
        ...scoreLines(trial.score, trial.evidence, "  "),
      ])
      .join("\n"),
  };
}

function caseXml(taskClass: string, reportCase: ReportCase): string {
  const status = caseStatus(reportCase);
  const open = `    <testcase classname="evalgate.${escapeXml(taskClass)}" name="${escapeXml(reportCase.case_id)}" time="${seconds(reportCase.score.wall_clock_ms)}">`;
  if (status === "pass") return `${open}</testcase>`;
  const { message, type, body } = failureText(reportCase);
  // A harness-side failure (timeout, crash) is an <error>: the case was not judged.
  const tag = status === "error" ? "error" : "failure";
  return `${open}\n      <${tag} message="${escapeXml(message)}" type="${escapeXml(type)}">${escapeXml(body)}</${tag}>\n    </testcase>`;
}

/** The metered sums as properties (a run whose agent ran behind the model bridge); the rest of the cost is self-reported. */
function meteredProperties(run: ReportRun): string[][] {
  const metered = runMetered(run);
  if (metered === null) return [];
  return [
    ["metered_trials", String(metered.trials)],
    ["metered_requests", String(metered.requests)],
    ["metered_input_tokens", String(metered.input_tokens)],
    ["metered_cached_input_tokens", String(metered.cached_input_tokens)],
    ["metered_cache_write_tokens", String(metered.cache_write_tokens)],
    ["metered_output_tokens", String(metered.output_tokens)],
    ["metered_cost_usd", String(metered.cost_usd)],
    ["metered_price_tables", metered.price_tables.join(",")],
    ["metered_unpriced_models", metered.unpriced_models.join(",")],
    ["metered_upstream_hosts", metered.upstream_hosts.join(",")],
    ["sut_reported_cost_usd", String(metered.sut_reported_cost_usd)],
  ];
}

/** JUnit XML for a run: one testcase per case; a failed case carries its failure modes and their details. */
export function renderJunit(input: JunitInput): string {
  const { run, cases } = input;
  const unscored = input.unscored ?? [];
  const tests = cases.length + unscored.length;
  const failures = cases.filter((c) => caseStatus(c) === "fail").length;
  const errors = cases.filter((c) => caseStatus(c) === "error").length;
  const time = seconds(cases.reduce((sum, c) => sum + c.score.wall_clock_ms, 0));
  const properties = [
    ["run_id", run.run_id],
    ["sut_label", run.sut_label],
    ["complete", String(run.complete)],
    ["mean_score", String(run.mean_score)],
    ["lower_bound_95", String(run.lower_bound_95)],
    ["lower_bound_method", run.lower_bound_method],
    ["passed_count", String(run.passed_count)],
    ["case_count", String(run.case_count)],
    ["chain_head", run.chain_head ?? ""],
    ["total_cost_usd", String(run.total_cost_usd)],
    ...meteredProperties(run),
  ]
    .map(([name, value]) => `      <property name="${name}" value="${escapeXml(value!)}"/>`)
    .join("\n");
  const suite = `  <testsuite name="${escapeXml(run.task_class)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${unscored.length}" time="${time}" timestamp="${escapeXml(utcTimestamp(run.started_at))}">`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="evalgate" tests="${tests}" failures="${failures}" errors="${errors}" time="${time}">`,
    suite,
    "    <properties>",
    properties,
    "    </properties>",
    ...cases.map((c) => caseXml(run.task_class, c)),
    ...unscored.map(
      (caseId) =>
        `    <testcase classname="evalgate.${escapeXml(run.task_class)}" name="${escapeXml(caseId)}" time="0.000">\n      <skipped message="${escapeXml(`not scored: ${incompleteReasonText("incomplete_reason" in run ? run.incomplete_reason : null)}`)}"/>\n    </testcase>`,
    ),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
