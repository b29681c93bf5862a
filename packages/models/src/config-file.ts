import { z } from "zod";
import { RUN_LIMITS } from "./defaults.ts";

/**
 * `evalgate.config.json` (or the `evalgate` key of a package.json): settings every command may read.
 * Relative paths resolve against the directory of the file that holds them, wherever evalgate runs from.
 */
export const EvalgateConfigSchema = z.strictObject({
  /** An editor's pointer at this file's JSON Schema; ignored by evalgate. */
  $schema: z.string().optional(),
  bench_root: z.string().min(1).optional().describe("The directory holding the task classes (default bench)"),
  state_dir: z.string().min(1).optional().describe("The state directory: chain, cache, details (default .evalgate)"),
  trust_tiers: z.string().min(1).optional().describe("The trust-tier file (default docs/trust-tiers.yaml)"),
  concurrency: z.number().int().min(1).max(256).optional(),
  max_cost_usd: z.number().min(0).optional(),
  timeout_per_case_seconds: z.number().positive().optional(),
  trials: z.number().int().min(1).max(RUN_LIMITS.maxTrials).optional(),
  format: z.enum(["jsonl", "human"]).optional(),
});
export type EvalgateConfig = z.output<typeof EvalgateConfigSchema>;
