import { EvalError } from "@eval/errors";

/** A run whose filter (or bench) selects no case: nothing to score, so nothing is run or chained. */
export class NoCasesSelected extends EvalError {
  constructor(taskClass: string, filter: string | null, taskClassCaseCount: number) {
    const what = filter === null ? `task class "${taskClass}" has no cases` : `--cases ${JSON.stringify(filter)} matches none of the ${taskClassCaseCount} cases of "${taskClass}"`;
    super("EVAL_NO_CASES_SELECTED", `${what}: nothing to run, nothing recorded`, { details: { taskClass, filter, taskClassCaseCount } });
  }
}
