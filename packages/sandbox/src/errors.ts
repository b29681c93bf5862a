import { EvalError } from "@eval/errors";

/** Untrusted code would have to run without the sandbox, and nobody opted into weaker isolation. */
export class SandboxUnavailable extends EvalError {
  constructor(what: string, reason: string) {
    super("EVAL_SANDBOX_UNAVAILABLE", `cannot sandbox ${what}: ${reason}`, {
      hint: sandboxHint(reason),
      details: { what, reason },
    });
  }
}

const OPT_OUT = "or pass --sandbox none to accept weaker isolation (recorded in the report)";

/** One line: the command that fixes what `reason` (from sandboxSupport) names, runnable as this user. */
function sandboxHint(reason: string): string {
  const sudo = process.getuid?.() === 0 ? "" : "sudo ";
  if (reason.startsWith("setpriv")) return `install util-linux (\`${sudo}apt-get install util-linux\`), ${OPT_OUT}`;
  if (reason.startsWith("bubblewrap cannot create")) {
    return `allow unprivileged user namespaces (Ubuntu 23.10+: \`${sudo}sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\`; in a container, the pod or container settings in docs/containment.md), ${OPT_OUT}`;
  }
  return `install bubblewrap (\`${sudo}apt-get install bubblewrap\`, or \`${sudo}dnf install bubblewrap\`), ${OPT_OUT}`;
}
