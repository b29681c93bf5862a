import type { EvalgateContext } from "./context.ts";
import { escapeTerminal } from "@eval/reports/terminal";

export interface ProgressState {
  readonly done: number;
  readonly total: number;
  readonly cacheHits: number;
  readonly costUsd: number;
  readonly etaMs: number | null;
  /** Cases finished without passing (counted by the caller from case results); shown when given. */
  readonly failures?: number;
}

export interface ProgressReporter {
  update(state: ProgressState): void;
  finish(): void;
}

function formatEta(ms: number | null): string {
  if (ms === null) return "ETA --";
  const seconds = Math.ceil(ms / 1000);
  return seconds >= 60
    ? `ETA ${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`
    : `ETA ${seconds}s`;
}

/** One progress line, e.g. `evalgate run: 12/40 cases, 2 failed, 8 cached, $0.1200, ETA 31s`. */
export function progressLine(state: ProgressState): string {
  const failures = state.failures === undefined ? "" : ` ${state.failures} failed,`;
  return `evalgate run: ${state.done}/${state.total} cases,${failures} ${state.cacheHits} cached, $${state.costUsd.toFixed(4)}, ${formatEta(state.etaMs)}`;
}

const inCi = (env: NodeJS.ProcessEnv): boolean => env.CI !== undefined && env.CI !== "" && env.CI !== "false";

/** On a terminal: one stderr line rewritten in place, shown from the start (`planning`), cleared at the end. */
function terminalReporter(stderr: NodeJS.WritableStream, taskClass: string): ProgressReporter {
  stderr.write(`\r\x1b[2Kevalgate run: planning ${escapeTerminal(taskClass)}...`);
  return {
    update(state) {
      stderr.write(`\r\x1b[2K${escapeTerminal(progressLine(state))}`);
    },
    finish() {
      stderr.write("\r\x1b[2K");
    },
  };
}

export interface LogProgressOptions {
  /** A line at least this often while the run is alive (default 10 s), so CI no-output watchdogs see it. */
  readonly intervalMs?: number;
  /** A line each time this many more cases are done (default a tenth of the run, at least 1). */
  readonly everyCases?: number;
  readonly now?: () => number;
}

/**
 * Outside a terminal (a CI log, a file): whole lines on stderr at the start, every `everyCases` cases,
 * at least every `intervalMs` (a timer, so a long case still shows life), and at the end.
 */
function logReporter(stderr: NodeJS.WritableStream, options: LogProgressOptions): ProgressReporter {
  const intervalMs = options.intervalMs ?? 10_000;
  const now = options.now ?? Date.now;
  let last: ProgressState | null = null;
  let printedDone = -1;
  let printedAt = now();
  const print = (state: ProgressState): void => {
    stderr.write(`${escapeTerminal(progressLine(state))}\n`);
    printedDone = state.done;
    printedAt = now();
  };
  const timer = setInterval(
    () => {
      if (last !== null && now() - printedAt >= intervalMs) print(last);
    },
    Math.min(intervalMs, 1000),
  );
  timer.unref();
  return {
    update(state) {
      last = state;
      const every = options.everyCases ?? Math.max(1, Math.ceil(state.total / 10));
      if (
        printedDone === -1 ||
        state.done - printedDone >= every ||
        state.done === state.total ||
        now() - printedAt >= intervalMs
      )
        print(state);
    },
    finish() {
      clearInterval(timer);
      if (last !== null && last.done !== printedDone) print(last);
    },
  };
}

/**
 * The run's progress reporter: none with `quiet`; on a terminal (and not in CI) one line rewritten in
 * place; otherwise whole lines a CI log keeps (see logReporter).
 */
export function runProgress(
  context: EvalgateContext,
  options: LogProgressOptions & { readonly quiet: boolean; readonly taskClass: string },
): ProgressReporter | null {
  if (options.quiet) return null;
  const stderr = context.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  if (stderr.isTTY === true && !inCi(context.env)) return terminalReporter(stderr, options.taskClass);
  return logReporter(stderr, options);
}

/** The run hooks that feed a reporter (none without one), counting failed cases from case results. */
export function progressHooks(progress: ProgressReporter | null): {
  onProgress?: (state: Omit<ProgressState, "failures">) => void;
  onCaseResult?: (result: { readonly score: { readonly passed: boolean } }) => void;
} {
  if (progress === null) return {};
  let failures = 0;
  return {
    onProgress: (state) => progress.update({ ...state, failures }),
    onCaseResult: (result) => {
      if (!result.score.passed) failures += 1;
    },
  };
}
