import { ioError, isEvalError, isStorageFault } from "@eval/errors";
import { ERROR_PRESENTATION, ExitCode } from "./exit-codes.ts";
import { escapeTerminal } from "@eval/reports/terminal";

export interface RenderedError {
  readonly exitCode: ExitCode;
  /** What to print on stderr: one line (plus the stack under --debug). */
  readonly text: string;
}

/**
 * Turns anything thrown into one line saying what is wrong and what to do, and an exit code from the
 * partition. Errors evalgate does not know (bugs) exit 1 and ask for --debug; --debug adds the stack.
 */
export function renderError(thrown: unknown, debug: boolean): RenderedError {
  // A full disk, a quota, a read-only mount or a missing permission is the machine's state, not a bug:
  // libraries name the file; this is the net for one that escaped unnamed.
  const error =
    !isEvalError(thrown) && isStorageFault(thrown) ? unnamedStorageFault(thrown as NodeJS.ErrnoException) : thrown;
  const stack = debug && error instanceof Error && error.stack ? `\n${error.stack}` : "";
  if (isEvalError(error)) {
    const presentation = ERROR_PRESENTATION[error.code];
    const hint = error.hint ?? presentation.hint;
    // A message may quote what a SUT, an agent or a rubric wrote (the exit-8 line quotes a case's error).
    return {
      exitCode: presentation.exitCode,
      text: escapeTerminal(`evalgate: ${error.message} (${error.code}); ${hint}${stack}\n`),
    };
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const firstLine = message.split("\n")[0] ?? message;
  return {
    exitCode: ExitCode.harnessError,
    text: escapeTerminal(
      `evalgate: internal error: ${firstLine}; rerun with --debug for the stack and report it${stack}\n`,
    ),
  };
}

function unnamedStorageFault(error: NodeJS.ErrnoException): Error {
  return error.path === undefined
    ? ioError(error, "a file operation failed", null)
    : ioError(error, "cannot use", error.path);
}
