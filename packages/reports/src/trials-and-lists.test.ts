// The renderers on what the other renderer tests do not build: v3 runs with trials per case (flaky,
// erroring and all-failing trials), v1 runs, incomplete runs of every reason, long streams, and the run list.
import type { BenchScore, ChainRecord, RecordedReport } from "@eval/models";
import { describe, expect, it } from "vitest";
import { escapeTerminal } from "./escape.ts";
import { makeReportData } from "./fixtures.test-helpers.ts";
import { readEmbeddedData, renderHtmlReport } from "./html.ts";
import { renderJunit } from "./junit.ts";
import { renderMarkdownSummary } from "./markdown.ts";
import { caseStatus, failingTrials, incompleteReasonText, isFlaky, trialStatus } from "./report-data.ts";
import type { ReportCase, ReportData, ReportRun } from "./report-data.ts";
import { matchesRunFilter, renderRunListText, runListEntry } from "./run-list.ts";
import type { RunListEntry } from "./run-list.ts";
import { caseTrial, renderCaseText, renderRunText } from "./show.ts";

type V2Run = Extract<ReportRun, { schema_version: "evalgate.bench_run_report.v2" }>;
type V3Run = Extract<ReportRun, { schema_version: "evalgate.bench_run_report.v3" }>;

const score = (passed: boolean, codes: readonly string[] = []): BenchScore => ({
  passed,
  score: passed ? 1 : 0,
  breakdown: { fixed: passed ? 1 : 0 },
  failure_modes: codes.map((code) => ({
    code,
    severity: "block" as const,
    detail: code === "sut.timeout" ? null : `${code} detail`,
  })),
  cost_usd: 0.01,
  wall_clock_ms: 1000,
});

/** A case with trials of the given outcomes (true: passed; a string: failed with that code). */
function trialCase(base: ReportCase, id: string, outcomes: ReadonlyArray<true | string>): ReportCase {
  const trialRuns = outcomes.map((outcome, trial) => ({
    trial,
    score: outcome === true ? score(true) : score(false, [outcome]),
    evidence: trial === 0 ? base.evidence : null,
    transcript: null,
  }));
  return {
    ...base,
    case_id: id,
    score: trialRuns[0]!.score,
    trials: { passed: outcomes.filter((outcome) => outcome === true).length, total: outcomes.length },
    trial_runs: trialRuns,
  };
}

/** A v3 run of four cases with three trials each: steady pass, flaky, all failing, a harness error first. */
function trialsReport(): ReportData {
  const base = makeReportData(4);
  const first = base.cases[0]!;
  const cases = [
    trialCase(first, "steady", [true, true, true]),
    trialCase(first, "flaky", [true, "still_vulnerable", true]),
    trialCase(first, "broken", ["still_vulnerable", "collateral_change", "still_vulnerable"]),
    trialCase(first, "timed-out", ["sut.timeout", true, true]),
  ];
  const v2 = base.run as V2Run;
  const run: V3Run = {
    ...v2,
    schema_version: "evalgate.bench_run_report.v3",
    case_count: 4,
    passed_count: 1,
    selection: { ...v2.selection, task_class_case_count: 4, selected_case_count: 4 },
    trials_per_case: 3,
    reliability: {
      case_count: 4,
      pass_at_1: 0.5833,
      pass_at_k: 0.75,
      pass_hat_k: 0.25,
      flaky_case_ids: ["flaky", "timed-out"],
    },
    harness_error_count: 1,
    harness_errored_case_ids: ["timed-out"],
    failed_trial_count: 4,
  };
  return { ...base, run, cases };
}

