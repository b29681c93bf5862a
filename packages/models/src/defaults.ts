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
