export const BREAKDOWN_KEYS = [
  /** 1 when the workspace text equals the expected text. */
  "exact_match",
  "length_kept",
] as const;
