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
th, td { border-bottom: 1px solid #eef; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f0f1f6; }
tr.case-row { cursor: pointer; } tr.case-row:hover { background: #f3f6ff; } tr.case-row.selected { background: #e4ecff; }
.status-pass { color: #1f7a4a; } .status-fail { color: #b3261e; } .status-error { color: #8a5a00; }
.filters { display: flex; gap: 14px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
#case-detail { background: #fff; border: 1px solid #dde; border-radius: 6px; padding: 8px 14px; margin-top: 12px; }
#case-detail[hidden] { display: none; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f7fa; padding: 6px 8px; margin: 4px 0; max-height: 420px; overflow: auto; }
details { margin: 3px 0; } summary { cursor: pointer; }
.diff-add { color: #1f7a4a; } .diff-del { color: #b3261e; } .diff-hunk { color: #5060a0; }
svg .grid { stroke: #e3e5ee; } svg .axis, svg .tier-label, svg .legend { font-size: 11px; fill: #556; }
svg .tier { stroke: #c08a00; stroke-dasharray: 5 4; } svg .current { stroke: #99a; stroke-dasharray: 2 3; }
svg polyline.bound, svg circle.bound { stroke: #2456c8; } svg circle.bound { fill: #2456c8; }
svg polyline.mean, svg circle.mean { stroke: #9aa6c0; } svg circle.mean { fill: #9aa6c0; }
svg polyline { stroke-width: 2; } svg .legend.bound { fill: #2456c8; } svg .legend.mean { fill: #7f8aa3; }
.digest-ok { color: #1f7a4a; } .digest-bad { color: #b3261e; font-weight: bold; }
.change-up { color: #1f7a4a; } .change-down { color: #b3261e; }
`;

export const REPORT_SCRIPT = String.raw`
const dataNode = document.getElementById("report-data");
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
async function embeddedBytes() {
  const packed = decodeBase64(dataNode.textContent.trim());
  if (dataNode.dataset.encoding !== "gzip+base64") return packed;
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
const bytes = await embeddedBytes();
const data = JSON.parse(new TextDecoder().decode(bytes));
const fmt = (value, digits) => (typeof value === "number" ? value.toFixed(digits) : "-");
function statusOf(score) {
  if (score.failure_modes.some((m) => m.code === "sut.timeout" || m.code === "sut.exception" || m.code === "rubric.timeout")) return "error";
  return score.passed ? "pass" : "fail";
}

// Cases table and filters.
const tbody = document.getElementById("case-rows");
const rows = [];
const hasTrials = data.cases.some((c) => c.trials !== null);
const hasBaseline = data.baseline !== null;
document.getElementById("col-trials").hidden = !hasTrials;
document.getElementById("col-baseline").hidden = !hasBaseline;
const fragment = document.createDocumentFragment();
for (const c of data.cases) {
  const status = statusOf(c.score);
  const modes = c.score.failure_modes.map((m) => m.code);
  const change = c.baseline === null ? null : c.score.score - c.baseline.score;
  const trials = el("td", { hidden: !hasTrials }, c.trials === null ? "" : c.trials.passed + " of " + c.trials.total);
  const base = el("td", { hidden: !hasBaseline, class: change === null ? "" : change > 0 ? "change-up" : change < 0 ? "change-down" : "" },
    c.baseline === null ? "new" : (change >= 0 ? "+" : "") + change.toFixed(3) + (c.baseline.passed !== c.score.passed ? (c.score.passed ? " (now passes)" : " (now fails)") : ""));
  const row = el("tr", { class: "case-row", "data-case": c.case_id, "data-status": status },
    el("td", { class: "mono" }, c.case_id),
    el("td", { class: "status-" + status }, status),
    el("td", {}, fmt(c.score.score, 3)),
    el("td", {}, c.score.passed ? "yes" : "no"),
    trials,
    el("td", {}, modes.join(", ")),
    el("td", {}, c.curation_class),
    el("td", {}, "$" + fmt(c.score.cost_usd, 4)),
    el("td", {}, fmt(c.score.wall_clock_ms / 1000, 2) + " s"),
    el("td", {}, c.cache_hit === null ? "-" : c.cache_hit ? "hit" : "miss"),
    base);
  row.addEventListener("click", () => showCase(c, row));
  rows.push({ row, c, status, modes });
  fragment.append(row);
}
tbody.append(fragment);

function fillSelect(id, values) {
  const select = document.getElementById(id);
  for (const value of [...new Set(values)].sort()) select.append(el("option", { value }, value));
  select.addEventListener("change", applyFilters);
  return select;
}
const statusSelect = fillSelect("filter-status", rows.map((r) => r.status));
const modeSelect = fillSelect("filter-mode", rows.flatMap((r) => r.modes));
const curationSelect = fillSelect("filter-curation", rows.map((r) => r.c.curation_class));
function applyFilters() {
  let shown = 0;
  for (const r of rows) {
    const visible = (statusSelect.value === "" || r.status === statusSelect.value)
      && (modeSelect.value === "" || r.modes.includes(modeSelect.value))
      && (curationSelect.value === "" || r.c.curation_class === curationSelect.value);
    r.row.hidden = !visible;
    if (visible) shown++;
  }
  document.getElementById("shown-count").textContent = shown + " of " + rows.length + " cases shown";
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
function showCase(c, row) {
  for (const r of rows) r.row.classList.toggle("selected", r.row === row);
  const panel = document.getElementById("case-detail");
  panel.replaceChildren();
  panel.hidden = false;
  panel.append(el("h3", { class: "mono" }, c.case_id), el("p", {}, statusOf(c.score) + ", score " + fmt(c.score.score, 3) + ", " + c.curation_class));
  const ev = c.evidence;
  panel.append(el("h4", {}, "timings and cost"), keyValueTable([
    ["case wall clock", fmt(c.score.wall_clock_ms / 1000, 2) + " s"],
    ["SUT wall clock", ev === null ? "-" : fmt(ev.sut_wall_clock_ms / 1000, 2) + " s"],
    ["rubric wall clock", ev === null || ev.rubric_wall_clock_ms === null ? "-" : fmt(ev.rubric_wall_clock_ms / 1000, 2) + " s"],
    ["cost", "$" + fmt(c.score.cost_usd, 4)],
    ["executed in run", ev === null ? "-" : ev.executed_in_run + (c.cache_hit ? " (cache hit)" : "")],
  ]));
  panel.append(el("h4", {}, "breakdown"), keyValueTable(Object.entries(c.score.breakdown).map(([k, v]) => [k, String(v)])));
  const modes = el("div", { id: "failure-modes" }, el("h4", {}, "failure modes (" + c.score.failure_modes.length + ")"));
  for (const m of c.score.failure_modes) modes.append(el("div", { class: "failure-mode" }, el("b", { class: "mono" }, m.code), " " + m.severity, m.detail === null ? null : el("pre", {}, m.detail)));
  panel.append(modes);
  if (ev !== null && ev.sut_error !== null) panel.append(el("h4", {}, "SUT error"), el("pre", {}, ev.sut_error));
  if (ev !== null && ev.rubric_stderr) panel.append(el("details", {}, el("summary", {}, "rubric stderr"), el("pre", {}, ev.rubric_stderr)));
  panel.append(el("h4", {}, "transcript"), c.transcript === null ? el("p", { class: "sub" }, "no transcript recorded for this case") : transcriptView(c.transcript));
  panel.append(el("h4", {}, "workspace diff"), ev === null || ev.diff === null ? el("p", { class: "sub" }, "the SUT reported no diff") : ev.diff === "" ? el("p", { class: "sub" }, "empty: the SUT changed no file") : diffView(ev.diff));
  panel.scrollIntoView({ block: "nearest" });
}
const wanted = decodeURIComponent(location.hash.replace(/^#case=/, ""));
const initial = rows.find((r) => r.c.case_id === wanted);
if (initial !== undefined) showCase(initial.c, initial.row);

// Provenance: re-check the embedded data against the digest recorded when the page was generated.
document.getElementById("verify-digest").addEventListener("click", async () => {
  const out = document.getElementById("digest-result");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await embeddedBytes()));
  const hex = "sha256:" + [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  const ok = hex === dataNode.dataset.sha256;
  out.className = ok ? "digest-ok" : "digest-bad";
  out.textContent = ok ? "embedded data matches " + hex : "MISMATCH: embedded data hashes to " + hex + ", the page recorded " + dataNode.dataset.sha256;
});
document.body.dataset.ready = "true";
`;
