// The "failure modes" column of `run --format human`: each code, and for a case that no rubric judged
// (the SUT could not run, crashed, timed out...) the reason in short, so a broken set-up shows in the table.

interface ReasonHelpers {
  readonly unscoredReason: (score: {
    readonly failure_modes: ReadonlyArray<{ readonly code: string; readonly detail?: string | null }>;
  }) => { code: string; detail: string | null } | null;
  readonly shortReason: (detail: string | null, max?: number) => string;
}

/** `code, code` for judged cases; `sut.exception: exited 3: no such file` for a case that was never judged. */
export function failureModesCell(
  modes: ReadonlyArray<{ code: string; detail?: string | null }>,
  helpers: ReasonHelpers,
): string {
  const unscored = helpers.unscoredReason({ failure_modes: modes });
  return modes
    .map((mode) => {
      if (unscored === null || mode.code !== unscored.code) return mode.code;
      const reason = helpers.shortReason(unscored.detail, 70);
      return reason === "" ? mode.code : `${mode.code}: ${reason}`;
    })
    .join(", ");
}
