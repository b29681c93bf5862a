import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { PLAN_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { warningPrinter } from "../warnings.ts";
import { ExitCode } from "../exit-codes.ts";
import { numberFlag, numberRule } from "../number-flag.ts";
import { benchRootOption, formatOption, stateDirOption } from "../options.ts";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export class PlanCommand extends EvalgateCommand {
  static override paths = [["plan"]];
  static override usage = Command.Usage({
    category: "Run",
    description: "Write a deterministic run plan that shards can run on any machine",
    details: `
      Loads the task class (verifying every case digest), resolves the SUT, and writes a plan file: the task
      class, its case ids and digests, the SUT, rubric and harness digests, the trials, and plan_id, the run's
      identity (it does not depend on how many shards run it). Runs nothing. Then run the shards with
      \`evalgate run --plan <file> --shard i/N\` and merge their bundles with \`evalgate merge\`
      (docs/scale-out.md). Prints one JSON line (plan_id, units, path).
    `,
    examples: [["Plan a run of the replay SUT", "evalgate plan --task-class vuln-remediation --output plan.json"]],
  });

  taskClass = Option.String("--task-class", { required: true, description: "The task class to plan" });
  sut = Option.String("--sut", {
    description: "The system under test (as for run, with run's default: replay when a case has a cassette)",
  });
  trials = Option.String("--trials", { description: `Trials per case (default ${RUN_DEFAULTS.trials})` });
  output = Option.String("--output", { description: "The plan file to write (default plan.json)" });
  benchRoot = benchRootOption();
  sandbox = Option.String("--sandbox", {
    description: "bwrap (default) or none: part of the plan (it changes the cache key)",
  });
  out = stateDirOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { bench_root: this.benchRoot, state_dir: this.out, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const onWarning = warningPrinter(this.context, format);
    const benchRoot = settings.path("bench_root", "bench");
    // The range (1 to 1000) is the planner's to check.
    const trials = numberFlag("--trials", this.trials, 1, numberRule("a number", []));
    if (this.sandbox !== undefined && this.sandbox !== "bwrap" && this.sandbox !== "none")
      throw new EvalError("EVAL_USAGE", `--sandbox must be bwrap or none, got "${this.sandbox}"`);
    const sandbox = (this.sandbox ?? "bwrap") as "bwrap" | "none";
    const { sutChooser } = await import("../sut-resolver.ts");
    const systemUnderTest = await sutChooser(this.sut, {
      cwd: this.context.cwd,
      env: this.context.env,
      stateDir: settings.path("state_dir", DEFAULT_STATE_DIR),
      benchRoot,
      record: false,
      allowCliSubscription: false,
      acknowledgeUnsandboxedCli: false,
      allowStaleCompliance: false,
      streamLog: false,
      onWarning,
      sandbox,
      sutNetwork: false,
      sutRead: [],
    });
    const [{ planRun }, { resolve }, { writeOutputFile }] = await Promise.all([
      import("@eval/runner"),
      import("node:path"),
      import("../output-file.ts"),
    ]);
    const plan = await planRun(this.taskClass, {
      systemUnderTest,
      sutSpec: this.sut,
      trials,
      benchRoot,
      sandbox,
      onWarning,
    });
    const path = resolve(this.context.cwd, this.output ?? "plan.json");
    await writeOutputFile(path, `${JSON.stringify(plan, null, 2)}\n`);
    const units = plan.cases.length * plan.trials;
    if (format === "human")
      this.context.stdout.write(
        `plan ${plan.plan_id}: ${plan.task_class}, ${plan.cases.length} cases x ${plan.trials} trials = ${units} units, SUT ${plan.sut.label}\nwrote ${path}\n`,
      );
    else
      this.emit({
        type: "plan",
        schema_version: PLAN_LINE_SCHEMA_VERSION,
        plan_id: plan.plan_id,
        task_class: plan.task_class,
        cases: plan.cases.length,
        trials: plan.trials,
        units,
        path,
      });
    return ExitCode.ok;
  }
}
