import { sha256, sha256Digest } from "@eval/hashing";
import { gunzipSync, gzipSync } from "node:zlib";
import type { PromotionVerdict } from "@eval/models";
import { escapeHtml } from "./escape.ts";
import { REPORT_SCRIPT, REPORT_STYLE } from "./html-client.ts";
import { currentRun, meteredText, runMetered } from "./report-data.ts";
import type { CurrentRun, ReportCase, ReportData, ReportTrial } from "./report-data.ts";
import { trendChartSvg } from "./trend-chart.ts";

export interface HtmlReportOptions {
  /** `auto` (default): gzip the embedded data when its JSON passes `compressAboveBytes`. */
  readonly compress?: "auto" | "always" | "never";
  /** Default 64 KiB. */
  readonly compressAboveBytes?: number;
}

export interface HtmlReport {
  readonly html: string;
  /**
   * SHA-256 of the embedded data before compression (UTF-8: the summary JSON, then each details block's
   * JSON after a newline): what the page's button re-checks.
   */
  readonly dataSha256: string;
  readonly dataBytes: number;
  readonly compressed: boolean;
}

const sha256Base64 = (text: string): string => sha256(text).toString("base64");

/**
 * The Content-Security-Policy of every report: nothing may load or connect; only the page's own script
 * and style run, allowed by their hashes.
 */
