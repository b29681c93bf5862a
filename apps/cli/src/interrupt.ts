// Ctrl-C and SIGTERM during a run: stop cleanly the first time, at once the second time.
import { RunInterrupted } from "@eval/runner";
import { killAllProcessGroups } from "@eval/sandbox";
import { ExitCode } from "./exit-codes.ts";

export interface Interrupt {
  /** Aborts (with a RunInterrupted reason) on the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The signal received, or null. */
  received(): NodeJS.Signals | null;
  /** Removes the handlers (after the run). */
  dispose(): void;
}

const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/**
 * The first SIGINT or SIGTERM aborts the run (no case is started after it, every process group the
 * run started is killed now, the cases that finished are recorded as an incomplete run); a second one
 * kills the process groups and lets the signal's default action end evalgate at once.
 */
export function watchInterrupts(stderr: NodeJS.WritableStream): Interrupt {
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  const handler = (signal: NodeJS.Signals): void => {
    if (received !== null) {
      dispose();
      killAllProcessGroups();
      process.kill(process.pid, signal);
      return;
    }
    received = signal;
    stderr.write(
      `evalgate: ${signal}: stopping; cases that finished are recorded as an incomplete run (${signal} again quits at once)\n`,
    );
    controller.abort(new RunInterrupted(signal));
    killAllProcessGroups();
  };
  const dispose = (): void => {
    for (const signal of SIGNALS) process.removeListener(signal, handler);
  };
  for (const signal of SIGNALS) process.on(signal, handler);
  return { signal: controller.signal, received: () => received, dispose };
}

/** The conventional exit code of a process stopped by a signal: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? ExitCode.interruptedSigint : ExitCode.interruptedSigterm;
}
