import { z } from "zod";
import { AGENT_ADAPTER_NAMES } from "./names.ts";

/** One adapter's settings a task class asks for: the model its CLI runs with and extra CLI flags. */
export const TaskAgentAdapterSettingsSchema = z.strictObject({
  model: z.string().min(1).max(200).optional(),
  args: z.array(z.string().min(1).max(500)).max(50).optional(),
});

/**
 * What a task class declares about the agents that solve it (registration option `agent`): `edits`, the
 * workspace paths a solution edits (globs allowed: `**` / `*`), which decides whether an adapter whose CLI
 * refuses some files can take the task; `adapters`, per adapter, the model and flags its runs use unless
 * `--agent-model` / `--agent-arg` say otherwise.
 */
export const TaskAgentSchema = z.strictObject({
  edits: z.array(z.string().min(1).max(500)).min(1).max(100).optional(),
  adapters: z.partialRecord(z.enum(AGENT_ADAPTER_NAMES), TaskAgentAdapterSettingsSchema).optional(),
});

export type TaskAgent = z.infer<typeof TaskAgentSchema>;
