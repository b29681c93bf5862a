// `--sut` and its flags mapped to the runner's SUT resolution; the grammar and the default rule are the runner's.
import type { WarningSink } from "@eval/errors";
import type { SutChooser, SutResolveOptions } from "@eval/runner";
import type { AgentSutOptions } from "./agent-suts.ts";

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
    agents: {
      replay: async ({ spec, taskClass }) =>
        (await import("./agent-suts.ts")).agentSut(spec, { ...options, taskAgent: taskClass.agent }),
      cli: async ({ spec, taskClass }) =>
        (await import("./agent-suts.ts")).agentSut(spec, { ...options, taskAgent: taskClass.agent }),
    },
  };
}

/** The SUT of a run, shard or plan: `--sut` (undefined: the runner's default rule), resolved once the task class is loaded. */
export async function sutChooser(spec: string | undefined, options: SutResolverOptions): Promise<SutChooser> {
  const { sutFromSpec } = await import("@eval/runner");
  return sutFromSpec(spec, sutResolveOptions(options));
}
