import type { MeteredUsage, SutCase, SutIsolation } from "./types.ts";

/**
 * What a system under test receives for one case. The runner owns the scratch workspace and the
 * deadline; a SUT must stop when `signal` aborts (timeout or cost cap) and release what it started.
 */
export interface SutInvocation {
  /** The task, without any path into the bench: a SUT never learns where the answers are. */
  readonly benchCase: SutCase;
  /** A scratch copy of the case's `input/`, which the SUT may change; the rubric sees it afterwards. */
  readonly workspacePath: string;
  /** 64 hex characters derived from the case's `cassette_canary_pin`: the same pin gives the same seed. */
  readonly canarySeed: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** `bench:<run-start>:<task-class>:<case-id>`; also EVALGATE_BENCH_INVOCATION_TAG in a SUT process's env. */
  readonly invocationTag: string;
  /** Which trial of the case this call is, 0-based (runEval's `trials` makes that many calls per case). */
  readonly trial?: number;
  /** 64 hex characters distinct per trial; trial 0's equals `canarySeed`. A stochastic SUT seeds itself with it. */
  readonly trialSeed?: string;
  /**
   * The harness's recorder of what the SUT's process printed: a SUT that runs a process, a worker or a
   * recorded session reports its stdout and stderr here (at most once per call, also when it then fails).
   */
  readonly recordStreams?: (streams: SutStreams) => void;
  /**
   * The harness's recorder of what its model bridge metered for this call (at most once, also when the call
   * then fails). Only harness code that ran the agent behind the bridge calls it: a SUT's own output can never
   * claim metered figures. A priced figure is the trial's cost.
   */
  readonly recordMetered?: (usage: MeteredUsage) => void;
}

/** A SUT process's output streams, as the harness records them (it caps and excerpts them). */
export interface SutStreams {
  readonly stdout: string | Uint8Array;
  readonly stderr: string | Uint8Array;
}

/** A JSON object; `cost_usd` (if present) is what the SUT reports having spent. */
export type SutOutput = { readonly cost_usd?: number } & Readonly<Record<string, unknown>>;

/** A system under test: a named, digested function from one case to its harness output. */
export interface SystemUnderTest {
  /** Shown in reports, e.g. `replay`, `command:./fix.sh`, `module:./sut.ts#fix`. */
  readonly label: string;
  /** `blake3:<hex>` identifying the SUT's behaviour; part of every cache key. */
  readonly digest: string;
  /** How it runs (recorded on the report); absent means in the harness's process (`in-process`). */
  readonly isolation?: SutIsolation;
  /** The sandbox limits it runs under (a sandboxed `command:` SUT; recorded in the report), else absent. */
  readonly limits?: { readonly pids: number; readonly memoryBytes: number; readonly diskBytes: number };
  run(invocation: SutInvocation): Promise<SutOutput>;
  /**
   * Optional: called once when a run is planned, before any case starts, with every selected case and the
   * trials per case; throwing refuses the run (e.g. replay with fewer recorded sessions than trials).
   */
  preflight?(plan: { readonly cases: readonly SutCase[]; readonly trials: number }): Promise<void>;
}
