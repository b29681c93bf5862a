import { EvalError } from "@eval/errors";
import { complianceFailureHint, describeClassification } from "./compliance-failure.ts";
import type { ComplianceClassification } from "./compliance-failure.ts";

/** The backend was asked to run without both opt-in flags. */
export class CliSubscriptionNotOptedIn extends EvalError {
  constructor(missing: readonly string[]) {
    super(
      "EVAL_ADAPTER_NOT_OPTED_IN",
      `driving an agent CLI needs both opt-ins; missing: ${missing.join(", ")} (the CLI runs unsandboxed on this host)`,
      { hint: "pass --allow-cli-subscription and --acknowledge-unsandboxed-cli", details: { missing } },
    );
  }
}

export class AgentBinaryNotFound extends EvalError {
  constructor(adapter: string, searched: string) {
    super("EVAL_ADAPTER_BINARY_NOT_FOUND", `the ${adapter} CLI was not found (${searched})`, {
      hint: `install it (npm i -g the vendor's package) or pass its path; \`evalgate adapters doctor\` checks`,
      details: { adapter, searched },
    });
  }
}

/** A binary was found but did not behave like the CLI it is configured as. */
export class AgentAdapterInvalid extends EvalError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("EVAL_ADAPTER_INVALID", message, { details });
  }
}

export class ComplianceReportMissing extends EvalError {
  constructor(adapter: string, binaryPath: string, version: string, why: string) {
    super(
      "EVAL_ADAPTER_COMPLIANCE_MISSING",
      `no usable compliance report for ${adapter} ${version} at ${binaryPath}: ${why}`,
      {
        hint: `run \`evalgate adapters compliance-check --adapter ${adapter}\` (or pass --allow-stale-compliance, loudly logged)`,
        details: { adapter, binaryPath, version },
      },
    );
  }
}

/** A compliance report below the threshold; with its classification, the message says what the trials were and the hint what to do. */
export class ComplianceReportFailed extends EvalError {
  constructor(
    adapter: string,
    reportPath: string,
    passRate: number,
    threshold: number,
    classification?: ComplianceClassification,
  ) {
    super(
      "EVAL_ADAPTER_COMPLIANCE_FAILED",
      `the newest compliance report for ${adapter} (${reportPath}) passed ${(passRate * 100).toFixed(1)}% of benign tasks; at least ${(threshold * 100).toFixed(0)}% is required${classification === undefined ? "" : `; classified: ${describeClassification(classification)}`}`,
      {
        details: { adapter, reportPath, passRate, threshold },
        ...(classification === undefined ? {} : { hint: complianceFailureHint(classification) }),
      },
    );
  }
}

/** A recorded session cannot be replayed: missing, stale (prompt changed), malformed, or its diff does not apply. */
export class CassetteInvalid extends EvalError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("EVAL_CASSETTE_INVALID", message, { details });
  }
}

/** A declared workspace file is unusable (escapes the root, is a symlink, does not exist). */
export class WorkspaceInvalid extends EvalError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("EVAL_IO", message, {
      hint: "declare files and directories inside the workspace root, without symlinks",
      details,
    });
  }
}

/** A live trial ended in a CLI error (auth, network, timeout...): there is no agent output to score. */
export class AgentTrialFailed extends EvalError {
  constructor(adapter: string, kind: string, reason: string, details: Record<string, unknown> = {}) {
    super("EVAL_ADAPTER_TRIAL_FAILED", `${adapter} trial failed (${kind}): ${reason}`, {
      hint:
        kind === "auth_failure"
          ? `log in to the ${adapter} CLI; \`evalgate adapters doctor\` checks`
          : "see backend_metadata and the CLI's stderr",
      details: { adapter, kind, ...details },
    });
  }
}

/** A case the SUT ended itself, with a failure mode of SUT_FAILURE_MODES the runner records (not `sut.exception`). */
class SutDeclaredFailure extends Error {
  readonly failure_mode: "agent.budget_exceeded" | "replay.diverged" | "agent.infrastructure" | "agent.resource_limit";
  /** What the case spent before it stopped (metered at the bridge), counted in the run's spend. */
  readonly cost_usd: number;

  constructor(failureMode: SutDeclaredFailure["failure_mode"], message: string, costUsd: number) {
    super(message);
    this.failure_mode = failureMode;
    this.cost_usd = costUsd;
  }
}

/** The sandboxed agent CLI hit its process-count, memory or disk limit: the case ends as `agent.resource_limit`. */
export class AgentResourceLimit extends SutDeclaredFailure {
  override readonly name = "AgentResourceLimit";
  constructor(message: string, costUsd: number) {
    super("agent.resource_limit", message, costUsd);
  }
}

/** The model bridge refused a call past the case's or the run's budget: the case ends as `agent.budget_exceeded`. */
export class AgentBudgetExceeded extends SutDeclaredFailure {
  override readonly name = "AgentBudgetExceeded";
  constructor(message: string, costUsd: number) {
    super("agent.budget_exceeded", message, costUsd);
  }
}

/** A replayed CLI sent a request its wire recording does not hold: the case ends as `replay.diverged`. */
export class ReplayDiverged extends SutDeclaredFailure {
  override readonly name = "ReplayDiverged";
  constructor(message: string) {
    super("replay.diverged", message, 0);
  }
}

/**
 * The harness saw the agent's infrastructure fail (its CLI could not be started, or the model bridge could not
 * connect to the model endpoint): the case ends as `agent.infrastructure`, which is never cached and takes the whole run out of the
 * evidence. Only facts the harness observes qualify; what the CLI itself reports (auth, rate limit, network)
 * stays the SUT's failed attempt, since an agent could report it on the cases it cannot solve.
 */
export class AgentInfrastructureFailure extends SutDeclaredFailure {
  override readonly name = "AgentInfrastructureFailure";
  constructor(message: string) {
    super("agent.infrastructure", message, 0);
  }
}