export function reportCsp(): string {
  return [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(REPORT_SCRIPT)}'`,
    `style-src 'sha256-${sha256Base64(REPORT_STYLE)}'`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

const n4 = (value: number): string => value.toFixed(4);
const field = (name: string, text: string): string => `<span data-field="${name}">${escapeHtml(text)}</span>`;

function figure(label: string, name: string, text: string): string {
  return `<div class="figure">${escapeHtml(label)}<b>${field(name, text)}</b></div>`;
}

/** The metered figures of a run whose agent ran behind the model bridge, beside the self-reported rest of its cost. */
function meteredFigures(run: CurrentRun): string {
  const metered = runMetered(run);
  if (metered === null) return "";
  return [
    figure("metered cost (wire)", "metered_cost_usd", `$${metered.cost_usd.toFixed(4)}`),
    figure("SUT-reported cost", "sut_reported_cost_usd", `$${metered.sut_reported_cost_usd.toFixed(4)}`),
    figure("tokens in / out", "metered_tokens", `${metered.input_tokens} / ${metered.output_tokens}`),
    figure("model requests", "metered_requests", String(metered.requests)),
  ].join("\n");
}

function verdictHtml(verdict: PromotionVerdict): string {
  const head = `${verdict.current_tier} -> ${verdict.target_tier}: evidence ${verdict.evidence_sufficient ? "sufficient" : "NOT sufficient"} (lower bound ${n4(verdict.lower_bound_95)}, threshold ${verdict.threshold_at_target}; passed ${verdict.passed_count}, min ${verdict.min_passed_at_target}; held-out ${verdict.held_out_count}, min ${verdict.min_held_out_at_target})`;
  const reasons = verdict.reasons.map((reason) => `<li>${escapeHtml(reason)}</li>`).join("");
  return `<div class="verdict${verdict.evidence_sufficient ? " ok" : ""}" data-tier="${escapeHtml(verdict.target_tier)}">${escapeHtml(head)}<ul>${reasons}</ul></div>`;
}

function headerHtml(data: ReportData): string {
  const run = currentRun(data.run);
  const scope = run.selection;
  const scopeText =
    scope === null
      ? "unknown (v1 report)"
      : scope.scope === "full"
        ? `full (${scope.task_class_case_count} cases)`
        : `SUBSET: ${scope.selected_case_count} of ${scope.task_class_case_count} cases`;
  const sutIsolation = run.sut_isolation ?? "unknown";
  const method = run.lower_bound_method;
  const verdicts =
    data.verdicts.length === 0
      ? `<p class="sub">no verdicts: no trust-tier file was read</p>`
      : data.verdicts.map(verdictHtml).join("");
  return `<header>
<h1>${field("task_class", run.task_class)}: evalgate report</h1>
<p class="sub">SUT ${field("sut_label", run.sut_label)}; run ${field("run_id", run.run_id)}${run.complete ? "" : " (INCOMPLETE)"}; ended ${escapeHtml(run.ended_at)}</p>
<p class="sub">scope ${field("scope", scopeText)}; isolation: rubric ${field("isolation_class", run.isolation_class)}, SUT ${field("sut_isolation", sutIsolation)}</p>
<div class="figures">
${figure("lower bound (95%, one-sided)", "lower_bound_95", n4(run.lower_bound_95))}
${figure(`method`, "lower_bound_method", method)}
${figure("mean score", "mean_score", n4(run.mean_score))}
${figure("sd", "score_stddev", n4(run.score_stddev))}
${figure("passed", "passed_count", `${run.passed_count} / ${run.case_count}`)}
${figure("cost", "total_cost_usd", `$${run.total_cost_usd.toFixed(4)}`)}
${meteredFigures(run)}
</div>${meteredText(run) === null ? "" : `\n<p class="sub">${field("metered", meteredText(run)!)}</p>`}
<h2>Verdicts</h2>
${verdicts}
</header>`;
}

function baselineHtml(data: ReportData): string {
  const base = data.baseline;
  if (base === null) return "";
  const signed = (value: number): string => `${value >= 0 ? "+" : ""}${value.toFixed(4)}`;
  return `<section id="baseline"><h2>Against baseline ${escapeHtml(base.run_id)}</h2><div class="figures">
${figure("lower bound change", "baseline_bound_change", signed(data.run.lower_bound_95 - base.lower_bound_95))}
${figure("mean change", "baseline_mean_change", signed(data.run.mean_score - base.mean_score))}
${figure("mean per-case change", "baseline_case_change", signed(base.mean_score_change))}
${figure("now passing", "newly_passing", String(base.newly_passing))}
${figure("now failing", "newly_failing", String(base.newly_failing))}
${figure("cases in both", "shared_cases", String(base.shared_cases))}
</div><p class="sub">baseline: lower bound ${n4(base.lower_bound_95)}, mean ${n4(base.mean_score)}, ${base.passed_count} of ${base.case_count} passed</p></section>`;
}

function provenanceHtml(data: ReportData, dataSha256: string): string {
  const run = data.run;
  const rows: Array<[string, string]> = [
    ["record", data.record.file],
    ["sequence", String(data.record.sequence)],
    ["recorded at", data.record.recorded_at],
    ["content hash (BLAKE3)", data.record.content_hash],
    ["chain hash (SHA-256)", data.record.chain_hash],
    ["chain head when generated", data.chain.head],
    [
      "chain verifies",
      data.chain.verified ? `yes (${data.chain.records} records)` : `NO: ${data.chain.problem ?? "unknown"}`,
    ],
    ["SUT digest", run.sut_digest],
    ["rubric digest", run.rubric_digest],
    ["cassette corpus digest", run.cassette_corpus_digest],
    ["harness version", run.harness_version],
    ["host fingerprint", run.host_fingerprint],
    ["generated at", `${data.generated_at} by evalgate ${data.harness_version}`],
    ["embedded data (SHA-256 of its JSON blocks, newline-joined)", dataSha256],
  ];
  const table = rows
    .map(([key, value]) => `<tr><th>${escapeHtml(key)}</th><td class="mono">${escapeHtml(value)}</td></tr>`)
    .join("");
  return `<section id="provenance"><h2>Provenance</h2><table>${table}</table>
<p><button id="verify-digest" type="button">Re-check the embedded data's digest</button> <span id="digest-result"></span></p></section>`;
}

const CASES_HTML = `<section id="cases"><h2>Cases</h2>
<div class="filters">
<label>status <select id="filter-status"><option value="">all</option></select></label>
<label>failure mode <select id="filter-mode"><option value="">all</option></select></label>
<label>curation <select id="filter-curation"><option value="">all</option></select></label>
<span id="shown-count" class="sub"></span>
<button id="page-prev" type="button" hidden>previous</button><span id="page-info" class="sub"></span><button id="page-next" type="button" hidden>next</button></div>
<table id="case-table"><thead><tr><th>case</th><th>status</th><th>score</th><th>pass</th><th id="col-trials">trials</th><th>failure modes</th><th>curation</th><th>cost</th><th>time</th><th>cache</th><th id="col-baseline">vs baseline</th></tr></thead>
<tbody id="case-rows"></tbody></table>
<div id="case-detail" hidden></div></section>`;

/** Cases per embedded details block: opening a case decodes only its block. */
export const DETAILS_CHUNK = 250;

interface EmbeddedBlocks {
  readonly summary: string;
  readonly details: readonly string[];
}

/** The report data as the page embeds it: a summary without per-case evidence and transcripts, then those in blocks. */
function splitData(data: ReportData): EmbeddedBlocks {
  // Each trial's score stays in the summary (the table shows k of n); its evidence and transcript go with the case's.
  const summary = JSON.stringify({
    ...data,
    cases: data.cases.map(({ evidence: _evidence, transcript: _transcript, trial_runs, ...rest }) => ({
      ...rest,
      trial_runs: trial_runs?.map(({ trial, score }) => ({ trial, score })) ?? null,
    })),
  });
  const details: string[] = [];
  for (let start = 0; start < data.cases.length; start += DETAILS_CHUNK) {
    details.push(
      JSON.stringify(
        data.cases.slice(start, start + DETAILS_CHUNK).map((c) => ({
          evidence: c.evidence,
          transcript: c.transcript,
          trials: c.trial_runs?.map((trial) => ({ evidence: trial.evidence, transcript: trial.transcript })) ?? null,
        })),
      ),
    );
  }
  return { summary, details };
}

/** What the page's digest covers: the summary JSON, then each details block's JSON after a newline (UTF-8). */
const digestInput = (blocks: EmbeddedBlocks): string => [blocks.summary, ...blocks.details].join("\n");

const blockTag = (attributes: string, json: string, compressed: boolean): string =>
  `<script ${attributes} type="application/octet-stream" data-encoding="${compressed ? "gzip+base64" : "base64"}">${(compressed ? gzipSync(Buffer.from(json, "utf8"), { level: 9 }) : Buffer.from(json, "utf8")).toString("base64")}</script>`;

/**
 * One self-contained HTML page for a run: no server, no network, a strict CSP. The data is embedded as
 * base64 (gzip first when large) in non-executable script elements; the page's script renders the
 * cases from it with DOM text only, so nothing an agent, SUT or rubric wrote is ever parsed as HTML.
 */
export function renderHtmlReport(data: ReportData, options: HtmlReportOptions = {}): HtmlReport {
  const blocks = splitData(data);
  const raw = digestInput(blocks);
  const dataBytes = Buffer.byteLength(raw, "utf8");
  const dataSha256 = sha256Digest(raw);
  const mode = options.compress ?? "auto";
  const compressed = mode === "always" || (mode === "auto" && dataBytes > (options.compressAboveBytes ?? 64 * 1024));
  const title = `evalgate report: ${data.run.task_class} ${data.run.run_id}`;
  const embedded = [
    blockTag(`id="report-data" data-sha256="${dataSha256}" data-chunk="${DETAILS_CHUNK}"`, blocks.summary, compressed),
    ...blocks.details.map((json, index) => blockTag(`class="report-details" data-block="${index}"`, json, compressed)),
  ].join("\n");
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${reportCsp()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLE}</style></head>
<body>
${headerHtml(data)}
<section id="trend"><h2>Trend: full runs of ${escapeHtml(data.run.task_class)}</h2>${trendChartSvg(data.trend, data.tiers, data.run.run_id)}</section>
${baselineHtml(data)}
${CASES_HTML}
${provenanceHtml(data, dataSha256)}
${embedded}
<script type="module">${REPORT_SCRIPT}</script>
</body></html>
`;
  return { html, dataSha256, dataBytes, compressed };
}

const BLOCK_PATTERN =
  /<script (?:id="report-data"|class="report-details")[^>]*data-encoding="([^"]+)">([^<]*)<\/script>/g;

/**
 * The report data a page embeds and the digest it recorded, read back in Node (what the page's button
 * does in the browser). `digestMatches` is false when the embedded data was changed after generation.
 */
export function readEmbeddedData(html: string): {
  data: ReportData;
  recordedSha256: string;
  actualSha256: string;
  digestMatches: boolean;
} {
  const recorded = /data-sha256="(sha256:[0-9a-f]{64})"/.exec(html)?.[1];
  const jsons = [...html.matchAll(BLOCK_PATTERN)].map(([, encoding, body]) => {
    const bytes = Buffer.from(body!, "base64");
    return (encoding === "gzip+base64" ? gunzipSync(bytes) : bytes).toString("utf8");
  });
  if (recorded === undefined || jsons.length === 0) throw new Error("not an evalgate HTML report: no embedded data");
  const [summary, ...details] = jsons as [string, ...string[]];
  const actual = sha256Digest(digestInput({ summary, details }));
  const parsed = JSON.parse(summary) as ReportData;
  type Extra = Pick<ReportCase, "evidence" | "transcript"> & {
    trials: Array<Pick<ReportTrial, "evidence" | "transcript">> | null;
  };
  const extra = details.flatMap((json) => JSON.parse(json) as Extra[]);
  const data = {
    ...parsed,
    cases: parsed.cases.map((c, index) => ({
      ...c,
      evidence: extra[index]?.evidence ?? null,
      transcript: extra[index]?.transcript ?? null,
      trial_runs:
        c.trial_runs?.map((trial, t) => ({
          ...trial,
          evidence: extra[index]?.trials?.[t]?.evidence ?? null,
          transcript: extra[index]?.trials?.[t]?.transcript ?? null,
        })) ?? null,
    })),
  };
  return { data, recordedSha256: recorded, actualSha256: actual, digestMatches: actual === recorded };
}
