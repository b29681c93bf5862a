import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { BENCH_SHOW_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { warningPrinter } from "../warnings.ts";
import { benchSettings } from "./bench-shared.ts";
import { benchRootOption, formatOption } from "../options.ts";

export class BenchShowCommand extends EvalgateCommand {
  static override paths = [["bench", "show"]];
  static override usage = Command.Usage({
    category: "Bench",
    description: "Show one case: its case.toml, paths and verified digest",
    examples: [
      ["Show a case", "evalgate bench show cross-spawn-redos-cve-2024-21538"],
      [
        "Show a case of a given task class, readable",
        "evalgate bench show lodash-template-cve-2021-23337 --task-class vuln-remediation --format human",
      ],
    ],
  });

  caseId = Option.String({ required: true, name: "case-id" });
  taskClass = Option.String("--task-class", { description: "The task class holding the case (default: search all)" });
  benchRoot = benchRootOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await benchSettings(this.context, { benchRoot: this.benchRoot, format: this.format });
    const format = settings.format();
    const onWarning = warningPrinter(this.context, format);
    const benchRoot = settings.path("bench_root", "bench");
    const { loadAllTaskClasses, loadCases, loadTaskClass, TaskClassRegistry } = await import("@eval/registry");
    const registry = new TaskClassRegistry();
    const taskClasses =
      this.taskClass === undefined
        ? await loadAllTaskClasses({ benchRoot, registry, onWarning })
        : [await loadTaskClass(this.taskClass, { benchRoot, registry, onWarning })];
    for (const taskClass of taskClasses) {
      const [benchCase] = await loadCases(taskClass, {
        filter: (candidate) => candidate.case_id === this.caseId,
        onWarning,
      });
      if (benchCase === undefined) continue;
      if (format === "human") {
        for (const [key, value] of Object.entries(benchCase))
          this.context.stdout.write(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}\n`);
      } else {
        this.emit({ type: "bench_show", schema_version: BENCH_SHOW_LINE_SCHEMA_VERSION, ...benchCase });
      }
      return 0;
    }
    throw new EvalError(
      "EVAL_USAGE",
      `no case "${this.caseId}" in ${taskClasses.map((taskClass) => taskClass.name).join(", ") || "any task class"}`,
      {
        hint: "`evalgate bench list --task-class <name>` lists the case ids",
      },
    );
  }
}
