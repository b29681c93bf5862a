import { Command, Option } from "clipanion";
import type { Comparison } from "@eval/models";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { numberFlag, numberRule } from "../number-flag.ts";
import * as t from "typanion";
import { formatOption, stateDirOption } from "../options.ts";
import { escapeTerminal } from "@eval/reports/terminal";
import { DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";

export class CompareCommand extends EvalgateCommand {
  static override paths = [["compare"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Compare two recorded runs of one task class, case by case: the lower bound on the improvement",
    details: `
      Reads both runs from the audit chain; they must be of the same task class over the same cases.
      Per case d = candidate - baseline (a case's value is the mean of its trials); prints the one-sided
      95% lower bound on the mean improvement (the paired fixed-bet bound, valid at small n), the exact
      McNemar test for binary task classes, and the cases that improved and regressed. One JSON line by
      default; --format human prints a summary. --write also saves it under <state>/recommendations/
      (advice: it never changes a tier). Exit 12 under --fail-on-regression <margin> when the bound is
      below the margin (written --fail-on-regression=-0.05, since a value starting with - would read as a flag: fail unless the candidate is shown to lose at most 5 points).
    `,
    examples: [
      [
        "Compare two runs (run ids as `evalgate run` prints them)",
        "evalgate compare --baseline <run-id> --candidate <run-id> --format human",
      ],
      [
        "Fail CI when the candidate may have regressed by more than 5 points",
        "evalgate compare --baseline <run-id> --candidate <run-id> --fail-on-regression=-0.05",
      ],
    ],
  });

  baseline = Option.String("--baseline", { required: true, description: "The baseline run_id" });
  candidate = Option.String("--candidate", { required: true, description: "The candidate run_id" });
  failOnRegression = Option.String("--fail-on-regression", {
    description: "Exit 12 when the lower bound on the improvement is below this margin (e.g. -0.05)",
  });
  write = Option.Boolean("--write", false, { description: "Also write the comparison to <state>/recommendations/" });
  out = stateDirOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const margin =
      this.failOnRegression === undefined
        ? null
        : numberFlag(
            "--fail-on-regression",
            this.failOnRegression,
            0,
            numberRule("a number in [-1, 1] (e.g. -0.05)", [t.isInInclusiveRange(-1, 1)]),
          );
    const stateDir = settings.path("state_dir", DEFAULT_STATE_DIR);
    const { compareRuns, regressionBeyondMargin, writeComparison } = await import("@eval/compare");
    const comparison = await compareRuns({
      runsDir: stateLayout(stateDir).runs,
      baselineRunId: this.baseline,
      candidateRunId: this.candidate,
    });
    const path = this.write ? await writeComparison(comparison, stateLayout(stateDir).recommendations) : null;
    const failed = margin !== null && regressionBeyondMargin(comparison, margin);
    if (format === "human") this.context.stdout.write(formatComparisonHuman(comparison, path));
    else this.emit({ type: "comparison", ...comparison, ...(path === null ? {} : { path }) });
    if (failed) {
      this.context.stderr.write(
        `evalgate: the lower bound on the improvement, ${comparison.lower_bound_95.toFixed(4)}, is below the margin ${margin}: treating it as a regression\n`,
      );
      return ExitCode.comparisonRegression;
    }
    return ExitCode.ok;
  }
}

const signed = (value: number): string => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;

/** The human summary of a comparison. */
export function formatComparisonHuman(c: Comparison, path: string | null): string {
  const changes = (label: string, list: Comparison["improved"]): string[] =>
    list.length === 0
      ? [`${label}: none`]
      : [
          `${label} (${list.length}):`,
          ...list.map(
            (x) => `  ${x.case_id}  ${x.baseline.toFixed(3)} -> ${x.candidate.toFixed(3)}  (${signed(x.difference)})`,
          ),
        ];
  const lines = [
    `${c.task_class}: candidate ${c.candidate.run_id} (${c.candidate.sut_label}, ${c.candidate.trials_per_case} trial(s)/case) vs baseline ${c.baseline.run_id} (${c.baseline.sut_label}, ${c.baseline.trials_per_case} trial(s)/case)`,
    `${c.case_count} paired cases: mean ${c.baseline.mean.toFixed(3)} -> ${c.candidate.mean.toFixed(3)}, difference ${signed(c.mean_difference)}`,
    `one-sided 95% lower bound on the improvement ${signed(c.lower_bound_95)} (paired fixed-bet bound over cases)`,
    c.mcnemar === null
      ? "McNemar: not applicable (graded task class)"
      : `exact McNemar (two-sided, on per-case outcomes; passed = every trial passed): baseline-only ${c.mcnemar.baseline_only}, candidate-only ${c.mcnemar.candidate_only}, p = ${c.mcnemar.p_value.toPrecision(4)}`,
    ...changes("improved", c.improved),
    ...changes("regressed", c.regressed),
    `unchanged ${c.unchanged_count}; chain ${c.chain_verified ? "verifies" : "does NOT verify"}`,
    ...(path === null ? [] : [`written to ${path} (advisory: it never changes a tier)`]),
  ];
  return escapeTerminal(`${lines.join("\n")}\n`);
}
