import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { PromotionVerdict } from "@eval/models";
import type { TierConfig } from "@eval/promotion";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { warningPrinter } from "../warnings.ts";
import { ExitCode } from "../exit-codes.ts";
import { formatVerdictHuman } from "../format-verdict.ts";

export class RunCommand extends EvalgateCommand {
  static override paths = [["run"]];
  static override usage = Command.Usage({
    category: "Run",
    description: "Run a task class's bench against a system under test, score it, and append the run to the audit chain",
    details: `
      Prints one JSON line per case (case_id, score, cache_hit) and one aggregate line (the report summary,
      its chain_head and record path); --format human prints a table instead. Exit codes: 0 ok, 2 cost cap
      reached (the run is recorded as incomplete), 3 unknown task class, 4 bench directory missing,
      5 audit chain tampered, 6 case digest mismatch, 1 anything else.

      --sut: module:<path>#<export> | command:<argv> | replay | cli:<adapter>. Without --sut, replay is used
      when any selected case has a cassette.
    `,
    examples: [
      ["Run a task class from its cassettes", "evalgate run --task-class vuln-remediation"],
      ["Run a program against two cases", "evalgate run --task-class vuln-remediation --cases 'lodash-*' --sut 'command:./fix.sh'"],
    ],
  });

  taskClass = Option.String("--task-class", { required: true, description: "The task class to run" });
  cases = Option.String("--cases", { description: "Only cases whose case_id matches this glob" });
  sut = Option.String("--sut", { description: "The system under test (see details)" });
  concurrency = Option.String("--concurrency", { description: "Cases in flight at once (default min(cpus, 4))" });
  maxCostUsd = Option.String("--max-cost-usd", { description: "Stop past this SUT-reported spend (default 5)" });
  timeoutPerCase = Option.String("--timeout-per-case", { description: "Per-case SUT deadline in seconds (default 600)" });
  cache = Option.Boolean("--cache", true, { description: "Use cached scores (--no-cache reruns every case)" });
  out = Option.String("--out", { description: "The state directory (default .evalgate): runs/, cache/, recommendations/" });
  benchRoot = Option.String("--bench-root", { description: "The directory holding the task classes (default bench)" });
  format = Option.String("--format", { description: "jsonl (default) or human" });
  withVerdict = Option.Boolean("--with-verdict", false, { description: "Also evaluate promotion and write the verdict" });
  trustTiers = Option.String("--trust-tiers", { description: "The trust-tier file for --with-verdict (default docs/trust-tiers.yaml)" });
  record = Option.Boolean("--record", false, { description: "With --sut cli:<adapter>: write each session as the case's cassette" });
  allowCliSubscription = Option.Boolean("--allow-cli-subscription", false, { description: "Opt in to driving an agent CLI (with --acknowledge-unsandboxed-cli)" });
  acknowledgeUnsandboxedCli = Option.Boolean("--acknowledge-unsandboxed-cli", false, { description: "Acknowledge the agent CLI runs unsandboxed" });
  allowStaleCompliance = Option.Boolean("--allow-stale-compliance", false, { description: "Accept a compliance report older than 30 days (loud warning)" });
  sandbox = Option.String("--sandbox", { description: "How rubrics and command SUTs run: bwrap (default; refused where it cannot run) or none (weaker, recorded in the report)" });
  sutRead = Option.Array("--sut-read", { description: "A path a sandboxed command SUT may read besides its program and scripts (repeatable)" });
  sutNetwork = Option.Boolean("--sut-network", false, { description: "Give a sandboxed command SUT the host's network (recorded as sut_isolation bwrap-network)" });
  streamLog = Option.String("--stream-log", { description: "Agent SUTs: extra stream log beside each transcript line: false (default), summary or raw" });
  logFormat = Option.String("--log-format", { hidden: true, description: "Deprecated: use --stream-log (json = raw, summary = summary)" });
  junit = Option.String("--junit", { description: "Also write a JUnit XML file: one testcase per case, failures with their modes" });
  summaryMd = Option.String("--summary-md", { description: "Also write a Markdown summary (appended to $GITHUB_STEP_SUMMARY when that is set)" });
  quiet = Option.Boolean("--quiet", false, { description: "No progress lines on stderr" });

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: {
        bench_root: this.benchRoot,
        state_dir: this.out,
        trust_tiers: this.trustTiers,
        concurrency: this.concurrency,
        max_cost_usd: this.maxCostUsd,
        timeout_per_case_seconds: this.timeoutPerCase,
        format: this.format,
      },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const benchRoot = settings.path("bench_root", "bench");
    const stateDir = settings.path("state_dir", ".evalgate");
    const { availableParallelism } = await import("node:os");
    const concurrency = settings.number("concurrency", Math.min(availableParallelism(), 4));
    const maxCostUsd = settings.number("max_cost_usd", 5);
    const timeoutPerCaseSeconds = settings.number("timeout_per_case_seconds", 600);
    if (timeoutPerCaseSeconds <= 0) throw new EvalError("EVAL_CONFIG_INVALID", "timeout_per_case_seconds must be > 0");
    const onWarning = warningPrinter(this.context, format);

