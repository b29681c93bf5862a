import { Command, Option } from "clipanion";
import { EvalgateCommand } from "../base-command.ts";
import { warningPrinter } from "../warnings.ts";
import { benchSettings } from "./bench-shared.ts";
import { benchRootOption, formatOption } from "../options.ts";

export class BenchSignCommand extends EvalgateCommand {
  static override paths = [["bench", "sign"]];
  static override usage = Command.Usage({
    category: "Bench",
    description: "Recompute every case digest after curation, rewrite cases/digests.yaml, print what changed",
    details: `
      Run it after adding or editing cases, review the printed changes, and commit digests.yaml with
      them. Cases holding symlinks or special files are refused.
    `,
    examples: [["Re-sign a task class", "evalgate bench sign --task-class vuln-remediation"]],
  });

  taskClass = Option.String("--task-class", { required: true, description: "The task class to sign" });
  benchRoot = benchRootOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await benchSettings(this.context, { benchRoot: this.benchRoot, format: this.format });
    const format = settings.format();
    const { loadTaskClass, signBench, TaskClassRegistry } = await import("@eval/registry");
    const taskClass = await loadTaskClass(this.taskClass, {
      benchRoot: settings.path("bench_root", "bench"),
      registry: new TaskClassRegistry(),
      onWarning: warningPrinter(this.context, format),
      allowUnsigned: true,
    });
    const result = await signBench(taskClass);
    if (format !== "human") {
      const { parseWire, SIGN_RESULT_SCHEMA_VERSION, SignResultSchema } = await import("@eval/models");
      this.emit(
        parseWire(SignResultSchema, {
          schema_version: SIGN_RESULT_SCHEMA_VERSION,
          task_class: taskClass.name,
          ...result,
        }),
      );
      return 0;
    }
    const out = this.context.stdout;
    for (const caseId of result.added) out.write(`added    ${caseId}\n`);
    for (const caseId of result.removed) out.write(`removed  ${caseId}\n`);
    for (const changed of result.changed) out.write(`changed  ${changed.case_id}: ${changed.files.join(", ")}\n`);
    out.write(
      `${result.written ? "wrote" : "unchanged"} ${result.digests_path} (${result.unchanged} cases unchanged)\n`,
    );
    return 0;
  }
}
