/**
 * Something a user should hear about that does not stop the work (a stale case, a corrupt cache entry
 * treated as a miss, a deprecated option). Libraries never print: they hand warnings to the caller's
 * sink, and the CLI decides how to show them (JSON lines in CI, text on a terminal).
 */
export interface EvalWarning {
  /** Stable, dotted, e.g. `case.stale` or `cache.corrupt_entry`. */
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export type WarningSink = (warning: EvalWarning) => void;

/** The sink to use when a caller gave none: warnings are dropped, never printed. */
export const ignoreWarnings: WarningSink = () => {};
