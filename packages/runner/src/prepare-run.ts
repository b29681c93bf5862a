// Step 1 of a run: settle its settings and plan it. Everything that can refuse the run does so here,
// before any SUT call.
import { createSecretKey, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { ChainTampered, getHostFingerprint } from "@eval/audit-chain";
import { loadOrCreateMacKey, readMacKey, ScoreCache } from "@eval/cache";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import { sutCaseOf } from "@eval/models";
import type { BenchCase, IsolationClass, Selection, SutIsolation, SystemUnderTest } from "@eval/models";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";
import { digestDirectory, loadTaskClass, selectCases, TaskClassRegistry } from "@eval/registry";
import type { TaskClass } from "@eval/registry";
import { RUN_DEFAULTS, RUN_LIMITS } from "@eval/models/defaults";
import { sandboxSupportAsync } from "@eval/sandbox";
import picomatch from "picomatch";
import { caseCacheKey } from "./case-keys.ts";
import { loadDigestCache } from "./digest-cache.ts";
import { verifyChainForRun } from "./chain-checkpoint.ts";
import type { RunChainCheck } from "./chain-checkpoint.ts";
import { NoCasesSelected } from "./errors.ts";
import { rubricIsolationClass } from "./rubric-isolation.ts";
import type { RunEvalOptions, TrialItem } from "./run-types.ts";
import { digestOf } from "./sut.ts";
import { trialCacheKey, trialsFor, trialUnitId } from "./trials.ts";
import { HARNESS_VERSION } from "./version.ts";

/** The MAC label of the case-tree checkpoint (never a cache key, so neither can stand in for the other). */
const CASE_TREES_MAC_LABEL = "evalgate.case_trees";

/** A run's options with every default applied and checked. */
export interface RunSettings {
  readonly onWarning: WarningSink;
  readonly stateDir: string;
  readonly runsDir: string;
  readonly cacheDir: string;
  readonly concurrency: number;
  readonly maxCostUsd: number;
  readonly timeoutMs: number;
  readonly harnessVersion: string;
}

/** What planning settled: the loaded task class, the selection, the units to run and their keys. */
export interface PreparedRun {
  readonly settings: RunSettings;
  readonly startedAt: Date;
  readonly taskClass: TaskClass;
  readonly sut: SystemUnderTest;
  readonly trials: number;
  /** Every selected case (also those `onlyUnits` left out). */
  readonly selectedCases: readonly BenchCase[];
  /** The selected cases with at least one unit in this run. */
  readonly cases: readonly BenchCase[];
  readonly selection: Selection;
  readonly chain: RunChainCheck | null;
  readonly hostFingerprint: string;
  readonly isolationClass: IsolationClass;
  readonly sutIsolation: SutIsolation;
  /** A rescore's original run, recorded on the report; null for a run that calls its SUT. */
  readonly rescoreOf: NonNullable<RunEvalOptions["rescoreOf"]> | null;
  readonly corpusDigest: string;
  /** One unit per trial of each case in this run, in case and trial order. */
  readonly items: readonly TrialItem[];
  readonly runId: string;
  readonly runDir: string;
  readonly cache: ScoreCache;
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
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
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
function describeSelection(
  taskClass: string,
  selected: readonly BenchCase[],
  taskClassCaseCount: number,
  filter: RunEvalOptions["caseFilter"],
  onWarning: WarningSink,
): Selection {
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

/** A case predicate from a caseFilter option: a picomatch glob on case_id, or the predicate itself. */
export function caseFilterOf(filter: RunEvalOptions["caseFilter"]): ((benchCase: BenchCase) => boolean) | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter === "function") return filter;
  const match = picomatch(filter);
  return (benchCase) => match(benchCase.case_id);
}

/** The trials per case a run or a plan makes: the default, or EVAL_USAGE when outside RUN_LIMITS. */
export function trialsSetting(trials: number | undefined): number {
  const chosen = trials ?? RUN_DEFAULTS.trials;
  if (!(Number.isInteger(chosen) && chosen >= 1 && chosen <= RUN_LIMITS.maxTrials)) {
    throw new EvalError(
      "EVAL_USAGE",
      `--trials must be a whole number >= 1 and at most ${RUN_LIMITS.maxTrials}, got ${trials}`,
    );
  }
  return chosen;
}

/**
 * The most cases run at once on this machine: 4 per CPU, at least 16 (agents mostly wait on their model,
 * but every case is a sandbox, a SUT and a rubric process). Above it a run warns and caps.
 */
export function concurrencyCapacity(cpus = availableParallelism()): number {
  return Math.max(16, 4 * cpus);
}

/** Applies the defaults and refuses (EVAL_USAGE) a setting out of range; caps concurrency at the machine's capacity, with a warning. */
export function runSettingsOf(options: Omit<RunEvalOptions, "systemUnderTest">): RunSettings {
  const stateDir = resolve(options.stateDir ?? DEFAULT_STATE_DIR);
  const layout = stateLayout(stateDir);
  const onWarning = options.onWarning ?? ignoreWarnings;
  const asked = options.concurrency ?? Math.min(availableParallelism(), RUN_DEFAULTS.concurrencyAtMost);
  const maxCostUsd = options.maxCostUsd ?? RUN_DEFAULTS.maxCostUsd;
  const timeoutMs = (options.timeoutPerCaseSeconds ?? RUN_DEFAULTS.timeoutPerCaseSeconds) * 1000;
  if (!Number.isSafeInteger(asked) || asked < 1)
    throw new EvalError("EVAL_USAGE", `--concurrency must be a whole number >= 1, got ${asked}`);
  if (!(maxCostUsd >= 0)) throw new EvalError("EVAL_USAGE", `maxCostUsd must be >= 0, got ${maxCostUsd}`);
  if (options.trials !== undefined) trialsSetting(options.trials);
  if (!(timeoutMs > 0))
    throw new EvalError("EVAL_USAGE", `timeoutPerCaseSeconds must be > 0, got ${options.timeoutPerCaseSeconds}`);
  const capacity = concurrencyCapacity();
  const concurrency = Math.min(asked, capacity);
  if (asked > capacity)
    onWarning({
      code: "run.concurrency_capped",
      message: `--concurrency ${asked} is above this machine's capacity (${capacity}: 4 per CPU, at least 16): running ${capacity} cases at once`,
      details: { asked, capacity },
    });
  return {
    onWarning,
    stateDir,
    runsDir: resolve(options.outDir ?? layout.runs),
    cacheDir: resolve(options.cacheDir ?? layout.cache),
    concurrency,
    maxCostUsd,
    timeoutMs,
    harnessVersion: options.harnessVersion ?? HARNESS_VERSION,
  };
}

/** The selected cases with at least one unit in this run (all of them unless `onlyUnits` narrows it). */
function casesInRun(
  selected: readonly BenchCase[],
  trials: number,
  only: ReadonlySet<string> | undefined,
): readonly BenchCase[] {
  if (only === undefined) return selected;
  return selected.filter((benchCase) =>
    Array.from({ length: trials }, (_, trial) => trial).some((trial) =>
      only.has(trialUnitId(benchCase.case_id, trial)),
    ),
  );
}

/**
 * Plans a run: loads the task class, selects cases, verifies the chain (with `verifyChain`), runs the
 * SUT's preflight, and keys every unit. Throws before any SUT call on anything that refuses the run.
 */
export async function prepareRun(
  taskClassName: string,
  options: RunEvalOptions,
  mode: { readonly verifyChain: boolean },
): Promise<PreparedRun> {
  const settings = runSettingsOf(options);
  const { onWarning, stateDir, runsDir } = settings;
  checkStateDir(stateDir, { write: true });
  const startedAt = new Date();
  // bwrap starts while the cases load: the probe is wall time, mostly waiting (rubricIsolationClass reads it).
  const sandboxProbe = (options.sandbox ?? "bwrap") === "bwrap" ? sandboxSupportAsync() : null;
  const taskClass = await loadTaskClass(taskClassName, {
    benchRoot: resolve(options.benchRoot ?? "bench"),
    registry: new TaskClassRegistry(),
    onWarning,
  });
  const trials = trialsFor(taskClass, options.trials);
  const filter = caseFilterOf(options.caseFilter);
  // Nothing is created in the state directory until every refusal below has had its say: without a key
  // yet, no checkpoint can verify (a throwaway key reads it as empty), and the key is made at the end.
  const keyPath = resolve(options.cacheKeyPath ?? stateLayout(stateDir).cacheKey);
  const caseTrees = loadDigestCache(stateLayout(stateDir).caseTrees, {
    key: (await readMacKey(keyPath)) ?? createSecretKey(randomBytes(32)),
    label: CASE_TREES_MAC_LABEL,
  });
  const { selected: selectedCases, taskClassCaseCount } = await selectCases(taskClass, {
    ...(filter === undefined ? {} : { filter }),
    onWarning,
    caseTrees: caseTrees.entries,
  });
  const selection = describeSelection(taskClass.name, selectedCases, taskClassCaseCount, options.caseFilter, onWarning);
  const cases = casesInRun(selectedCases, trials, options.onlyUnits);
  const sut =
    typeof options.systemUnderTest === "function"
      ? await options.systemUnderTest({ taskClass, cases: selectedCases })
      : options.systemUnderTest;
  const chain = mode.verifyChain ? await verifyChainForRun({ stateDir, runsDir, onWarning }) : null;
  if (chain !== null && !chain.ok) throw new ChainTampered(chain.firstBad!, runsDir);
  await sut.preflight?.({ cases: cases.map((benchCase) => sutCaseOf(benchCase)), trials });
  // Refuses here, before any SUT call, when the sandbox is asked for and cannot run.
  await sandboxProbe;
  const isolationClass = rubricIsolationClass(taskClass, {
    sandbox: options.sandbox ?? "bwrap",
    ...(options.networkIsolation === undefined ? {} : { networkIsolation: options.networkIsolation }),
  });
  const sutIsolation = sut.isolation ?? "in-process";
  const corpusDigest = await cassetteCorpusDigest(taskClass.benchPath);
  const keyFacts = {
    sut,
    taskClass,
    corpusDigest,
    harnessVersion: settings.harnessVersion,
    isolationClass,
    sutIsolation,
  };
  if (cases.length * trials > RUN_LIMITS.maxUnitsPerRun) {
    throw new EvalError(
      "EVAL_USAGE",
      `${cases.length} cases x ${trials} trials = ${cases.length * trials} units, more than one run makes (${RUN_LIMITS.maxUnitsPerRun})`,
      {
        hint: "select fewer cases with --cases, lower --trials, or split the run into shards (`evalgate plan`, docs/scale-out.md)",
      },
    );
  }
  const items = trialItems(cases, trials, options.onlyUnits, (benchCase) => caseCacheKey(benchCase, keyFacts));
  // The run starts: what it keeps in the state directory is written from here on.
  caseTrees.save(await loadOrCreateMacKey(keyPath));
  const hostFingerprint = await getHostFingerprint(stateDir);
  const runId = `${compactTimestamp(startedAt)}-${randomBytes(4).toString("hex")}`;
  // The MAC key lives in the state directory, outside the cache (a copied cache never carries its key),
  // and no sandbox ever shows it.
  const cache = new ScoreCache({
    dir: settings.cacheDir,
    keyPath,
    onWarning,
  });
  return {
    settings,
    startedAt,
    taskClass,
    sut,
    trials,
    selectedCases,
    cases,
    selection,
    chain,
    hostFingerprint,
    isolationClass,
    sutIsolation,
    corpusDigest,
    items,
    runId,
    runDir: join(runsDir, runId),
    cache,
    rescoreOf: options.rescoreOf ?? null,
  };
}

/** One unit per trial of each case; trial 0 keeps the case's own key (a one-trial run is unchanged). */
function trialItems(
  cases: readonly BenchCase[],
  trials: number,
  only: ReadonlySet<string> | undefined,
  keyOf: (benchCase: BenchCase) => string,
): TrialItem[] {
  return cases
    .flatMap((benchCase) => {
      const caseKey = keyOf(benchCase);
      return Array.from({ length: trials }, (_, trial): TrialItem => ({
        benchCase,
        trial,
        id: trialUnitId(benchCase.case_id, trial),
        key: trialCacheKey(caseKey, trial),
      }));
    })
    .filter((item) => only === undefined || only.has(item.id));
}
