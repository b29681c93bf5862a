// Step 3 of a run, for one unit: copy the case's input into a scratch workspace, call the SUT under its
// deadline, run the rubric on what it left, and write the unit's detail.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RUBRIC_REQUEST_SCHEMA_VERSION, SUT_FAILURE_MODES, sutCaseOf } from "@eval/models";
import type { BenchCase, BenchScore, RubricRequest, SutOutput, SystemUnderTest } from "@eval/models";
import type { TaskClass } from "@eval/registry";
import { writeCaseDetail } from "./case-detail.ts";
import type { RubricLauncher, RubricOutcome } from "./rubric-isolation.ts";
import { harnessFailureScore, resolveRubricScore } from "./scoring.ts";
import { canarySeedFor, checkSutOutput, SutAborted } from "./sut.ts";
import { trialSeedFor } from "./trials.ts";

const DEFAULT_RUBRIC_TIMEOUT_S = 60;

export interface CaseContext {
  readonly taskClass: TaskClass;
  readonly sut: SystemUnderTest;
  readonly launcher: () => Promise<RubricLauncher>;
  readonly cancel: AbortSignal;
  readonly timeoutMs: number;
  readonly invocationTag: string;
  readonly trial: number;
  readonly runId: string;
  readonly runDir: string;
  readonly cacheKey: string;
  /** Creates `<runDir>/cases` once per run. */
  readonly casesDir: () => Promise<unknown>;
  /** The run's own temp directory: every workspace lives below it. */
  readonly tempRoot: string;
}

/**
 * Removes from a workspace the SUT left behind everything that is not a regular file or a directory:
 * a symlink could point the rubric at files the SUT may not read (the case's `expected/`, whose path a
 * sandboxed SUT can still learn from its mount table), a FIFO could hang it. Returns the removed paths.
 */
function removeUnsafeEntries(root: string, relative = ""): string[] {
  const removed: string[] = [];
  for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) removed.push(...removeUnsafeEntries(root, path));
    else if (!entry.isFile()) {
      rmSync(join(root, path), { force: true });
      removed.push(path);
    }
  }
  return removed;
}

/**
 * Copies a case's input tree into the scratch workspace: regular files and directories only (the
 * loader has already refused symlinks and special files), without fs.cp's per-entry overhead.
 * Synchronous, like the loader's digest walk: case inputs are trees of small files, where a direct
 * syscall costs microseconds and a thread-pool round trip per entry costs far more.
 */
function copyTree(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      mkdirSync(target);
      copyTree(source, target);
    } else if (entry.isFile()) {
      copyFileSync(source, target);
    }
  }
}

export type SutResult = { kind: "ok"; output: SutOutput } | { kind: "error"; error: string; failureMode?: SutFailureMode; costUsd?: number } | { kind: "timeout" } | { kind: "cancelled" };

type SutFailureMode = (typeof SUT_FAILURE_MODES)[number];

/** The failure mode (and spend) a SUT's error declares, when it declares one of SUT_FAILURE_MODES. */
function declaredFailure(error: unknown): { failureMode?: SutFailureMode; costUsd?: number } {
  if (error === null || typeof error !== "object") return {};
  const { failure_mode: mode, cost_usd: cost } = error as { failure_mode?: unknown; cost_usd?: unknown };
  if (!(SUT_FAILURE_MODES as readonly unknown[]).includes(mode)) return {};
  return { failureMode: mode as SutFailureMode, ...(typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? { costUsd: cost } : {}) };
}

async function callSut(benchCase: BenchCase, workspacePath: string, context: CaseContext): Promise<SutResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onCancel: (() => void) | undefined;
  // One listener per case on the run's signal, removed when the case is done (a 1,000-case run must
  // not pile up listeners).
  const stopped = new Promise<SutResult>((resolvePromise) => {
    onCancel = (): void => {
      controller.abort(new SutAborted("cancelled"));
      resolvePromise({ kind: "cancelled" });
    };
    context.cancel.addEventListener("abort", onCancel, { once: true });
    if (context.cancel.aborted) onCancel();
    timer = setTimeout(() => {
      controller.abort(new SutAborted("timeout"));
      resolvePromise({ kind: "timeout" });
    }, context.timeoutMs);
  });
  const call = (async (): Promise<SutResult> => {
    try {
      const output = await context.sut.run({
        // The task alone: no path into the bench, so the SUT never learns where expected/ is.
        benchCase: sutCaseOf(benchCase),
        workspacePath,
        canarySeed: canarySeedFor(benchCase.cassette_canary_pin),
        trial: context.trial,
        trialSeed: trialSeedFor(canarySeedFor(benchCase.cassette_canary_pin), context.trial),
        signal: controller.signal,
        timeoutMs: context.timeoutMs,
        invocationTag: context.invocationTag,
      });
      return { kind: "ok", output: checkSutOutput(output) };
    } catch (error) {
      if (controller.signal.aborted) return { kind: context.cancel.aborted ? "cancelled" : "timeout" };
      const name = error instanceof Error ? error.name : typeof error;
      const message = error instanceof Error ? error.message : String(error);
      return { kind: "error", error: `${name}: ${message}`.slice(0, 500), ...declaredFailure(error) };
    }
  })();
  try {
    return await Promise.race([call, stopped]);
  } finally {
    clearTimeout(timer);
    if (onCancel !== undefined) context.cancel.removeEventListener("abort", onCancel);
  }
}

