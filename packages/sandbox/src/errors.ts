import { EvalError } from "@eval/errors";

/** Untrusted code would have to run without the sandbox, and nobody opted into weaker isolation. */
export class SandboxUnavailable extends EvalError {
  constructor(what: string, reason: string) {
    super("EVAL_SANDBOX_UNAVAILABLE", `cannot sandbox ${what}: ${reason}`, {
      hint: "install bubblewrap (`apt-get install bubblewrap`; ./scripts/setup.sh does it as root), or pass --sandbox none to accept weaker isolation (recorded in the report)",
      details: { what, reason },
    });
  }
}
