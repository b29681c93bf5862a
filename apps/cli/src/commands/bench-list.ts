import { Command, Option } from "clipanion";
import { BENCH_CASE_LINE_SCHEMA_VERSION, BENCH_TASK_CLASS_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { warningPrinter } from "../warnings.ts";
import { benchSettings } from "./bench-shared.ts";
import { benchRootOption, formatOption } from "../options.ts";

export class BenchListCommand extends EvalgateCommand {
  static override paths = [["bench", "list"]];
  static override usage = Command.Usage({
    category: "Bench",
    description: "List the registered task classes, or one task class's cases",
    details: `
      Without --task-class: one line per task class (cases, held-out count, rubric digest).
      With --task-class: one line per case. Listing does not verify digests; \`evalgate fence\` does.
    `,
    examples: [
      ["List task classes", "evalgate bench list"],
      ["List one task class's cases as a table", "evalgate bench list --task-class vuln-remediation --format human"],
    ],
  });

  taskClass = Option.String("--task-class", { description: "List this task class's cases" });
  benchRoot = benchRootOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await benchSettings(this.context, { benchRoot: this.benchRoot, format: this.format });
    const format = settings.format();
    const onWarning = warningPrinter(this.context, format);
    const benchRoot = settings.path("bench_root", "bench");
    const { loadAllTaskClasses, loadCases, loadTaskClass, TaskClassRegistry } = await import("@eval/registry");
    const registry = new TaskClassRegistry();
    if (this.taskClass !== undefined) {
      const taskClass = await loadTaskClass(this.taskClass, { benchRoot, registry, onWarning, allowUnsigned: true });
      for (const benchCase of await loadCases(taskClass, { verify: false, onWarning })) {
        const row = {
          type: "bench_case",
          schema_version: BENCH_CASE_LINE_SCHEMA_VERSION,
          task_class: taskClass.name,
          case_id: benchCase.case_id,
          curation_class: benchCase.curation_class,
          disposition: benchCase.disposition,
          difficulty: benchCase.difficulty,
          source: benchCase.source,
          last_validated_at: benchCase.last_validated_at,
          cassette: benchCase.cassette_path !== null,
          ...(benchCase.title === undefined ? {} : { title: benchCase.title }),
        };
        this.context.stdout.write(
          format === "human"
            ? `${row.case_id}  ${row.curation_class}  ${row.disposition}/${row.difficulty}  validated ${row.last_validated_at}${row.cassette ? "  cassette" : ""}\n`
            : `${JSON.stringify(row)}\n`,
        );
      }
      return 0;
    }
    for (const taskClass of await loadAllTaskClasses({ benchRoot, registry, onWarning, allowUnsigned: true })) {
      const cases = await loadCases(taskClass, { verify: false, onWarning });
      const row = {
        type: "bench_task_class",
        schema_version: BENCH_TASK_CLASS_LINE_SCHEMA_VERSION,
        task_class: taskClass.name,
        bench_path: taskClass.benchPath,
        cases: cases.length,
        held_out: cases.filter((benchCase) => benchCase.curation_class === "held-out").length,
        min_cases_for_promotion: taskClass.minCasesForPromotion,
        rubric_digest: taskClass.rubricDigest,
        description: taskClass.description,
      };
      this.context.stdout.write(
        format === "human"
          ? `${row.task_class}  ${row.cases} cases (${row.held_out} held-out)  ${row.description ?? ""}\n`
          : `${JSON.stringify(row)}\n`,
      );
    }
    return 0;
  }
}