describe("a run with trials per case", () => {
  const data = trialsReport();
  const [steady, flaky, broken, timedOut] = data.cases as [ReportCase, ReportCase, ReportCase, ReportCase];

  it("gives each case and trial its status: all trials must pass, a harness failure is an error", () => {
    expect([steady, flaky, broken, timedOut].map((c) => caseStatus(c))).toEqual(["pass", "fail", "fail", "error"]);
    expect([steady, flaky, broken].map((c) => isFlaky(c))).toEqual([false, true, false]);
    expect(failingTrials(flaky).map((trial) => trial.trial)).toEqual([1]);
    expect(failingTrials(timedOut).map((trial) => trialStatus(trial.score))).toEqual(["error"]);
    expect(failingTrials({ trial_runs: null })).toEqual([]);
  });

  it("shows pass@1, pass^k, the flaky cases and k of n per case in the terminal", () => {
    const text = renderRunText(data);
    expect(text).toContain(
      "3 trials per case: pass@1 0.5833, pass^3 0.2500 (every trial passes), pass@3 0.7500, over 4 cases",
    );
    expect(text).toContain("flaky (trials disagree): flaky, timed-out");
    expect(text).toMatch(/^flaky\s+fail\s+1\.000\s+hit\s+2 of 3 flaky\s+still_vulnerable$/m);
    expect(text).toMatch(/^broken\s+fail\s+0\.000\s+hit\s+0 of 3\s+still_vulnerable, collateral_change$/m);
    const none = renderRunText({
      ...data,
      run: { ...(data.run as V3Run), reliability: { ...(data.run as V3Run).reliability, flaky_case_ids: [] } },
    });
    expect(none).toContain("flaky (trials disagree): none");
  });

  it("lists every trial of a case and shows one trial as a case of its own", () => {
    const text = renderCaseText(data, flaky);
    expect(text).toContain("trials: 2 of 3 passed (FLAKY: the trials disagree)");
    expect(text).toMatch(/^ {2}trial 1 {2}fail {3}0\.000 {2}still_vulnerable$/m);
    expect(text).toContain(`one trial in detail: evalgate show ${data.run.run_id} --case flaky --trial <n>`);
    expect(text).toContain("score 1.000 (trial 0)");
    const second = caseTrial(flaky, 1);
    expect(second).not.toBeNull();
    const trialText = renderCaseText(data, second!, { trial: 1, of: 3 });
    expect(trialText).toContain(`case flaky trial 1 (of 3) of run ${data.run.run_id} (demo): fail, score 0.000`);
    expect(trialText).toContain("no detail file for this case in the run");
    expect(caseTrial(flaky, 7)).toBeNull();
    const single = makeReportData(1).cases[0]!;
    expect(caseTrial(single, 0)).toBe(single);
    expect(caseTrial(single, 1)).toBeNull();
  });

  it("writes the trials column and each failing trial's modes in the Markdown summary", () => {
    const md = renderMarkdownSummary({ run: data.run, cases: data.cases, verdicts: data.verdicts });
    expect(md).toContain("3 trials per case: pass@1 **0.5833**, pass^3 **0.2500**");
    expect(md).toContain("Flaky (trials disagree): `flaky`, `timed-out`.");
    expect(md).toContain("| case | status | score (trial 0) | trials passed | failure modes (failing trials) |");
    expect(md).toContain("| flaky | fail | 1.000 | 2 of 3 (flaky) | still\\_vulnerable |");
    expect(md).toContain("| broken | fail | 0.000 | 0 of 3 | still\\_vulnerable, collateral\\_change |");
    expect(md).toContain("| timed-out | error | 0.000 | 2 of 3 (flaky) | sut.timeout |");
  });

  it("writes k of n and every failing trial into JUnit, and unscored cases as skipped with the reason", () => {
    const run = { ...(data.run as V3Run), complete: false, incomplete_reason: "cost_cap" as const };
    const xml = renderJunit({ run, cases: data.cases, unscored: ["never-ran"] });
    expect(xml).toContain('tests="5" failures="2" errors="1" skipped="1"');
    expect(xml).toContain(
      '<failure message="2 of 3 trials passed (flaky): still_vulnerable" type="still_vulnerable">trial 1: fail, score 0 (passed: false)\n  still_vulnerable [block]: still_vulnerable detail</failure>',
    );
    expect(xml).toContain(
      '<failure message="0 of 3 trials passed: still_vulnerable, collateral_change" type="still_vulnerable,collateral_change">',
    );
    expect(xml).toContain(
      '<error message="2 of 3 trials passed (flaky): sut.timeout" type="sut.timeout">trial 0: error, score 0 (passed: false)\n  sut.timeout [block]</error>',
    );
    expect(xml).toContain('<skipped message="not scored: the run stopped at its cost cap (--max-cost-usd)"/>');
  });

  it("keeps every trial's evidence through the HTML report's embedded data", () => {
    const report = renderHtmlReport(data, { compress: "never" });
    const embedded = readEmbeddedData(report.html);
    expect(embedded.digestMatches).toBe(true);
    expect(embedded.data.cases.map((c) => c.trial_runs?.length)).toEqual([3, 3, 3, 3]);
    expect(embedded.data.cases[1]!.trial_runs![0]!.evidence).toEqual(flaky.trial_runs![0]!.evidence);
    expect(embedded.data).toEqual(data);
  });
});

