// The report page's script and style, inlined into the page and allowed by their hashes (no other script
// or style runs). The script builds every element from the embedded data with textContent and DOM
// properties: nothing recorded is ever parsed as HTML.

export const REPORT_STYLE = String.raw`
:root { font: 14px/1.45 system-ui, sans-serif; color: #1d2430; background: #fbfbfd; }
body { margin: 0 auto; max-width: 1180px; padding: 16px 20px 48px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 22px 0 8px; border-bottom: 1px solid #dde; }
h3 { font-size: 15px; margin: 12px 0 6px; }
.sub { color: #566; } .mono, code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0; }
.figure { background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 6px 12px; min-width: 110px; }
.figure b { display: block; font-size: 18px; }
.verdict { border-left: 4px solid #c33; background: #fff; padding: 6px 12px; margin: 6px 0; }
.verdict.ok { border-color: #2a7; } .verdict ul { margin: 4px 0; padding-left: 20px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
#case-table { table-layout: fixed; } #case-table td { overflow: hidden; text-overflow: ellipsis; }
#case-table th:nth-child(1) { width: 26%; } #case-table th:nth-child(6) { width: 22%; } #case-table th:nth-child(7) { width: 11%; }
th, td { border-bottom: 1px solid #eef; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f0f1f6; }
tr.case-row { cursor: pointer; } tr.case-row:hover { background: #f3f6ff; } tr.case-row.selected { background: #e4ecff; }
.status-pass { color: #1f7a4a; } .status-fail { color: #b3261e; } .status-error { color: #8a5a00; }
.filters { display: flex; gap: 14px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
#case-detail { background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 8px 14px; margin-top: 12px; }
#case-detail[hidden] { display: none; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f7fa; padding: 6px 8px; margin: 4px 0; max-height: 420px; overflow: auto; }
details { margin: 3px 0; } summary { cursor: pointer; }
.flaky { color: #8a5a00; font-weight: 600; } button.trial.selected { outline: 2px solid #335; } button.trial.status-fail, button.trial.status-error { color: #b3261e; }
.diff-add { color: #1f7a4a; } .diff-del { color: #b3261e; } .diff-hunk { color: #5060a0; }
svg .grid { stroke: #e3e5ee; } svg .axis, svg .tier-label, svg .legend { font-size: 11px; fill: #556; }
svg .tier { stroke: #c08a00; stroke-dasharray: 5 4; } svg .current { stroke: #99a; stroke-dasharray: 2 3; }
svg polyline.bound, svg circle.bound, svg .key-bound { stroke: #2456c8; } svg circle.bound, svg circle.key-bound { fill: #2456c8; }
svg polyline.mean, svg line.key-mean { stroke: #6f7b95; stroke-dasharray: 7 4; } svg circle.mean, svg circle.key-mean { fill: #6f7b95; stroke: #6f7b95; }
svg polyline.pass, svg line.key-pass { stroke: #1f7a4a; stroke-dasharray: 2 3; } svg rect.pass, svg rect.key-pass { fill: #fff; stroke: #1f7a4a; stroke-width: 1.5; }
svg polyline, svg line.key-bound, svg line.key-mean, svg line.key-pass { stroke-width: 2; } svg .legend.bound { fill: #2456c8; } svg .legend.mean { fill: #5d6880; } svg .legend.pass { fill: #1f7a4a; }
.digest-ok { color: #1f7a4a; } .digest-bad { color: #b3261e; font-weight: bold; }
.change-up { color: #1f7a4a; } .change-down { color: #b3261e; }
`;

