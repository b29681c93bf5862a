// One eval run: plan, cache probe, bounded execution, aggregation, cost cap, audit append.
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { appendRunRecord, ChainTampered, getHostFingerprint } from "@eval/audit-chain";
import type { VerifyResult } from "@eval/audit-chain";
import { ScoreCache } from "@eval/cache";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import { CASE_DETAIL_SCHEMA_VERSION, GENESIS_PREV_HASH, RUBRIC_REQUEST_SCHEMA_VERSION, sutCaseOf } from "@eval/models";
import type { BenchCase, BenchRunReport, BenchRunReportInput, BenchScore, RubricRequest, Selection, SutOutput, SystemUnderTest } from "@eval/models";
import { digestDirectory, loadTaskClass, selectCases, TaskClassRegistry } from "@eval/registry";
import type { TaskClass } from "@eval/registry";
import picomatch from "picomatch";
import { buildRunReport } from "./aggregate.ts";
import { copyCachedDetail, indexCaseDetail } from "./case-detail.ts";
import { caseCacheKey } from "./case-keys.ts";
import { verifyAfterAppend, verifyChainForRun } from "./chain-checkpoint.ts";
import type { RunChainCheck } from "./chain-checkpoint.ts";
import { NoCasesSelected } from "./errors.ts";
import { runPool } from "./pool.ts";
import { checkStateDir } from "./state-dir.ts";
import { prepareRubricLauncher, rubricIsolationClass } from "./rubric-isolation.ts";
import type { RubricLauncher, RubricOutcome, SandboxMode } from "./rubric-isolation.ts";
import { checkRetryMisses, erroredCasesOfLastRun } from "./retry-errors.ts";
import { createRunTempRoot } from "./run-temp.ts";
import { harnessFailureScore, resolveRubricScore } from "./scoring.ts";
import { canarySeedFor, checkSutOutput, digestOf, SutAborted } from "./sut.ts";
import { isHarnessSideFailure, trialCacheKey, trialsFor, trialDetailFile, trialInvocationTag, trialSeedFor, trialUnitId } from "./trials.ts";
import { HARNESS_VERSION } from "./version.ts";

export interface RunProgress {
  readonly done: number;
  readonly total: number;
  readonly cacheHits: number;
  readonly costUsd: number;
  /** Estimated time to finish, from the mean time of the cases executed so far (null before the first). */
  readonly etaMs: number | null;
}

export interface CaseRunResult {
  readonly case_id: string;
  /** Which trial of the case (0-based; always 0 in a one-trial run). */
  readonly trial: number;
  readonly cacheKey: string;
  readonly cacheHit: boolean;
  readonly score: BenchScore;
  /**
   * `runs/<run-id>/cases/<case-id>.json` (`<case-id>.trial-<t>.json` for trial t > 0): for an executed unit
   * its detail, for a cache hit a copy of the executing run's detail; null for a hit whose earlier detail is gone.
   */
  readonly detailPath: string | null;
}

