import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { formatVerdictHuman } from "../format-verdict.ts";
import { renderError } from "../render-error.ts";
import { warningPrinter } from "../warnings.ts";
import { benchRootOption, formatOption, stateDirOption, trustTiersOption } from "../options.ts";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";

export class PromoteVerdictCommand extends EvalgateCommand {
  static override paths = [["promote-verdict"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Emit a read-only promotion verdict for a task class from its recorded runs",
    details: `
      Evaluates a run from the audit chain (by default the newest complete run over the whole task class;
      newer subset or incomplete runs are named as passed over) against the target tier in
      docs/trust-tiers.yaml (default: the tier above the current one) and writes the verdict to
      <state>/recommendations/. A run over a subset of the cases (--cases) never supports a promotion.
      Prints one JSON line; --format human prints the reasons. The verdict is advice: evalgate never
      changes a tier; a person promotes by a reviewed change to docs/trust-tiers.yaml.
      The verdict pools every attempt the chain holds for the judged run's SUT on its cases (--run names the
      run and shows its own figures; docs/reliability.md). With --anchor <file> the chain must extend that
      anchor (evalgate anchor --write), so a truncated chain is refused.
      Exit 0 with a verdict either way; 5 when the audit chain does not verify, does not extend the anchor, or
      holds a record whose figures disagree with its per-case data (the verdict says so too).
    `,
    examples: [
      [
        "Verdict for the next tier from the newest complete full run",
        "evalgate promote-verdict --task-class vuln-remediation",
      ],
      [
        "Verdict for silver from a given run",
        "evalgate promote-verdict --task-class vuln-remediation --target-tier silver --run 20261122T042516Z-b87ff0d2",
      ],
    ],
  });

  taskClass = Option.String("--task-class", { required: true, description: "The task class to evaluate" });
  targetTier = Option.String("--target-tier", {
    description: "The tier to evaluate for (default: the one above the current tier)",
  });
  runId = Option.String("--run", {
    description: "The run_id to judge (default: the newest complete run over the whole task class)",
  });
  report = Option.String("--report", {
    description: "A record file of the chain: judges the chained run it names (same as --run <its run_id>)",
  });
  anchor = Option.String("--anchor", { description: "An anchor file (evalgate anchor --write) the chain must extend" });
  out = stateDirOption();
  benchRoot = benchRootOption();
  trustTiers = trustTiersOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, bench_root: this.benchRoot, trust_tiers: this.trustTiers, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const { resolve } = await import("node:path");
    const stateDir = settings.path("state_dir", DEFAULT_STATE_DIR);
    checkStateDir(stateDir, { write: true });
    const runsDir = stateLayout(stateDir).runs;
    const [{ loadTierConfig, issueVerdict }, { loadTaskClass, TaskClassRegistry }] = await Promise.all([
      import("@eval/promotion"),
      import("@eval/registry"),
    ]);
    if (this.runId !== undefined && this.report !== undefined)
      throw new EvalError("EVAL_USAGE", "pass --run or --report, not both");
    const config = await loadTierConfig(settings.path("trust_tiers", "docs/trust-tiers.yaml"));
    const taskClass = await loadTaskClass(this.taskClass, {
      benchRoot: settings.path("bench_root", "bench"),
      registry: new TaskClassRegistry(),
      onWarning: warningPrinter(this.context, format),
    });
    const [{ readAnchor }, { verifiedEvidence }] = await Promise.all([
      import("@eval/audit-chain"),
      import("@eval/report-data"),
    ]);
    const anchor = this.anchor === undefined ? undefined : await readAnchor(resolve(this.context.cwd, this.anchor));
    const { chain, catalog } = await verifiedEvidence(stateDir, taskClass.name, warningPrinter(this.context, format));
    const { verdict, path, tampered } = await issueVerdict({
      config,
      verified: chain,
      ...(catalog === undefined ? {} : { catalog }),
      ...(anchor === undefined ? {} : { anchor }),
      runsDir,
      recommendationsDir: stateLayout(stateDir).recommendations,
      taskClass,
      ...(this.runId === undefined ? {} : { runId: this.runId }),
      ...(this.report === undefined ? {} : { recordFile: resolve(this.context.cwd, this.report) }),
      ...(this.targetTier === undefined ? {} : { targetTier: this.targetTier }),
    });
    if (format === "human") this.context.stdout.write(formatVerdictHuman(verdict, path, config.source));
    else this.emit({ type: "verdict", ...verdict, path });
    if (tampered === null) return ExitCode.ok;
    const rendered = renderError(tampered, false);
    this.context.stderr.write(rendered.text);
    return rendered.exitCode;
  }
}
