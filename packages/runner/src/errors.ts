import { EvalError } from "@eval/errors";

/** A run whose filter (or bench) selects no case: nothing to score, so nothing is run or chained. */
export class NoCasesSelected extends EvalError {
  constructor(taskClass: string, filter: string | null, taskClassCaseCount: number) {
    const what =
      filter === null
        ? `task class "${taskClass}" has no cases`
        : `--cases ${JSON.stringify(filter)} matches none of the ${taskClassCaseCount} cases of "${taskClass}"`;
    super("EVAL_NO_CASES_SELECTED", `${what}: nothing to run, nothing recorded`, {
      details: { taskClass, filter, taskClassCaseCount },
    });
  }
}

/**
 * A recorded run in which every case failed in the SUT's infrastructure or the harness (a SUT that
 * could not run, crashed or timed out): the set-up is broken, so the run measured nothing.
 */
export class AllCasesErrored extends EvalError {
  constructor(runId: string, caseCount: number, code: string, exampleCaseId: string, exampleReason: string) {
    const every = `${caseCount === 1 ? "the only case" : `all ${caseCount} cases`} failed in the SUT or the harness, not on ${caseCount === 1 ? "its" : "their"} merits`;
    super(
      "EVAL_RUN_ALL_CASES_ERRORED",
      `run ${runId} measured nothing: ${every} (${code}; ${exampleCaseId}: ${exampleReason || "no detail"})`,
      {
        details: { runId, caseCount, code, exampleCaseId },
        ...(code.startsWith("rubric.") ? { hint: RUBRIC_FAULT_HINT } : {}),
      },
    );
  }
}

/** The hint of a run whose every case ended in its rubric's fault: the rubric, not the SUT, needs fixing. */
export const RUBRIC_FAULT_HINT =
  "the run is recorded, but its rubric failed, not the SUT: see the rubric's stderr in runs/<run-id>/cases/<case>.json, fix the task class's rubric (`evalgate bench check --task-class <name>` scores its reference fixes), then rerun (no rubric failure is cached)";

/**
 * A recorded run in which the rubric itself failed (no valid answer, or none in time) on more than half of
 * the units it was asked to score: the rubric is broken, so the run measured nothing about the SUT.
 */
export class RubricBroken extends EvalError {
  constructor(
    runId: string,
    faults: number,
    scored: number,
    code: string,
    exampleCaseId: string,
    exampleReason: string,
  ) {
    super(
      "EVAL_RUBRIC_BROKEN",
      `run ${runId} measured nothing: the rubric failed on ${faults} of the ${scored} units it scored (${code}; ${exampleCaseId}: ${exampleReason || "no detail"})`,
      {
        details: { runId, faults, scored, code, exampleCaseId },
      },
    );
  }
}