export interface RunEvalOptions {
  readonly systemUnderTest: SystemUnderTest;
  /** A picomatch glob on case_id, or a predicate. */
  readonly caseFilter?: string | ((benchCase: BenchCase) => boolean);
  /** Cases in flight at once; default min(cpus, 4). */
  readonly concurrency?: number;
  /** Past this total SUT-reported spend the run stops; default 5. */
  readonly maxCostUsd?: number;
  /** Per-case SUT deadline; default 600. */
  readonly timeoutPerCaseSeconds?: number;
  /**
   * Trials per case (default 1): each trial is its own SUT call (own seed and invocation tag), cache key,
   * detail file and rubric run; a case contributes the mean of its trials, and the bound is over cases.
   */
  readonly trials?: number;
  /**
   * Execute only the cases that ended in a harness error (sut.timeout, sut.exception, rubric.timeout) in the
   * newest recorded run of this task class and SUT; every other case must come from the cache (else the run is
   * refused before anything runs). Recorded as a run of its own. Not with noCache.
   */
  readonly retryErrors?: boolean;
  /** Skip the cache probe (results are still written to the cache). */
  readonly noCache?: boolean;
  /** Default `.evalgate`; runs/ and cache/ live under it unless outDir/cacheDir say otherwise. */
  readonly stateDir?: string;
  /** The chained run log; default `<stateDir>/runs`. */
  readonly outDir?: string;
  readonly cacheDir?: string;
  /** Default `bench`. */
  readonly benchRoot?: string;
  readonly harnessVersion?: string;
  /**
   * How rubrics run: `bwrap` (default), in the bubblewrap sandbox, refused with SandboxUnavailable when
   * it cannot run here; `none`, as plain subprocesses (Node's permission model for Node rubrics).
   */
  readonly sandbox?: SandboxMode;
  /** With `sandbox: "none"`: run rubrics in an empty network namespace where possible (default true). */
  readonly networkIsolation?: boolean;
  readonly onWarning?: WarningSink;
  readonly onProgress?: (progress: RunProgress) => void;
  readonly onCaseResult?: (result: CaseRunResult) => void;
  /** Aborting cancels outstanding cases; the run is then recorded as incomplete. */
  readonly signal?: AbortSignal;
  /**
   * Execute only these units (`trialUnitId(case_id, trial)`: a shard's part of a plan). The report still
   * describes the whole selection; a run given this is a shard's, scored by `scoreRun` and never appended.
   */
  readonly onlyUnits?: ReadonlySet<string>;
  /** The cache's MAC key; default `<stateDir>/cache.key`. Shards sharing a cache share its key. */
  readonly cacheKeyPath?: string;
}

export interface RunEvalResult {
  readonly report: BenchRunReport;
  readonly recordPath: string;
  readonly caseResults: readonly CaseRunResult[];
  readonly costCapExceeded: boolean;
  readonly cancelled: boolean;
  readonly runDir: string;
  /** The chain as verified after the append (from the checkpoint: only the newest records were read). */
  readonly chain: VerifyResult;
}

/** A run scored but not appended: what `runEval` appends, and what a shard writes into its bundle. */
export interface ScoredRun {
  /** The unsigned report (`prev_hash` is the head verified at planning, or the genesis hash for a shard). */
  readonly report: BenchRunReportInput;
  readonly caseResults: readonly CaseRunResult[];
  readonly costCapExceeded: boolean;
  readonly cancelled: boolean;
  readonly runId: string;
  readonly runDir: string;
  readonly runsDir: string;
  readonly stateDir: string;
  readonly hostFingerprint: string;
  readonly taskClass: TaskClass;
  /** The selected cases (every one, also those `onlyUnits` left out). */
  readonly cases: readonly BenchCase[];
  /** The chain as verified before the run (null for a shard, which reads no chain). */
  readonly chain: RunChainCheck | null;
}

const DEFAULT_RUBRIC_TIMEOUT_S = 60;

/** One trial of one case: the unit the pool runs and the cache keys. */
interface TrialItem {
  readonly benchCase: BenchCase;
  readonly trial: number;
  /** `<case-id>#<trial>`. */
  readonly id: string;
  readonly key: string;
}

/**
 * The digest of the task class's cassette material outside case directories (`<bench>/cassettes/`),
 * or of nothing when there is none. Per-case cassettes live in their case directory and are already
 * part of that case's digest, so editing one case invalidates only that case's cache entry.
 */
export async function cassetteCorpusDigest(benchPath: string): Promise<string> {
  const dir = join(benchPath, "cassettes");
  if (!existsSync(dir)) return digestOf("evalgate.cassette_corpus.v1", ["none"]);
  return digestOf("evalgate.cassette_corpus.v1", [(await digestDirectory(dir)).digest]);
}

function compactTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** How a report names a caseFilter: the glob as given, `(predicate)` for a function, null for none. */
function filterLabel(filter: RunEvalOptions["caseFilter"]): string | null {
  if (filter === undefined) return null;
  return typeof filter === "function" ? "(predicate)" : filter;
}

