// `evalgate rescore --run <id>`: flags to rescoreRun's options, then the new run printed as `run` prints one.
import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";
import { ExitCode } from "../exit-codes.ts";
import { failureModesCell } from "../failure-modes-cell.ts";
import { formatRunHuman, runCaseLines, runSummary } from "../format-run.ts";
import { loadSettings } from "../load-settings.ts";
import { benchRootOption, formatOption, stateDirOption } from "../options.ts";
import { warningPrinter } from "../warnings.ts";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";

export class RescoreCommand extends EvalgateCommand {
  static override paths = [["rescore"]];
  static override usage = Command.Usage({
    category: "Run",
    description: "Score a recorded run's outputs again with the current rubric, without calling its SUT",
    details: `
      Rebuilds each unit's workspace from the case's input and the files the harness captured when the run
      executed it, hands the rubric the SUT output recorded then, and appends the result as a new run of the
      same cases and trials: marked rescore_of (the original run, its SUT digest and rubric digest), with the
      original SUT's digest and the current rubric digest, so it is evidence for that SUT under the new
      rubric. A unit whose SUT failed keeps that failure. Refused (exit 1) when a unit's workspace was not
      captured in full (runs recorded before captures were kept, files past the size caps, a merge whose
      shards kept the files on other machines).
    `,
    examples: [["Rescore a run after changing the rubric", "evalgate rescore --run 20261126T084937Z-b15b2c3d"]],
  });

  runId = Option.String("--run", { description: "The run whose recorded outputs to score (see `evalgate show`)" });
  out = stateDirOption();
  benchRoot = benchRootOption();
  sandbox = Option.String("--sandbox", {
    description: "How rubrics run: bwrap (default; refused where it cannot run) or none",
  });
  format = formatOption();

  protected async run(): Promise<number> {
    if (this.runId === undefined)
      throw new EvalError("EVAL_USAGE", "`evalgate rescore` needs --run <run-id>", {
        hint: "`evalgate show` names the newest run",
      });
    if (this.sandbox !== undefined && this.sandbox !== "bwrap" && this.sandbox !== "none")
      throw new EvalError("EVAL_USAGE", `--sandbox must be bwrap or none, got "${this.sandbox}"`);
    const settings = await loadSettings({
      flags: { state_dir: this.out, bench_root: this.benchRoot, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const runner = await import("@eval/runner");
    const result = await runner.rescoreRun({
      runId: this.runId,
      stateDir: settings.path("state_dir", DEFAULT_STATE_DIR),
      benchRoot: settings.path("bench_root", "bench"),
      sandbox: this.sandbox === "none" ? "none" : "bwrap",
      onWarning: warningPrinter(this.context, format),
    });
    const summary = {
      ...runSummary(result),
      rescore_of: "rescore_of" in result.report ? (result.report.rescore_of ?? null) : null,
    };
    if (format === "human") {
      const of = summary.rescore_of;
      this.context.stdout.write(
        formatRunHuman(result, summary, (modes) =>
          failureModesCell(modes, { unscoredReason: runner.unscoredReason, shortReason: runner.shortReason }),
        ),
      );
      if (of !== null)
        this.context.stdout.write(
          `rescore of run ${of.run_id} (SUT ${of.sut_digest}): rubric ${of.rubric_digest} then, ${result.report.rubric_digest} now\n`,
        );
    } else {
      for (const line of runCaseLines(result)) this.emit(line);
      this.emit(summary);
    }
    runner.assertSomeCaseScored(result.report.run_id, result.report.per_case);
    return ExitCode.ok;
  }
}