/** A unit's score, and what the rubric run and workspace cleanup recorded for its detail. */
interface ScoredUnit {
  readonly score: BenchScore;
  readonly outcome: RubricOutcome | null;
  readonly removedFromWorkspace: string[];
}

/** Runs the rubric on the workspace a SUT left; null when the run was cancelled meanwhile. */
async function runRubric(benchCase: BenchCase, output: SutOutput, workspacePath: string, context: CaseContext, measured: () => { wallClockMs: number; costUsd: number }): Promise<ScoredUnit | null> {
  const removedFromWorkspace = removeUnsafeEntries(workspacePath);
  const request = {
    schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
    case: benchCase,
    harness_output: output,
    context: { workspace_path: workspacePath },
  } as RubricRequest;
  const launcher = await context.launcher();
  const outcome = await launcher.run({
    request,
    readablePaths: [benchCase.case_path, workspacePath],
    timeoutMs: (benchCase.rubric_wall_clock_seconds ?? DEFAULT_RUBRIC_TIMEOUT_S) * 1000,
    signal: context.cancel,
  });
  if (outcome.kind === "aborted") return null;
  const facts = measured();
  let score: BenchScore;
  if (outcome.kind === "ok") score = resolveRubricScore(outcome.response.score, context.taskClass, facts);
  else if (outcome.kind === "timeout") score = harnessFailureScore("rubric.timeout", `killed after ${outcome.process.wallClockMs} ms`, facts);
  else score = harnessFailureScore("rubric.malformed_output", outcome.detail, facts);
  return { score, outcome, removedFromWorkspace };
}

/** Scores what the SUT call ended in: a harness failure for a timeout or an exception, else the rubric's score. */
async function scoreUnit(benchCase: BenchCase, sutResult: Exclude<SutResult, { kind: "cancelled" }>, workspacePath: string, context: CaseContext, timing: { started: number; sutMs: number }): Promise<ScoredUnit | null> {
  const costUsd = sutResult.kind === "ok" ? (sutResult.output.cost_usd ?? 0) : sutResult.kind === "error" ? (sutResult.costUsd ?? 0) : 0;
  const atSut = { wallClockMs: timing.sutMs, costUsd };
  if (sutResult.kind === "timeout") return { score: harnessFailureScore("sut.timeout", `no result within ${context.timeoutMs} ms`, atSut), outcome: null, removedFromWorkspace: [] };
  if (sutResult.kind === "error") return { score: harnessFailureScore(sutResult.failureMode ?? "sut.exception", sutResult.error, atSut), outcome: null, removedFromWorkspace: [] };
  return runRubric(benchCase, sutResult.output, workspacePath, context, () => ({ wallClockMs: performance.now() - timing.started, costUsd }));
}

/** Runs one case end to end; null when the run was cancelled before the case finished. */
export async function executeCase(benchCase: BenchCase, context: CaseContext): Promise<{ score: BenchScore; detailPath: string } | null> {
  if (context.cancel.aborted) return null;
  const started = performance.now();
  const workspacePath = mkdtempSync(join(context.tempRoot, "ws-"));
  try {
    copyTree(benchCase.input_path, workspacePath);
    const sutResult = await callSut(benchCase, workspacePath, context);
    const sutMs = Math.round(performance.now() - started);
    if (sutResult.kind === "cancelled") return null;
    const unit = await scoreUnit(benchCase, sutResult, workspacePath, context, { started, sutMs });
    if (unit === null) return null;
    await context.casesDir();
    const detailPath = writeCaseDetail({
      runDir: context.runDir,
      runId: context.runId,
      taskClass: context.taskClass.name,
      caseId: benchCase.case_id,
      cacheKey: context.cacheKey,
      invocationTag: context.invocationTag,
      trial: context.trial,
      sutOutput: sutResult.kind === "ok" ? sutResult.output : null,
      sutError: sutResult.kind === "error" ? sutResult.error : sutResult.kind === "timeout" ? "timeout" : null,
      sutMs,
      ...unit,
    });
    return { score: unit.score, detailPath };
  } finally {
    rmSync(workspacePath, { recursive: true, force: true });
  }
}
