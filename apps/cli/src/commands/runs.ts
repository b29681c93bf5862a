import { Command, Option } from "clipanion";
import * as t from "typanion";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { numberFlag, numberRule } from "../number-flag.ts";
import { formatOption, stateDirOption } from "../options.ts";
import { checkStateDir, DEFAULT_STATE_DIR } from "@eval/state-layout";
import { warningPrinter } from "../warnings.ts";

export class RunsCommand extends EvalgateCommand {
  static override paths = [["runs"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "List the recorded runs, newest first",
    details: `
      Reads the chain's records (<state>/runs/) newest first and prints one JSON line per run (type
      recorded_run: run_id, recorded_at, task_class, sut_label, sut_digest, scope, case_count, mean_score,
      lower_bound_95, complete, signed, chain_hash); --format human prints a table. The run ids are what
      \`evalgate compare\`, \`show\`, \`report\` and \`promote-verdict --run\` take. It lists; \`evalgate verify\`
      checks the chain.
    `,
    examples: [
      ["The last 10 runs as a table", "evalgate runs --limit 10 --format human"],
      [
        "Complete runs of one task class by one SUT",
        "evalgate runs --task-class vuln-remediation --sut replay --complete",
      ],
    ],
  });

  taskClass = Option.String("--task-class", { description: "Only runs of this task class" });
  sut = Option.String("--sut", { description: "Only runs of this SUT: its label, or its digest (8+ hex characters)" });
  limit = Option.String("--limit", { description: "At most this many runs (default all)" });
  complete = Option.Boolean("--complete", { description: "Only complete runs (--no-complete: only incomplete ones)" });
  out = stateDirOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const limit = numberFlag(
      "--limit",
      this.limit,
      Number.POSITIVE_INFINITY,
      numberRule("a whole number >= 1", [t.isInteger(), t.isAtLeast(1)]),
    );
    const [{ listRecordedRuns }, { renderRunListText }] = await Promise.all([
      import("@eval/report-data"),
      import("@eval/reports"),
    ]);
    const stateDir = checkStateDir(settings.path("state_dir", DEFAULT_STATE_DIR), { write: false });
    const filter = {
      ...(this.taskClass === undefined ? {} : { taskClass: this.taskClass }),
      ...(this.sut === undefined ? {} : { sut: this.sut }),
      ...(this.complete === undefined ? {} : { complete: this.complete }),
    };
    const entries = await listRecordedRuns(stateDir, filter, limit, warningPrinter(this.context, format));
    if (format === "human") this.context.stdout.write(renderRunListText(entries));
    else for (const entry of entries) this.emit(entry);
    return ExitCode.ok;
  }
}
