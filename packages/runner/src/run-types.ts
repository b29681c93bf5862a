// The shapes a run is given and returns, and the unit of work it schedules.
import type { SigningKey, VerifyResult } from "@eval/audit-chain";
import type { WarningSink } from "@eval/errors";
import type {
  BenchCase,
  BenchRunReport,
  BenchRunReportInput,
  BenchScore,
  MeteredUsage,
  SystemUnderTest,
} from "@eval/models";
import type { TaskClass } from "@eval/registry";
import type { RunChainCheck } from "./chain-checkpoint.ts";
import type { SandboxMode } from "./rubric-isolation.ts";

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
  /** What the model bridge metered for an executed unit whose agent ran behind it (absent otherwise, and for a cache hit). */
  readonly metered?: MeteredUsage;
}

/**
 * Chooses the SUT from what the run selected: called once, after the selection and before the chain
 * check or any SUT call (an error it throws refuses the run). Lets a caller pick a default SUT from
 * the cases without loading the task class itself.
 */
export type SutChooser = (selected: {
  readonly taskClass: TaskClass;
  readonly cases: readonly BenchCase[];
}) => Promise<SystemUnderTest>;

export interface RunEvalOptions {
  /** The system under test, or how to choose it from the selected cases. */
  readonly systemUnderTest: SystemUnderTest | SutChooser;
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
  /** Signs the run's chain record (a shard: its bundle's manifest); without it they are unsigned. */
  readonly signingKey?: SigningKey | null;
  readonly onProgress?: (progress: RunProgress) => void;
  readonly onCaseResult?: (result: CaseRunResult) => void;
  /** Aborting cancels outstanding cases; the run is then recorded as incomplete. */
  readonly signal?: AbortSignal;
  /**
   * Execute only these units (`trialUnitId(case_id, trial)`: a shard's part of a plan). The report still
   * describes the whole selection; a run given this is a shard's, scored by `scoreRun` and never appended.
   */
  readonly onlyUnits?: ReadonlySet<string>;
  /** Set by `rescoreRun` only: the run whose recorded outputs this run scores (recorded as `rescore_of`). */
  readonly rescoreOf?: { readonly run_id: string; readonly sut_digest: string; readonly rubric_digest: string };
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
  /**
   * The chain as verified after the append (from the checkpoint: only the newest records were read), or
   * null when that check could not be done (a warning says why; the record is in the chain all the same).
   */
  readonly chain: VerifyResult | null;
  /** What stopped the run outside every case (the report says `incomplete_reason: "harness_error"`), or null. */
  readonly harnessError: string | null;
  /** The task class the run loaded (its minimums, e.g. `minTrials`, included): callers never load it again. */
  readonly taskClass: TaskClass;
  /** Selected cases the run did not score (an incomplete run: cost cap, interrupt), in case order. */
  readonly unscoredCaseIds: readonly string[];
}

/** A run scored but not appended: what `runEval` appends, and what a shard writes into its bundle. */
export interface ScoredRun {
  /** The unsigned report (`prev_hash` is the head verified at planning, or the genesis hash for a shard). */
  readonly report: BenchRunReportInput;
  readonly caseResults: readonly CaseRunResult[];
  readonly costCapExceeded: boolean;
  readonly cancelled: boolean;
  /** What stopped the run outside every case, or null. */
  readonly harnessError: string | null;
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
  /** The run's warning sink (`ignoreWarnings` when none was given). */
  readonly onWarning: WarningSink;
}

/** One trial of one case: the unit the pool runs and the cache keys. */
export interface TrialItem {
  readonly benchCase: BenchCase;
  readonly trial: number;
  /** `<case-id>#<trial>`. */
  readonly id: string;
  readonly key: string;
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
