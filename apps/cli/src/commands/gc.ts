import { Command, Option } from "clipanion";
import { GC_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { retentionDays } from "./cache-gc.ts";
import { loadSettings } from "../load-settings.ts";
import { warningPrinter } from "../warnings.ts";
import { stateDirOption } from "../options.ts";

export class GcCommand extends EvalgateCommand {
  static override paths = [["gc"]];
  static override usage = Command.Usage({
    category: "Cache",
    description: "Remove what killed runs left: temp dirs, detail directories of runs never chained, stale cache files",
    details: `
      Removes per-run temp directories whose evalgate process is gone, \`runs/<run-id>/\` detail directories
      of runs that have no record in the audit chain and whose owner process is gone (the run was killed
      before it appended; a live run's or merge's directory is never touched), a killed append's staged
      files, stale checkpoint temp files, the cache's stale temp files, and cache entries older than
      --older-than-days (default 90). Safe beside running runs and merges. Never touches a record.
    `,
    examples: [["Clean up after killed runs", "evalgate gc"]],
  });

  out = stateDirOption();
  olderThanDays = Option.String("--older-than-days", { description: "Cache retention in days (default 90)" });

  protected async run(): Promise<number> {
    const settings = await loadSettings({ flags: { state_dir: this.out }, env: this.context.env, cwd: this.context.cwd });
    const days = retentionDays(this.olderThanDays);
    const { collectGarbage } = await import("@eval/runner");
    const result = await collectGarbage({ stateDir: settings.path("state_dir", ".evalgate"), cacheOlderThanDays: days, onWarning: warningPrinter(this.context, settings.format()) });
    this.emit({
      type: "gc",
      schema_version: GC_LINE_SCHEMA_VERSION,
      removed_temp_dirs: result.removedTempDirs,
      removed_detail_dirs: result.removedDetailDirs,
      removed_stale_files: result.removedStaleFiles,
      removed_cache_entries: result.removedCacheEntries,
      removed_cache_temp_files: result.removedCacheTempFiles,
    });
    return 0;
  }
}
