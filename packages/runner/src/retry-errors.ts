// `run --retry-errors`: which cases of the last run of a task class and SUT ended in a harness error, so that a
// new run executes only those and takes every other case from the cache.
import { latestRun } from "@eval/audit-chain";
import { EvalError } from "@eval/errors";

export interface ErroredCases {
  /** The run they come from. */
  readonly runId: string;
  readonly caseIds: ReadonlySet<string>;
}

/**
 * The errored cases of the newest recorded run of `taskClass` whose SUT had `sutDigest`. Throws
 * EVAL_REPORT_NOT_FOUND when the chain holds no such run.
 */
export async function erroredCasesOfLastRun(
  runsDir: string,
  taskClass: string,
  sutDigest: string,
  sutLabel: string,
): Promise<ErroredCases> {
  const found = await latestRun(runsDir, taskClass, (report) => report.sut_digest === sutDigest);
  if (found !== null) return { runId: found.report.run_id, caseIds: new Set(found.report.harness_errored_case_ids) };
  throw new EvalError(
    "EVAL_REPORT_NOT_FOUND",
    `--retry-errors: no recorded run of ${taskClass} with the SUT ${sutLabel} in ${runsDir}`,
    {
      hint: "run it once without --retry-errors first",
    },
  );
}

/**
 * Checks, before anything runs, that a retry executes only errored cases: every cache miss must belong to an
 * errored case of the last run. A miss elsewhere (a cleared cache, a changed case) is refused, naming the case.
 */
export function checkRetryMisses(missedCaseIds: readonly string[], errored: ErroredCases): void {
  const outside = [...new Set(missedCaseIds.filter((id) => !errored.caseIds.has(id)))].sort();
  if (outside.length === 0) return;
  throw new EvalError(
    "EVAL_USAGE",
    `--retry-errors reruns only the cases that errored in run ${errored.runId}, but ${outside.slice(0, 5).join(", ")}${outside.length > 5 ? ` (${outside.length} in all)` : ""} did not error there and ${outside.length === 1 ? "is" : "are"} not in the cache`,
    { hint: "run without --retry-errors to score every case again" },
  );
}
