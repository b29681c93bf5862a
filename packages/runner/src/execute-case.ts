// Step 3 of a run, for one unit: copy the case's input into a scratch workspace, call the SUT under its
// deadline, run the rubric on what it left, and write the unit's detail.
import { copyFileSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  MeteredUsageSchema,
  parseWire,
  RUBRIC_REQUEST_SCHEMA_VERSION,
  SUT_FAILURE_MODES,
  sutCaseOf,
} from "@eval/models";
import type {
  BenchCase,
  BenchScore,
  MeteredUsage,
  RubricRequest,
  SutOutput,
  SutStreams,
  SystemUnderTest,
  WorkspaceCapture,
} from "@eval/models";
import type { TaskClass } from "@eval/registry";
import { DEFAULT_TREE_LIMITS, removeTree, sandboxOwner, TreeInvalid, walkTree } from "@eval/sandbox";
import { writeCaseDetail } from "./case-detail.ts";
import type { RubricLauncher, RubricOutcome } from "./rubric-isolation.ts";
import { harnessFailureScore, resolveRubricScore } from "./scoring.ts";
import { canarySeedFor, checkSutOutput, SutAborted } from "./sut.ts";
import { trialSeedFor } from "./trials.ts";
import { captureWorkspace } from "./workspace-capture.ts";

export const DEFAULT_RUBRIC_TIMEOUT_S = 60;

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
  /** `<state dir>/blobs`: where the captured workspace's files are kept. */
  readonly blobsDir: string;
}

/**
/**
 * The one walk of the workspace a SUT left, with the bounded walker: a tree too deep, too large, with too
 * many entries or that cannot be examined throws (TreeInvalid), which the case records as
 * `sut.workspace_invalid`. Everything that is not a regular file or a directory is removed (a symlink
 * could point the rubric at files the SUT may not read, such as the case's `expected/`, whose path a
 * sandboxed SUT can still learn from its mount table; a FIFO could hang it). As root, what is left is
 * handed to the sandbox's unprivileged uid so the rubric can read it. Returns the removed paths and the
 * regular files that remain, both relative.
 */
async function walkWorkspace(
  root: string,
  maxBytes: number | undefined,
): Promise<{ removed: string[]; files: string[] }> {
  const owner = sandboxOwner();
  const found: { removed: string[]; files: string[] } = { removed: [], files: [] };
  if (owner !== null) lchownSync(root, owner.uid, owner.gid);
  // A sandboxed SUT's disk limit bounds its workspace's total (default: the walk's own bound, 1 GiB).
  for await (const entry of walkTree(root, {
    ...DEFAULT_TREE_LIMITS,
    ...(maxBytes === undefined ? {} : { maxBytes }),
  })) {
    if (entry.kind !== "file" && entry.kind !== "directory") found.removed.push(entry.path);
    else {
      if (entry.kind === "file") found.files.push(entry.path);
      if (owner !== null) lchownSync(entry.absolute, owner.uid, owner.gid);
    }
  }
  for (const path of found.removed) rmSync(join(root, path), { force: true });
  return found;
}

/**
 * Copies a case's input tree into the scratch workspace: regular files and directories only (the
 * loader has already refused symlinks and special files), without fs.cp's per-entry overhead. Returns
 * the relative paths of the files copied.
 * Synchronous, like the loader's digest walk: case inputs are trees of small files, where a direct
 * syscall costs microseconds and a thread-pool round trip per entry costs far more.
 */
export function copyTree(from: string, to: string, relative = "", copied: string[] = []): string[] {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      mkdirSync(target, { recursive: true });
      copyTree(source, target, path, copied);
    } else if (entry.isFile()) {
      copyFileSync(source, target);
      copied.push(path);
    }
  }
  return copied;
}

export type SutResult =
  | { kind: "ok"; output: SutOutput }
  | { kind: "error"; error: string; failureMode?: SutFailureMode; costUsd?: number }
  | { kind: "invalid_workspace"; error: string }
  | { kind: "timeout" }
  | { kind: "cancelled" };
type FinishedSutResult = Exclude<SutResult, { kind: "cancelled" }>;

