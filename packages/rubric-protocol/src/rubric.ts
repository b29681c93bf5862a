import type { BenchCase, BenchScoreInput, HarnessOutput } from "@eval/models";

/** What a rubric may know besides the case and the SUT's output. */
export interface RubricContext {
  /** The SUT's scratch copy of the case's `input/` after it ran (null when the SUT worked on no files). */
  readonly workspacePath: string | null;
}

/**
 * A task class's scoring contract. `score` must be deterministic: the same case, output and workspace
 * give the same score. The harness overwrites `cost_usd` and `wall_clock_ms` with what it measured.
 */
export interface Rubric {
  score(
    benchCase: BenchCase,
    harnessOutput: HarnessOutput,
    context: RubricContext,
  ): BenchScoreInput | Promise<BenchScoreInput>;
}
