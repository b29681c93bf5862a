// The defaults and limits of a run, a plan and gc, written once. The schemas, the runner and the CLI's
// help text all read them from here, through the light `@eval/models/defaults` subpath (no zod), so
// the help cannot name a default the runner does not apply and the limits cannot disagree.

/** What a run, a plan or gc does when neither a flag, the config file nor the task class says. */
export const RUN_DEFAULTS = Object.freeze({
  /** Trials per case. */
  trials: 1,
  /** A run stops starting cases past this SUT-reported spend, in USD. */
  maxCostUsd: 5,
  /** Each case's SUT deadline, in seconds. */
  timeoutPerCaseSeconds: 600,
  /** The most cases run at once by default (fewer on a machine with fewer CPUs). */
  concurrencyAtMost: 4,
  /** `cache gc` and `gc` remove cache entries older than this many days. */
  cacheRetentionDays: 90,
  /** `adapters compliance-check`: seconds per benign task. */
  complianceSecondsPerTask: 180,
});

/** The bounds past which a run or a plan is refused (EVAL_USAGE) rather than attempted. */
export const RUN_LIMITS = Object.freeze({
  /** Trials per case, in a run, a plan, the config file and a task class's `min_trials`. */
  maxTrials: 1000,
  /** Units (cases x trials) in one run: past it, split the bench (`--cases`) or use shards. */
  maxUnitsPerRun: 100_000,
});

/**
 * The bounds of a sandboxed process's limits a task class or a flag may set (`--sut-pids`, `--sut-memory`,
 * `--sut-disk`; registration `limits`): below them a program cannot start (the sandbox's own processes
 * count), above them a limit no longer protects the host.
 */
export const SANDBOX_LIMIT_BOUNDS = Object.freeze({
  pids: Object.freeze({ min: 16, max: 65_536 }),
  memoryBytes: Object.freeze({ min: 64 * 1024 ** 2, max: 1024 ** 4 }),
  diskBytes: Object.freeze({ min: 1024 ** 2, max: 1024 ** 4 }),
});

const SIZE_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

/**
 * A size written as a whole number of bytes or of KiB, MiB, GiB or TiB (`512MiB`, `4 GiB`, `1073741824`),
 * or null for anything else (`lots`, `1.5GiB`, `4GB`: decimal units are refused rather than guessed).
 */
export function parseByteSize(text: string): number | null {
  const match = /^\s*(\d{1,16})\s*(KiB|MiB|GiB|TiB)?\s*$/.exec(text);
  if (match === null) return null;
  const bytes = Number(match[1]) * SIZE_UNITS[match[2] ?? ""]!;
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** A size as people write it: the largest of TiB, GiB, MiB, KiB that divides it (`1 TiB`, `64 MiB`), else bytes. */
export function formatByteSize(bytes: number): string {
  for (const unit of ["TiB", "GiB", "MiB", "KiB"] as const)
    if (bytes >= SIZE_UNITS[unit]! && bytes % SIZE_UNITS[unit]! === 0) return `${bytes / SIZE_UNITS[unit]!} ${unit}`;
  return `${bytes} bytes`;
}