/**
 * What a run selected, for its report. Throws NoCasesSelected (before anything runs or is written)
 * when nothing was. A subset is reported to `onWarning`: it cannot support a promotion.
 */
function describeSelection(taskClass: string, selected: readonly BenchCase[], taskClassCaseCount: number, filter: RunEvalOptions["caseFilter"], onWarning: WarningSink): Selection {
  const label = filterLabel(filter);
  if (selected.length === 0) throw new NoCasesSelected(taskClass, label, taskClassCaseCount);
  const scope = selected.length === taskClassCaseCount ? "full" : "subset";
  if (scope === "subset") {
    onWarning({
      code: "run.subset",
      message: `this run scores ${selected.length} of the ${taskClassCaseCount} cases of ${taskClass} (${label ?? "no filter"}): it is recorded as a subset and cannot support a promotion`,
      details: { selected: selected.length, taskClassCaseCount, filter: label },
    });
  }
  return {
    scope,
    filter: label,
    task_class_case_count: taskClassCaseCount,
    selected_case_count: selected.length,
    selected_case_ids_digest: digestOf("evalgate.case_selection.v1", selected.map((c) => c.case_id).sort()),
  };
}

/** The abort reason of a run stopped by SIGINT or SIGTERM: the report says `incomplete_reason: "interrupted"`. */
export class RunInterrupted extends Error {
  override readonly name = "RunInterrupted";
  readonly signal: string;
  constructor(signal: string) {
    super(`interrupted by ${signal}`);
    this.signal = signal;
  }
}

/** A case predicate from a caseFilter option: a picomatch glob on case_id, or the predicate itself. */
export function caseFilterOf(filter: RunEvalOptions["caseFilter"]): ((benchCase: BenchCase) => boolean) | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter === "function") return filter;
  const match = picomatch(filter);
  return (benchCase) => match(benchCase.case_id);
}

/**
 * Runs every selected case of a task class against a SUT and appends the run to the audit chain.
 * Throws (before any SUT call, writing nothing) on a tampered chain, a digest mismatch, or an
 * unknown/missing task class. Per-case problems never throw: they become block-severity failure
 * modes. A case starts only while the spend so far is below `maxCostUsd` (so 0 starts none); past it,
 * outstanding cases are cancelled and the report says `complete: false`.
 * The chain is verified from its checkpoint (chain-checkpoint.ts), before the run and after the append.
 */
export async function runEval(taskClassName: string, options: RunEvalOptions): Promise<RunEvalResult> {
  const scored = await scoreRun(taskClassName, options, { verifyChain: true });
  // 6. Append to the chain: under its lock, linked to whatever the head is then.
  // The head pointer is trusted only when nothing touched the runs directory since the checkpoint.
  const { record, path, previous } = await appendRunRecord(scored.report, { runsDir: scored.runsDir, hostFingerprint: scored.hostFingerprint, trustHeadPointer: scored.chain!.directoryUnchanged });
  const chain = await verifyAfterAppend({ stateDir: scored.stateDir, runsDir: scored.runsDir, onWarning: options.onWarning ?? ignoreWarnings }, scored.chain!, {
    previous: { records: previous.records, head: previous.head },
    chainHash: record.chain_hash,
    file: basename(path),
    complete: record.report.complete,
  });
  return { report: record.report, recordPath: path, caseResults: scored.caseResults, costCapExceeded: scored.costCapExceeded, cancelled: scored.cancelled, runDir: scored.runDir, chain };
}

/**
 * Plans, probes the cache, executes and aggregates a run without appending it. With `verifyChain`
 * (a run on its way to the chain) a chain that does not verify stops it before any SUT call; a shard
 * (`verifyChain: false`) never reads a chain.
 */
