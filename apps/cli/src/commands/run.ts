import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { BenchRunReport, PromotionVerdict } from "@eval/models";
import type { TierConfig } from "@eval/promotion";
import type { RunEvalOptions, RunEvalResult } from "@eval/runner";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { warningPrinter } from "../warnings.ts";
import { ExitCode } from "../exit-codes.ts";
import { formatVerdictHuman } from "../format-verdict.ts";
import { failureModesCell } from "../failure-modes-cell.ts";
import { formatReliabilityLines, formatTrialTable } from "../format-reliability.ts";

export class RunCommand extends EvalgateCommand {
  static override paths = [["run"]];
  static override usage = Command.Usage({
    category: "Run",
    description: "Run a task class's bench against a system under test, score it, and append the run to the audit chain",
    details: `
      Prints one JSON line per case (case_id, score, cache_hit) and one aggregate line (the report summary,
      its chain_head and record path); --format human prints a table instead. Exit codes: 0 ok, 2 cost cap
      reached (the run is recorded as incomplete), 3 unknown task class, 4 bench directory missing,
      5 audit chain tampered, 6 case digest mismatch, 7 no case selected, 8 every case failed in the SUT or
      the harness (the run is recorded), 1 anything else.

      The system under test (--sut) is module:<path>#<export>, command:<argv>, replay or cli:<adapter>;
      without --sut, replay is used when any selected case has a cassette. docs/runner.md describes what a
      command or module SUT is given and must answer, with examples.
    `,
    examples: [
      ["Run a task class from its cassettes", "evalgate run --task-class vuln-remediation"],
      ["Run the Python SUT of docs/runner.md (fix.py) against one case", "evalgate run --task-class vuln-remediation --cases 'lodash-*' --sut 'command:python3 fix.py'"],
      ["Run shard 1 of 2 (plans first; `evalgate merge` joins the bundles)", "evalgate run --task-class vuln-remediation --shard 1/2"],
      ["Run shard 2 of 2, on any machine", "evalgate run --task-class vuln-remediation --shard 2/2"],
    ],
  });

  taskClass = Option.String("--task-class", { description: "The task class to run (with --plan: the plan's)" });
  cases = Option.String("--cases", { description: "Only cases whose case_id matches this glob" });
  sut = Option.String("--sut", { description: "The system under test (see details)" });
  concurrency = Option.String("--concurrency", { description: "Cases in flight at once (default min(cpus, 4))" });
  maxCostUsd = Option.String("--max-cost-usd", { description: "Stop past this SUT-reported spend (default 5)" });
  timeoutPerCase = Option.String("--timeout-per-case", { description: "Per-case SUT deadline in seconds (default 600)" });
  trials = Option.String("--trials", { description: "Trials per case (default 1): each its own SUT call, seed, cache key and rubric run; the bound stays over cases" });
  retryErrors = Option.Boolean("--retry-errors", false, { description: "Rerun only the cases that ended in a harness error in the last run of this task class and SUT (the rest from the cache)" });
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
  plan = Option.String("--plan", { description: "With --shard: the plan file (evalgate plan) whose units to run" });
  shard = Option.String("--shard", { description: "Run shard i/N of the plan's units and write a bundle instead of appending (see docs/scale-out.md)" });
  bundle = Option.String("--bundle", { description: "With --shard: the new bundle directory (default shard-<i>-of-<N>)" });
  cacheDir = Option.String("--cache-dir", { description: "The score cache directory (default <state>/cache); its key is <cache-dir>/../cache.key, so shards can share both" });
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
        trials: this.trials,
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
    // 0: not set anywhere, so the task class's min_trials (default 1) applies.
    const trials = settings.number("trials", 0);
    if (timeoutPerCaseSeconds <= 0) throw new EvalError("EVAL_CONFIG_INVALID", "timeout_per_case_seconds must be > 0");
    const onWarning = warningPrinter(this.context, format);
    const scaleOut = this.plan !== undefined || this.shard !== undefined ? await import("./run-shard.ts") : null;
    const shardJob = scaleOut === null ? null : await scaleOut.prepareShard({ plan: this.plan, shard: this.shard, bundle: this.bundle, taskClass: this.taskClass, withVerdict: this.withVerdict, cases: this.cases, cwd: this.context.cwd });
    if (shardJob !== null) this.taskClass = shardJob.taskClass;
    if (this.taskClass === undefined) throw new EvalError("EVAL_USAGE", "`evalgate run` needs --task-class (or --plan <file> with --shard i/N)", { hint: "run `evalgate run --help` for the accepted flags" });
    const taskClassName = this.taskClass;

