import type { Transcript } from "@eval/models";
import { escapeTerminal } from "./escape.ts";
import { caseStatus, currentRun, isFlaky, meteredText, trialStatus } from "./report-data.ts";
import type { CaseEvidence, CurrentRun, ReportCase, ReportData, StreamText } from "./report-data.ts";

const oneLine = (text: string, max: number): string => {
  const flat = escapeTerminal(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
};

/** The terminal view of a run: its figures, verdicts and one line per case. */
export function renderRunText(data: ReportData): string {
  const run = currentRun(data.run);
  const width = Math.max(4, ...data.cases.map((c) => c.case_id.length));
  const withTrials = data.cases.some((c) => c.trials !== null);
  const lines = [
    `run ${run.run_id} of ${run.task_class}${run.complete ? "" : " (INCOMPLETE)"}: SUT ${escapeTerminal(run.sut_label)}, ended ${run.ended_at}`,
    `${run.passed_count}/${run.case_count} passed; mean ${run.mean_score.toFixed(4)}, sd ${run.score_stddev.toFixed(4)}, one-sided 95% lower bound ${run.lower_bound_95.toFixed(4)} (${run.lower_bound_method}), cost $${run.total_cost_usd.toFixed(4)}`,
    ...meteredLines(run),
    `isolation: rubric ${run.isolation_class}, SUT ${run.sut_isolation ?? "unknown"}; chain head ${run.chain_head ?? "-"} (${data.chain.verified ? "verifies" : "DOES NOT VERIFY"})`,
    ...reliabilityLines(run),
    ...data.verdicts.map(
      (v) =>
        `${v.target_tier}: evidence ${v.evidence_sufficient ? "sufficient" : "NOT sufficient"}${v.evidence_sufficient ? "" : `: ${v.reasons.join("; ")}`}`,
    ),
    "",
    `${"case".padEnd(width)}  status  score  cache  ${withTrials ? "trials       " : ""}failure modes`,
    ...data.cases.map(
      (c) =>
        `${c.case_id.padEnd(width)}  ${caseStatus(c).padEnd(6)}  ${c.score.score.toFixed(3)}  ${(c.cache_hit === null ? "-" : c.cache_hit ? "hit" : "miss").padEnd(5)}  ${withTrials ? trialCell(c).padEnd(13) : ""}${caseModes(c).join(", ")}`,
    ),
    "",
    `one case: evalgate show ${run.run_id} --case <case-id>`,
  ];
  return `${lines.join("\n")}\n`;
}

/** The metered line of a run whose agent ran behind the model bridge (none otherwise). */
function meteredLines(run: CurrentRun): string[] {
  const text = meteredText(run);
  return text === null ? [] : [escapeTerminal(text)];
}

/** `2 of 3 flaky`: a case's k of n, marked when its trials disagree. */
const trialCell = (c: ReportCase): string =>
  c.trials === null ? "-" : `${c.trials.passed} of ${c.trials.total}${isFlaky(c) ? " flaky" : ""}`;

/** A case's failure codes over every trial (trial 0's alone without trials), each once. */
function caseModes(c: ReportCase): string[] {
  const scores = c.trial_runs === null ? [c.score] : c.trial_runs.map((trial) => trial.score);
  return [...new Set(scores.flatMap((score) => score.failure_modes.map((mode) => mode.code)))];
}

/** pass@1, pass^k and the flaky cases of a run with trials (nothing for one trial per case). */
function reliabilityLines(run: CurrentRun): string[] {
  if (run.trials_per_case === 1) return [];
  const { reliability: r, trials_per_case: k } = run;
  return [
    `${k} trials per case: pass@1 ${r.pass_at_1.toFixed(4)}, pass^${k} ${r.pass_hat_k.toFixed(4)} (every trial passes), pass@${k} ${r.pass_at_k.toFixed(4)}, over ${r.case_count} cases`,
    `flaky (trials disagree): ${r.flaky_case_ids.length === 0 ? "none" : r.flaky_case_ids.join(", ")}`,
  ];
}

function transcriptLines(transcript: Transcript): string[] {
  const lines = [
    `transcript: ${transcript.source.provider} (${transcript.source.format}), ${transcript.tool_calls.length} tool calls, ${transcript.messages.length} messages`,
  ];
  for (const message of transcript.messages) lines.push(`  ${message.role.padEnd(9)} ${oneLine(message.text, 160)}`);
  lines.push("tool calls:");
  for (const call of transcript.tool_calls) {
    const name = call.original_name === call.name ? call.name : `${call.name} (${call.original_name})`;
    lines.push(`  ${name.padEnd(10)} ${call.status.padEnd(7)} ${oneLine(JSON.stringify(call.input), 200)}`);
  }
  for (const error of transcript.errors) lines.push(`  error: ${oneLine(error, 200)}`);
  return lines;
}

/** The trials of a case, one line each, with k of n and the flaky mark. */
function trialLines(reportCase: ReportCase, runId: string): string[] {
  if (reportCase.trial_runs === null || reportCase.trials === null) return [];
  const { passed, total } = reportCase.trials;
  return [
    `trials: ${passed} of ${total} passed${isFlaky(reportCase) ? " (FLAKY: the trials disagree)" : ""}`,
    ...reportCase.trial_runs.map(
      (trial) =>
        `  trial ${trial.trial}  ${trialStatus(trial.score).padEnd(5)}  ${trial.score.score.toFixed(3)}  ${trial.score.failure_modes.map((mode) => mode.code).join(", ")}`,
    ),
    `one trial in detail: evalgate show ${runId} --case ${reportCase.case_id} --trial <n>`,
  ];
}

/**
 * One trial of a case as a case of its own (its score, evidence and transcript), or null when the case
 * has no such trial. Trial 0 of a one-trial run is the case itself.
 */
export function caseTrial(reportCase: ReportCase, trial: number): ReportCase | null {
  if (reportCase.trial_runs === null) return trial === 0 ? reportCase : null;
  const found = reportCase.trial_runs.find((run) => run.trial === trial);
  return found === undefined
    ? null
    : {
        ...reportCase,
        score: found.score,
        evidence: found.evidence,
        transcript: found.transcript,
        trials: null,
        trial_runs: null,
      };
}

/**
 * The terminal view of one case: status, failure modes with details, breakdown, evidence, transcript.
 * With trials, the case's view lists every trial; `trial` says the case passed in is that one trial
 * (from `caseTrial`), of `of` trials.
 */
export function renderCaseText(
  data: ReportData,
  reportCase: ReportCase,
  trial?: { readonly trial: number; readonly of: number },
): string {
  const { score, evidence } = reportCase;
  const status = trial === undefined ? caseStatus(reportCase) : trialStatus(score);
  const lines = [
    `case ${reportCase.case_id}${trial === undefined ? "" : ` trial ${trial.trial} (of ${trial.of})`} of run ${data.run.run_id} (${data.run.task_class}): ${status}, score ${score.score.toFixed(3)}${trial === undefined && reportCase.trials !== null ? " (trial 0)" : ""}, ${reportCase.curation_class}`,
    `time ${(score.wall_clock_ms / 1000).toFixed(2)} s, cost $${score.cost_usd.toFixed(4)}${reportCase.cache_hit ? `, cache hit (executed in run ${evidence?.executed_in_run ?? "?"})` : ""}${reportCase.trials === null ? "" : `, trials ${reportCase.trials.passed} of ${reportCase.trials.total}`}`,
    ...trialLines(reportCase, data.run.run_id),
    `failure modes (${score.failure_modes.length}):`,
    ...score.failure_modes.map(
      (mode) => `  ${mode.code} [${mode.severity}]${mode.detail === null ? "" : `: ${oneLine(mode.detail, 400)}`}`,
    ),
    "breakdown:",
    ...Object.entries(score.breakdown).map(([key, value]) => `  ${key} ${value}`),
  ];
  if (evidence === null) lines.push("no detail file for this case in the run");
  else {
    if (evidence.sut_error !== null) lines.push(`SUT error: ${oneLine(evidence.sut_error, 400)}`);
    lines.push(
      ...diffLines(evidence),
      ...streamLines("SUT stdout", evidence.sut_stdout),
      ...streamLines("SUT stderr", evidence.sut_stderr),
    );
  }
  lines.push(
    ...(reportCase.transcript === null
      ? ["no transcript recorded for this case"]
      : transcriptLines(reportCase.transcript)),
  );
  return `${lines.join("\n")}\n`;
}

/** At most this many lines of a diff or a stream in the terminal; the rest is counted. */
const MAX_BLOCK_LINES = 200;

/** `text` indented, control characters made visible, cut after MAX_BLOCK_LINES lines. */
function block(text: string): string[] {
  const lines = text.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, MAX_BLOCK_LINES).map((line) => `  ${escapeTerminal(line)}`);
  return lines.length > MAX_BLOCK_LINES
    ? [...shown, `  ... ${lines.length - MAX_BLOCK_LINES} more lines (evalgate report shows all of it)`]
    : shown;
}

function diffLines(evidence: CaseEvidence): string[] {
  if (evidence.diff === null) return ["workspace diff: none recorded"];
  const source = evidence.diff_source === "harness" ? "recorded by the harness" : "as the SUT reported it";
  if (evidence.diff_source === "harness") {
    if (evidence.changed_files.length === 0) return [`workspace diff (${source}): no file changed`];
    const files = evidence.changed_files.map(
      (file) =>
        `  ${file.status.padEnd(8)} ${escapeTerminal(file.path)}${file.status === "deleted" ? "" : ` (${file.bytes} bytes)`}`,
    );
    return [
      `workspace diff (${source}): ${evidence.changed_files.length} file(s) changed`,
      ...files,
      ...block(evidence.diff),
    ];
  }
  return evidence.diff === ""
    ? [`workspace diff (${source}): no file changed`]
    : [`workspace diff (${source}):`, ...block(evidence.diff)];
}

function streamLines(name: string, stream: StreamText | null): string[] {
  if (stream === null) return [];
  if (stream.bytes === 0) return [`${name}: empty`];
  return [
    `${name} (${stream.bytes} bytes${stream.truncated ? `, first ${Buffer.byteLength(stream.text)} shown` : ""}):`,
    ...block(stream.text),
  ];
}
