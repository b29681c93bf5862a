// `evalgate run`: flags (run-flags.ts) to runEval's options, then what it returns printed.
import { join as joinPath, resolve as resolvePath } from "node:path";
import { EvalError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { RunEvalOptions, RunEvalResult } from "@eval/runner";
import { ExitCode } from "../exit-codes.ts";
import { failureModesCell } from "../failure-modes-cell.ts";
import { formatRunHuman, runCaseLines, runSummary } from "../format-run.ts";
import { formatVerdictHuman } from "../format-verdict.ts";
import { loadSettings } from "../load-settings.ts";
import { issueRunVerdict, loadRunTiers } from "../run-verdict.ts";
import type { Interrupt } from "../interrupt.ts";
import type { SutResolverOptions } from "../sut-resolver.ts";
import { warningPrinter } from "../warnings.ts";
import { RunFlags } from "./run-flags.ts";
import { checkStateDir, DEFAULT_STATE_DIR, STATE_NAMES } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

type RunSettings = Awaited<ReturnType<RunCommand["runSettings"]>>;
type Prepared = Awaited<ReturnType<RunCommand["prepare"]>>;

export class RunCommand extends RunFlags {
  static override paths = [["run"]];

  protected async run(): Promise<number> {
    // Watched from the start to the end of the command: a signal while planning stops the run before any
    // case starts (it is recorded, empty), and one after the record is written never makes it fail.
    const { exitCodeForSignal, watchInterrupts } = await import("../interrupt.ts");
    const interrupt = watchInterrupts(this.context.stderr);
    try {
      return await this.runWatched(interrupt, exitCodeForSignal);
    } finally {
      interrupt.dispose();
    }
  }

  /** Flags to options, the library's run, what it returns printed: each step one method below. */
  private async runWatched(
    interrupt: Interrupt,
    exitCodeForSignal: (signal: NodeJS.Signals) => number,
  ): Promise<number> {
    const prepared = await this.prepare(interrupt);
    if (prepared.scaleOut !== null) return this.runShardJob(prepared, prepared.scaleOut);
    const { settings, tiers, onWarning, runner } = prepared;
    const result = await this.recordRun(prepared);
    await this.printRecordedRun(result, { settings, tiers, onWarning, runner });
    return this.exitCode(result, interrupt.received(), settings.maxCostUsd, runner, exitCodeForSignal);
  }

  /** Everything a run needs before its first case: settings, tiers, key, SUT, progress and the options. */
  private async prepare(interrupt: Interrupt) {
    const settings = await this.runSettings();
    const onWarning = warningPrinter(this.context, settings.format);
    const scaleOut = await this.scaleOut();
    const taskClassName = this.taskClassName(scaleOut);
    // A verdict's trust-tier file is read before anything runs: a bad one must not cost a whole run.
    const tiers = this.withVerdict ? await loadRunTiers(settings.tiersPath, taskClassName) : null;
    const signingKey = await (
      await import("../signing-key.ts")
    ).commandSigningKey(this.signingKey, this.context, settings.stateDir);
    const runner = await import("@eval/runner");
    checkStateDir(settings.stateDir, { write: true });
    // A shard writes a bundle, not a chain record: only a run that records announces a new state directory.
    const newStateDir = scaleOut === null ? settings.watchNewStateDir(settings.stateDir) : () => null;
    const cacheOptions = this.cacheOptions();
    const sutOptions = await this.sutOptions(settings, Object.values(cacheOptions), onWarning);
    const spec = scaleOut?.job.plan?.sut.spec ?? this.sut;
    const systemUnderTest = await (await import("../sut-resolver.ts")).sutChooser(spec, sutOptions);
    const { progressHooks, runProgress } = await import("../progress.ts");
    const progress = runProgress(this.context, { quiet: this.quiet, taskClass: taskClassName });
    const runOptions = {
      ...this.runOptions(settings, sutOptions.sandbox ?? "bwrap"),
      signal: interrupt.signal,
      onWarning,
      signingKey,
      ...cacheOptions,
      ...progressHooks(progress),
    } satisfies Omit<RunEvalOptions, "systemUnderTest">;
    const finish = (): void => {
      progress?.finish();
      const started = newStateDir();
      if (started !== null) onWarning(started);
    };
    return { settings, onWarning, scaleOut, taskClassName, tiers, runner, spec, systemUnderTest, runOptions, finish };
  }

  private taskClassName(scaleOut: Awaited<ReturnType<RunCommand["scaleOut"]>>): string {
    const name = scaleOut?.job.taskClass ?? this.taskClass;
    if (name === undefined)
      throw new EvalError("EVAL_USAGE", "`evalgate run` needs --task-class (or --plan <file> with --shard i/N)", {
        hint: "run `evalgate run --help` for the accepted flags",
      });
    return name;
  }

  /** `--plan --shard i/N`: runs the shard's units and writes its bundle (no chain record). */
  private async runShardJob(
    prepared: Prepared,
    scaleOut: NonNullable<Awaited<ReturnType<RunCommand["scaleOut"]>>>,
  ): Promise<number> {
    const { runOptions, systemUnderTest, spec } = prepared;
    const done = await scaleOut
      .runShardJob(scaleOut.job, { ...runOptions, systemUnderTest, sutSpec: spec })
      .finally(prepared.finish);
    this.emit(done.line);
    return done.exitCode;
  }

  /** The library's run: every case, the record appended to the chain. */
  private async recordRun(prepared: Prepared): Promise<RunEvalResult> {
    const { runner, taskClassName, runOptions, systemUnderTest } = prepared;
    try {
      return await runner.runEval(taskClassName, { ...runOptions, systemUnderTest });
    } finally {
      prepared.finish();
    }
  }

  /** The flags and the settings files as the run's paths, limits and format; refuses combinations that cannot run. */
  private async runSettings() {
    const flags = {
      bench_root: this.benchRoot,
      state_dir: this.out,
      trust_tiers: this.trustTiers,
      concurrency: this.concurrency,
      max_cost_usd: this.maxCostUsd,
      timeout_per_case_seconds: this.timeoutPerCase,
      trials: this.trials,
      format: this.format,
    };
    const settings = await loadSettings({ flags, env: this.context.env, cwd: this.context.cwd });
    const values = {
      format: settings.format(),
      benchRoot: settings.path("bench_root", "bench"),
      stateDir: settings.path("state_dir", DEFAULT_STATE_DIR),
      tiersPath: settings.path("trust_tiers", "docs/trust-tiers.yaml"),
      // 0: not set anywhere, so the runner's default (RUN_DEFAULTS.concurrencyAtMost, fewer on fewer CPUs) applies.
      concurrency: settings.number("concurrency", 0),
      maxCostUsd: settings.number("max_cost_usd", RUN_DEFAULTS.maxCostUsd),
      timeoutPerCaseSeconds: settings.number("timeout_per_case_seconds", RUN_DEFAULTS.timeoutPerCaseSeconds),
      // 0: not set anywhere, so the task class's min_trials (default 1) applies.
      trials: settings.number("trials", 0),
      watchNewStateDir: (stateDir: string) => settings.watchNewStateDir(stateDir),
    };
    if (values.timeoutPerCaseSeconds <= 0)
      throw new EvalError("EVAL_CONFIG_INVALID", "timeout_per_case_seconds must be > 0");
    if (this.recordOverwrite && !this.record)
      throw new EvalError("EVAL_USAGE", "--record-overwrite only changes what --record does: pass both, or neither");
    return values;
  }

  /** With --plan or --shard: the shard job to run (a bundle, not a run); null for a run. */
  private async scaleOut() {
    if (this.plan === undefined && this.shard === undefined) return null;
    const { prepareShard, runShardJob } = await import("./run-shard.ts");
    if (this.junit !== undefined || this.summaryMd !== undefined) {
      throw new EvalError(
        "EVAL_USAGE",
        "a shard writes a bundle, not a run: pass --junit and --summary-md to `evalgate merge`, which records the run",
        { hint: "evalgate merge <bundle>... --junit <file> --summary-md <file>" },
      );
    }
    const job = await prepareShard({
      plan: this.plan,
      shard: this.shard,
      bundle: this.bundle,
      taskClass: this.taskClass,
      withVerdict: this.withVerdict,
      cases: this.cases,
      cwd: this.context.cwd,
    });
    return { job, runShardJob };
  }

  /** `--cache-dir`: the cache and its key beside it (both hidden from a command SUT); empty without the flag. */
  private cacheOptions(): { cacheDir?: string; cacheKeyPath?: string } {
    if (this.cacheDir === undefined) return {};
    const cacheDir = resolvePath(this.context.cwd, this.cacheDir);
    return { cacheDir, cacheKeyPath: joinPath(cacheDir, "..", STATE_NAMES.cacheKey) };
  }

  /** The `--sut` flags as the SUT resolver's options. */
  private async sutOptions(
    settings: RunSettings,
    hideFromSut: readonly string[],
    onWarning: WarningSink,
  ): Promise<SutResolverOptions> {
    return {
      hideFromSut,
      cwd: this.context.cwd,
      env: this.context.env,
      stateDir: settings.stateDir,
      benchRoot: settings.benchRoot,
      record: this.record,
      recordOverwrite: this.recordOverwrite,
      allowCliSubscription: this.allowCliSubscription,
      acknowledgeUnsandboxedCli: this.acknowledgeUnsandboxedCli,
      allowStaleCompliance: this.allowStaleCompliance,
      streamLog: await this.resolveStreamLog(onWarning),
      ...(this.agentModel === undefined ? {} : { agentModel: this.agentModel }),
      agentArgs: this.agentArg ?? [],
      onWarning,
      sandbox: this.sandboxMode(),
      sutNetwork: this.sutNetwork,
      sutRead: this.sutRead ?? [],
      sutLimits: await this.sutLimitFlags(),
      ...(await this.agentNetworkOptions(settings.maxCostUsd)),
    };
  }

  /** The run's own options (selection, limits, cache, paths); unset numbers are left to the runner's defaults. */
  private runOptions(settings: RunSettings, sandbox: "bwrap" | "none") {
    return {
      ...(this.cases === undefined ? {} : { caseFilter: this.cases }),
      ...(settings.concurrency === 0 ? {} : { concurrency: settings.concurrency }),
      maxCostUsd: settings.maxCostUsd,
      timeoutPerCaseSeconds: settings.timeoutPerCaseSeconds,
      ...(settings.trials === 0 ? {} : { trials: settings.trials }),
      noCache: !this.cache,
      ...(this.retryErrors ? { retryErrors: true } : {}),
      stateDir: settings.stateDir,
      benchRoot: settings.benchRoot,
      sandbox,
    };
  }

  /**
   * After the run is recorded: its verdict (with --with-verdict), CI outputs and what is printed. From here
   * on a failure is a warning and never changes the run's exit code.
   */
  private async printRecordedRun(
    result: RunEvalResult,
    context: {
      readonly settings: RunSettings;
      readonly tiers: Awaited<ReturnType<typeof loadRunTiers>> | null;
      readonly onWarning: WarningSink;
      readonly runner: typeof import("@eval/runner");
    },
  ): Promise<void> {
    const { settings, tiers, onWarning, runner } = context;
    const afterRecord =
      (what: string) =>
      (error: unknown): null => {
        onWarning({
          code: "run.after_record",
          message: `the run is recorded as ${result.report.run_id}, but ${what} failed: ${(error as Error).message}`,
          details: { run_id: result.report.run_id },
        });
        return null;
      };
    const verdict =
      tiers === null
        ? null
        : await issueRunVerdict(tiers, result, settings.stateDir).catch(afterRecord("issuing its verdict"));
    const { writeRunOutputs } = await import("../run-outputs.ts");
    const outputs = await writeRunOutputs({
      recorded: result,
      unscored: result.unscoredCaseIds,
      stateDir: settings.stateDir,
      tiersPath: settings.tiersPath,
      cwd: this.context.cwd,
      env: this.context.env,
      onWarning,
      ...(this.junit === undefined ? {} : { junit: this.junit }),
      ...(this.summaryMd === undefined ? {} : { summaryMd: this.summaryMd }),
      ...(settings.format === "human" ? { glanceRecordPath: result.recordPath } : {}),
    }).catch(afterRecord("writing its CI outputs and summary"));
    this.print(
      result,
      verdict,
      (modes) => failureModesCell(modes, { unscoredReason: runner.unscoredReason, shortReason: runner.shortReason }),
      settings.format,
    );
    if (outputs?.glance) this.context.stdout.write(`\n${outputs.glance}`);
  }

  /** The recorded run's exit code: a signal counts only when it cut the run short. */
  private exitCode(
    result: RunEvalResult,
    signal: NodeJS.Signals | null,
    maxCostUsd: number,
    runner: typeof import("@eval/runner"),
    exitCodeForSignal: (signal: NodeJS.Signals) => number,
  ): number {
    if (signal !== null && result.report.incomplete_reason === "interrupted") {
      this.context.stderr.write(
        `evalgate: interrupted by ${signal}: ${result.report.per_case.length} of ${result.report.case_count} cases finished, recorded as incomplete run ${result.report.run_id}\n`,
      );
      return exitCodeForSignal(signal);
    }
    if (signal !== null)
      this.context.stderr.write(
        `evalgate: ${signal} arrived after the run's cases had finished: recorded as run ${result.report.run_id}\n`,
      );
    if (result.harnessError !== null) {
      this.context.stderr.write(
        `evalgate: ${result.harnessError}: ${result.report.per_case.length} of ${result.report.case_count} cases finished, recorded as incomplete run ${result.report.run_id}; fix the cause and rerun (finished cases come from the cache)\n`,
      );
      return ExitCode.harnessError;
    }
    if (result.costCapExceeded) {
      this.context.stderr.write(
        `evalgate: cost cap of $${maxCostUsd} reached: the run is recorded as incomplete (${result.report.run_id})\n`,
      );
      return ExitCode.costCap;
    }
    // A run that judged no case measured nothing: recorded (it is evidence), but it must not pass as a run.
    runner.assertSomeCaseScored(result.report.run_id, result.report.per_case);
    return ExitCode.ok;
  }

  /** The run's case lines, summary and verdict: a table with `--format human`, else JSON lines. */
  private print(
    result: RunEvalResult,
    verdict: Awaited<ReturnType<typeof issueRunVerdict>> | null,
    cell: Parameters<typeof formatRunHuman>[2],
    format: string,
  ): void {
    const summary = runSummary(result);
    if (format === "human") {
      this.context.stdout.write(formatRunHuman(result, summary, cell));
      if (verdict !== null)
        this.context.stdout.write(`\n${formatVerdictHuman(verdict.verdict, verdict.path, verdict.tiersFile)}`);
      return;
    }
    for (const line of runCaseLines(result)) this.emit(line);
    this.emit(summary);
    if (verdict !== null) this.emit({ type: "verdict", ...verdict.verdict, path: verdict.path });
  }
}
