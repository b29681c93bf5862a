// The flags a live run passes its agent CLI beyond the adapter's own: from the task class and the command line.
import type { TaskAgent } from "@eval/models";
import type { AgentAdapter } from "./adapter-contract.ts";

/**
 * The extra CLI flags of a live run: the model (`--agent-model`, else the task class's for this adapter) as
 * `--model`, then the task class's `args`, then `--agent-arg` flags (later flags win in every adapter's CLI).
 */
export function agentArgsFor(
  adapter: AgentAdapter,
  taskAgent: TaskAgent | null,
  flags: { readonly model?: string | undefined; readonly args?: readonly string[] | undefined },
): string[] {
  const declared = taskAgent?.adapters?.[adapter.name];
  const model = flags.model ?? declared?.model;
  return [...(model === undefined ? [] : ["--model", model]), ...(declared?.args ?? []), ...(flags.args ?? [])];
}
