import { Command, Option } from "clipanion";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { isAbove, numberFlag, numberRule } from "../number-flag.ts";
import { stateDirOption } from "../options.ts";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export class AdaptersComplianceCheckCommand extends EvalgateCommand {
  static override paths = [["adapters", "compliance-check"]];
  static override usage = Command.Usage({
    category: "Agents",
    description:
      "Run the 20-task benign suite live against an agent CLI and write the compliance report the backend requires",
    details: `
      Each benign task runs as a real session (this spends the CLI's quota, and the CLI runs unsandboxed on
      this host, hence the two opt-in flags) and passes only when its stream parses and the files the task
      asks for are in its workspace afterwards: exiting 0 is not enough. The JSONL report (one line per task,
      then the summary) names the binary's digest and the model endpoint (its origin and, for evalgate
      model-stub, the scenario's digest); it is written under <state>/compliance/ and printed on stdout;
      progress goes to stderr. The backend accepts a report for the same binary path, version and endpoint,
      at most 30 days old, with >= 99% of tasks passed. Exits 1 when the suite does not pass (the report is
      still written). After an auth failure the remaining tasks are not run unless --no-stop-after-auth-failure.
    `,
    examples: [
      [
        "Check Claude Code",
        "evalgate adapters compliance-check --adapter claude-code --allow-cli-subscription --acknowledge-unsandboxed-cli",
      ],
      [
        "Check Codex against a scripted endpoint",
        "evalgate adapters compliance-check --adapter codex --model-upstream http://127.0.0.1:8787 --agent-model gpt-5.5 --allow-cli-subscription --acknowledge-unsandboxed-cli",
      ],
    ],
  });

  adapter = Option.String("--adapter", { required: true, description: "claude-code, codex or gemini" });
  binary = Option.String("--binary", {
    description: "The CLI's path; default EVALGATE_CLI_BINARY_<ADAPTER>, then PATH",
  });
  modelUpstream = Option.String("--model-upstream", {
    description: "Point the CLI at this model endpoint (a gateway, evalgate model-stub); default its own settings",
  });
  agentModel = Option.String("--agent-model", {
    description: "The model the CLI is asked for (its --model); default its own",
  });
  out = stateDirOption();
  timeoutPerTask = Option.String("--timeout-per-task", {
    description: `Seconds per benign task (default ${RUN_DEFAULTS.complianceSecondsPerTask})`,
  });
  stopAfterAuthFailure = Option.Boolean("--stop-after-auth-failure", true, {
    description: "Skip the remaining tasks once one shows an auth failure (default on)",
  });
  allowCliSubscription = Option.Boolean("--allow-cli-subscription", false, {
    description: "Opt in: drive an agent CLI (experimental)",
  });
  acknowledgeUnsandboxedCli = Option.Boolean("--acknowledge-unsandboxed-cli", false, {
    description: "Opt in: the CLI runs its own agent loop unsandboxed on this host",
  });

  protected async run(): Promise<number> {
    const { parseAdapterName, binaryFor } = await import("./adapters-shared.ts");
    const adapter = parseAdapterName(this.adapter);
    const lib = await import("@eval/cli-subscription-adapters");
    const missing = [
      ...(this.allowCliSubscription ? [] : ["allow_cli_subscription"]),
      ...(this.acknowledgeUnsandboxedCli ? [] : ["acknowledge_unsandboxed_cli"]),
    ];
    if (missing.length > 0) throw new lib.CliSubscriptionNotOptedIn(missing);
    const seconds = numberFlag(
      "--timeout-per-task",
      this.timeoutPerTask,
      RUN_DEFAULTS.complianceSecondsPerTask,
      numberRule("a number of seconds > 0", [isAbove(0)], "e.g. --timeout-per-task 120"),
    );
    const stateDir = (
      await loadSettings({ flags: { state_dir: this.out }, env: this.context.env, cwd: this.context.cwd })
    ).path("state_dir", DEFAULT_STATE_DIR);
    const binaryPath = binaryFor(this.context, adapter, this.binary);
    const result = await lib.runComplianceCheck({
      adapter,
      stateDir,
      env: this.context.env,
      timeoutMsPerTask: seconds * 1000,
      stopAfterAuthFailure: this.stopAfterAuthFailure,
      ...(this.modelUpstream === undefined ? {} : { modelUpstream: this.modelUpstream }),
      ...(this.agentModel === undefined ? {} : { model: this.agentModel }),
      ...(binaryPath === undefined ? {} : { binaryPath }),
      onTrial: (trial, index, total) => {
        const outcome =
          trial.classification === null
            ? "not run"
            : `${trial.classification.trial_class}${trial.classification.cli_error_kind === null ? "" : ` (${trial.classification.cli_error_kind})`}`;
        this.context.stderr.write(
          `compliance ${adapter}: task ${index + 1}/${total} ${trial.task_id}: ${outcome}, ${(trial.duration_ms / 1000).toFixed(1)} s\n`,
        );
        this.emit(trial);
      },
    });
    this.emit(result.report);
    this.context.stderr.write(
      `compliance ${adapter} ${result.report.cli_version}: report written to ${result.reportPath}\n`,
    );
    if (!result.report.passed)
      throw new lib.ComplianceReportFailed(
        adapter,
        result.reportPath,
        result.report.pass_rate,
        result.report.threshold,
        lib.classificationOf(result.report, result.trials),
      );
    return 0;
  }
}