type SutFailureMode = (typeof SUT_FAILURE_MODES)[number];

/** The failure mode (and spend) a SUT's error declares, when it declares one of SUT_FAILURE_MODES. */
function declaredFailure(error: unknown): { failureMode?: SutFailureMode; costUsd?: number } {
  if (error === null || typeof error !== "object") return {};
  const { failure_mode: mode, cost_usd: cost } = error as { failure_mode?: unknown; cost_usd?: unknown };
  if (!(SUT_FAILURE_MODES as readonly unknown[]).includes(mode)) return {};
  return {
    failureMode: mode as SutFailureMode,
    ...(typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? { costUsd: cost } : {}),
  };
}

/** How long a stopped SUT's call may take to settle (its process group killed: grace, then SIGKILL) before its workspace is touched. */
const SETTLE_AFTER_STOP_MS = 30_000;

/** What the harness's own code recorded beside the SUT's answer (never read from that answer). */
interface Recorders {
  readonly recordStreams: (streams: SutStreams) => void;
  readonly recordMetered: (usage: MeteredUsage) => void;
}

async function callSut(
  benchCase: BenchCase,
  workspacePath: string,
  context: CaseContext,
  recorders: Recorders,
): Promise<SutResult> {
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
        ...recorders,
      });
      return { kind: "ok", output: checkSutOutput(output) };
    } catch (error) {
      if (controller.signal.aborted) return { kind: context.cancel.aborted ? "cancelled" : "timeout" };
      // An agent's copy-back walks what it left with the same bounded walker.
      if (error instanceof TreeInvalid) return { kind: "invalid_workspace", error: error.message.slice(0, 500) };
      const name = error instanceof Error ? error.name : typeof error;
      const message = error instanceof Error ? error.message : String(error);
      return { kind: "error", error: `${name}: ${message}`.slice(0, 500), ...declaredFailure(error) };
    }
  })();
  try {
    const result = await Promise.race([call, stopped]);
    // A stopped SUT's processes may still be running (ignoring SIGTERM, writing): its workspace is
    // touched only once the call has settled, i.e. its process group is gone.
    if (result.kind === "timeout" || result.kind === "cancelled")
      await Promise.race([call, new Promise((resolve) => setTimeout(resolve, SETTLE_AFTER_STOP_MS).unref())]);
    return result;
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

/** Runs the rubric on the workspace a SUT left (walked already); null when the run was cancelled meanwhile. */
async function runRubric(
  benchCase: BenchCase,
  output: SutOutput,
  workspacePath: string,
  context: CaseContext,
  measured: () => { wallClockMs: number; costUsd: number },
): Promise<Omit<ScoredUnit, "removedFromWorkspace"> | null> {
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
  else if (outcome.kind === "timeout")
    score = harnessFailureScore("rubric.timeout", `killed after ${outcome.process.wallClockMs} ms`, facts);
  else if (outcome.kind === "resource_limit")
    score = harnessFailureScore("rubric.resource_limit", outcome.detail, facts);
  else score = harnessFailureScore("rubric.malformed_output", outcome.detail, facts);
  return { score, outcome };
}

/** A trial's cost: what the bridge metered on the wire when it could price it, else what the SUT reported spending. */
function costOf(sutResult: FinishedSutResult, metered: MeteredUsage | null): number {
  if (metered !== null && metered.cost_usd !== null) return metered.cost_usd;
  return sutResult.kind === "ok"
    ? (sutResult.output.cost_usd ?? 0)
    : sutResult.kind === "error"
      ? (sutResult.costUsd ?? 0)
      : 0;
}

/** Scores what the SUT call ended in: a harness failure for a timeout or an exception, else the rubric's score. */
async function scoreUnit(
  benchCase: BenchCase,
  sutResult: FinishedSutResult,
  workspacePath: string,
  context: CaseContext,
  timing: { started: number; sutMs: number; metered: MeteredUsage | null },
): Promise<Omit<ScoredUnit, "removedFromWorkspace"> | null> {
  const costUsd = costOf(sutResult, timing.metered);
  const atSut = { wallClockMs: timing.sutMs, costUsd };
  if (sutResult.kind === "timeout")
    return {
      score: harnessFailureScore("sut.timeout", `no result within ${context.timeoutMs} ms`, atSut),
      outcome: null,
    };
  if (sutResult.kind === "error")
    return {
      score: harnessFailureScore(sutResult.failureMode ?? "sut.exception", sutResult.error, atSut),
      outcome: null,
    };
  if (sutResult.kind === "invalid_workspace")
    return { score: harnessFailureScore("sut.workspace_invalid", sutResult.error, atSut), outcome: null };
  return runRubric(benchCase, sutResult.output, workspacePath, context, () => ({
    wallClockMs: performance.now() - timing.started,
    costUsd,
  }));
}

/**
 * Walks the workspace the SUT left (removing what is not a file or directory) and captures it against
 * the case's input. After a timeout nothing is walked: the SUT may still be writing. A workspace that
 * cannot be walked makes the SUT's result `invalid_workspace`: recorded as its failure, never a crash.
 */
async function inspectWorkspace(
  sutResult: FinishedSutResult,
  inputRoot: string,
  inputFiles: readonly string[],
  workspacePath: string,
  context: CaseContext,
): Promise<{ sutResult: FinishedSutResult; removed: string[]; capture: WorkspaceCapture | null }> {
  if (sutResult.kind !== "ok" && sutResult.kind !== "error") return { sutResult, removed: [], capture: null };
  try {
    const walked = await walkWorkspace(workspacePath, context.sut.limits?.diskBytes);
    const capture = captureWorkspace({
      inputRoot,
      inputFiles,
      workspaceRoot: workspacePath,
      workspaceFiles: walked.files,
      blobsDir: context.blobsDir,
    });
    return { sutResult, removed: walked.removed, capture };
  } catch (error) {
    // More bytes than the walk's bound (the disk limit's total): the SUT filled its disk.
    if (error instanceof TreeInvalid && error.problem === "too_large")
      return {
        sutResult: {
          kind: "error",
          error: `disk limit reached: ${error.message}`.slice(0, 500),
          failureMode: "sut.resource_limit",
        },
        removed: [],
        capture: null,
      };
    const detail = `the workspace the SUT left cannot be handled: ${(error as Error).message}`.slice(0, 500);
    return { sutResult: { kind: "invalid_workspace", error: detail }, removed: [], capture: null };
  }
}

/** Runs one case end to end; null when the run was cancelled before the case finished. */
export async function executeCase(
  benchCase: BenchCase,
  context: CaseContext,
): Promise<{ score: BenchScore; detailPath: string; metered: MeteredUsage | null } | null> {
  if (context.cancel.aborted) return null;
  const started = performance.now();
  const workspacePath = mkdtempSync(join(context.tempRoot, "ws-"));
  try {
    const inputFiles = copyTree(benchCase.input_path, workspacePath);
    let streams: SutStreams | null = null;
    let metered: MeteredUsage | null = null;
    const called = await callSut(benchCase, workspacePath, context, {
      recordStreams: (recorded) => void (streams ??= recorded),
      recordMetered: (usage) => void (metered ??= parseWire(MeteredUsageSchema, usage)),
    });
    const sutMs = Math.round(performance.now() - started);
    if (called.kind === "cancelled") return null;
    const { sutResult, removed, capture } = await inspectWorkspace(
      called,
      benchCase.input_path,
      inputFiles,
      workspacePath,
      context,
    );
    const scored = await scoreUnit(benchCase, sutResult, workspacePath, context, { started, sutMs, metered });
    if (scored === null) return null;
    const unit: ScoredUnit = { ...scored, removedFromWorkspace: removed };
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
      sutError:
        sutResult.kind === "error" || sutResult.kind === "invalid_workspace"
          ? sutResult.error
          : sutResult.kind === "timeout"
            ? "timeout"
            : null,
      sutMs,
      workspace: capture,
      sutStreams: streams,
      metered,
      ...unit,
    });
    return { score: unit.score, detailPath, metered };
  } finally {
    await removeTree(workspacePath);
  }
}
