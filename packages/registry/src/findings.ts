import type { EvalError } from "@eval/errors";

/** The fence's assertions: the seed's six plus case ids, case files and digests. */
export type FenceAssertion =
  | "directory-contract"
  | "min-cases"
  | "curation-split"
  | "literal-name"
  | "breakdown-keys"
  | "failure-modes"
  | "case-ids"
  | "case-files"
  | "digests";

/** One broken rule: the assertion, the exact path, and the error a loader would throw for it. */
export interface Finding {
  readonly assertion: FenceAssertion;
  readonly path: string;
  readonly error: EvalError;
}

export function finding(assertion: FenceAssertion, path: string, error: EvalError): Finding {
  return { assertion, path, error };
}
