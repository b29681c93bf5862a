import { Command } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";
import { warningPrinter } from "../warnings.ts";
import { benchSettings } from "./bench-shared.ts";
import { benchRootOption, formatOption, trustTiersOption } from "../options.ts";

export class FenceCommand extends EvalgateCommand {
  static override paths = [["fence"]];
  static override usage = Command.Usage({
    category: "Bench",
    description: "Check every task class under the bench root against the bench contract",
    details: `
      Runs the fence assertions (directory contract, minimum cases, held-out split, literal
      registration name, breakdown-key ban, failure-mode taxonomy, case ids, case files, digests)
      and prints every failure on its own line, naming the exact path. Exit 0 when all hold, 4 when a
      registered task class has no bench directory, 1 for any other failure.
    `,
    examples: [
      ["Check the repo's benches", "evalgate fence"],
      ["Check another bench root, readable output", "evalgate fence --bench-root ../other/bench --format human"],
    ],
  });

  benchRoot = benchRootOption();
  trustTiers = trustTiersOption("Trust tiers file deciding held-out minimums (default: docs/trust-tiers.yaml)");
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await benchSettings(this.context, { benchRoot: this.benchRoot, format: this.format });
    const format = settings.format();
    const [
      { runFence },
      { loadTierConfig },
      { FENCE_FAILURE_SCHEMA_VERSION, FENCE_SUMMARY_SCHEMA_VERSION, FenceFailureSchema, FenceSummarySchema, parseWire },
    ] = await Promise.all([import("@eval/registry"), import("@eval/promotion"), import("@eval/models")]);
    const trustTiersPath =
      this.trustTiers === undefined
        ? settings.path("trust_tiers", "docs/trust-tiers.yaml")
        : settings.path("trust_tiers", this.trustTiers);
    const trustTiers = await loadTierConfig(trustTiersPath, { optional: true });
    const report = await runFence({
      benchRoot: settings.path("bench_root", "bench"),
      trustTiers,
      onWarning: warningPrinter(this.context, format),
    });
    for (const failure of report.failures) {
      this.context.stdout.write(
        format === "human"
          ? `${failure.message.startsWith(failure.path) ? "" : `${failure.path}: `}${failure.message} [${failure.assertion}]\n`
          : `${JSON.stringify(parseWire(FenceFailureSchema, { schema_version: FENCE_FAILURE_SCHEMA_VERSION, ...failure }))}\n`,
      );
    }
    if (format === "human") {
      for (const taskClass of report.task_classes)
        this.context.stdout.write(`${taskClass.name}: ${taskClass.cases} cases (${taskClass.held_out} held-out)\n`);
      for (const directory of report.unregistered_dirs)
        this.context.stderr.write(
          `evalgate: warning: ${directory} has no registration.ts, so it is not a task class\n`,
        );
    } else {
      this.emit(
        parseWire(FenceSummarySchema, {
          schema_version: FENCE_SUMMARY_SCHEMA_VERSION,
          ok: report.ok,
          bench_root: report.bench_root,
          task_classes: report.task_classes,
          unregistered_dirs: report.unregistered_dirs,
          failure_count: report.failures.length,
          duration_ms: report.duration_ms,
        }),
      );
    }
    if (report.ok) return 0;
    const missingDir = report.failures.some((failure) => failure.code === "EVAL_BENCH_DIR_MISSING");
    throw new EvalError(
      missingDir ? "EVAL_BENCH_DIR_MISSING" : "EVAL_FENCE_FAILED",
      `fence failed: ${report.failures.length} problem${report.failures.length === 1 ? "" : "s"} under ${report.bench_root} (listed on stdout)`,
      missingDir ? { hint: "create the missing bench directory named above, or remove its registration" } : {},
    );
  }
}
