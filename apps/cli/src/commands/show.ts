import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { REPORT_CASE_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { warningPrinter } from "../warnings.ts";
import { benchRootOption, formatOption, stateDirOption, trustTiersOption } from "../options.ts";
import type { ReportCase } from "@eval/reports";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";

export class ShowCommand extends EvalgateCommand {
  static override paths = [["show"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Show a recorded run, or one of its cases, in the terminal",
    details: `
      Without --case: the run's figures, the verdict per tier and one line per case. With --case: that
      case's failure modes with their details, its breakdown, the workspace diff the harness recorded, the
      SUT's stdout and stderr, and its transcript (messages, then tool calls one per line). Cache hits show the detail of the run that
      executed the case. The run defaults to the newest one (of --task-class when given).
      With --trial t (and --case): that trial's status, score, failure modes, diff, output and transcript.
      --format jsonl prints the gathered data as one JSON line instead (json is accepted as the same).
    `,
    examples: [
      ["The newest run", "evalgate show"],
      ["One case of the newest run", "evalgate show --case lodash-template-cve-2021-23337"],
      ["Its second trial (of a run with --trials)", "evalgate show --case lodash-template-cve-2021-23337 --trial 1"],
    ],
  });

  runId = Option.String({ required: false, name: "run-id" });
  caseId = Option.String("--case", { description: "Show this case of the run in detail" });
  trial = Option.String("--trial", {
    description: "With --case: show this trial of the case (0-based; see the case's trial list)",
  });
  taskClass = Option.String("--task-class", { description: "Show this task class's newest run" });
  out = stateDirOption();
  benchRoot = benchRootOption();
  trustTiers = trustTiersOption();
  format = formatOption("human (default) or jsonl (json is the same)");

  protected async run(): Promise<number> {
    if (this.format !== undefined && this.format !== "human" && this.format !== "jsonl" && this.format !== "json")
      throw new EvalError("EVAL_USAGE", `--format must be human or jsonl, got "${this.format}"`);
    const settings = await loadSettings({
      flags: { state_dir: this.out, bench_root: this.benchRoot, trust_tiers: this.trustTiers },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const [{ gatherReportData }, { caseTrial, renderCaseText, renderRunText }, { HARNESS_VERSION }] = await Promise.all(
      [import("@eval/report-data"), import("@eval/reports"), import("../version.ts")],
    );
    const data = await gatherReportData({
      stateDir: settings.path("state_dir", DEFAULT_STATE_DIR),
      benchRoot: settings.path("bench_root", "bench"),
      tiersPath: settings.path("trust_tiers", "docs/trust-tiers.yaml"),
      harnessVersion: HARNESS_VERSION,
      onWarning: warningPrinter(this.context, "human"),
      ...(this.taskClass === undefined ? {} : { taskClass: this.taskClass }),
      ...(this.runId === undefined ? {} : { runId: this.runId }),
    });
    if (this.trial !== undefined && this.caseId === undefined)
      throw new EvalError("EVAL_USAGE", "--trial needs --case <case-id>: a trial belongs to one case");
    const reportCase = this.caseId === undefined ? null : data.cases.find((c) => c.case_id === this.caseId);
    if (reportCase === undefined) {
      throw new EvalError("EVAL_USAGE", `run ${data.run.run_id} has no case "${this.caseId}"`, {
        hint: `\`evalgate show ${data.run.run_id}\` lists its cases`,
      });
    }
    const shown =
      reportCase === null || this.trial === undefined
        ? reportCase
        : this.pickTrial(data.run.run_id, reportCase, caseTrial);
    const trialNote =
      shown === reportCase || shown === null
        ? undefined
        : { trial: Number(this.trial), of: reportCase!.trials?.total ?? 1 };
    if (this.format === "jsonl" || this.format === "json")
      this.emit(
        shown === null ? data : { schema_version: REPORT_CASE_LINE_SCHEMA_VERSION, run_id: data.run.run_id, ...shown },
      );
    else this.context.stdout.write(shown === null ? renderRunText(data) : renderCaseText(data, shown, trialNote));
    return ExitCode.ok;
  }

  /** The `--trial` of a case, or a one-line usage error naming the trials it has. */
  private pickTrial(
    runId: string,
    reportCase: ReportCase,
    caseTrial: (c: ReportCase, t: number) => ReportCase | null,
  ): ReportCase {
    const total = reportCase.trials?.total ?? 1;
    const wanted = /^\d+$/.test(this.trial!) ? Number(this.trial) : Number.NaN;
    const found = Number.isNaN(wanted) ? null : caseTrial(reportCase, wanted);
    if (found !== null) return found;
    throw new EvalError(
      "EVAL_USAGE",
      `case ${reportCase.case_id} of run ${runId} has no trial "${this.trial}": it ran ${total === 1 ? "1 trial (0)" : `${total} trials (0 to ${total - 1})`}`,
    );
  }
}
