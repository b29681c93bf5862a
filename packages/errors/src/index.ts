export { EvalError, ERROR_CODES, isEvalError } from "./eval-error.ts";
export type { EvalErrorCode } from "./eval-error.ts";
export { errnoOf, ioError, isOutOfSpace, isStorageFault } from "./io-error.ts";
export { ignoreWarnings } from "./warning.ts";
export type { EvalWarning, WarningSink } from "./warning.ts";