export const REPORT_SCRIPT = String.raw`
const summaryNode = document.getElementById("report-data");
const detailNodes = [...document.querySelectorAll("script.report-details")];
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, String(value));
    else node[key] = value;
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}
function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
async function blockBytes(node) {
  const packed = decodeBase64(node.textContent.trim());
  if (node.dataset.encoding !== "gzip+base64") return packed;
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
const parseBytes = (bytes) => JSON.parse(new TextDecoder().decode(bytes));
// The summary (header, table) is decoded at once; each block of case details only when a case in it opens.
const data = parseBytes(await blockBytes(summaryNode));
const chunkSize = Number(summaryNode.dataset.chunk);
const detailBlocks = new Map();
function detailsOf(index) {
  const block = Math.floor(index / chunkSize);
  if (!detailBlocks.has(block)) detailBlocks.set(block, blockBytes(detailNodes[block]).then(parseBytes));
  return detailBlocks.get(block).then((details) => details[index % chunkSize]);
}
const fmt = (value, digits) => (typeof value === "number" ? value.toFixed(digits) : "-");
// The page's copy of caseStatus (report-data.ts): it runs in the browser, from the embedded data.
function statusOf(c) {
  if (c.score.failure_modes.some((m) => m.code === "sut.timeout" || m.code === "sut.exception" || m.code === "rubric.timeout")) return "error";
  if (c.trials !== null) return c.trials.passed === c.trials.total ? "pass" : "fail";
  return c.score.passed ? "pass" : "fail";
}

const flakyOf = (c) => c.trials !== null && c.trials.passed > 0 && c.trials.passed < c.trials.total;
// The page's copy of trialStatus (report-data.ts).
function trialStatusOf(score) {
  if (score.failure_modes.some((m) => m.code === "sut.timeout" || m.code === "sut.exception" || m.code === "rubric.timeout")) return "error";
  return score.passed ? "pass" : "fail";
}

// Cases table and filters: the filters run over every case; the table shows one page of the matches,
// building a row the first time it is shown (a 10,000-case run opens as fast as a 500-case one).
const PAGE_SIZE = 500;
const tbody = document.getElementById("case-rows");
const hasTrials = data.cases.some((c) => c.trials !== null);
const hasBaseline = data.baseline !== null;
document.getElementById("col-trials").hidden = !hasTrials;
document.getElementById("col-baseline").hidden = !hasBaseline;
const modesOf = (c) => [...new Set((c.trial_runs === null ? [c.score] : c.trial_runs.map((t) => t.score)).flatMap((s) => s.failure_modes.map((m) => m.code)))];
const rows = data.cases.map((c, index) => ({ c, index, status: statusOf(c), modes: modesOf(c), row: null }));
function buildRow(r) {
  const c = r.c;
  const change = c.baseline === null ? null : c.score.score - c.baseline.score;
  const trials = el("td", { hidden: !hasTrials, class: flakyOf(c) ? "flaky" : "" }, c.trials === null ? "" : c.trials.passed + " of " + c.trials.total + (flakyOf(c) ? " flaky" : ""));
  const base = el("td", { hidden: !hasBaseline, class: change === null ? "" : change > 0 ? "change-up" : change < 0 ? "change-down" : "" },
    c.baseline === null ? "new" : (change >= 0 ? "+" : "") + change.toFixed(3) + (c.baseline.passed !== c.score.passed ? (c.score.passed ? " (now passes)" : " (now fails)") : ""));
  const row = el("tr", { class: "case-row", "data-case": c.case_id, "data-status": r.status },
    el("td", { class: "mono" }, c.case_id),
    el("td", { class: "status-" + r.status }, r.status),
    el("td", {}, fmt(c.score.score, 3)),
    el("td", {}, c.score.passed ? "yes" : "no"),
    trials,
    el("td", {}, r.modes.join(", ")),
    el("td", {}, c.curation_class),
    el("td", {}, "$" + fmt(c.score.cost_usd, 4)),
    el("td", {}, fmt(c.score.wall_clock_ms / 1000, 2) + " s"),
    el("td", {}, c.cache_hit === null ? "-" : c.cache_hit ? "hit" : "miss"),
    base);
  row.addEventListener("click", () => showCase(c, row, r.index));
  return row;
}
function fillSelect(id, values) {
  const select = document.getElementById(id);
  for (const value of [...new Set(values)].sort()) select.append(el("option", { value }, value));
  select.addEventListener("change", applyFilters);
  return select;
}
const statusSelect = fillSelect("filter-status", rows.map((r) => r.status));
const modeSelect = fillSelect("filter-mode", rows.flatMap((r) => r.modes));
const curationSelect = fillSelect("filter-curation", rows.map((r) => r.c.curation_class));
let matching = rows;
let page = 0;
const pagePrev = document.getElementById("page-prev");
const pageNext = document.getElementById("page-next");
function showPage() {
  const pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
  page = Math.min(Math.max(page, 0), pages - 1);
  const slice = matching.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  tbody.replaceChildren(...slice.map((r) => (r.row ??= buildRow(r))));
  document.getElementById("shown-count").textContent = matching.length + " of " + rows.length + " cases shown";
  document.getElementById("page-info").textContent = pages === 1 ? "" : "rows " + (page * PAGE_SIZE + 1) + "-" + (page * PAGE_SIZE + slice.length) + " (page " + (page + 1) + " of " + pages + ")";
  pagePrev.hidden = pageNext.hidden = pages === 1;
  pagePrev.disabled = page === 0;
  pageNext.disabled = page === pages - 1;
}
pagePrev.addEventListener("click", () => { page--; showPage(); });
pageNext.addEventListener("click", () => { page++; showPage(); });
function applyFilters() {
  matching = rows.filter((r) => (statusSelect.value === "" || r.status === statusSelect.value)
    && (modeSelect.value === "" || r.modes.includes(modeSelect.value))
    && (curationSelect.value === "" || r.c.curation_class === curationSelect.value));
  page = 0;
  showPage();
}
applyFilters();

// One case in detail.
function keyValueTable(entries) {
  return el("table", {}, ...entries.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", { class: "mono" }, v))));
}
function diffView(diff) {
  const pre = el("pre", { class: "diff" });
  for (const line of diff.split("\n")) {
    const cls = line.startsWith("@@") ? "diff-hunk" : line.startsWith("+") && !line.startsWith("+++") ? "diff-add" : line.startsWith("-") && !line.startsWith("---") ? "diff-del" : "";
    pre.append(el("span", { class: cls }, line + "\n"));
  }
  return pre;
}
function workspaceView(ev) {
  const head = el("h4", {}, "workspace diff" + (ev === null || ev.diff_source === null ? "" : ev.diff_source === "harness" ? " (recorded by the harness)" : " (as the SUT reported it)"));
  if (ev === null || ev.diff === null) return [head, el("p", { class: "sub" }, "no workspace diff recorded for this case")];
  if (ev.diff === "") return [head, el("p", { class: "sub" }, "empty: the SUT changed no file")];
  const files = ev.changed_files.length === 0 ? null
    : el("table", { id: "changed-files" }, ...ev.changed_files.map((f) => el("tr", { "data-status": f.status }, el("td", {}, f.status), el("td", { class: "mono" }, f.path), el("td", {}, f.status === "deleted" ? "" : f.bytes + " bytes"))));
  const view = diffView(ev.diff);
  view.id = "workspace-diff";
  return files === null ? [head, view] : [head, files, view];
}
// Terminal control characters a SUT printed, shown as \xNN instead of dropped or obeyed.
const visible = (text) => text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
function streamView(name, stream, id) {
  if (stream === null) return [];
  const summary = name + " (" + stream.bytes + " bytes" + (stream.truncated ? ", first part shown" : "") + ")";
  return [el("details", { open: true, id }, el("summary", {}, summary), el("pre", {}, visible(stream.text)))];
}
function transcriptView(t) {
  const box = el("div", { id: "transcript" });
  box.append(el("p", { class: "sub" }, t.source.provider + " (" + t.source.format + "), model " + (t.source.model || "-") + ", " + t.tool_calls.length + " tool calls, " + t.messages.length + " messages"
    + (t.duration_ms === null ? "" : ", " + (t.duration_ms / 1000).toFixed(1) + " s") + (t.cost_usd === null ? "" : ", $" + t.cost_usd.toFixed(4))));
  const messages = el("details", { class: "messages" }, el("summary", {}, "messages (" + t.messages.length + ")"));
  for (const m of t.messages) messages.append(el("details", { class: "message" }, el("summary", {}, m.role + (m.truncated ? " (truncated)" : "") + ": " + m.text.slice(0, 90)), el("pre", {}, m.text)));
  box.append(messages);
  const calls = el("div", { class: "tool-calls" }, el("h4", {}, "tool calls (" + t.tool_calls.length + ")"));
  for (const call of t.tool_calls) {
    calls.append(el("details", { class: "tool-call", "data-tool": call.name },
      el("summary", { class: "mono" }, call.name + (call.canonical ? "" : " (not canonical)") + (call.original_name !== call.name ? " <- " + call.original_name : "") + "  [" + call.status + "]  " + JSON.stringify(call.input).slice(0, 120)),
      el("pre", {}, JSON.stringify(call.input, null, 2)),
      call.result_excerpt === null ? null : el("pre", { class: "result" }, call.result_excerpt)));
  }
  box.append(calls);
  if (t.errors.length > 0) box.append(el("h4", {}, "errors the stream reported"), el("pre", {}, t.errors.join("\n")));
  return box;
}
async function showCase(c, row, index, trial) {
  for (const r of rows) r.row?.classList.toggle("selected", r.row === row);
  const details = await detailsOf(index);
  const panel = document.getElementById("case-detail");
  panel.replaceChildren();
  panel.hidden = false;
  panel.append(el("h3", { class: "mono" }, c.case_id), el("p", {}, statusOf(c) + ", score " + fmt(c.score.score, 3) + (c.trials === null ? "" : " (trial 0)") + ", " + c.curation_class));
  // With trials: k of n, the flaky mark, and one button per trial; the view below is the chosen trial's.
  const chosen = c.trial_runs === null ? 0 : Math.min(trial ?? firstFailing(c), c.trial_runs.length - 1);
  if (c.trial_runs !== null) {
    const bar = el("div", { id: "trials" }, el("b", {}, c.trials.passed + " of " + c.trials.total + " trials passed"), flakyOf(c) ? el("span", { class: "flaky" }, " flaky") : null, " ");
    c.trial_runs.forEach((t, i) => {
      const button = el("button", { class: "trial status-" + trialStatusOf(t.score) + (i === chosen ? " selected" : ""), "data-trial": t.trial }, "trial " + t.trial + ": " + trialStatusOf(t.score));
      button.addEventListener("click", () => showCase(c, row, index, i));
      bar.append(button, " ");
    });
    panel.append(bar);
  }
  const view = c.trial_runs === null ? { score: c.score, evidence: details.evidence, transcript: details.transcript, trial: null }
    : { score: c.trial_runs[chosen].score, evidence: details.trials?.[chosen]?.evidence ?? null, transcript: details.trials?.[chosen]?.transcript ?? null, trial: c.trial_runs[chosen].trial };
  panel.append(...trialView(c, view));
  panel.scrollIntoView({ block: "nearest" });
}
// The trial a case opens on: its first that did not pass (the one to look at), else trial 0.
function firstFailing(c) {
  const i = c.trial_runs.findIndex((t) => trialStatusOf(t.score) !== "pass");
  return i === -1 ? 0 : i;
}
function trialView(c, { score, evidence: ev, transcript, trial }) {
  const out = [];
  if (trial !== null) out.push(el("h4", { id: "trial-heading" }, "trial " + trial + ": " + trialStatusOf(score) + ", score " + fmt(score.score, 3)));
  out.push(el("h4", {}, "timings and cost"), keyValueTable([
    ["case wall clock", fmt(score.wall_clock_ms / 1000, 2) + " s"],
    ["SUT wall clock", ev === null ? "-" : fmt(ev.sut_wall_clock_ms / 1000, 2) + " s"],
    ["rubric wall clock", ev === null || ev.rubric_wall_clock_ms === null ? "-" : fmt(ev.rubric_wall_clock_ms / 1000, 2) + " s"],
    ["cost", "$" + fmt(score.cost_usd, 4)],
    ["executed in run", ev === null ? "-" : ev.executed_in_run + (c.cache_hit ? " (cache hit)" : "")],
  ]));
  out.push(el("h4", {}, "breakdown"), keyValueTable(Object.entries(score.breakdown).map(([k, v]) => [k, String(v)])));
  const modes = el("div", { id: "failure-modes" }, el("h4", {}, "failure modes (" + score.failure_modes.length + ")"));
  for (const m of score.failure_modes) modes.append(el("div", { class: "failure-mode" }, el("b", { class: "mono" }, m.code), " " + m.severity, m.detail === null ? null : el("pre", {}, m.detail)));
  out.push(modes);
  if (ev !== null && ev.sut_error !== null) out.push(el("h4", {}, "SUT error"), el("pre", {}, ev.sut_error));
  if (ev !== null && ev.rubric_stderr) out.push(el("details", {}, el("summary", {}, "rubric stderr"), el("pre", {}, ev.rubric_stderr)));
  out.push(el("h4", {}, "transcript"), transcript === null ? el("p", { class: "sub" }, "no transcript recorded for this case") : transcriptView(transcript));
  out.push(...workspaceView(ev), ...streamView("SUT stdout", ev === null ? null : ev.sut_stdout, "sut-stdout"), ...streamView("SUT stderr", ev === null ? null : ev.sut_stderr, "sut-stderr"));
  return out;
}
const wanted = decodeURIComponent(location.hash.replace(/^#case=/, ""));
const initial = rows.find((r) => r.c.case_id === wanted);
if (initial !== undefined) {
  page = Math.floor(matching.indexOf(initial) / PAGE_SIZE);
  showPage();
  await showCase(initial.c, initial.row, initial.index);
}

// Provenance: re-check the embedded data against the digest recorded when the page was generated.
document.getElementById("verify-digest").addEventListener("click", async () => {
  const out = document.getElementById("digest-result");
  // The digest covers the summary's JSON, then each details block's JSON after a newline, in page order.
  const parts = [await blockBytes(summaryNode)];
  for (const node of detailNodes) parts.push(new Uint8Array([10]), await blockBytes(node));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await new Blob(parts).arrayBuffer()));
  const hex = "sha256:" + [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  const ok = hex === summaryNode.dataset.sha256;
  out.className = ok ? "digest-ok" : "digest-bad";
  out.textContent = ok ? "embedded data matches " + hex : "MISMATCH: embedded data hashes to " + hex + ", the page recorded " + summaryNode.dataset.sha256;
});
document.body.dataset.ready = "true";
`;
