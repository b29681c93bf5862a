import { Command, Option } from "clipanion";
import { EvalgateCommand } from "../base-command.ts";
import { formatBenchCheck } from "../format-bench-check.ts";
import { warningPrinter } from "../warnings.ts";
import { benchSettings } from "./bench-shared.ts";
import { benchRootOption, formatOption } from "../options.ts";

export class BenchCheckCommand extends EvalgateCommand {
  static override paths = [["bench", "check"]];
  static override usage = Command.Usage({
    category: "Bench",
    description: "Prove every case solvable and its rubric sensitive: reference fix, no-op and near misses",
    details: `
      For every case the rubric (sandboxed as in a run) scores the reference fix in controls/ (must pass),
      the untouched input (must fail, except on a negative case) and each near miss the task class
      declares in near-misses.yaml (must fail with the failure mode the case's controls.json names).
      Prints one row per case with what each control caught. Exit 0 when every control behaved, 1 when
      one did not or a case lacks a control (docs/bench-authoring.md).
    `,
    examples: [
      ["Check a task class", "evalgate bench check --task-class vuln-remediation --format human"],
      [
        "Check some of its cases",
        "evalgate bench check --task-class vuln-remediation --cases 'node-fetch-*' --format human",
      ],
    ],
  });

  taskClass = Option.String("--task-class", { required: true, description: "The task class to check" });
  cases = Option.String("--cases", { description: "Only cases whose case_id matches this glob" });
  sandbox = Option.String("--sandbox", { description: "How rubrics run: bwrap (default) or none (weaker)" });
  benchRoot = benchRootOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await benchSettings(this.context, { benchRoot: this.benchRoot, format: this.format });
    const format = settings.format();
    if (this.sandbox !== undefined && this.sandbox !== "bwrap" && this.sandbox !== "none") {
      const { EvalError } = await import("@eval/errors");
      throw new EvalError("EVAL_USAGE", `--sandbox must be bwrap or none, not ${JSON.stringify(this.sandbox)}`);
    }
    const [{ checkBench }, { BENCH_CHECK_SCHEMA_VERSION, BenchCheckResultSchema, parseWire }] = await Promise.all([
      import("@eval/runner"),
      import("@eval/models"),
    ]);
    const result = await checkBench({
      taskClass: this.taskClass,
      benchRoot: settings.path("bench_root", "bench"),
      ...(this.cases === undefined ? {} : { caseFilter: this.cases }),
      ...(this.sandbox === undefined ? {} : { sandbox: this.sandbox }),
      onWarning: warningPrinter(this.context, format),
    });
    if (format === "human") this.context.stdout.write(formatBenchCheck(result));
    else {
      const checks = result.checks.map((c) => ({
        case_id: c.caseId,
        control: c.control,
        expected: typeof c.expected === "string" ? c.expected : c.expected.failureMode,
        passed: c.passed,
        failure_modes: [...c.failureModes],
        error: c.error,
        ok: c.ok,
      }));
      const notApplicable = result.notApplicable.map((n) => ({ case_id: n.caseId, kind: n.kind, reason: n.reason }));
      this.emit(
        parseWire(BenchCheckResultSchema, {
          schema_version: BENCH_CHECK_SCHEMA_VERSION,
          task_class: result.taskClass,
          ok: result.ok,
          kinds: [...result.kinds],
          checks,
          not_applicable: notApplicable,
          problems: [...result.problems],
        }),
      );
    }
    return result.ok ? 0 : 1;
  }
}
