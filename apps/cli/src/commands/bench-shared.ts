import type { EvalgateContext } from "../context.ts";
import type { Settings } from "../config.ts";
import { loadSettings } from "../load-settings.ts";

/** Settings for the bench and fence commands, from their --bench-root / --format flags. */
export function benchSettings(
  context: EvalgateContext,
  flags: { benchRoot?: string | undefined; format?: string | undefined },
): Promise<Settings> {
  return loadSettings({
    flags: { bench_root: flags.benchRoot, format: flags.format },
    env: context.env,
    cwd: context.cwd,
  });
}
