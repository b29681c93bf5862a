// Per-case evidence for the report views: the run's detail file and the case's transcript.
import { existsSync, readFileSync } from "node:fs";
import { bareRunId } from "@eval/audit-chain";
import { safeParseWire, TranscriptSchema } from "@eval/models";
import type { CaseDetail, CaseResult, Transcript, TrialCaseResult } from "@eval/models";
import type { CaseEvidence, CaseTrials, ReportCase, ReportTrial } from "@eval/reports";
import { capturedDiff, isCachedDetail, readCaseDetail } from "@eval/runner";
import { caseDetailsDir, transcriptFile } from "@eval/state-layout";

/** What a detail recorded besides its score; the workspace diff is rendered from the blob store in `blobsDir`. */
function evidenceOf(detail: CaseDetail, blobsDir: string): CaseEvidence {
  const output = detail.sut_output as Record<string, unknown> | null;
  const claimed = typeof output?.diff === "string" ? output.diff : null;
  const capture = detail.workspace;
  return {
    executed_in_run: detail.run_id,
    sut_error: detail.sut_error,
    sut_wall_clock_ms: detail.sut_wall_clock_ms,
    rubric_wall_clock_ms: detail.rubric?.wall_clock_ms ?? null,
    rubric_exit_code: detail.rubric?.exit_code ?? null,
    rubric_stderr: detail.rubric === null || detail.rubric.stderr.text === "" ? null : detail.rubric.stderr.text,
    diff: capture === undefined ? claimed : capturedDiff(blobsDir, capture),
    diff_source: capture !== undefined ? "harness" : claimed === null ? null : "sut",
    changed_files: (capture?.changes ?? []).map((change) => ({
      path: change.path,
      status: change.status,
      bytes: change.after?.bytes ?? 0,
    })),
    sut_stdout: detail.sut_streams?.stdout ?? null,
    sut_stderr: detail.sut_streams?.stderr ?? null,
  };
}

/**
 * A case's transcript: the one the SUT returned in its output (replay and agent SUTs do), else the line
 * of `<state>/transcripts/<task-class>.jsonl` with the case's invocation tag. Lines that do not
 * validate are skipped: a transcript file is evidence to show, not to trust.
 */
export class TranscriptIndex {
  private readonly byTag = new Map<string, Map<string, Transcript>>();
  private readonly transcriptsDir: string;
  constructor(transcriptsDir: string) {
    this.transcriptsDir = transcriptsDir;
  }

  find(taskClass: string, detail: CaseDetail): Transcript | null {
    const own = (detail.sut_output as Record<string, unknown> | null)?.transcript;
    if (own !== undefined) {
      const parsed = safeParseWire(TranscriptSchema, own);
      if (parsed.success) return parsed.data;
    }
    return this.lines(taskClass).get(detail.invocation_tag) ?? null;
  }

  private lines(taskClass: string): Map<string, Transcript> {
    let lines = this.byTag.get(taskClass);
    if (lines !== undefined) return lines;
    lines = new Map();
    this.byTag.set(taskClass, lines);
    const path = transcriptFile(this.transcriptsDir, taskClass);
    if (!existsSync(path)) return lines;
    for (const text of readFileSync(path, "utf8").split("\n")) {
      if (text.trim() === "") continue;
      try {
        const parsed = safeParseWire(TranscriptSchema, JSON.parse(text));
        if (parsed.success && parsed.data.invocation_tag !== null) lines.set(parsed.data.invocation_tag, parsed.data);
      } catch {
        // a damaged line: skipped
      }
    }
    return lines;
  }
}

/** k of n for a case of a v3 report run with more than one trial per case (its `trials`); null otherwise. */
export function trialsOf(entry: CaseResult | TrialCaseResult): CaseTrials | null {
  if (!("trials" in entry) || entry.trials === undefined) return null;
  return { passed: entry.trials.filter((trial) => trial.passed).length, total: entry.trials.length };
}

/** Every trial of a case of a run with more than one trial per case, each with its own detail; null otherwise. */
function trialRunsOf(
  entry: CaseResult | TrialCaseResult,
  context: { runsDir: string; blobsDir: string; runId: string; taskClass: string; transcripts: TranscriptIndex },
): ReportTrial[] | null {
  if (!("trials" in entry) || entry.trials === undefined) return null;
  return entry.trials.map((score, trial) => {
    const detail = readCaseDetail(caseDetailsDir(context.runsDir, bareRunId(context.runId)), entry.case_id, trial);
    return {
      trial,
      score,
      evidence: detail === null ? null : evidenceOf(detail, context.blobsDir),
      transcript: detail === null ? null : context.transcripts.find(context.taskClass, detail),
    };
  });
}

/** One case of a recorded run with its evidence, as the report views show it. */
export function reportCaseOf(
  entry: CaseResult | TrialCaseResult,
  context: {
    runsDir: string;
    blobsDir: string;
    runId: string;
    taskClass: string;
    transcripts: TranscriptIndex;
    baseline: CaseResult | null | undefined;
  },
): ReportCase {
  const detail = readCaseDetail(caseDetailsDir(context.runsDir, bareRunId(context.runId)), entry.case_id);
  return {
    case_id: entry.case_id,
    curation_class: entry.curation_class,
    score: entry.score,
    cache_hit: detail === null ? null : isCachedDetail(detail, context.runId),
    trials: trialsOf(entry),
    trial_runs: trialRunsOf(entry, context),
    evidence: detail === null ? null : evidenceOf(detail, context.blobsDir),
    transcript: detail === null ? null : context.transcripts.find(context.taskClass, detail),
    baseline:
      context.baseline === undefined || context.baseline === null
        ? null
        : { score: context.baseline.score.score, passed: context.baseline.score.passed },
  };
}
