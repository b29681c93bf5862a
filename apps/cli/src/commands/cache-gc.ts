import { Command, Option } from "clipanion";
import { CACHE_GC_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { numberFlag, numberRule } from "../number-flag.ts";
import * as t from "typanion";
import { stateDirOption } from "../options.ts";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

/** `--older-than-days`: a number >= 0, default RUN_DEFAULTS.cacheRetentionDays (shared by `cache gc` and `gc`). */
export function retentionDays(flag: string | undefined): number {
  return numberFlag(
    "--older-than-days",
    flag,
    RUN_DEFAULTS.cacheRetentionDays,
    numberRule("a number >= 0", [t.isAtLeast(0)]),
  );
}

export class CacheGcCommand extends EvalgateCommand {
  static override paths = [["cache", "gc"]];
  static override usage = Command.Usage({
    category: "Cache",
    description: `Remove cache entries older than N days (default ${RUN_DEFAULTS.cacheRetentionDays}) and temp files left by killed writers`,
    examples: [["Keep the last 30 days", "evalgate cache gc --older-than-days 30"]],
  });

  out = stateDirOption();
  olderThanDays = Option.String("--older-than-days", {
    description: `Retention in days (default ${RUN_DEFAULTS.cacheRetentionDays})`,
  });

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const days = retentionDays(this.olderThanDays);
    const stateDir = settings.path("state_dir", DEFAULT_STATE_DIR);
    checkStateDir(stateDir, { write: true });
    const dir = stateLayout(stateDir).cache;
    const { ScoreCache } = await import("@eval/cache");
    const result = await new ScoreCache({ dir, keyPath: stateLayout(stateDir).cacheKey }).gc({ olderThanDays: days });
    this.emit({
      type: "cache_gc",
      schema_version: CACHE_GC_LINE_SCHEMA_VERSION,
      dir,
      older_than_days: days,
      removed_entries: result.removedEntries,
      removed_temp_files: result.removedTempFiles,
      kept_entries: result.keptEntries,
      unverified_entries: result.unverifiedEntries,
    });
    return 0;
  }
}
