// A run whose agent ran behind the model bridge: every renderer shows what was metered from the wire, its price
// source, and the self-reported rest of the cost apart; a hostile model name stays text; a run without metering
// shows none of it.
import { describe, expect, it } from "vitest";
import type { RunMetered } from "@eval/models";
import { makeReportData, SCRIPT_PAYLOAD } from "./fixtures.test-helpers.ts";
import { renderHtmlReport } from "./html.ts";
import { renderJunit } from "./junit.ts";
import { renderMarkdownSummary } from "./markdown.ts";
import type { ReportData } from "./report-data.ts";
import { renderRunText } from "./show.ts";

const METERED: RunMetered = {
  trials: 3,
  requests: 7,
  input_tokens: 5400,
  cached_input_tokens: 1200,
  cache_write_tokens: 300,
  output_tokens: 910,
  cost_usd: 0.0321,
  unpriced_trials: 1,
  unpriced_models: [`gpt-x\u001b[31m${SCRIPT_PAYLOAD}`],
  price_tables: ["evalgate.prices.2026-11-26"],
  upstream_hosts: ["api.anthropic.com"],
  sut_reported_cost_usd: 0.004,
};

function meteredRun(metered: RunMetered | undefined): ReportData {
  const data = makeReportData(3);
  const run = {
    ...data.run,
    schema_version: "evalgate.bench_run_report.v3",
    sut_isolation: "bwrap-bridge",
    total_cost_usd: 0.0361,
    trials_per_case: 1,
    reliability: { case_count: 3, pass_at_1: 0.66, pass_at_k: 0.66, pass_hat_k: 0.66, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: 1,
    ...(metered === undefined ? {} : { metered }),
  } as ReportData["run"];
  return { ...data, run };
}

describe("metered figures in every renderer", () => {
  const data = meteredRun(METERED);

  it("show: requests, tokens, metered cost with its price table, and the self-reported rest", () => {
    const text = renderRunText(data);
    expect(text).toContain(
      "metered from the wire over 3 trial(s): 7 requests, 5400 input tokens (1200 cached, 300 cache writes), 910 output tokens, $0.0321 priced by evalgate.prices.2026-11-26, upstream api.anthropic.com; reported by the SUT itself $0.0040",
    );
    expect(text).toContain("1 trial(s) unpriced");
    expect(text).not.toContain("\u001b");
  });

  it("HTML: figures for the metered and the self-reported cost, tokens and requests", () => {
    const html = renderHtmlReport(data, { compress: "never" }).html;
    expect(html).toContain('<span data-field="metered_cost_usd">$0.0321</span>');
    expect(html).toContain('<span data-field="sut_reported_cost_usd">$0.0040</span>');
    expect(html).toContain('<span data-field="metered_tokens">5400 / 910</span>');
    expect(html).toContain('<span data-field="metered_requests">7</span>');
    expect(html).toContain('data-field="metered"');
    expect(html).not.toContain(SCRIPT_PAYLOAD);
  });

  it("JUnit: one property per sum, the price table and the self-reported cost", () => {
    const xml = renderJunit({ run: data.run, cases: data.cases });
    for (const [name, value] of [
      ["metered_requests", "7"],
      ["metered_input_tokens", "5400"],
      ["metered_cached_input_tokens", "1200"],
      ["metered_output_tokens", "910"],
      ["metered_cost_usd", "0.0321"],
      ["metered_price_tables", "evalgate.prices.2026-11-26"],
      ["sut_reported_cost_usd", "0.004"],
      ["total_cost_usd", "0.0361"],
    ]) {
      expect(xml).toContain(`<property name="${name}" value="${value}"/>`);
    }
    expect(xml).not.toContain("<script>");
  });

  it("Markdown: the metered line, escaped", () => {
    const markdown = renderMarkdownSummary({ run: data.run, cases: data.cases, verdicts: data.verdicts });
    expect(markdown).toContain("metered from the wire over 3 trial(s): 7 requests");
    expect(markdown).toContain("reported by the SUT itself $0.0040");
    expect(markdown).not.toContain("<script>");
  });

  it("a run with nothing metered shows no metered line, figure or property", () => {
    const plain = meteredRun(undefined);
    expect(renderRunText(plain)).not.toContain("metered");
    expect(renderHtmlReport(plain, { compress: "never" }).html).not.toContain('data-field="metered');
    expect(renderJunit({ run: plain.run, cases: plain.cases })).not.toContain("metered_");
    expect(renderMarkdownSummary({ run: plain.run, cases: plain.cases, verdicts: plain.verdicts })).not.toContain(
      "metered",
    );
    // v2 reports predate metering.
    expect(renderRunText(makeReportData(2))).not.toContain("metered");
  });
});