export async function scoreRun(taskClassName: string, options: RunEvalOptions, mode: { readonly verifyChain: boolean }): Promise<ScoredRun> {
  const onWarning = options.onWarning ?? ignoreWarnings;
  const stateDir = resolve(options.stateDir ?? ".evalgate");
  const runsDir = resolve(options.outDir ?? join(stateDir, "runs"));
  const cacheDir = resolve(options.cacheDir ?? join(stateDir, "cache"));
  const concurrency = options.concurrency ?? Math.min(availableParallelism(), 4);
  const maxCostUsd = options.maxCostUsd ?? 5;
  const timeoutMs = (options.timeoutPerCaseSeconds ?? 600) * 1000;
  const harnessVersion = options.harnessVersion ?? HARNESS_VERSION;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new EvalError("EVAL_USAGE", `concurrency must be a whole number >= 1, got ${concurrency}`);
  if (!(maxCostUsd >= 0)) throw new EvalError("EVAL_USAGE", `maxCostUsd must be >= 0, got ${maxCostUsd}`);
  if (options.trials !== undefined && !(Number.isInteger(options.trials) && options.trials >= 1)) throw new EvalError("EVAL_USAGE", `trials must be a whole number >= 1, got ${options.trials}`);
  if (!(timeoutMs > 0)) throw new EvalError("EVAL_USAGE", `timeoutPerCaseSeconds must be > 0, got ${options.timeoutPerCaseSeconds}`);
  const sut = options.systemUnderTest;

  // 1. Plan. Everything that can refuse the run does so here, before any SUT call.
  checkStateDir(stateDir, { write: true });
  const startedAt = new Date();
  const taskClass = await loadTaskClass(taskClassName, { benchRoot: resolve(options.benchRoot ?? "bench"), registry: new TaskClassRegistry(), onWarning });
  const trials = trialsFor(taskClass, options.trials);
  const filter = caseFilterOf(options.caseFilter);
  const { selected: selectedCases, taskClassCaseCount } = await selectCases(taskClass, { ...(filter === undefined ? {} : { filter }), onWarning });
  const selection = describeSelection(taskClass.name, selectedCases, taskClassCaseCount, options.caseFilter, onWarning);
  const only = options.onlyUnits;
  const inRun = (caseId: string, trial: number): boolean => only === undefined || only.has(trialUnitId(caseId, trial));
  const cases = selectedCases.filter((benchCase) => Array.from({ length: trials }, (_, trial) => trial).some((trial) => inRun(benchCase.case_id, trial)));
  const chain = mode.verifyChain ? await verifyChainForRun({ stateDir, runsDir, onWarning }) : null;
  if (chain !== null && !chain.ok) throw new ChainTampered(chain.firstBad!, runsDir);
  await sut.preflight?.({ cases: cases.map((benchCase) => sutCaseOf(benchCase)), trials });
  const hostFingerprint = await getHostFingerprint(stateDir);
  // Refuses here, before any SUT call, when the sandbox is asked for and cannot run.
  const isolationClass = rubricIsolationClass(taskClass, { sandbox: options.sandbox ?? "bwrap", ...(options.networkIsolation === undefined ? {} : { networkIsolation: options.networkIsolation }) });
  const sutIsolation = sut.isolation ?? "in-process";
  const corpusDigest = await cassetteCorpusDigest(taskClass.benchPath);
  const keyOf = new Map<string, string>();
  for (const benchCase of cases) keyOf.set(benchCase.case_id, caseCacheKey(benchCase, { sut, taskClass, corpusDigest, harnessVersion, isolationClass, sutIsolation }));
  // One work item per trial of each case; trial 0 keeps the case's own key (a one-trial run is unchanged).
  const items = cases.flatMap((benchCase) =>
    Array.from({ length: trials }, (_, trial): TrialItem => ({ benchCase, trial, id: trialUnitId(benchCase.case_id, trial), key: trialCacheKey(keyOf.get(benchCase.case_id)!, trial) })),
  ).filter((item) => inRun(item.benchCase.case_id, item.trial));
  const runId = `${compactTimestamp(startedAt)}-${randomBytes(4).toString("hex")}`;
  const runDir = join(runsDir, runId);
  // The MAC key lives in the state directory, outside the cache (a copied cache never carries its key),
  // and no sandbox ever shows it.
  const cache = new ScoreCache({ dir: cacheDir, keyPath: resolve(options.cacheKeyPath ?? join(stateDir, "cache.key")), onWarning });

  // 2. Cache probe.
  const results = new Map<string, CaseRunResult>();
  let cacheHits = 0;
  let costUsd = 0;
  let executedMs = 0;
  let executedCount = 0;
  const misses: TrialItem[] = [];
  const report = (): void =>
    options.onProgress?.({
      done: results.size,
      total: items.length,
      cacheHits,
      costUsd,
      etaMs: executedCount === 0 ? null : Math.round(((executedMs / executedCount) * (items.length - results.size)) / concurrency),
    });
  for (const item of items) {
    const { benchCase, key, trial } = item;
    const cached = options.noCache === true ? null : await cache.get(key);
    if (cached === null) {
      misses.push(item);
      continue;
    }
    // A hit spends nothing now: the recorded cost is this run's spend.
    const detailPath = copyCachedDetail(runsDir, key, runId, trialDetailFile(benchCase.case_id, trial));
    const result: CaseRunResult = { case_id: benchCase.case_id, trial, cacheKey: key, cacheHit: true, score: { ...cached, cost_usd: 0 }, detailPath };
    results.set(item.id, result);
    cacheHits += 1;
    options.onCaseResult?.(result);
  }
  if (options.retryErrors === true) {
    if (options.noCache === true) throw new EvalError("EVAL_USAGE", "--retry-errors takes the cases that did not error from the cache: it cannot be combined with --no-cache");
    checkRetryMisses(misses.map((item) => item.benchCase.case_id), await erroredCasesOfLastRun(runsDir, taskClass.name, sut.digest, sut.label));
  }
  // The first progress line comes now, not after the first executed case.
  report();

  // 3. Execute the misses in a bounded pool; 5. the cost cap cancels what is outstanding.
  const cancel = new AbortController();
  let costCapExceeded = false;
  const stopAtCostCap = (): void => {
    if (costCapExceeded) return;
    costCapExceeded = true;
    onWarning({ code: "run.cost_cap", message: `spent $${costUsd.toFixed(4)} of the cap of $${maxCostUsd}: no further case starts, outstanding cases are cancelled`, details: { costUsd, maxCostUsd } });
    cancel.abort(new Error("cost cap"));
  };
  const onOuterAbort = (): void => cancel.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  // Every workspace and rubric cwd of this run lives below one temp dir, removed when execution ends.
  const tempRoot = createRunTempRoot(runId);
  let launcher: Promise<RubricLauncher> | null = null;
  let casesDirReady: Promise<unknown> | null = null;
  const casesDir = (): Promise<unknown> => (casesDirReady ??= mkdir(join(runDir, "cases"), { recursive: true }));
  const getLauncher = (): Promise<RubricLauncher> =>
    (launcher ??= prepareRubricLauncher(taskClass, {
      sandbox: options.sandbox ?? "bwrap",
      tempRoot: tempRoot.path,
      ...(options.networkIsolation === undefined ? {} : { networkIsolation: options.networkIsolation }),
      compileCacheDir: join(cacheDir, "node-compile", taskClass.rubricDigest.replace("blake3:", "")),
    }));
  // A case's cache entry is written after its slot is free: the next case's SUT and rubric start
  // while the write (temp file, lock, rename: a few ms of latency) completes. Writes are still atomic
  // and all of them finish before the run is aggregated and appended.
  const cacheWrites: Promise<void>[] = [];
  let cacheWriteError: { error: unknown } | null = null;
  try {
    await runPool(
      misses,
      concurrency,
      async ({ benchCase, trial, key, id }) => {
        // The cap is checked before a case starts: once the spend so far has reached it, nothing new is paid for.
        if (costUsd >= maxCostUsd) {
          stopAtCostCap();
          return;
        }
        const started = performance.now();
        const executed = await executeCase(benchCase, {
          taskClass,
          sut,
          launcher: getLauncher,
          cancel: cancel.signal,
          timeoutMs,
          invocationTag: trialInvocationTag(`bench:${startedAt.toISOString()}:${taskClass.name}:${benchCase.case_id}`, trial),
          trial,
          runId,
          runDir,
          cacheKey: key,
          casesDir,
          tempRoot: tempRoot.path,
        });
        if (executed === null) return; // cancelled
        executedMs += performance.now() - started;
        executedCount += 1;
        costUsd += executed.score.cost_usd;
        if (costUsd > maxCostUsd) stopAtCostCap();
        // A failure of the harness or its environment is not the case's result: the next run retries it.
        const stored = isHarnessSideFailure(executed.score) ? Promise.resolve() : cache.put(key, executed.score);
        cacheWrites.push(
          stored.then(
            () => {
              // A case counts as done (result, progress) once its cache entry is on disk.
              const result: CaseRunResult = { case_id: benchCase.case_id, trial, cacheKey: key, cacheHit: false, score: executed.score, detailPath: executed.detailPath };
              results.set(id, result);
              options.onCaseResult?.(result);
              report();
            },
            (error: unknown) => {
              cacheWriteError ??= { error };
            },
          ),
        );
      },
      () => cancel.signal.aborted || cacheWriteError !== null,
    );
    await Promise.all(cacheWrites);
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
    tempRoot.remove();
  }
  if (cacheWriteError !== null) throw (cacheWriteError as { error: unknown }).error;
  const cancelled = cancel.signal.aborted && !costCapExceeded;
  const interrupted = cancelled && options.signal?.reason instanceof RunInterrupted;

  // 4. Aggregate in case_id order, over the cases whose every trial finished.
  const ordered = cases
    .map((benchCase) => ({ benchCase, trialResults: Array.from({ length: trials }, (_, trial) => results.get(trialUnitId(benchCase.case_id, trial))) }))
    .filter((entry): entry is { benchCase: BenchCase; trialResults: CaseRunResult[] } => entry.trialResults.every((r) => r !== undefined));
  const complete = !costCapExceeded && !cancelled && results.size === items.length;
  const unsigned = buildRunReport(
    {
      runId,
      taskClass: taskClass.name,
      scoreKind: taskClass.scoreKind,
      harnessVersion,
      sut,
      rubricDigest: taskClass.rubricDigest,
      corpusDigest,
      hostFingerprint,
      isolationClass,
      sutIsolation,
      startedAt: startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      selection,
      caseCount: cases.length,
      trials,
      incompleteReason: complete ? null : costCapExceeded ? "cost_cap" : interrupted ? "interrupted" : "cancelled",
      prevHash: chain?.head ?? GENESIS_PREV_HASH,
    },
    ordered.map(({ benchCase, trialResults }) => ({
      case_id: benchCase.case_id,
      curation_class: benchCase.curation_class,
      trials: trialResults.map((result) => ({ cacheKey: result.cacheKey, score: result.score })),
    })),
  );
  // Every unit this run scored, in case and trial order (a shard's units include cases whose other trials ran elsewhere).
  const caseResults = items.flatMap((item) => results.get(item.id) ?? []);
  return { report: unsigned, caseResults, costCapExceeded, cancelled, runId, runDir, runsDir, stateDir, hostFingerprint, taskClass, cases: selectedCases, chain };
}

