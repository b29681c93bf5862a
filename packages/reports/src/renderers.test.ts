import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { escapeHtml, escapeMarkdown, escapeXml } from "./escape.ts";
import { IMG_PAYLOAD, makeReportData, SCRIPT_PAYLOAD } from "./fixtures.test-helpers.ts";
import { DETAILS_CHUNK, readEmbeddedData, renderHtmlReport, reportCsp } from "./html.ts";
import { REPORT_SCRIPT, REPORT_STYLE } from "./html-client.ts";
import { renderJunit } from "./junit.ts";
import { renderMarkdownSummary } from "./markdown.ts";
import { caseStatus } from "./report-data.ts";
import type { ReportRun } from "./report-data.ts";
import { renderCaseText, renderRunText } from "./show.ts";
import { trendChartSvg } from "./trend-chart.ts";

describe("escaping", () => {
  it("escapes HTML, XML (dropping what XML cannot hold) and Markdown", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    expect(escapeXml("a\u0000b\u001Bc\uD800d<")).toBe("a\uFFFDb\uFFFDc\uFFFDd&lt;");
    expect(escapeXml("\uD83D\uDE00")).toBe("\uD83D\uDE00");
    expect(escapeMarkdown("a|b `c` *d* <img>\nnext")).toBe("a\\|b \\`c\\` \\*d\\* &lt;img&gt; next");
  });
});

describe("renderHtmlReport", () => {
  it("embeds the data with the digest of its JSON, allows only its own script and style by hash, and fetches nothing", () => {
    const data = makeReportData(DETAILS_CHUNK + 5);
    const report = renderHtmlReport(data, { compress: "never" });
    expect(report.compressed).toBe(false);
    expect(
      report.html.match(
        /<script class="report-details" data-block="\d" type="application\/octet-stream" data-encoding="base64">/g,
      ),
    ).toHaveLength(2);
    const embedded = readEmbeddedData(report.html);
    expect(embedded.data).toEqual(data);
    expect(embedded.digestMatches).toBe(true);
    expect(embedded.recordedSha256).toBe(report.dataSha256);
    // The digest is of the summary JSON and each details block's JSON, newline-joined: recompute it by hand.
    const blocks = [...report.html.matchAll(/data-encoding="base64">([^<]*)</g)].map((match) =>
      Buffer.from(match[1]!, "base64").toString("utf8"),
    );
    expect(blocks).toHaveLength(3);
    expect(JSON.parse(blocks[0]!).cases[0]).not.toHaveProperty("transcript");
    expect(report.dataSha256).toBe(`sha256:${createHash("sha256").update(blocks.join("\n"), "utf8").digest("hex")}`);
    expect(report.dataBytes).toBe(Buffer.byteLength(blocks.join("\n")));
    const edited = report.html.replace(
      /(id="report-data"[^>]*>)([^<]*)/,
      (_, tag: string, body: string) =>
        `${tag}${Buffer.from(Buffer.from(body, "base64").toString("utf8").replace('"demo"', '"dem0"')).toString("base64")}`,
    );
    expect(readEmbeddedData(edited).digestMatches).toBe(false);
    expect(() => readEmbeddedData("<html></html>")).toThrow(/no embedded data/);
    const csp = reportCsp();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`'sha256-${createHash("sha256").update(REPORT_SCRIPT).digest("base64")}'`);
    expect(csp).toContain(`'sha256-${createHash("sha256").update(REPORT_STYLE).digest("base64")}'`);
    expect(report.html).toContain(`<meta http-equiv="Content-Security-Policy" content="${csp}">`);
    expect(report.html).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//);
  });

  it("gzips large data and escapes every recorded string it renders itself", () => {
    const data = makeReportData(400, { hostile: true, sutLabel: `x ${SCRIPT_PAYLOAD}` });
    const report = renderHtmlReport(data);
    expect(report.compressed).toBe(true);
    expect(report.html).toContain('data-encoding="gzip+base64"');
    expect(report.html).not.toContain('data-encoding="base64"');
    expect(readEmbeddedData(report.html)).toMatchObject({ data, digestMatches: true });
    expect(report.html).not.toContain(SCRIPT_PAYLOAD);
    expect(report.html).toContain(escapeHtml(`x ${SCRIPT_PAYLOAD}`));
    expect(renderHtmlReport(makeReportData(3), { compress: "never" }).compressed).toBe(false);
    expect(renderHtmlReport(makeReportData(3), { compressAboveBytes: 10 }).compressed).toBe(true);
  });

  it("renders a baseline's figures, an incomplete subset run, and a page without verdicts", () => {
    const base = makeReportData(6);
    const v2 = base.run as Extract<ReportRun, { schema_version: "evalgate.bench_run_report.v2" }>;
    const data = {
      ...base,
      verdicts: [],
      run: {
        ...v2,
        complete: false,
        selection: { ...v2.selection, scope: "subset" as const, selected_case_count: 6, task_class_case_count: 9 },
      },
      baseline: {
        run_id: "20261030T000000Z-cccccccc",
        mean_score: 0.5,
        lower_bound_95: 0.3,
        passed_count: 3,
        case_count: 6,
        newly_passing: 2,
        newly_failing: 1,
        mean_score_change: 0.125,
        shared_cases: 6,
      },
    };
    const { html } = renderHtmlReport(data);
    expect(html).toContain("SUBSET: 6 of 9 cases");
    expect(html).toContain("(INCOMPLETE)");
    expect(html).toContain("no verdicts: no trust-tier file was read");
    expect(html).toContain(
      `<span data-field="baseline_bound_change">+${(data.run.lower_bound_95 - 0.3).toFixed(4)}</span>`,
    );
    expect(html).toContain(`<span data-field="newly_failing">1</span>`);
  });
});

