import type { EvalWarning } from "@eval/errors";
import type { EvalgateContext } from "../context.ts";
import type { Settings } from "../config.ts";

/** Settings for the bench and fence commands, from their --bench-root / --format flags (loaded lazily: zod). */
export async function benchSettings(context: EvalgateContext, flags: { benchRoot?: string | undefined; format?: string | undefined }): Promise<Settings> {
  const { Settings } = await import("../config.ts");
  return new Settings({ flags: { bench_root: flags.benchRoot, format: flags.format }, env: context.env, cwd: context.cwd });
}

/** Warnings go to stderr, one line each: JSON for machines, text for people. */
export function warningPrinter(context: EvalgateContext, format: "jsonl" | "human"): (warning: EvalWarning) => void {
  return (warning) => {
    context.stderr.write(format === "human" ? `evalgate: warning: ${warning.message}\n` : `${JSON.stringify({ level: "warn", ...warning })}\n`);
  };
}
