import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { benchRootOption, stateDirOption, trustTiersOption } from "../options.ts";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";

export class InitCommand extends EvalgateCommand {
  static override paths = [["init"]];
  static override usage = Command.Usage({
    category: "Bench",
    description: "Scaffold a task class in this repository: config, bench, rubric, one example case, trust tiers",
    details: `
      Writes bench/<task-class>/ (registration, a rubric in TypeScript or Python, failure modes, near
      misses, one example case with its reference fix and a near miss, signed), and, when missing,
      evalgate.config.json, the trust-tier file and a CI workflow (.github/workflows/evalgate.yml). Never
      overwrites: an existing task class directory is refused (exit 1), existing project files are kept.
      Prints every file written and the next commands; \`fence\`, \`bench check\` and \`run\` accept the result
      as written.
    `,
    examples: [
      ["A task class with a TypeScript rubric", "evalgate init --task-class answers"],
      ["A Python rubric, no CI workflow", "evalgate init --task-class answers --rubric python --no-workflow"],
    ],
  });

  taskClass = Option.String("--task-class", "my-task", { description: "The task class's name (default my-task)" });
  rubric = Option.String("--rubric", "typescript", { description: "typescript (default) or python" });
  workflow = Option.Boolean("--workflow", true, {
    description: "Write .github/workflows/evalgate.yml when absent (--no-workflow: do not)",
  });
  benchRoot = benchRootOption();
  out = stateDirOption();
  trustTiers = trustTiersOption("The trust-tier file (default trust-tiers.yaml beside the config file)");

  protected async run(): Promise<number> {
    if (this.rubric !== "typescript" && this.rubric !== "python")
      throw new EvalError("EVAL_USAGE", `--rubric must be typescript or python, got "${this.rubric}"`);
    const settings = await loadSettings({
      flags: { bench_root: this.benchRoot, state_dir: this.out, trust_tiers: this.trustTiers },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const [{ relative }, { scaffoldTaskClass }] = await Promise.all([import("node:path"), import("@eval/registry")]);
    const trustTiersPath = settings.path(
      "trust_tiers",
      settings.configSource === null ? "trust-tiers.yaml" : "docs/trust-tiers.yaml",
    );
    const result = await scaffoldTaskClass({
      slug: this.taskClass,
      projectDir: settings.baseDir,
      benchRoot: settings.path("bench_root", "bench"),
      stateDir: settings.path("state_dir", DEFAULT_STATE_DIR),
      trustTiersPath,
      existingConfig: settings.configSource,
      rubric: this.rubric,
      workflow: this.workflow,
    });
    const out = this.context.stdout;
    const show = (path: string) => relative(this.context.cwd, path) || ".";
    for (const path of result.created) out.write(`created  ${show(path)}\n`);
    for (const path of result.kept) out.write(`kept     ${show(path)} (exists)\n`);
    out.write("\nnext:\n");
    let step = 1;
    if (result.install_command !== null)
      out.write(
        `  ${step++}. ${result.install_command}   # the bench imports ${result.missing_packages.join(" and ")}\n`,
      );
    if (result.tier_line_needed)
      out.write(
        `  ${step++}. add "${this.taskClass}: untrusted" under current: in ${show(trustTiersPath)} (a reviewed change)\n`,
      );
    out.write(
      `  ${step++}. ${result.evalgate} bench check --task-class ${this.taskClass} --format human   # the reference fix passes, the no-op and the near miss fail\n`,
    );
    out.write(
      `  ${step}. ${result.evalgate} run --task-class ${this.taskClass} --sut 'command:<your agent>' --format human\n`,
    );
    out.write(
      `then replace the example case with your own and re-sign: ${result.evalgate} bench sign --task-class ${this.taskClass}\n`,
    );
    return ExitCode.ok;
  }
}
