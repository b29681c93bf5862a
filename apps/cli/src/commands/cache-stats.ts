import { Command } from "clipanion";
import { CACHE_STATS_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { formatOption, stateDirOption } from "../options.ts";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";

export class CacheStatsCommand extends EvalgateCommand {
  static override paths = [["cache", "stats"]];
  static override usage = Command.Usage({
    category: "Cache",
    description: "Show the score cache: entries, bytes, oldest and newest entry, orphaned temp files",
    examples: [["Show the cache under .evalgate/cache", "evalgate cache stats"]],
  });

  out = stateDirOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const stateDir = settings.path("state_dir", DEFAULT_STATE_DIR);
    checkStateDir(stateDir, { write: false });
    const dir = stateLayout(stateDir).cache;
    const { ScoreCache } = await import("@eval/cache");
    const stats = await new ScoreCache({ dir, keyPath: stateLayout(stateDir).cacheKey }).stats();
    const row = {
      type: "cache_stats",
      schema_version: CACHE_STATS_LINE_SCHEMA_VERSION,
      dir,
      entries: stats.entries,
      unverified: stats.unverified,
      bytes: stats.bytes,
      orphaned_temp_files: stats.orphanedTempFiles,
      oldest_stored_at: stats.oldestStoredAt?.toISOString() ?? null,
      newest_stored_at: stats.newestStoredAt?.toISOString() ?? null,
    };
    if (format === "human") {
      this.context.stdout.write(
        `${dir}: ${row.entries} entries, ${row.bytes} bytes, oldest ${row.oldest_stored_at ?? "-"}, newest ${row.newest_stored_at ?? "-"}, ${row.orphaned_temp_files} orphaned temp files\n`,
      );
    } else {
      this.emit(row);
    }
    return 0;
  }
}
