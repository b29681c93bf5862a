// `evalgate rescore --run <id>`: the recorded outputs of a run (each unit's SUT output and the workspace
// the harness captured) scored again by the current rubric, without calling the SUT. The result is a
// run of its own, appended to the chain, that names the original run (`rescore_of`) and keeps its SUT's
// digest, label and isolation: evidence for that SUT under the current rubric digest.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bareRunId, findRun } from "@eval/audit-chain";
import { blake3Digest } from "@eval/hashing";
import { EvalError } from "@eval/errors";
import { caseDetailsDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";
import type {
  RecordedReport,
  CaseDetail,
  SutCase,
  SutInvocation,
  SutOutput,
  SystemUnderTest,
  WorkspaceCapture,
} from "@eval/models";
import { runEval } from "./run-eval.ts";
import type { RunEvalOptions, RunEvalResult } from "./run-types.ts";
import { hasBlob } from "./blob-store.ts";
import { readCaseDetail } from "./case-detail.ts";
import { restoreWorkspace } from "./workspace-capture.ts";

export interface RescoreOptions extends Omit<
  RunEvalOptions,
  "systemUnderTest" | "caseFilter" | "trials" | "retryErrors" | "onlyUnits" | "noCache" | "rescoreOf"
> {
  /** The run to rescore (`partial:` may be left off). */
  readonly runId: string;
}

/** Why a unit's recorded output cannot be scored again, or null when it can. */
function unavailable(detail: CaseDetail | null, blobsDir: string): string | null {
  if (detail === null) return "no detail file";
  if (detail.sut_output === null) return null; // the SUT failed: that failure is carried over as it was
  if (detail.workspace === undefined) return "no captured workspace (recorded before captures were kept)";
  if (!detail.workspace.complete) return "the captured workspace is incomplete (past the size caps)";
  const lost = detail.workspace.changes.find(
    (change) => change.after?.digest != null && !hasBlob(blobsDir, change.after.digest),
  );
  // A merged run's details come from other machines' state directories, whose blobs stay there.
  return lost === undefined ? null : `the captured content of ${lost.path} is not in ${blobsDir}`;
}

/**
 * Checks that the case's input (the fresh copy in `workspace`) is the one the capture was taken against:
 * every file the SUT changed or deleted has the digest recorded then, no file it added exists now.
 */
function checkInputUnchanged(workspace: string, capture: WorkspaceCapture, runId: string): void {
  for (const change of capture.changes) {
    const path = join(workspace, change.path);
    const now = existsSync(path) ? blake3Digest(readFileSync(path)) : null;
    if (now !== (change.before?.digest ?? null)) {
      throw new Error(
        `the case's input file ${change.path} differs from the one run ${runId} started from: its recorded output cannot be scored against this input`,
      );
    }
  }
}

/** The recorded outputs of `original` as a SUT: restores each unit's workspace and returns its output. */
function recordedSut(original: RecordedReport, detailsDir: string, blobsDir: string): SystemUnderTest {
  const originalId = original.run_id;
  return {
    label: original.sut_label,
    digest: original.sut_digest,
    // A report recorded before v2 kept no SUT isolation: rescored as the harness's own code, as it always was.
    isolation: original.sut_isolation ?? "harness",
    async preflight({ cases, trials }: { readonly cases: readonly SutCase[]; readonly trials: number }) {
      const problems = cases.flatMap((benchCase) =>
        Array.from({ length: trials }, (_, trial) => {
          const why = unavailable(readCaseDetail(detailsDir, benchCase.case_id, trial), blobsDir);
          return why === null ? [] : [`${benchCase.case_id}${trial === 0 ? "" : ` trial ${trial}`}: ${why}`];
        }).flat(),
      );
      if (problems.length === 0) return;
      throw new EvalError(
        "EVAL_RESCORE_UNAVAILABLE",
        `run ${originalId} cannot be rescored: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? ` (${problems.length} units in all)` : ""}`,
      );
    },
    async run(invocation: SutInvocation): Promise<SutOutput> {
      const detail = readCaseDetail(detailsDir, invocation.benchCase.case_id, invocation.trial ?? 0)!;
      if (detail.sut_streams !== undefined)
        invocation.recordStreams?.({ stdout: detail.sut_streams.stdout.text, stderr: detail.sut_streams.stderr.text });
      if (detail.sut_output === null)
        throw new Error(`the SUT failed in run ${originalId}: ${detail.sut_error ?? "no output"}`);
      checkInputUnchanged(invocation.workspacePath, detail.workspace!, originalId);
      restoreWorkspace(invocation.workspacePath, blobsDir, detail.workspace!);
      // Scoring again spends nothing: what the original call cost stays in the original run.
      return { ...detail.sut_output, cost_usd: 0 };
    },
  };
}

/**
 * Scores the recorded outputs of run `runId` with the task class's current rubric and appends the result
 * as a new run marked `rescore_of` (the same cases and trials, the original SUT's digest). Refuses
 * (EVAL_RESCORE_UNAVAILABLE, before any rubric runs) when a unit's output was not captured in full;
 * a unit whose SUT failed in the original run keeps that failure (as `sut.exception`).
 */
export async function rescoreRun(options: RescoreOptions): Promise<RunEvalResult> {
  const layout = stateLayout(options.stateDir ?? DEFAULT_STATE_DIR);
  const runsDir = options.outDir ?? layout.runs;
  const original = (await findRun(runsDir, options.runId)).report;
  const caseIds = new Set(original.per_case.map((entry) => entry.case_id));
  const trials = original.trials_per_case;
  const { runId: _runId, ...runOptions } = options;
  return runEval(original.task_class, {
    ...runOptions,
    systemUnderTest: recordedSut(original, caseDetailsDir(runsDir, bareRunId(original.run_id)), layout.blobs),
    // Every case the original scored (a complete full run stays a full run), each scored afresh.
    caseFilter: (benchCase) => caseIds.has(benchCase.case_id),
    trials,
    noCache: true,
    rescoreOf: { run_id: original.run_id, sut_digest: original.sut_digest, rubric_digest: original.rubric_digest },
  });
}
