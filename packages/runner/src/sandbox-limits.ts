// The limits a sandboxed SUT or rubric runs under: the sandbox's defaults, then the task class's
// `limits`, then the run's flags (each replacing only what it names).
import type { SandboxLimitOverrides } from "@eval/models";
import { defaultLimits } from "@eval/sandbox";
import type { ResourceLimits } from "@eval/sandbox";

/** Overrides in bytes and processes, as the flags give them (the task class's are parsed by its schema). */
export type LimitOverrides = SandboxLimitOverrides;

/** The defaults with each of `overrides` applied in order (later ones win), undefined ones skipped. */
export function sandboxLimits(...overrides: ReadonlyArray<LimitOverrides | undefined>): ResourceLimits {
  let limits = defaultLimits();
  for (const override of overrides) {
    if (override === undefined) continue;
    limits = {
      pids: override.pids ?? limits.pids,
      memoryBytes: override.memory ?? limits.memoryBytes,
      diskBytes: override.disk ?? limits.diskBytes,
    };
  }
  return limits;
}

/** How a report records one component's limits (`resource_limit_values`). */
export function limitValues(limits: ResourceLimits): { pids: number; memory_bytes: number; disk_bytes: number } {
  return { pids: limits.pids, memory_bytes: limits.memoryBytes, disk_bytes: limits.diskBytes };
}
