// The agent kinds a run registers with the runner's SUT resolver by name: `replay` (a case's recorded
// cassette) and `cli` (`cli:<adapter>`, a live agent CLI). Both are built when the run has loaded its task
// class, so missing opt-ins, a missing binary or a missing compliance report stop it before any case starts.
import type { WarningSink } from "@eval/errors";
import { EvalError } from "@eval/errors";
import type { AgentAdapterName, SystemUnderTest } from "@eval/models";
import { AGENT_ADAPTER_NAMES } from "@eval/models/names";
import { binaryEnvName } from "@eval/cli-subscription-adapters";
import type { AgentSutFactory, AgentSutRequest } from "@eval/runner";
import { stateLayout } from "@eval/state-layout";
import { createLiveSut, createReplaySut } from "./suts.ts";

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
  readonly onWarning: WarningSink;
}

function transcriptLogOf(options: AgentSutOptions) {
  return { transcriptsDir: stateLayout(options.stateDir).transcripts, streamLog: options.streamLog ?? false };
}

/** The agent kinds by name, for `SutResolveOptions.agents`: `replay` and `cli` (`cli:<adapter>`). */
export function agentSutKinds(options: AgentSutOptions): Readonly<Record<"replay" | "cli", AgentSutFactory>> {
  return {
    replay: async (request) => replaySut(request, options),
    cli: async (request) => liveSut(request, options),
  };
}

function unknownSpec(spec: string): EvalError {
  return new EvalError("EVAL_SUT_INVALID", `unknown SUT spec "${spec.slice(0, 200)}"`, {
    hint: "pass --sut replay | cli:<adapter>",
  });
}

/** `replay`: each case's cassette; with the opt-in, a cassette recorded behind the bridge replays by running the real CLI again against it. */
function replaySut({ spec, argument }: AgentSutRequest, options: AgentSutOptions): SystemUnderTest {
  if (argument !== null) throw unknownSpec(spec);
  if (options.record) {
    throw new EvalError(
      "EVAL_USAGE",
      "--record needs a live agent (--sut cli:<adapter>); replay only reads cassettes",
      {
        hint: `pass --sut cli:${AGENT_ADAPTER_NAMES.join(" | cli:")} with --record`,
      },
    );
  }
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

/** `cli:<adapter>`: a live session per case through the adapter's CLI, with the task class's model and flags for it. */
function liveSut({ spec, argument, taskClass }: AgentSutRequest, options: AgentSutOptions): SystemUnderTest {
  if (argument === null) throw unknownSpec(spec);
  const name = argument as AgentAdapterName;
  if (!AGENT_ADAPTER_NAMES.includes(name)) {
    throw new EvalError("EVAL_SUT_INVALID", `unknown agent adapter in --sut ${spec}`, {
      hint: `use one of: ${AGENT_ADAPTER_NAMES.map((adapter) => `cli:${adapter}`).join(", ")}`,
    });
  }
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
    task_agent: taskClass.agent,
    ...(options.agentModel === undefined ? {} : { agent_model: options.agentModel }),
    extra_args: options.agentArgs ?? [],
  });
}
