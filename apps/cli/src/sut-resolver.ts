// `--sut` and its flags mapped to the runner's SUT resolution; the grammar and the default rule are the runner's.
import type { WarningSink } from "@eval/errors";
import type { AgentSutOptions } from "@eval/agent-sut";
import type { AgentSutRequest, SutChooser, SutResolveOptions } from "@eval/runner";

export interface SutResolverOptions extends AgentSutOptions {
  /** Resolves relative paths in `module:` and `command:` specs. */
  readonly cwd: string;
  readonly onWarning: WarningSink;
  /** Give a sandboxed `command:` SUT the host's network. */
  readonly sutNetwork?: boolean;
  /** More paths a sandboxed `command:` SUT may read. */
  readonly sutRead?: readonly string[];
  /** A sandboxed `command:` SUT's limits for this run (`--sut-pids`, `--sut-memory`, `--sut-disk`). */
  readonly sutLimits?: { readonly pids?: number; readonly memory?: number; readonly disk?: number };
  /** More paths a `command:` SUT must never see, besides the bench and the state directory (`--cache-dir`, its key). */
  readonly hideFromSut?: readonly string[];
}

/** The runner's resolve options from the flags, with the agent kinds (`replay`, `cli`) registered by name. */
export function sutResolveOptions(options: SutResolverOptions): SutResolveOptions {
  return {
    cwd: options.cwd,
    benchRoot: options.benchRoot,
    stateDir: options.stateDir,
    hide: options.hideFromSut ?? [],
    readable: options.sutRead ?? [],
    network: options.sutNetwork === true,
    ...(options.sutLimits === undefined ? {} : { limits: options.sutLimits }),
    sandbox: options.sandbox ?? "bwrap",
    env: options.env,
    // Loaded only when a spec names an agent kind, so runs of other SUTs never load the agent packages.
    agents: {
      replay: async (request: AgentSutRequest) => (await agentSutKinds(options)).replay(request),
      cli: async (request: AgentSutRequest) => (await agentSutKinds(options)).cli(request),
    },
  };
}

async function agentSutKinds(options: AgentSutOptions) {
  return (await import("@eval/agent-sut")).agentSutKinds(options);
}

/** The SUT of a run, shard or plan: `--sut` (undefined: the runner's default rule), resolved once the task class is loaded. */
export async function sutChooser(spec: string | undefined, options: SutResolverOptions): Promise<SutChooser> {
  const { sutFromSpec } = await import("@eval/runner");
  return sutFromSpec(spec, sutResolveOptions(options));
}
