import { Command, Option } from "clipanion";
import { GC_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { retentionDays } from "./cache-gc.ts";
import { loadSettings } from "../load-settings.ts";
import { warningPrinter } from "../warnings.ts";
import { stateDirOption } from "../options.ts";
import { DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export class GcCommand extends EvalgateCommand {
  static override paths = [["gc"]];
  static override usage = Command.Usage({
    category: "Cache",
    description: "Remove what killed runs left: temp dirs, detail directories of runs never chained, stale cache files",
    details: `
      Removes per-run temp directories whose evalgate process is gone, \`runs/<run-id>/\` detail directories
      of runs that have no record in the audit chain and whose owner process is gone (the run was killed
      before it appended; a live run's or merge's directory is never touched), a killed append's staged
      files, stale checkpoint temp files, captured-workspace blobs (\`blobs/\`) that no run's details reference
      (a live run's are kept; removed_blobs and freed_blob_bytes say what went), the cache's stale temp files, and cache entries
      older than --older-than-days (default ${RUN_DEFAULTS.cacheRetentionDays}). Safe beside running runs and merges. Never touches a record.
      The details of a run that was recorded but is no longer in the chain (its records deleted: a possible
      truncation) are kept and reported in kept_removed_run_dirs, with a warning. Repairs torn lines of
      \`transcripts/*.jsonl\` (a write cut short by a full disk or a kill): each is kept in \`<file>.torn\`
      and blanked in place.
    `,
    examples: [["Clean up after killed runs", "evalgate gc"]],
  });

  out = stateDirOption();
  olderThanDays = Option.String("--older-than-days", {
    description: `Cache retention in days (default ${RUN_DEFAULTS.cacheRetentionDays})`,
  });

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const days = retentionDays(this.olderThanDays);
    const [{ collectGarbage }, { repairTranscriptDirectory }] = await Promise.all([
      import("@eval/runner"),
      import("@eval/tool-normalize"),
    ]);
    const stateDir = settings.path("state_dir", DEFAULT_STATE_DIR);
    const result = await collectGarbage({
      stateDir,
      cacheOlderThanDays: days,
      onWarning: warningPrinter(this.context, settings.format()),
    });
    const repairs = await repairTranscriptDirectory(stateLayout(stateDir).transcripts);
    this.emit({
      type: "gc",
      schema_version: GC_LINE_SCHEMA_VERSION,
      removed_temp_dirs: result.removedTempDirs,
      removed_detail_dirs: result.removedDetailDirs,
      kept_removed_run_dirs: result.keptRemovedRunDirs,
      removed_stale_files: result.removedStaleFiles,
      removed_cache_entries: result.removedCacheEntries,
      removed_cache_temp_files: result.removedCacheTempFiles,
      removed_blobs: result.removedBlobs,
      freed_blob_bytes: result.freedBlobBytes,
      repaired_torn_lines: repairs.map((repair) => ({
        path: repair.path,
        lines: repair.blankedLines,
        kept_in: repair.tornPath,
      })),
    });
    return 0;
  }
}
