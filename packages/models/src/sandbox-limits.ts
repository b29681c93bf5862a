import { z } from "zod";
import { formatByteSize, parseByteSize, SANDBOX_LIMIT_BOUNDS } from "./defaults.ts";

const { pids, memoryBytes, diskBytes } = SANDBOX_LIMIT_BOUNDS;

/** A size (`"4GiB"`, or a whole number of bytes) within [min, max] bytes, as bytes. */
const sizeWithin = (min: number, max: number) =>
  z.union([z.number().int(), z.string()]).transform((value, context) => {
    const bytes = typeof value === "number" ? value : parseByteSize(value);
    if (bytes === null || bytes < min || bytes > max) {
      context.addIssue({
        code: "custom",
        message: `must be a size between ${formatByteSize(min)} and ${formatByteSize(max)} (e.g. "4GiB"), got ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }
    return bytes;
  });

/** Limits a task class raises (or lowers) for one sandboxed component; what it leaves out keeps the default. */
export const SandboxLimitOverridesSchema = z.strictObject({
  /** Processes and threads at once. */
  pids: z.number().int().min(pids.min).max(pids.max).optional(),
  /** Memory (`"8GiB"` or bytes). */
  memory: sizeWithin(memoryBytes.min, memoryBytes.max).optional(),
  /** Disk: the largest file, and the total its workspace may hold (`"4GiB"` or bytes). */
  disk: sizeWithin(diskBytes.min, diskBytes.max).optional(),
});

/**
 * Registration option `limits`: the sandbox limits of the task class's `command:` SUTs and of its rubric,
 * when its cases need more than the defaults (a build that spawns hundreds of processes, a data set
 * larger than a GiB). Flags (`--sut-pids`, `--sut-memory`, `--sut-disk`) override `sut`.
 */
export const TaskLimitsSchema = z.strictObject({
  sut: SandboxLimitOverridesSchema.optional(),
  rubric: SandboxLimitOverridesSchema.optional(),
});

export type SandboxLimitOverrides = z.output<typeof SandboxLimitOverridesSchema>;
export type TaskLimits = z.output<typeof TaskLimitsSchema>;

/** What a sandboxed component ran under, as a report records it (`resource_limit_values`). */
export const LimitValuesSchema = z.strictObject({
  pids: z.number().int().min(1),
  memory_bytes: z.number().int().min(1),
  disk_bytes: z.number().int().min(1),
});

/** The limits each sandboxed component ran under (`resource_limit_values` of a report and a shard's manifest). */
export const ResourceLimitValuesSchema = z.strictObject({
  sut: LimitValuesSchema.nullable(),
  rubric: LimitValuesSchema.nullable(),
});