    // A verdict's trust-tier file is read before anything runs: a bad one must not cost a whole run.
    const tiers = this.withVerdict ? await (await import("@eval/promotion")).loadTierConfig(settings.path("trust_tiers", "docs/trust-tiers.yaml")) : null;
    const streamLog = await this.resolveStreamLog(onWarning);
    if (this.sandbox !== undefined && this.sandbox !== "bwrap" && this.sandbox !== "none") {
      throw new EvalError("EVAL_USAGE", `--sandbox must be bwrap or none, got "${this.sandbox}"`);
    }
    const sandbox = (this.sandbox ?? "bwrap") as "bwrap" | "none";
    const spec = this.sut ?? (await this.defaultSut(benchRoot));
    const { resolveSut } = await import("../sut-resolver.ts");
    const systemUnderTest = await resolveSut(spec, {
      cwd: this.context.cwd,
      env: this.context.env,
      stateDir,
      benchRoot,
      record: this.record,
      allowCliSubscription: this.allowCliSubscription,
      acknowledgeUnsandboxedCli: this.acknowledgeUnsandboxedCli,
      allowStaleCompliance: this.allowStaleCompliance,
      streamLog,
      onWarning,
      sandbox,
      sutNetwork: this.sutNetwork,
      sutRead: this.sutRead ?? [],
    });