describe("trendChartSvg", () => {
  it("draws one point per run for bound and mean, a rule per tier, and says when there is no run", () => {
    const data = makeReportData(3);
    const svg = trendChartSvg(data.trend, data.tiers, data.run.run_id);
    expect(svg.match(/<circle class="bound"/g)).toHaveLength(3);
    expect(svg.match(/<circle class="mean"/g)).toHaveLength(3);
    expect(svg.match(/<line class="tier"/g)).toHaveLength(2);
    expect(svg).toContain('class="current"');
    // y = top + (1 - value) * plot height: the 0.6 tier sits 40% down the 214 px plot.
    expect(svg).toContain(`y1="${(16 + 0.4 * 214).toFixed(1)}"`);
    expect(trendChartSvg([], data.tiers, "x")).toContain("no complete full run");
    expect(trendChartSvg(data.trend.slice(0, 1), [], "other").match(/<polyline/g)).toBeNull();
  });

  it("draws the pass rate as a third series told apart by marker and line, and labels the axis ends apart on one day", () => {
    const data = makeReportData(4);
    const svg = trendChartSvg(data.trend, data.tiers, data.run.run_id);
    expect(svg.match(/<rect class="pass"/g)).toHaveLength(3);
    expect(svg.match(/<polyline class="(bound|mean|pass)"/g)).toEqual([
      '<polyline class="bound"',
      '<polyline class="mean"',
      '<polyline class="pass"',
    ]);
    // y = 16 + (1 - value) * 214; the pass rate 0.5 of the first run sits half-way down.
    expect(svg).toContain(`<rect class="pass" x="${(44 - 3.5).toFixed(1)}" y="${(16 + 0.5 * 214 - 3.5).toFixed(1)}"`);
    expect(svg).toContain("<title>20261030T000000Z-cccccccc (2026-10-30T00:00:00.000Z): pass rate 0.500</title>");
    for (const label of ["lower bound (95%)", "mean score", "pass rate"]) expect(svg).toContain(`>${label}</text>`);
    expect(svg).toContain(">2026-10-30</text>");
    expect(svg).toContain(">2026-11-02</text>");
    const sameDay = data.trend.map((point, index) => ({
      ...point,
      ended_at: `2026-11-02T0${index}:1${index}:00.000Z`,
    }));
    const labels = [
      ...trendChartSvg(sameDay, [], "x").matchAll(/<text class="axis" x="[\d.]+" y="252"[^>]*>([^<]+)</g),
    ].map((match) => match[1]);
    expect(labels).toEqual(["2026-11-02 00:10Z", "2026-11-02 02:12Z"]);
  });
});

