// Report data built in memory for tests and the report benchmark: a v2 run of `cases` cases with
// transcripts and diffs, some failing, some erroring, optionally carrying hostile text where an agent
// or rubric could put it.
import type { PromotionVerdict, Transcript } from "@eval/models";
import { REPORT_DATA_SCHEMA_VERSION } from "./report-data.ts";
import type { ReportCase, ReportData } from "./report-data.ts";

export const SCRIPT_PAYLOAD = `<script>window.__pwned = "script"</script>`;
export const IMG_PAYLOAD = `<img src=x onerror="window.__pwned = 'img'">`;
const DIGEST = `blake3:${"1".repeat(64)}`;
const SHA = `sha256:${"2".repeat(64)}`;

function transcript(index: number, hostile: boolean): Transcript {
  return {
    schema_version: "evalgate.transcript.v1",
    source: {
      format: "claude-stream-json",
      provider: "claude-code",
      session_id: `s-${index}`,
      model: "m",
      cli_version: "1.0.0",
      labels: {},
    },
    case_id: `case-${index}`,
    invocation_tag: `bench:2026-11-01T00:00:00.000Z:demo:case-${index}`,
    written_at: "2026-11-01T00:00:01.000Z",
    messages: [
      {
        role: "user",
        text: `Fix case ${index}: upgrade the vulnerable package and keep the lockfile consistent.`,
        truncated: false,
      },
      {
        role: "assistant",
        text: hostile ? `Done. ${SCRIPT_PAYLOAD} ${IMG_PAYLOAD}` : "I will read the advisory, then bump the package.",
        truncated: false,
      },
    ],
    tool_calls: [
      {
        id: "t1",
        name: "Read",
        original_name: "read_file",
        canonical: true,
        input: { file_path: "advisory.json" },
        status: "ok",
        result_excerpt: '{"id":"GHSA-xxxx"}',
      },
      {
        id: "t2",
        name: "Bash",
        original_name: "Bash",
        canonical: true,
        input: { command: hostile ? `echo '${IMG_PAYLOAD}'` : "npm install lodash@4.17.21 --package-lock-only" },
        status: "ok",
        result_excerpt: hostile ? SCRIPT_PAYLOAD : "added 1 package",
      },
      {
        id: "t3",
        name: "Edit",
        original_name: "replace",
        canonical: true,
        input: { file_path: "package.json", old_string: "4.17.20", new_string: "4.17.21" },
        status: "ok",
        result_excerpt: null,
      },
    ],
    usage: { input_tokens: 1200, output_tokens: 300, cache_read_tokens: null, cache_write_tokens: null },
    duration_ms: 4200,
    cost_usd: 0.012,
    counts: { Read: 1, Bash: 1, Edit: 1 },
    errors: [],
    drift: { unknown_event_types: {}, unparseable_lines: 0, missing_fields: 0, truncated_last_line: false },
  };
}

const DIFF = `--- a/package.json\n+++ b/package.json\n@@ -3,7 +3,7 @@\n   "dependencies": {\n-    "lodash": "4.17.20"\n+    "lodash": "4.17.21"\n   }\n`;

function reportCase(index: number, hostile: boolean): ReportCase {
  const kind = index % 7 === 3 ? "error" : index % 4 === 1 ? "fail" : "pass";
  const modes =
    kind === "error"
      ? [{ code: "sut.timeout", severity: "block" as const, detail: "no result within 600000 ms" }]
      : kind === "fail"
        ? [
            {
              code: index % 8 === 1 ? "still_vulnerable" : "collateral_change",
              severity: "block" as const,
              detail: hostile ? IMG_PAYLOAD : "lodash@4.17.20 is affected by GHSA-35jh-r3h4-6jhm",
            },
          ]
        : [];
  return {
    case_id: `case-${String(index).padStart(5, "0")}`,
    curation_class: index % 3 === 0 ? "held-out" : "rag-corpus-derived",
    score: {
      passed: kind === "pass",
      score: kind === "pass" ? 1 : kind === "fail" ? 0.25 : 0,
      breakdown: { manifest_fixed: kind === "pass" ? 1 : 0, scope_clean: 1 },
      failure_modes: modes,
      cost_usd: 0.012,
      wall_clock_ms: 1500 + index,
    },
    cache_hit: index % 2 === 0,
    trials: null,
    trial_runs: null,
    evidence: {
      executed_in_run: "20261101T000000Z-aaaaaaaa",
      sut_error: kind === "error" ? "timeout" : null,
      sut_wall_clock_ms: 1200,
      rubric_wall_clock_ms: 250,
      rubric_exit_code: 0,
      rubric_stderr: null,
      diff: hostile ? `${DIFF}+${SCRIPT_PAYLOAD}\n` : DIFF,
      diff_source: "harness",
      changed_files: [{ path: "package-lock.json", status: "changed", bytes: 2048 }],
      sut_stdout: { text: hostile ? `out ${SCRIPT_PAYLOAD}\u001b[2J` : "done\n", bytes: 5, truncated: false },
      sut_stderr: { text: "", bytes: 0, truncated: false },
    },
    transcript: transcript(index, hostile),
    baseline: null,
  };
}

