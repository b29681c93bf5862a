import { EvalError } from "@eval/errors";

/** Where verification first failed: the file, why, and what was expected versus found. */
export interface ChainFault {
  readonly file: string;
  readonly reason: string;
  readonly expected: string;
  readonly found: string;
}

/** The chain does not verify (exit 5): a record was edited, deleted, inserted, reordered or renamed. */
export class ChainTampered extends EvalError {
  readonly fault: ChainFault;

  constructor(fault: ChainFault, runsDir: string) {
    super(
      "EVAL_CHAIN_TAMPERED",
      `audit chain in ${runsDir} does not verify: ${fault.file}: ${fault.reason} (expected ${fault.expected}, found ${fault.found})`,
      {
        details: { runsDir, ...fault },
      },
    );
    this.fault = fault;
  }
}

/** Another run appended first (or holds the lock): this run's `prev_hash` is no longer the head. */
export class ChainConflict extends EvalError {
  constructor(message: string, details: Record<string, unknown>) {
    super("EVAL_CHAIN_CONFLICT", message, { hint: "another run appended to the chain first: rerun this one", details });
  }
}
