import { escapeXml } from "./escape.ts";
import { caseStatus } from "./report-data.ts";
import type { ReportCase, ReportRun } from "./report-data.ts";

export interface JunitInput {
  readonly run: ReportRun;
  readonly cases: readonly ReportCase[];
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function caseXml(taskClass: string, reportCase: ReportCase): string {
  const { score } = reportCase;
  const status = caseStatus(reportCase);
  const open = `    <testcase classname="evalgate.${escapeXml(taskClass)}" name="${escapeXml(reportCase.case_id)}" time="${seconds(score.wall_clock_ms)}">`;
  if (status === "pass") return `${open}</testcase>`;
  const codes = score.failure_modes.map((mode) => mode.code);
  const message = `score ${score.score.toFixed(3)}${codes.length === 0 ? "" : `: ${codes.join(", ")}`}`;
  const body = [
    `score ${score.score} (passed: ${score.passed})`,
    ...score.failure_modes.map((mode) => `${mode.code} [${mode.severity}]${mode.detail === null ? "" : `: ${mode.detail}`}`),
    ...(reportCase.evidence?.sut_error ? [`SUT error: ${reportCase.evidence.sut_error}`] : []),
  ].join("\n");
  // A harness-side failure (timeout, crash) is an <error>: the case was not judged.
  const tag = status === "error" ? "error" : "failure";
  return `${open}\n      <${tag} message="${escapeXml(message)}" type="${escapeXml(codes.join(",") || "not_passed")}">${escapeXml(body)}</${tag}>\n    </testcase>`;
}

/** JUnit XML for a run: one testcase per case; a failed case carries its failure modes and their details. */
export function renderJunit(input: JunitInput): string {
  const { run, cases } = input;
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
  ]
    .map(([name, value]) => `      <property name="${name}" value="${escapeXml(value!)}"/>`)
    .join("\n");
  const suite = `  <testsuite name="${escapeXml(run.task_class)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="0" time="${time}" timestamp="${escapeXml(run.started_at.replace(/Z$/, ""))}">`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="evalgate" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${time}">`,
    suite,
    "    <properties>",
    properties,
    "    </properties>",
    ...cases.map((c) => caseXml(run.task_class, c)),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
