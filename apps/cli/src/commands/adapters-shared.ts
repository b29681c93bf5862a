import { EvalError } from "@eval/errors";
import type { AgentAdapterName } from "@eval/models";
import { AGENT_ADAPTER_NAMES as ADAPTER_NAMES } from "@eval/models/names";
import { binaryEnvName } from "@eval/cli-subscription-adapters";
import type { EvalgateContext } from "../context.ts";

export { ADAPTER_NAMES };

export function parseAdapterName(value: string): AgentAdapterName {
  if (!(ADAPTER_NAMES as readonly string[]).includes(value)) {
    throw new EvalError("EVAL_USAGE", `unknown --adapter "${value}"`, {
      hint: `choose one of: ${ADAPTER_NAMES.join(", ")}`,
    });
  }
  return value as AgentAdapterName;
}

/** --binary wins, then EVALGATE_CLI_BINARY_<ADAPTER>, then PATH (undefined here). */
export function binaryFor(
  context: EvalgateContext,
  adapter: AgentAdapterName,
  flag: string | undefined,
): string | undefined {
  const value = flag ?? context.env[binaryEnvName(adapter)];
  return value === undefined || value === "" ? undefined : value;
}