interface CaseContext {
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

type SutResult = { kind: "ok"; output: SutOutput } | { kind: "error"; error: string } | { kind: "timeout" } | { kind: "cancelled" };

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
      return { kind: "error", error: `${name}: ${message}`.slice(0, 500) };
    }
  })();
  try {
    return await Promise.race([call, stopped]);
  } finally {
    clearTimeout(timer);
    if (onCancel !== undefined) context.cancel.removeEventListener("abort", onCancel);
  }
}

/** Runs one case end to end; null when the run was cancelled before the case finished. */
async function executeCase(benchCase: BenchCase, context: CaseContext): Promise<{ score: BenchScore; detailPath: string } | null> {
  if (context.cancel.aborted) return null;
  const started = performance.now();
  const workspacePath = mkdtempSync(join(context.tempRoot, "ws-"));
  try {
    copyTree(benchCase.input_path, workspacePath);
    const sutResult = await callSut(benchCase, workspacePath, context);
    const sutMs = Math.round(performance.now() - started);
    if (sutResult.kind === "cancelled") return null;
    const costUsd = sutResult.kind === "ok" ? (sutResult.output.cost_usd ?? 0) : 0;
    let score: BenchScore;
    let outcome: RubricOutcome | null = null;
    let removedFromWorkspace: string[] = [];
    if (sutResult.kind === "timeout") {
      score = harnessFailureScore("sut.timeout", `no result within ${context.timeoutMs} ms`, { wallClockMs: sutMs, costUsd });
    } else if (sutResult.kind === "error") {
      score = harnessFailureScore("sut.exception", sutResult.error, { wallClockMs: sutMs, costUsd });
    } else {
      removedFromWorkspace = removeUnsafeEntries(workspacePath);
      const request = {
        schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
        case: benchCase,
        harness_output: sutResult.output,
        context: { workspace_path: workspacePath },
      } as RubricRequest;
      const launcher = await context.launcher();
      outcome = await launcher.run({
        request,
        readablePaths: [benchCase.case_path, workspacePath],
        timeoutMs: (benchCase.rubric_wall_clock_seconds ?? DEFAULT_RUBRIC_TIMEOUT_S) * 1000,
        signal: context.cancel,
      });
      if (outcome.kind === "aborted") return null;
      const measured = { wallClockMs: performance.now() - started, costUsd };
      if (outcome.kind === "ok") score = resolveRubricScore(outcome.response.score, context.taskClass, measured);
      else if (outcome.kind === "timeout") score = harnessFailureScore("rubric.timeout", `killed after ${outcome.process.wallClockMs} ms`, measured);
      else score = harnessFailureScore("rubric.malformed_output", outcome.detail, measured);
    }
    const detailPath = join(context.runDir, "cases", trialDetailFile(benchCase.case_id, context.trial));
    await context.casesDir();
    const detail = {
      schema_version: CASE_DETAIL_SCHEMA_VERSION,
      run_id: context.runId,
      task_class: context.taskClass.name,
      case_id: benchCase.case_id,
      cache_key: context.cacheKey,
      invocation_tag: context.invocationTag,
      ...(context.trial === 0 ? {} : { trial: context.trial }),
      sut_output: sutResult.kind === "ok" ? sutResult.output : null,
      sut_error: sutResult.kind === "error" ? sutResult.error : sutResult.kind === "timeout" ? "timeout" : null,
      sut_wall_clock_ms: sutMs,
      // Symlinks and special files the SUT left, removed before the rubric looked (recorded here).
      ...(removedFromWorkspace.length === 0 ? {} : { removed_from_workspace: removedFromWorkspace.slice(0, 100) }),
      rubric:
        outcome === null
          ? null
          : {
              argv: [...outcome.process.argv],
              exit_code: outcome.process.exitCode,
              signal: outcome.process.signal,
              timed_out: outcome.process.timedOut,
              output_capped: outcome.process.outputCapped,
              wall_clock_ms: outcome.process.wallClockMs,
              stdout: outcome.process.stdout,
              stderr: outcome.process.stderr,
            },
      score,
    };
    writeFileSync(detailPath, `${JSON.stringify(detail, null, 2)}\n`, { mode: 0o600 });
    indexCaseDetail(dirname(context.runDir), context.cacheKey, context.runId, basename(detailPath));
    return { score, detailPath };
  } finally {
    rmSync(workspacePath, { recursive: true, force: true });
  }
}
