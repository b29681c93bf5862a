import { Command, Option } from "clipanion";
import { REPORT_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { warningPrinter } from "../warnings.ts";
import { benchRootOption, formatOption, stateDirOption, trustTiersOption } from "../options.ts";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";

export class ReportCommand extends EvalgateCommand {
  static override paths = [["report"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Write one self-contained HTML report of a recorded run",
    details: `
      Reads a run from the audit chain (default: the newest run, of --task-class when given) with its
      per-case details and transcripts, and writes one HTML file that opens from disk or a CI artifact
      with no server and no network: the verdict for each tier above the current one, the trend of every
      full run against the tier thresholds, the cases (filterable) with their breakdown, failure modes,
      transcript and diff, and provenance with a button that re-checks the embedded data's digest.
      --baseline <run-id> adds per-case changes against another run of the same task class.
      Prints one JSON line (path, bytes, digest). Exit 0; 1 when the run is not recorded; 5 when a
      record file is damaged.
    `,
    examples: [
      ["The newest run of a task class", "evalgate report --task-class vuln-remediation -o report.html"],
      [
        "A run against a baseline (run ids as `evalgate run` prints them)",
        "evalgate report --run <run-id> --baseline <run-id>",
      ],
    ],
  });

  taskClass = Option.String("--task-class", { description: "Report on this task class's newest run" });
  runId = Option.String("--run", { description: "The run_id to report on (default: the newest run)" });
  baseline = Option.String("--baseline", { description: "A run_id of the same task class to compare with" });
  output = Option.String("-o,--output", { description: "The HTML file to write (default evalgate-report.html)" });
  out = stateDirOption();
  benchRoot = benchRootOption();
  trustTiers = trustTiersOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, bench_root: this.benchRoot, trust_tiers: this.trustTiers, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const [{ gatherReportData }, { renderHtmlReport }, { writeOutputFile }, { HARNESS_VERSION }, { resolve }] =
      await Promise.all([
        import("@eval/report-data"),
        import("@eval/reports"),
        import("../output-file.ts"),
        import("../version.ts"),
        import("node:path"),
      ]);
    const data = await gatherReportData({
      stateDir: settings.path("state_dir", DEFAULT_STATE_DIR),
      benchRoot: settings.path("bench_root", "bench"),
      tiersPath: settings.path("trust_tiers", "docs/trust-tiers.yaml"),
      harnessVersion: HARNESS_VERSION,
      onWarning: warningPrinter(this.context, format),
      ...(this.taskClass === undefined ? {} : { taskClass: this.taskClass }),
      ...(this.runId === undefined ? {} : { runId: this.runId }),
      ...(this.baseline === undefined ? {} : { baselineRunId: this.baseline }),
    });
    const report = renderHtmlReport(data);
    const path = resolve(this.context.cwd, this.output ?? "evalgate-report.html");
    await writeOutputFile(path, report.html);
    const bytes = Buffer.byteLength(report.html, "utf8");
    if (format === "human") {
      this.context.stdout.write(
        `report of run ${data.run.run_id} (${data.run.task_class}, ${data.cases.length} cases): ${path}, ${(bytes / 1024).toFixed(0)} KiB, data ${report.dataSha256}\n`,
      );
    } else {
      this.emit({
        type: "report",
        schema_version: REPORT_LINE_SCHEMA_VERSION,
        path,
        run_id: data.run.run_id,
        task_class: data.run.task_class,
        cases: data.cases.length,
        bytes,
        compressed: report.compressed,
        data_sha256: report.dataSha256,
      });
    }
    return ExitCode.ok;
  }
}
