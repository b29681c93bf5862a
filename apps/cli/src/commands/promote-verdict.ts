import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import type { BenchRunReport, PromotionVerdict } from "@eval/models";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { renderError } from "../render-error.ts";
import { warningPrinter } from "../warnings.ts";

export class PromoteVerdictCommand extends EvalgateCommand {
  static override paths = [["promote-verdict"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Emit a read-only promotion verdict for a task class from its recorded runs",
    details: `
      Evaluates a run (by default the newest complete run of the task class in the audit chain) against the
      target tier in docs/trust-tiers.yaml (default: the tier above the current one) and writes the verdict to
      <state>/recommendations/. Prints one JSON line; --format human prints the reasons. The verdict is advice:
      evalgate never changes a tier; a person promotes by a reviewed change to docs/trust-tiers.yaml.
      Exit 0 with a verdict either way; 5 when the audit chain does not verify (the verdict says so too).
    `,
    examples: [
      ["Verdict for the next tier from the newest complete run", "evalgate promote-verdict --task-class vuln-remediation"],
      ["Verdict for silver from a given record", "evalgate promote-verdict --task-class vuln-remediation --target-tier silver --report .evalgate/runs/<file>.json"],
    ],
  });

  taskClass = Option.String("--task-class", { required: true, description: "The task class to evaluate" });
  targetTier = Option.String("--target-tier", { description: "The tier to evaluate for (default: the one above the current tier)" });
  report = Option.String("--report", "latest", { description: "A record or report file, or `latest` (default): the newest complete run in the chain" });
  out = Option.String("--out", { description: "The state directory (default .evalgate)" });
  benchRoot = Option.String("--bench-root", { description: "The directory holding the task classes (default bench)" });
  trustTiers = Option.String("--trust-tiers", { description: "The trust-tier file (default docs/trust-tiers.yaml)" });
  format = Option.String("--format", { description: "jsonl (default) or human" });

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, bench_root: this.benchRoot, trust_tiers: this.trustTiers, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const { join, resolve } = await import("node:path");
    const stateDir = settings.path("state_dir", ".evalgate");
    const runsDir = join(stateDir, "runs");
    const [{ findLatestRecord, verifyChain, ChainTampered }, { loadTierConfig, PromotionGate, writeVerdict }, { loadTaskClass, TaskClassRegistry }] = await Promise.all([
      import("@eval/audit-chain"),
      import("@eval/promotion"),
      import("@eval/registry"),
    ]);
    const config = await loadTierConfig(settings.path("trust_tiers", "docs/trust-tiers.yaml"));
    const taskClass = await loadTaskClass(this.taskClass, {
      benchRoot: settings.path("bench_root", "bench"),
      registry: new TaskClassRegistry(),
      onWarning: warningPrinter(this.context, format),
    });

    let report: BenchRunReport;
    let chain;
    if (this.report === "latest") {
      chain = await verifyChain({ runsDir });
      const found = await findLatestRecord({ runsDir, taskClass: taskClass.name });
      if (found === null) throw new EvalError("EVAL_REPORT_NOT_FOUND", `no complete run of ${taskClass.name} in ${runsDir}`);
      report = found.record.report;
    } else {
      report = await readReport(resolve(this.context.cwd, this.report));
      // The report counts as chained evidence only if its record is in a chain that verifies.
      chain = report.chain_head === null ? await verifyChain({ runsDir }) : await verifyChain({ runsDir, expectHead: report.chain_head });
    }
    const chainVerified = chain.ok && report.chain_head !== null;
    const verdict = new PromotionGate(config).evaluate({
      taskClass: taskClass.name,
      report,
      minCasesForPromotion: taskClass.minCasesForPromotion,
      chainVerified,
      ...(this.targetTier === undefined ? {} : { targetTier: this.targetTier }),
    });
    const path = await writeVerdict(verdict, join(stateDir, "recommendations"));
    if (format === "human") this.printHuman(verdict, path, config.source);
    else this.emit({ type: "verdict", ...verdict, path });
    if (chain.ok) return ExitCode.ok;
    const rendered = renderError(new ChainTampered(chain.firstBad!, runsDir), false);
    this.context.stderr.write(rendered.text);
    return rendered.exitCode;
  }

  private printHuman(verdict: PromotionVerdict, path: string, tiersFile: string): void {
    const lines = [
      `${verdict.task_class}: ${verdict.current_tier} -> ${verdict.target_tier}: evidence ${verdict.evidence_sufficient ? "SUFFICIENT" : "NOT sufficient"}`,
      ...verdict.reasons.map((reason) => `  - ${reason}`),
      `lower_bound_95 ${Number(verdict.lower_bound_95.toFixed(4))} (threshold ${verdict.threshold_at_target}), passed ${verdict.passed_count} (min ${verdict.min_cases_at_target}), held-out ${verdict.held_out_count} (min ${verdict.min_held_out_at_target}), isolation ${verdict.isolation_class}`,
      `run ${verdict.report_run_id}; thresholds ${verdict.thresholds_calibrated ? "calibrated" : "NOT calibrated"}`,
      `advisory only: a person promotes by a reviewed change to ${tiersFile}`,
      `verdict written to ${path}`,
    ];
    this.context.stdout.write(`${lines.join("\n")}\n`);
  }
}

/** A chain record file or a bare report, validated. */
async function readReport(path: string): Promise<BenchRunReport> {
  const [{ readFile }, { BenchRunReportSchema, ChainRecordSchema, CHAIN_RECORD_SCHEMA_VERSION, formatIssues, safeParseWire }] = await Promise.all([
    import("node:fs/promises"),
    import("@eval/models"),
  ]);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new EvalError("EVAL_REPORT_NOT_FOUND", `no report at ${path}`);
    throw new EvalError("EVAL_REPORT_INVALID", `${path} is not a JSON report: ${(error as Error).message}`);
  }
  const isRecord = (value as { schema_version?: unknown } | null)?.schema_version === CHAIN_RECORD_SCHEMA_VERSION;
  const parsed = isRecord ? safeParseWire(ChainRecordSchema, value) : safeParseWire(BenchRunReportSchema, value);
  if (!parsed.success) throw new EvalError("EVAL_REPORT_INVALID", `${path}: ${formatIssues(parsed.issues)}`);
  return isRecord ? (parsed.data as { report: BenchRunReport }).report : (parsed.data as BenchRunReport);
}