describe("runs without trials: failures without codes, old reports, every incomplete reason", () => {
  it("names the reason an incomplete run stopped, for every reason the schema allows", () => {
    expect(
      ["cost_cap", "interrupted", "cancelled", "units_missing", "harness_error", null].map(incompleteReasonText),
    ).toEqual([
      "the run stopped at its cost cap (--max-cost-usd)",
      "the run was interrupted (Ctrl-C or SIGTERM)",
      "the run was cancelled",
      "the merge was missing shards' units (--allow-incomplete)",
      "the run did not finish",
      "the run did not finish",
    ]);
  });

  it("a failed case without failure modes is `not_passed` in JUnit, and a v1 run shows its unknowns", () => {
    const data = makeReportData(2);
    const quiet = { ...data.cases[1]!, score: score(false), evidence: null };
    const xml = renderJunit({ run: data.run, cases: [quiet] });
    expect(xml).toContain('<failure message="score 0.000" type="not_passed">score 0 (passed: false)</failure>');
    const v2 = data.run as V2Run;
    const v1: ReportRun = {
      schema_version: "evalgate.bench_run_report.v1",
      run_id: v2.run_id,
      task_class: v2.task_class,
      harness_version: v2.harness_version,
      sut_label: v2.sut_label,
      sut_digest: v2.sut_digest,
      rubric_digest: v2.rubric_digest,
      cassette_corpus_digest: v2.cassette_corpus_digest,
      host_fingerprint: v2.host_fingerprint,
      isolation_class: v2.isolation_class,
      started_at: v2.started_at,
      ended_at: v2.ended_at,
      complete: true,
      case_count: 2,
      mean_score: 0.5,
      score_stddev: 0.5,
      lower_bound_95: 0.1,
      lower_bound_method: "wilson",
      bca_lower_bound_95: null,
      wilson_lower_bound_95: 0.1,
      bootstrap_resamples: 0,
      bootstrap_seed: "s",
      passed_count: 1,
      total_cost_usd: 0,
      block_severity_failure_modes: [],
      prev_hash: v2.prev_hash,
      chain_head: null,
    };
    const old = { ...data, run: v1, chain: { ...data.chain, verified: false, problem: "record 2 was edited" } };
    expect(renderRunText(old)).toContain(
      "isolation: rubric bwrap-permission, SUT unknown; chain head - (DOES NOT VERIFY)",
    );
    const { html } = renderHtmlReport(old);
    expect(html).toContain("unknown (v1 report)");
    expect(html).toContain("NO: record 2 was edited");
    const md = renderMarkdownSummary({ run: { ...v1, complete: false }, cases: old.cases, verdicts: [] });
    expect(md).toContain("**Incomplete**: the run did not finish; 2 of 2 selected cases were scored");
    expect(md).toContain("chain head -.");
    expect(renderJunit({ run: v1, cases: [], unscored: ["x"] })).toContain(
      '<skipped message="not scored: the run did not finish"/>',
    );
  });

  it("states a subset's selection in the summary, with its filter", () => {
    const data = makeReportData(3);
    const v2 = data.run as V2Run;
    const subset = {
      ...v2,
      selection: {
        ...v2.selection,
        scope: "subset" as const,
        filter: "lodash-*",
        selected_case_count: 3,
        task_class_case_count: 12,
      },
    };
    const md = renderMarkdownSummary({ run: subset, cases: data.cases, verdicts: data.verdicts });
    expect(md).toContain("(SUBSET)");
    expect(md).toContain(
      "**Subset**: 3 of the 12 cases of the task class (filter lodash-\\*): it cannot support a promotion.",
    );
  });

  it("cuts a long stream and a long diff in the terminal, counting what it left out, and says when a stream was truncated", () => {
    const data = makeReportData(1);
    const long = Array.from({ length: 250 }, (_, index) => `line ${index}`).join("\n");
    const evidence = {
      ...data.cases[0]!.evidence!,
      diff: long,
      sut_stdout: { text: long, bytes: 10_000_000, truncated: true },
      changed_files: [{ path: "gone.txt", status: "deleted" as const, bytes: 0 }],
    };
    const text = renderCaseText(data, { ...data.cases[0]!, evidence });
    expect(text.match(/ {2}\.\.\. 50 more lines \(evalgate report shows all of it\)/g)).toHaveLength(2);
    expect(text).toContain(`SUT stdout (10000000 bytes, first ${Buffer.byteLength(long)} shown):`);
    expect(text).toContain("  deleted  gone.txt\n");
    const none = renderCaseText(data, {
      ...data.cases[0]!,
      evidence: { ...evidence, diff: null, diff_source: null, sut_stdout: null, sut_stderr: null },
    });
    expect(none).toContain("workspace diff: none recorded");
    expect(none).not.toContain("SUT stdout");
    const sutEmpty = renderCaseText(data, {
      ...data.cases[0]!,
      evidence: { ...evidence, diff: "", diff_source: "sut" as const },
    });
    expect(sutEmpty).toContain("workspace diff (as the SUT reported it): no file changed");
  });

  it("makes bidirectional controls visible in the terminal", () => {
    expect(escapeTerminal("a\u202Eb\u2066c\tok\n")).toBe("a\\u202eb\\u2066c\tok\n");
    expect(escapeTerminal("\r\u0007\u009B")).toBe("\\x0d\\x07\\x9b");
  });
});

