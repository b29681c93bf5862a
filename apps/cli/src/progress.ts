import type { EvalgateContext } from "./context.ts";

export interface ProgressState {
  readonly done: number;
  readonly total: number;
  readonly cacheHits: number;
  readonly costUsd: number;
  readonly etaMs: number | null;
}

function formatEta(ms: number | null): string {
  if (ms === null) return "ETA --";
  const seconds = Math.ceil(ms / 1000);
  return seconds >= 60 ? `ETA ${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s` : `ETA ${seconds}s`;
}

/** One progress line, e.g. `evalgate run: 12/40 cases, 8 cached, $0.1200, ETA 31s`. */
export function progressLine(state: ProgressState): string {
  return `evalgate run: ${state.done}/${state.total} cases, ${state.cacheHits} cached, $${state.costUsd.toFixed(4)}, ${formatEta(state.etaMs)}`;
}

/**
 * A progress reporter rewriting one stderr line, or null when stderr is not a terminal or CI is set
 * (progress never lands in CI logs). `finish()` clears the line.
 */
export function terminalProgress(context: EvalgateContext): { update(state: ProgressState): void; finish(): void } | null {
  const stderr = context.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  if (stderr.isTTY !== true || (context.env.CI !== undefined && context.env.CI !== "" && context.env.CI !== "false")) return null;
  let shown = false;
  return {
    update(state) {
      stderr.write(`\r\x1b[2K${progressLine(state)}`);
      shown = true;
    },
    finish() {
      if (shown) stderr.write("\r\x1b[2K");
    },
  };
}
