import type { WarningSink } from "@eval/errors";
import { EvalError } from "@eval/errors";
import type { AgentAdapterName, SystemUnderTest, TaskAgent } from "@eval/models";
import { AGENT_ADAPTER_NAMES } from "@eval/models/names";
import { stateLayout } from "@eval/state-layout";

export interface AgentSutOptions {
  /** The `.evalgate` state directory (compliance reports live in its `compliance/`). */
  readonly stateDir: string;
  readonly benchRoot: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--record`: write each live session as the case's cassette. */
  readonly record: boolean;
  /** `--record-overwrite`: let `--record` replace cassettes that exist. */
  readonly recordOverwrite?: boolean;
  readonly allowCliSubscription: boolean;
  readonly acknowledgeUnsandboxedCli: boolean;
  /** How untrusted code runs: `bwrap` (default) or `none`; an agent CLI without the sandbox needs both opt-ins. */
  readonly sandbox?: "bwrap" | "none";
  readonly allowStaleCompliance: boolean;
  /** `--agent-network`: bridge (default in the sandbox) or host. */
  readonly agentNetwork?: "bridge" | "host";
  /** `--model-upstream`: where the bridge sends model calls. */
  readonly modelUpstream?: string;
  /** `--case-max-requests`, `--case-max-cost-usd`. */
  readonly caseBudget?: { readonly maxRequests?: number; readonly maxCostUsd?: number };
  /** `--max-cost-usd`: the bridge refuses model calls once the run's metered spend reaches it. */
  readonly runCostCapUsd?: number;
  /** The extra stream log beside each transcript line (the transcript line itself is always written). */
  readonly streamLog?: false | "summary" | "raw";
  /** `--agent-model`: the model the agent CLI uses (passed as its `--model`). */
  readonly agentModel?: string;
  /** `--agent-arg` (repeatable): more CLI flags; permission-bypass, shell and eval flags are refused. */
  readonly agentArgs?: readonly string[];
  /** The task class's `agent` declaration (what a solution edits; per-adapter model and flags), when it is loaded. */
  readonly taskAgent?: TaskAgent | null;
  readonly onWarning: WarningSink;
}

function transcriptLogOf(options: AgentSutOptions) {
  return { transcriptsDir: stateLayout(options.stateDir).transcripts, streamLog: options.streamLog ?? false };
}

/** The adapters `cli:<adapter>` accepts (the keys of the package's ADAPTERS, kept here so --help stays light). */
export const ADAPTER_NAMES: readonly AgentAdapterName[] = AGENT_ADAPTER_NAMES;

/** `EVALGATE_CLI_BINARY_CLAUDE_CODE`, ...: where an adapter's CLI is when it is not on PATH. */
export function binaryEnvName(adapter: AgentAdapterName): string {
  return `EVALGATE_CLI_BINARY_${adapter.toUpperCase().replaceAll("-", "_")}`;
}

/** The SUT of the agent kinds the CLI registers with the runner (`replay`, `cli`): `resolveAgentSut`, never null. */
export async function agentSut(spec: string, options: AgentSutOptions): Promise<SystemUnderTest> {
  const sut = await resolveAgentSut(spec, options);
  if (sut === null)
    throw new EvalError("EVAL_SUT_INVALID", `unknown SUT spec "${spec.slice(0, 200)}"`, {
      hint: "pass --sut replay | cli:<adapter>",
    });
  return sut;
}

/**
 * The SUT for `--sut replay` and `--sut cli:<adapter>`; null for every other spec (the runner's own
 * resolver handles `command:` and `module:`). A live SUT is constructed here, so missing opt-ins, a
 * missing binary or a missing/failed compliance report stop the run before any case starts.
 */
export async function resolveAgentSut(spec: string, options: AgentSutOptions): Promise<SystemUnderTest | null> {
  if (spec === "replay") {
    if (options.record) {
      throw new EvalError(
        "EVAL_USAGE",
        "--record needs a live agent (--sut cli:<adapter>); replay only reads cassettes",
        {
          hint: `pass --sut cli:${ADAPTER_NAMES.join(" | cli:")} with --record`,
        },
      );
    }
    const { createReplaySut } = await import("@eval/cli-subscription-adapters");
    // With the opt-in, a cassette recorded behind the bridge replays by running the real CLI again against it.
    const wire = options.allowCliSubscription
      ? {
          wire: {
            allow_cli_subscription: true,
            acknowledge_unsandboxed_cli: options.acknowledgeUnsandboxedCli,
            sandbox: options.sandbox ?? "bwrap",
            allow_stale_compliance: options.allowStaleCompliance,
            complianceDir: stateLayout(options.stateDir).compliance,
            env: options.env,
            onWarning: options.onWarning,
            binaryPathOf: (adapter: AgentAdapterName) => options.env[binaryEnvName(adapter)] || undefined,
          },
        }
      : {};
    return createReplaySut({
      benchRoot: options.benchRoot,
      onWarning: options.onWarning,
      transcriptLog: transcriptLogOf(options),
      ...wire,
    });
  }
  if (!spec.startsWith("cli:")) return null;
  const name = spec.slice("cli:".length) as AgentAdapterName;
  if (!ADAPTER_NAMES.includes(name)) {
    throw new EvalError("EVAL_SUT_INVALID", `unknown agent adapter in --sut ${spec}`, {
      hint: `use one of: ${ADAPTER_NAMES.map((adapter) => `cli:${adapter}`).join(", ")}`,
    });
  }
  const { createLiveSut } = await import("@eval/cli-subscription-adapters");
  const binaryPath = options.env[binaryEnvName(name)];
  return createLiveSut({
    adapter: name,
    benchRoot: options.benchRoot,
    allow_cli_subscription: options.allowCliSubscription,
    acknowledge_unsandboxed_cli: options.acknowledgeUnsandboxedCli,
    sandbox: options.sandbox ?? "bwrap",
    ...(options.agentNetwork === undefined ? {} : { agent_network: options.agentNetwork }),
    ...(options.modelUpstream === undefined ? {} : { model_upstream: options.modelUpstream }),
    ...(options.caseBudget === undefined ? {} : { case_budget: options.caseBudget }),
    ...(options.runCostCapUsd === undefined ? {} : { spend_ledger: { spentUsd: 0, capUsd: options.runCostCapUsd } }),
    allow_stale_compliance: options.allowStaleCompliance,
    complianceDir: stateLayout(options.stateDir).compliance,
    env: options.env,
    record: options.record,
    record_overwrite: options.recordOverwrite === true,
    transcriptLog: transcriptLogOf(options),
    onWarning: options.onWarning,
    ...(binaryPath === undefined || binaryPath === "" ? {} : { binaryPath }),
    task_agent: options.taskAgent ?? null,
    ...(options.agentModel === undefined ? {} : { agent_model: options.agentModel }),
    extra_args: options.agentArgs ?? [],
  });
}
