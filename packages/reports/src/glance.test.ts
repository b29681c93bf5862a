// The at-a-glance lines `evalgate run` ends with, on in-memory runs: verdict per tier, bound, pass rate,
// the first failing cases, incomplete runs, and untrusted text made visible instead of obeyed.
import type { PromotionVerdict } from "@eval/models";
import { describe, expect, it } from "vitest";
import { makeReportData } from "./fixtures.test-helpers.ts";
import { renderRunGlance } from "./glance.ts";
import type { ReportCase, ReportData } from "./report-data.ts";

const glance = (data: ReportData, extra: Partial<Parameters<typeof renderRunGlance>[0]> = {}): string =>
  renderRunGlance({
    run: data.run,
    cases: data.cases,
    verdicts: data.verdicts,
    noVerdict: null,
    unscored: 0,
    recordPath: "/state/runs/r.json",
    ...extra,
  });

const rowsOf = (text: string, label: string): string[] => text.split("\n").filter((line) => line.startsWith(label));

describe("renderRunGlance", () => {
  it("one line per tier with a PASS/FAIL mark, the bound, the pass rate, the failing cases and where the report is", () => {
    const data = makeReportData(10);
    const silver: PromotionVerdict = {
      ...data.verdicts[0]!,
      target_tier: "silver",
      evidence_sufficient: true,
      reasons: [],
      threshold_at_target: 0.4,
    };
    const text = glance(data, { verdicts: [data.verdicts[0]!, silver] });
    const lines = text.split("\n");
    const verdictAt = lines.findIndex((line) => line.startsWith("verdict"));
    expect(lines[verdictAt]).toBe(
      "verdict    FAIL untrusted -> bronze: lower_bound_95 0.4443 < 0.6 required for bronze (betting) (+1 more)",
    );
    expect(lines[verdictAt + 1]).toBe("           PASS untrusted -> silver: bound 0.444 >= 0.4");
    expect(rowsOf(text, "bound")).toEqual(["bound      0.444: one-sided 95% lower bound of the mean score (betting)"]);
    const passed = data.cases.filter((c) => c.score.passed).length;
    expect(rowsOf(text, "pass rate")).toEqual([
      `pass rate  ${(passed / 10).toFixed(3)} (${passed} of 10 scored cases passed); mean score ${data.run.mean_score.toFixed(3)}`,
    ]);
    const failing = data.cases.filter((c) => !c.score.passed);
    expect(rowsOf(text, "failing")).toEqual([`failing    ${failing.length} of 10 scored cases`]);
    expect(text).toContain(`           ${failing[0]!.case_id}  fail  still_vulnerable\n`);
    expect(text).toContain(`           case-00003  error  sut.timeout\n`);
    expect(rowsOf(text, "record")).toEqual(["record     /state/runs/r.json"]);
    expect(rowsOf(text, "report")[0]).toContain(`evalgate report --run ${data.run.run_id}`);
    expect(text).not.toContain("INCOMPLETE");
  });

  it("names the first few failing cases and counts the rest", () => {
    const data = makeReportData(40);
    const failing = data.cases.filter((c) => !c.score.passed);
    expect(failing.length).toBeGreaterThan(5);
    const text = glance(data, { maxFailing: 3 });
    const shown = failing.filter((c) => text.includes(`  ${c.case_id}  `));
    expect(shown.map((c) => c.case_id)).toEqual(failing.slice(0, 3).map((c) => c.case_id));
    expect(text).toContain(`... and ${failing.length - 3} more`);
    expect(glance(data)).toContain(`... and ${failing.length - 5} more`);
  });

  it("says why there is no verdict, and none failing when every case passed", () => {
    const data = makeReportData(1);
    const text = glance(data, { verdicts: [], noVerdict: "no trust-tier file at docs/trust-tiers.yaml" });
    expect(rowsOf(text, "verdict")).toEqual(["verdict    none: no trust-tier file at docs/trust-tiers.yaml"]);
    expect(rowsOf(text, "failing")).toEqual(["failing    none"]);
    expect(rowsOf(glance(data, { verdicts: [] }), "verdict")).toEqual([
      "verdict    none: no tier above the current one",
    ]);
  });

  it("an incomplete run: why it stopped, how many selected cases were not scored, harness errors", () => {
    const base = makeReportData(4);
    const run = {
      ...base.run,
      schema_version: "evalgate.bench_run_report.v3" as const,
      complete: false,
      incomplete_reason: "cost_cap" as const,
      case_count: 6,
      trials_per_case: 1,
      harness_error_count: 1,
    };
    const text = glance({ ...base, run: run as unknown as ReportData["run"] }, { unscored: 2 });
    expect(rowsOf(text, "INCOMPLETE")).toEqual([
      "INCOMPLETE the run stopped at its cost cap (--max-cost-usd): 2 of 6 selected cases not scored; it cannot support a promotion",
    ]);
    expect(rowsOf(text, "errors")).toEqual([
      "errors     1 case(s) decided by a harness-side failure (timeout or crash), not by the rubric",
    ]);
    expect(text).toContain("4 of 4 scored cases passed, 6 selected".replace("4 of 4", `${base.run.passed_count} of 4`));
  });

  it("with trials: k of n and the failing trials' modes; a v1 run names its bound by score", () => {
    const data = makeReportData(2);
    const flaky: ReportCase = {
      ...data.cases[0]!,
      case_id: "flaky-one",
      trials: { passed: 2, total: 3 },
      trial_runs: [0, 1, 2].map((trial) => ({
        trial,
        score: {
          ...data.cases[0]!.score,
          passed: trial !== 1,
          failure_modes: trial === 1 ? [{ code: "tests_fail", severity: "block" as const, detail: null }] : [],
        },
        evidence: null,
        transcript: null,
      })),
    };
    const noModes: ReportCase = {
      ...data.cases[1]!,
      case_id: "silent",
      score: { ...data.cases[1]!.score, passed: false, failure_modes: [] },
    };
    const text = glance(data, { cases: [flaky, noModes] });
    expect(text).toContain("           flaky-one  fail 2 of 3 trials  tests_fail\n");
    expect(text).toContain("           silent  fail  (no failure mode named)\n");
    const v1 = { ...data.run, schema_version: "evalgate.bench_run_report.v1" } as unknown as ReportData["run"];
    expect(rowsOf(glance({ ...data, run: v1 }), "bound")[0]).toContain("lower bound of the score");
    expect(rowsOf(glance({ ...data, cases: [] }), "pass rate")[0]).toContain("pass rate  - (");
  });

  it("untrusted text (case ids, failure codes, verdict reasons, paths) is made visible, never obeyed", () => {
    const data = makeReportData(2);
    const hostile: ReportCase = {
      ...data.cases[1]!,
      case_id: "evil\u001b[2J\u001b]0;pwned\u0007",
      score: {
        ...data.cases[1]!.score,
        passed: false,
        failure_modes: [{ code: "x\rforged PASS", severity: "block", detail: null }],
      },
    };
    const verdict: PromotionVerdict = { ...data.verdicts[0]!, reasons: ["reason \u001b[31mred\u202e"] };
    const text = glance(data, { cases: [hostile], verdicts: [verdict], recordPath: "/r\u009b.json" });
    // oxlint-disable-next-line eslint/no-control-regex -- asserting no control character survives is the point
    expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202E]/);
    expect(text).toContain("evil\\x1b[2J\\x1b]0;pwned\\x07");
    expect(text).toContain("x\\x0dforged PASS");
    expect(text).toContain("reason \\x1b[31mred\\u202e");
  });
});