    const { runProgress } = await import("../progress.ts");
    const progress = runProgress(this.context, { quiet: this.quiet, taskClass: this.taskClass });
    let failures = 0;
    const { runEval } = await import("@eval/runner");
    const { exitCodeForSignal, watchInterrupts } = await import("../interrupt.ts");
    const interrupt = watchInterrupts(this.context.stderr);
    let result;
    try {
      result = await runEval(this.taskClass, {
        signal: interrupt.signal,
        systemUnderTest,
        ...(this.cases === undefined ? {} : { caseFilter: this.cases }),
        concurrency,
        maxCostUsd,
        timeoutPerCaseSeconds,
        noCache: !this.cache,
        stateDir,
        benchRoot,
        sandbox,
        onWarning,
        ...(progress === null
          ? {}
          : {
              onProgress: (state) => progress.update({ ...state, failures }),
              onCaseResult: (caseResult) => {
                if (!caseResult.score.passed) failures += 1;
              },
            }),
      });
    } finally {
      interrupt.dispose();
      progress?.finish();
    }
    const { report } = result;
    const hits = result.caseResults.filter((r) => r.cacheHit).length;
    const summary = {
      type: "run",
      run_id: report.run_id,
      task_class: report.task_class,
      sut_label: report.sut_label,
      complete: report.complete,
      case_count: report.case_count,
      scope: report.selection.scope,
      task_class_case_count: report.selection.task_class_case_count,
      scored: report.per_case.length,
      cache_hits: hits,
      mean_score: report.mean_score,
      score_stddev: report.score_stddev,
      score_kind: report.score_kind,
      lower_bound_95: report.lower_bound_95,
      lower_bound_method: report.lower_bound_method,
      bound_quantity: report.bound_quantity,
      informational: report.informational,
      passed_count: report.passed_count,
      total_cost_usd: report.total_cost_usd,
      block_severity_failure_modes: report.block_severity_failure_modes,
      isolation_class: report.isolation_class,
      sut_isolation: report.sut_isolation,
      chain_head: report.chain_head,
      record_path: result.recordPath,
    };
    const verdict = tiers === null ? null : await this.verdict(tiers, report.run_id, stateDir, benchRoot, onWarning);
    const { writeRunOutputs } = await import("../run-outputs.ts");
    await writeRunOutputs({
      runId: report.run_id,
      stateDir,
      benchRoot,
      tiersPath: settings.path("trust_tiers", "docs/trust-tiers.yaml"),
      cwd: this.context.cwd,
      env: this.context.env,
      onWarning,
      ...(this.junit === undefined ? {} : { junit: this.junit }),
      ...(this.summaryMd === undefined ? {} : { summaryMd: this.summaryMd }),
    });
    if (format === "human") {
      this.printHuman(result.caseResults, summary);
      if (verdict !== null) this.context.stdout.write(`\n${formatVerdictHuman(verdict.verdict, verdict.path, verdict.tiersFile)}`);
    } else {
      for (const caseResult of result.caseResults) this.emit({ type: "case", case_id: caseResult.case_id, score: caseResult.score, cache_hit: caseResult.cacheHit });
      this.emit(summary);
      if (verdict !== null) this.emit({ type: "verdict", ...verdict.verdict, path: verdict.path });
    }
    const signal = interrupt.received();
    if (signal !== null) {
      this.context.stderr.write(`evalgate: interrupted by ${signal}: ${report.per_case.length} of ${report.case_count} cases finished, recorded as incomplete run ${report.run_id}\n`);
      return exitCodeForSignal(signal);
    }
    if (result.costCapExceeded) {
      this.context.stderr.write(`evalgate: cost cap of $${maxCostUsd} reached: the run is recorded as incomplete (${report.run_id})\n`);
      return ExitCode.costCap;
    }
    return ExitCode.ok;
  }

  /** `replay` when any selected case ships a cassette; otherwise the user must say. */
  /** `--stream-log`, or the deprecated `--log-format` mapped onto it with one warning. */
  private async resolveStreamLog(onWarning: WarningSink): Promise<false | "summary" | "raw"> {
    if (this.streamLog === undefined && this.logFormat === undefined) return false;
    const streamLog = this.streamLog === undefined ? undefined : this.streamLog === "false" ? false : this.streamLog;
    const { resolveStreamLogOption } = await import("@eval/tool-normalize");
    return resolveStreamLogOption(
      { ...(streamLog === undefined ? {} : { stream_log: streamLog as false | "summary" | "raw" }), ...(this.logFormat === undefined ? {} : { log_format: this.logFormat as "json" | "summary" }) },
      onWarning,
    );
  }

  /**
   * `replay` when a selected case has a cassette. This only picks the SUT: its load stays silent
   * (runEval loads and verifies again, and says what is worth saying once).
   */
  private async defaultSut(benchRoot: string): Promise<string> {
    const { loadCases, loadTaskClass, TaskClassRegistry } = await import("@eval/registry");
    const { ignoreWarnings: onWarning } = await import("@eval/errors");
    const taskClass = await loadTaskClass(this.taskClass, { benchRoot, registry: new TaskClassRegistry(), onWarning });
    const { caseFilterOf } = await import("@eval/runner");
    const filter = caseFilterOf(this.cases);
    const cases = await loadCases(taskClass, { verify: false, onWarning, ...(filter === undefined ? {} : { filter }) });
    // No case selected: runEval says so (EVAL_NO_CASES_SELECTED) before anything runs.
    if (cases.length === 0 || cases.some((c) => c.cassette_path !== null)) return "replay";
    throw new EvalError("EVAL_SUT_INVALID", `no --sut given and no selected case of ${this.taskClass} has a cassette to replay`, {
      hint: "pass --sut module:<path>#<export> | command:<argv> | cli:<adapter>",
    });
  }

  /** The read-only verdict on this run (the gate verifies the chain itself), written under `<state>/recommendations/`. */
  private async verdict(config: TierConfig, runId: string, stateDir: string, benchRoot: string, onWarning: WarningSink): Promise<{ verdict: PromotionVerdict; path: string; tiersFile: string }> {
    const [{ issueVerdict }, { loadTaskClass, TaskClassRegistry }, { join }] = await Promise.all([import("@eval/promotion"), import("@eval/registry"), import("node:path")]);
    const taskClass = await loadTaskClass(this.taskClass, { benchRoot, registry: new TaskClassRegistry(), onWarning });
    const { verdict, path } = await issueVerdict({ config, runsDir: join(stateDir, "runs"), recommendationsDir: join(stateDir, "recommendations"), taskClass, runId });
    return { verdict, path, tiersFile: config.source };
  }

  private printHuman(
    caseResults: ReadonlyArray<{ case_id: string; cacheHit: boolean; score: { score: number; passed: boolean; failure_modes: ReadonlyArray<{ code: string }> } }>,
    summary: Record<string, unknown> & { lower_bound_95: number; lower_bound_method: string; bound_quantity: string; mean_score: number; score_stddev: number; total_cost_usd: number },
  ): void {
    const width = Math.max(7, ...caseResults.map((r) => r.case_id.length));
    const lines = [`${"case".padEnd(width)}  score  pass  cache  failure modes`];
    for (const r of caseResults) {
      lines.push(
        `${r.case_id.padEnd(width)}  ${r.score.score.toFixed(3)}  ${r.score.passed ? "yes " : "no  "}  ${r.cacheHit ? "hit  " : "miss "}  ${r.score.failure_modes.map((m) => m.code).join(", ")}`,
      );
    }
    lines.push(
      "",
      `task class ${summary.task_class}: ${summary.scored}/${summary.case_count} cases${summary.complete ? "" : " (INCOMPLETE)"}${summary.scope === "subset" ? ` (SUBSET of ${summary.task_class_case_count}: cannot support a promotion)` : ""}, ${summary.passed_count} passed, ${summary.cache_hits} from cache`,
      `mean ${summary.mean_score.toFixed(3)}, sd ${summary.score_stddev.toFixed(3)}, one-sided 95% lower bound ${summary.lower_bound_95.toFixed(3)} of the ${summary.bound_quantity.replace("_", " ")} (${summary.lower_bound_method}), cost $${summary.total_cost_usd.toFixed(4)}`,
      `block failure modes: ${(summary.block_severity_failure_modes as string[]).join(", ") || "none"}`,
      `isolation: rubric ${summary.isolation_class}, SUT ${summary.sut_isolation}; run ${summary.run_id}; chain head ${summary.chain_head}`,
      `record ${summary.record_path}`,
    );
    this.context.stdout.write(`${lines.join("\n")}\n`);
  }
}