describe("the run list", () => {
  const data = makeReportData(3);
  const v2 = data.run as V2Run;
  const record = (report: ReportData["run"], extra: Record<string, unknown> = {}): ChainRecord =>
    ({
      schema_version: "evalgate.chain_record.v1",
      sequence: 0,
      host_fingerprint: v2.host_fingerprint,
      recorded_at: "2026-11-02T00:00:04.100Z",
      prev_hash: v2.prev_hash,
      content_hash: v2.sut_digest,
      chain_hash: `sha256:${"3".repeat(64)}`,
      report: { ...report, per_case: [] },
      ...extra,
    }) as unknown as ChainRecord;
  /** The entry of a record whose report reads (as the chain reader upgrades it) as `report`. */
  const entryOf = (report: ReportData["run"], extra: Record<string, unknown> = {}) =>
    runListEntry(record(report, extra), { ...report, per_case: [] } as unknown as RecordedReport);

  it("lists a record's figures, its scope (null for v1), and whether it is signed", () => {
    const entry = entryOf(v2);
    expect(entry).toMatchObject({
      type: "recorded_run",
      run_id: v2.run_id,
      scope: "full",
      case_count: 3,
      complete: true,
      signed: false,
    });
    expect(entryOf(v2, { signature: { key_id: "k", value: "v" } }).signed).toBe(true);
    expect(entryOf(v2, { signature: null }).signed).toBe(false);
    expect(entryOf({ ...v2, selection: null } as unknown as ReportRun).scope).toBeNull();
  });

  it("filters by task class, SUT label, SUT digest (prefix of at least 8 hex, with or without blake3:) and completeness", () => {
    const entry = entryOf(v2);
    const hex = v2.sut_digest.slice("blake3:".length);
    expect(matchesRunFilter(entry, {})).toBe(true);
    expect(matchesRunFilter(entry, { taskClass: "demo" })).toBe(true);
    expect(matchesRunFilter(entry, { taskClass: "other" })).toBe(false);
    expect(matchesRunFilter(entry, { sut: "replay" })).toBe(true);
    expect(matchesRunFilter(entry, { sut: hex.slice(0, 8) })).toBe(true);
    expect(matchesRunFilter(entry, { sut: `blake3:${hex.slice(0, 12)}` })).toBe(true);
    expect(matchesRunFilter(entry, { sut: hex.slice(0, 7) })).toBe(false);
    expect(matchesRunFilter(entry, { sut: "2".repeat(8) })).toBe(false);
    expect(matchesRunFilter(entry, { complete: true })).toBe(true);
    expect(matchesRunFilter(entry, { complete: false })).toBe(false);
  });

  it("renders a table with aligned columns, long SUT labels cut, and says when nothing matches", () => {
    const long: RunListEntry = {
      ...entryOf(v2),
      sut_label: `command:${"x".repeat(60)}`,
      complete: false,
      scope: null,
      signed: true,
    };
    const text = renderRunListText([entryOf(v2), long]);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^run id\s+recorded\s+task class\s+sut\s+sut digest\s+scope\s+cases\s+mean\s+bound\s+complete\s+signed$/,
    );
    expect(lines[1]).toContain("2026-11-02 00:00:04Z");
    expect(lines[2]).toContain(`command:${"x".repeat(31)}…`);
    expect(lines[2]).toMatch(/\s-\s+3\s+.*\sno\s+signed$/);
    expect(lines[1]!.indexOf("demo")).toBe(lines[0]!.indexOf("task class"));
    expect(renderRunListText([])).toBe("no recorded runs match\n");
  });
});
