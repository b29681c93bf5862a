/**
 * The base class of every error a user can cause (bad input, missing files, a tampered chain...).
 *
 * Contract: `code` is stable across releases (`EVAL_*`), safe to match on, and the CLI maps it to a
 * one-line message, a hint and an exit code in one place. `message` says what is wrong in one line;
 * `hint` says what to do about it. Errors that indicate a bug in evalgate itself stay plain `Error`s.
 */
export class EvalError extends Error {
  readonly code: EvalErrorCode;
  readonly hint: string | undefined;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: EvalErrorCode,
    message: string,
    options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
    this.details = Object.freeze({ ...options.details });
  }
}

/**
 * Every stable error code, grouped by the exit code the CLI gives it.
 * Adding a code: add it here and to the CLI's table (`apps/cli/src/exit-codes.ts`); a test checks both agree.
 */
export const ERROR_CODES = [
  // exit 1: harness or input error
  "EVAL_CONFIG_INVALID",
  "EVAL_USAGE",
  "EVAL_CASE_LOAD_FAILED",
  "EVAL_CASE_ID_COLLISION",
  "EVAL_CASE_UNSAFE_PATH",
  "EVAL_TASK_CLASS_ALREADY_REGISTERED",
  "EVAL_TASK_CLASS_INCOMPLETE",
  "EVAL_TASK_CLASS_INVALID",
  "EVAL_FENCE_FAILED",
  "EVAL_SUT_INVALID",
  "EVAL_TIER_CONFIG_INVALID",
  "EVAL_REPORT_NOT_FOUND",
  "EVAL_REPORT_INVALID",
  "EVAL_CHAIN_CONFLICT",
  "EVAL_PROMOTION_MUST_BE_HUMAN_AUTHORIZED",
  "EVAL_TRANSCRIPT_INVALID",
  "EVAL_ADAPTER_NOT_OPTED_IN",
  "EVAL_ADAPTER_BINARY_NOT_FOUND",
  "EVAL_ADAPTER_COMPLIANCE_MISSING",
  "EVAL_ADAPTER_COMPLIANCE_FAILED",
  "EVAL_ADAPTER_INVALID",
  "EVAL_ADAPTER_TRIAL_FAILED",
  "EVAL_CASSETTE_INVALID",
  "EVAL_IO",
  "EVAL_SANDBOX_UNAVAILABLE",
  "EVAL_NETWORK_UNAVAILABLE",
  "EVAL_STATE_DIR_NOT_A_DIRECTORY",
  "EVAL_STATE_DIR_READ_ONLY",
  "EVAL_COMPARE_MISMATCH",
  "EVAL_CASSETTES_TOO_FEW",
  "EVAL_MODEL_KEY_MISSING",
  "EVAL_SCENARIO_INVALID",
  "EVAL_RESCORE_UNAVAILABLE",
  "EVAL_INIT_CONFLICT",
  "EVAL_PLAN_INVALID",
  // exit 2
  "EVAL_COST_CAP_EXCEEDED",
  // exit 3
  "EVAL_TASK_CLASS_NOT_FOUND",
  // exit 4
  "EVAL_BENCH_DIR_MISSING",
  // exit 5
  "EVAL_CHAIN_TAMPERED",
  "EVAL_RECORD_TAMPERED",
  "EVAL_ATTESTATION_INVALID",
  "EVAL_HISTORY_INDEX_DISAGREES",
  // exit 6
  "EVAL_CASE_DIGEST_MISMATCH",
  // exit 7
  "EVAL_NO_CASES_SELECTED",
  // exit 8
  "EVAL_RUN_ALL_CASES_ERRORED",
  "EVAL_RUBRIC_BROKEN",
  // exit 9: shard bundles that cannot make one run
  "EVAL_BUNDLE_TAMPERED",
  "EVAL_PLAN_MISMATCH",
  "EVAL_UNIT_CONFLICT",
  // exit 10
  "EVAL_UNITS_MISSING",
  // exit 11
  "EVAL_CHAIN_MOVED",
] as const;

export type EvalErrorCode = (typeof ERROR_CODES)[number];

/** True for any EvalError, including ones from another copy of this package (duck-typed on `code`). */
export function isEvalError(value: unknown): value is EvalError {
  if (value instanceof EvalError) return true;
  if (!(value instanceof Error)) return false;
  const code: unknown = (value as Error & { code?: unknown }).code;
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code);
}