describe("renderJunit", () => {
  it("writes one testcase per case: failures with their modes and details, harness errors as errors", () => {
    const data = makeReportData(10, { hostile: true });
    const xml = renderJunit({ run: data.run, cases: data.cases });
    const statuses = data.cases.map((c) => caseStatus(c));
    expect(xml.match(/<testcase /g)).toHaveLength(10);
    expect(xml.match(/<failure /g)).toHaveLength(statuses.filter((s) => s === "fail").length);
    expect(xml.match(/<error /g)).toHaveLength(statuses.filter((s) => s === "error").length);
    expect(xml).toContain(
      `<testsuites name="evalgate" tests="10" failures="${statuses.filter((s) => s === "fail").length}"`,
    );
    expect(xml).toContain(`<failure message="score 0.250: still_vulnerable" type="still_vulnerable">`);
    expect(xml).toContain(escapeXml(IMG_PAYLOAD));
    expect(xml).not.toContain(IMG_PAYLOAD);
    expect(xml).toContain(`<property name="lower_bound_95" value="${data.run.lower_bound_95}"/>`);
    expect(xml).toContain("SUT error: timeout");
    // The start in UTC with its zone, not a local-looking time without one.
    expect(xml).toMatch(/<testsuite [^>]* timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">/);
  });

  it("with trials, a case whose first trial passed but another failed is a failure, as the run's passed_count counts it", () => {
    const data = makeReportData(1);
    const passing = data.cases[0]!;
    expect(caseStatus({ ...passing, score: { ...passing.score, passed: true }, trials: null })).toBe("pass");
    const flaky = {
      ...passing,
      score: { ...passing.score, passed: true, failure_modes: [] },
      trials: { passed: 2, total: 3 },
    };
    expect(caseStatus(flaky)).toBe("fail");
    expect(caseStatus({ ...flaky, trials: { passed: 3, total: 3 } })).toBe("pass");
    expect(renderJunit({ run: data.run, cases: [flaky] })).toContain("<failure ");
  });
});

describe("renderMarkdownSummary", () => {
  it("gives the verdict, the bound and a table of failed cases, escaped and capped", () => {
    const data = makeReportData(20, { hostile: true });
    const md = renderMarkdownSummary({ run: data.run, cases: data.cases, verdicts: data.verdicts, maxFailedRows: 3 });
    const failed = data.cases.filter((c) => caseStatus(c) !== "pass");
    expect(md).toContain(`### evalgate: demo: ${data.run.passed_count} of 20 cases passed`);
    expect(md).toContain("One-sided 95% lower bound **0.4443** (betting)");
    expect(md).toContain("- **bronze**: evidence **NOT sufficient** (threshold 0.6)");
    expect(md).toContain("  - lower\\_bound\\_95 0.4443 &lt; 0.6 required for bronze (betting)");
    expect(md).toContain(`#### Failed cases (${failed.length})`);
    expect(md.match(/^\| case-/gm)).toHaveLength(3);
    expect(md).toContain(`... and ${failed.length - 3} more`);
    const clean = makeReportData(1);
    const ok = renderMarkdownSummary({ run: { ...clean.run, complete: false }, cases: clean.cases, verdicts: [] });
    expect(ok).toContain("None.");
    expect(ok).toContain("No verdict: no trust-tier file was read.");
    expect(ok).toContain("(INCOMPLETE)");
  });
});

describe("terminal views", () => {
  it("shows a run with one line per case, and a case with its modes, breakdown, diff and one tool call per line", () => {
    const data = makeReportData(4, { hostile: true });
    const run = renderRunText(data);
    expect(run).toContain("run 20261102T000000Z-bbbbbbbb of demo: SUT replay");
    expect(run).toContain("bronze: evidence NOT sufficient: lower_bound_95 0.4443 < 0.6");
    expect(run.split("\n").filter((line) => line.startsWith("case-"))).toHaveLength(4);
    const text = renderCaseText(data, data.cases[1]!);
    expect(text).toContain("case case-00001 of run 20261102T000000Z-bbbbbbbb (demo): fail, score 0.250");
    expect(text).toContain(`still_vulnerable [block]: ${IMG_PAYLOAD}`);
    expect(text).toContain("  manifest_fixed 0");
    expect(text).toContain(
      "workspace diff (recorded by the harness): 1 file(s) changed\n  changed  package-lock.json (2048 bytes)\n  --- a/",
    );
    // What the SUT printed, an escape shown rather than obeyed.
    expect(text).toContain(`SUT stdout (5 bytes):\n  out ${SCRIPT_PAYLOAD}\\x1b[2J\n`);
    expect(text).toContain("SUT stderr: empty");
    const toolLines = text.split("\n").filter((line) => /^ {2}(Read|Bash|Edit) /.test(line));
    expect(toolLines).toHaveLength(3);
    expect(toolLines[0]).toContain('Read (read_file) ok      {"file_path":"advisory.json"}');
  });

  it("makes terminal escapes visible, and says when evidence or a transcript is missing", () => {
    const data = makeReportData(2);
    const bare = { ...data.cases[0]!, evidence: null, transcript: null, trials: { passed: 2, total: 3 } };
    const text = renderCaseText(data, bare);
    expect(text).toContain("no detail file for this case in the run");
    expect(text).toContain("no transcript recorded for this case");
    expect(text).toContain("trials 2 of 3");
    const hostile = {
      ...data.cases[1]!,
      evidence: { ...data.cases[1]!.evidence!, diff: "", changed_files: [], sut_error: "boom\u001b[2J" },
    };
    const shown = renderCaseText(data, hostile);
    expect(shown).toContain("SUT error: boom\\x1b[2J");
    expect(shown).toContain("workspace diff (recorded by the harness): no file changed");
    const claimed = renderCaseText(data, {
      ...hostile,
      evidence: { ...hostile.evidence, diff: "--- a/x\n+++ b/x\n", diff_source: "sut" as const },
    });
    expect(claimed).toContain("workspace diff (as the SUT reported it):\n  --- a/x\n");
  });
});