const VERDICT: PromotionVerdict = {
  schema_version: "evalgate.promotion_verdict.v3",
  task_class: "demo",
  current_tier: "untrusted",
  target_tier: "bronze",
  evidence_sufficient: false,
  reasons: [
    "lower_bound_95 0.4443 < 0.6 required for bronze (betting)",
    "block-severity failure modes present (1): still_vulnerable",
  ],
  sut_label: "replay",
  sut_digest: DIGEST,
  lower_bound_95: 0.4443,
  lower_bound_method: "betting",
  bound_quantity: "mean_score",
  threshold_at_target: 0.6,
  report_scope: "full",
  case_count: 10,
  min_cases_at_target: 10,
  passed_count: 5,
  min_passed_at_target: 10,
  held_out_count: 4,
  min_held_out_at_target: 0,
  isolation_class: "bwrap-permission",
  report_run_id: "20261102T000000Z-bbbbbbbb",
  report_chain_head: SHA,
  passed_over: [],
  thresholds_calibrated: false,
  evaluated_at: "2026-11-02T00:00:00.000Z",
  requires_human_approval: true,
};

/** A report of `count` cases (`hostile`: agent-written text carries script and img payloads). */
export function makeReportData(count: number, options: { hostile?: boolean; sutLabel?: string } = {}): ReportData {
  const cases = Array.from({ length: count }, (_, index) => reportCase(index, options.hostile ?? false));
  const passed = cases.filter((c) => c.score.passed).length;
  const mean = cases.reduce((sum, c) => sum + c.score.score, 0) / count;
  return {
    schema_version: REPORT_DATA_SCHEMA_VERSION,
    generated_at: "2026-11-02T00:00:05.000Z",
    harness_version: "0.1.0",
    run: {
      schema_version: "evalgate.bench_run_report.v2",
      run_id: "20261102T000000Z-bbbbbbbb",
      task_class: "demo",
      harness_version: "0.1.0",
      sut_label: options.sutLabel ?? "replay",
      sut_digest: DIGEST,
      rubric_digest: DIGEST,
      cassette_corpus_digest: DIGEST,
      host_fingerprint: "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
      isolation_class: "bwrap-permission",
      sut_isolation: "harness",
      started_at: "2026-11-02T00:00:00.000Z",
      ended_at: "2026-11-02T00:00:04.000Z",
      complete: true,
      incomplete_reason: null,
      selection: {
        scope: "full",
        filter: null,
        task_class_case_count: count,
        selected_case_count: count,
        selected_case_ids_digest: DIGEST,
      },
      case_count: count,
      score_kind: "graded",
      mean_score: mean,
      score_stddev: 0.41,
      lower_bound_95: 0.4443,
      lower_bound_method: "betting",
      bound_quantity: "mean_score",
      informational: {
        bca_lower_bound_95: 0.5,
        bootstrap_resamples: 10000,
        bootstrap_seed: "seed",
        wilson_lower_bound_95: 0.4,
      },
      passed_count: passed,
      total_cost_usd: 0.012 * count,
      block_severity_failure_modes: ["still_vulnerable"],
      prev_hash: SHA,
      chain_head: SHA,
    },
    record: {
      file: "2026-11-02T00-00-04.100Z-222222222222.json",
      sequence: 3,
      recorded_at: "2026-11-02T00:00:04.100Z",
      content_hash: DIGEST,
      chain_hash: SHA,
    },
    chain: { head: SHA, verified: true, records: 4, problem: null },
    verdicts: [VERDICT],
    tiers: [
      { name: "bronze", threshold: 0.6 },
      { name: "silver", threshold: 0.8 },
    ],
    trend: [
      {
        run_id: "20261030T000000Z-cccccccc",
        ended_at: "2026-10-30T00:00:00.000Z",
        mean_score: 0.6,
        lower_bound_95: 0.31,
        pass_rate: 0.5,
      },
      {
        run_id: "20261101T000000Z-aaaaaaaa",
        ended_at: "2026-11-01T00:00:00.000Z",
        mean_score: 0.7,
        lower_bound_95: 0.38,
        pass_rate: 0.6,
      },
      {
        run_id: "20261102T000000Z-bbbbbbbb",
        ended_at: "2026-11-02T00:00:04.000Z",
        mean_score: mean,
        lower_bound_95: 0.4443,
        pass_rate: passed / count,
      },
    ],
    cases,
    baseline: null,
  };
}