    // A verdict's trust-tier file is read before anything runs: a bad one must not cost a whole run.
    const tiers = this.withVerdict ? await this.loadTiers(settings.path("trust_tiers", "docs/trust-tiers.yaml"), taskClassName) : null;
    const runner = await import("@eval/runner");
    runner.checkStateDir(stateDir, { write: true });
    const streamLog = await this.resolveStreamLog(onWarning);
    if (this.sandbox !== undefined && this.sandbox !== "bwrap" && this.sandbox !== "none") {
      throw new EvalError("EVAL_USAGE", `--sandbox must be bwrap or none, got "${this.sandbox}"`);
    }
    const sandbox = (this.sandbox ?? "bwrap") as "bwrap" | "none";
    const spec = shardJob?.plan?.sut.spec ?? this.sut ?? (await this.defaultSut(benchRoot, taskClassName));
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

    const { join: joinPath, resolve: resolvePath } = await import("node:path");
    const cacheOptions = this.cacheDir === undefined ? {} : { cacheDir: resolvePath(this.context.cwd, this.cacheDir), cacheKeyPath: joinPath(resolvePath(this.context.cwd, this.cacheDir), "..", "cache.key") };
    const { runProgress } = await import("../progress.ts");
    const progress = runProgress(this.context, { quiet: this.quiet, taskClass: taskClassName });
    let failures = 0;
    const { runEval } = runner;
    const { exitCodeForSignal, watchInterrupts } = await import("../interrupt.ts");
    const interrupt = watchInterrupts(this.context.stderr);
    let result;
    try {
      const runOptions = {
        signal: interrupt.signal,
        systemUnderTest,
        ...(this.cases === undefined ? {} : { caseFilter: this.cases }),
        concurrency,
        maxCostUsd,
        timeoutPerCaseSeconds,
        ...(trials === 0 ? {} : { trials }),
        noCache: !this.cache,
        ...(this.retryErrors ? { retryErrors: true } : {}),
        stateDir,
        benchRoot,
        sandbox,
        onWarning,
        ...cacheOptions,
        ...(progress === null
          ? {}
          : {
              onProgress: (state: Parameters<NonNullable<RunEvalOptions["onProgress"]>>[0]) => progress.update({ ...state, failures }),
              onCaseResult: (caseResult: { readonly score: { readonly passed: boolean } }) => {
                if (!caseResult.score.passed) failures += 1;
              },
            }),
      };
      if (shardJob !== null && scaleOut !== null) {
        const done = await scaleOut.runShardJob(shardJob, { ...runOptions, sutSpec: spec });
        this.emit(done.line);
        return done.exitCode;
      }
      result = await runEval(taskClassName, runOptions);
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
      trials_per_case: report.trials_per_case,
      reliability: report.reliability,
      harness_error_count: report.harness_error_count,
      harness_errored_case_ids: report.harness_errored_case_ids,
      failed_trial_count: report.failed_trial_count,
      total_cost_usd: report.total_cost_usd,
      block_severity_failure_modes: report.block_severity_failure_modes,
      isolation_class: report.isolation_class,
      sut_isolation: report.sut_isolation,
      chain_head: report.chain_head,
      record_path: result.recordPath,
    };
    const verdict = tiers === null ? null : await this.verdict(tiers, result, stateDir);
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
      this.printHuman(result.caseResults, summary, report, (modes) => failureModesCell(modes, runner));
      if (verdict !== null) this.context.stdout.write(`\n${formatVerdictHuman(verdict.verdict, verdict.path, verdict.tiersFile)}`);
    } else {
      for (const caseResult of result.caseResults) {
        this.emit({ type: "case", case_id: caseResult.case_id, ...(report.trials_per_case === 1 ? {} : { trial: caseResult.trial }), score: caseResult.score, cache_hit: caseResult.cacheHit });
      }
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
    // A run that judged no case measured nothing: recorded (it is evidence), but it must not pass as a run.
    runner.assertSomeCaseScored(report.run_id, report.per_case);
    return ExitCode.ok;
  }

  /**
   * The trust tiers for --with-verdict, checked before anything runs: the file must load and name the
   * task class's current tier, or the verdict after a whole run could not be issued.
   */
  private async loadTiers(path: string, taskClassName: string): Promise<TierConfig> {
    const { loadTierConfig, PromotionGate } = await import("@eval/promotion");
    const tiers = await loadTierConfig(path);
    new PromotionGate(tiers).currentTier(taskClassName);
    return tiers;
  }

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
  private async defaultSut(benchRoot: string, taskClassName: string): Promise<string> {
    const { loadCases, loadTaskClass, TaskClassRegistry } = await import("@eval/registry");
    const { ignoreWarnings: onWarning } = await import("@eval/errors");
    const taskClass = await loadTaskClass(taskClassName, { benchRoot, registry: new TaskClassRegistry(), onWarning });
    const { caseFilterOf } = await import("@eval/runner");
    const filter = caseFilterOf(this.cases);
    const cases = await loadCases(taskClass, { verify: false, onWarning, ...(filter === undefined ? {} : { filter }) });
    // No case selected: runEval says so (EVAL_NO_CASES_SELECTED) before anything runs.
    if (cases.length === 0 || cases.some((c) => c.cassette_path !== null)) return "replay";
    throw new EvalError("EVAL_SUT_INVALID", `no --sut given and no selected case of ${taskClassName} has a cassette to replay`, {
      hint: "pass --sut module:<path>#<export> | command:<argv> | cli:<adapter>",
    });
  }

  /** The read-only verdict on this run (on the chain as the run verified it after its append), written under `<state>/recommendations/`. */
  private async verdict(
    config: TierConfig,
    run: RunEvalResult,
    stateDir: string,
  ): Promise<{ verdict: PromotionVerdict; path: string; tiersFile: string }> {
    const [{ issueVerdict }, { join }] = await Promise.all([import("@eval/promotion"), import("node:path")]);
    const { verdict, path } = await issueVerdict({ config, runsDir: join(stateDir, "runs"), recommendationsDir: join(stateDir, "recommendations"), taskClass: run.taskClass, runId: run.report.run_id, verified: run.chain });
    return { verdict, path, tiersFile: config.source };
  }

  private printHuman(
    caseResults: ReadonlyArray<{ case_id: string; cacheHit: boolean; score: { score: number; passed: boolean; failure_modes: ReadonlyArray<{ code: string; detail?: string | null }> } }>,
    summary: Record<string, unknown> & { lower_bound_95: number; lower_bound_method: string; bound_quantity: string; mean_score: number; score_stddev: number; total_cost_usd: number },
    report: BenchRunReport,
    cell: (modes: ReadonlyArray<{ code: string; detail?: string | null }>) => string,
  ): void {
    const width = Math.max(7, ...caseResults.map((r) => r.case_id.length));
    const lines = report.trials_per_case > 1 ? formatTrialTable(report) : [`${"case".padEnd(width)}  score  pass  cache  failure modes`];
    for (const r of report.trials_per_case > 1 ? [] : caseResults) {
      lines.push(
        `${r.case_id.padEnd(width)}  ${r.score.score.toFixed(3)}  ${r.score.passed ? "yes " : "no  "}  ${r.cacheHit ? "hit  " : "miss "}  ${cell(r.score.failure_modes)}`,
      );
    }
    lines.push(
      "",
      `task class ${summary.task_class}: ${summary.scored}/${summary.case_count} cases${summary.complete ? "" : " (INCOMPLETE)"}${summary.scope === "subset" ? ` (SUBSET of ${summary.task_class_case_count}: cannot support a promotion)` : ""}, ${summary.passed_count} passed${report.trials_per_case > 1 ? " every trial" : ""}, ${summary.cache_hits} from cache`,
      `mean ${summary.mean_score.toFixed(3)}, sd ${summary.score_stddev.toFixed(3)}, one-sided 95% lower bound ${summary.lower_bound_95.toFixed(3)} of the ${summary.bound_quantity.replace("_", " ")} (${summary.lower_bound_method}), cost $${summary.total_cost_usd.toFixed(4)}`,
      ...formatReliabilityLines(report),
      `block failure modes: ${(summary.block_severity_failure_modes as string[]).join(", ") || "none"}`,
      `isolation: rubric ${summary.isolation_class}, SUT ${summary.sut_isolation}; run ${summary.run_id}; chain head ${summary.chain_head}`,
      `record ${summary.record_path}`,
    );
    this.context.stdout.write(`${lines.join("\n")}\n`);
  }
}
