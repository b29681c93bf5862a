// Runs recorded before report v3 render byte for byte as they did when the views read the recorded version:
// the digests below were taken from the views before they read the upgraded run (currentRun). One line was
// added since, on purpose: the at-a-glance summary says such a run's harness errors were not recorded (it
// printed nothing, as for a run with none); the glance digests are of the summary without that line.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { makeReportData } from "./fixtures.test-helpers.ts";
import { renderRunGlance } from "./glance.ts";
import { renderHtmlReport } from "./html.ts";
import { renderMarkdownSummary } from "./markdown.ts";
import type { ReportData } from "./report-data.ts";
import { renderRunText } from "./show.ts";

const sha = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** The v2 fixture as evalgate recorded it before v2: no selection, SUT isolation, score kind or valid bound. */
function v1Run(data: ReportData): ReportData["run"] {
  const {
    selection: _s,
    sut_isolation: _i,
    score_kind: _k,
    bound_quantity: _q,
    incomplete_reason: _r,
    ...rest
  } = data.run as ReportData["run"] & Record<string, unknown>;
  return {
    ...rest,
    schema_version: "evalgate.bench_run_report.v1",
    lower_bound_method: "bca_bootstrap",
    bca_lower_bound_95: 0.41,
    wilson_lower_bound_95: 0.38,
    bootstrap_resamples: 2000,
    bootstrap_seed: 7,
  } as unknown as ReportData["run"];
}

/** An incomplete v2 subset run with a harness-side failure (a v2 report records no harness error count). */
function v2Subset(data: ReportData): ReportData {
  const run = data.run as Extract<ReportData["run"], { selection: unknown }>;
  const crashed = { code: "harness.timeout", severity: "block" as const, detail: "rubric timed out" };
  return {
    ...data,
    run: {
      ...run,
      complete: false,
      incomplete_reason: "cost_cap",
      selection: { ...run.selection, scope: "subset", filter: "a-*", task_class_case_count: run.case_count + 3 },
    } as ReportData["run"],
    cases: data.cases.map((c, index) =>
      index === 0 ? { ...c, score: { ...c.score, passed: false, failure_modes: [crashed] } } : c,
    ),
  };
}

const glanceOf = (data: ReportData): string =>
  renderRunGlance({ ...data, noVerdict: null, unscored: data.run.complete ? 0 : 3, recordPath: "runs/x.json" });

/** The line a run recorded before v3 gets where a current run's harness errors are counted. */
const NOT_RECORDED =
  /^errors +harness errors not recorded \(the run was recorded as evalgate\.bench_run_report\.v[12], which kept no count\)\n/m;

function views(data: ReportData): Record<string, string> {
  const glance = glanceOf(data);
  expect(glance.match(new RegExp(NOT_RECORDED, "gm"))).toHaveLength(1);
  return {
    html: sha(renderHtmlReport(data, { compress: "never" }).html),
    markdown: sha(renderMarkdownSummary(data)),
    show: sha(renderRunText(data)),
    glance: sha(glance.replace(NOT_RECORDED, "")),
  };
}

describe("runs recorded before v3 render as they always did", () => {
  it("the glance says a v1 or v2 run's harness errors were not recorded, never that there were none", () => {
    const data = makeReportData(4);
    expect(glanceOf(data)).toContain(
      "harness errors not recorded (the run was recorded as evalgate.bench_run_report.v2, which kept no count)",
    );
    expect(glanceOf({ ...data, run: v1Run(data) })).toContain("recorded as evalgate.bench_run_report.v1");
    // The subset run's first case ended in a harness-side failure: still not a count the record made.
    expect(glanceOf(v2Subset(data))).not.toMatch(/\d+ case\(s\) decided by a harness-side failure/);
  });

  it("a v1 run: scope and SUT isolation unknown, its bound named by score", () => {
    const data = makeReportData(4);
    const v1 = { ...data, run: v1Run(data) };
    expect(renderRunText(v1)).toContain("SUT unknown");
    expect(renderHtmlReport(v1, { compress: "never" }).html).toContain("unknown (v1 report)");
    expect(views(v1)).toEqual({
      html: "da49659bcefb9f34",
      markdown: "a63fcd5e91789e72",
      show: "bfdc9ea54516c283",
      glance: "ab87290ba67effb3",
    });
  });

  it("a v2 run, full and complete", () => {
    expect(views(makeReportData(4))).toEqual({
      html: "13b1a0066a225633",
      markdown: "89b6f0ec70e56813",
      show: "3af567dff6c1ef2d",
      glance: "099cc5d319c1da7f",
    });
  });

  it("a v2 run, an incomplete subset with a harness-side failure", () => {
    const data = v2Subset(makeReportData(4));
    expect(renderMarkdownSummary(data)).toContain("**Subset**: 4 of the 7 cases");
    expect(views(data)).toEqual({
      html: "7d5a8e5e941a0197",
      markdown: "64d27b6ffb01a3e7",
      show: "a35e2aa0d3377638",
      glance: "ce05cc8a991a4e4e",
    });
  });
});
