// Which trial outcomes are the harness's or its environment's, not the system under test's: one rule for the
// runner (run health, `--retry-errors`) and the chain reader (counting an older report's harness errors).
import type { BenchScore } from "./types.ts";

/**
 * Failure codes that say the case did not get a judgement: a SUT past its deadline, a SUT that could not run
 * or crashed (a missing program, a CLI login error, a transient fault), a rubric past its deadline. Run health
 * counts them (exit 8 when every case ended so) and `--retry-errors` reruns them. Only the harness's own
 * (UNCACHED_FAILURES) are left out of the cache: a SUT's crash or timeout is its attempt, cached like a pass.
 */
export const HARNESS_SIDE_FAILURES: ReadonlySet<string> = new Set([
  "sut.timeout",
  "sut.exception",
  "rubric.timeout",
  "agent.infrastructure",
]);

/** Whether a score (one trial) ended in a harness-side failure: what `harness_error_count` counts. */
export function isHarnessSideFailure(score: BenchScore): boolean {
  return score.failure_modes.some((mode) => HARNESS_SIDE_FAILURES.has(mode.code));
}
