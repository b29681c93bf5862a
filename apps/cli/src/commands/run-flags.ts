// The flags of `evalgate run` and the few checks that belong to flags alone; run.ts wires them.
import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { AgentSutOptions } from "@eval/agent-sut";
import { EvalgateCommand } from "../base-command.ts";
import { benchRootOption, formatOption, signingKeyOption, stateDirOption, trustTiersOption } from "../options.ts";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export abstract class RunFlags extends EvalgateCommand {
  static override usage = Command.Usage({
    category: "Run",
    description:
      "Run a task class's bench against a system under test, score it, and append the run to the audit chain",
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
      [
        "Run the Python SUT of docs/runner.md (fix.py) against one case",
        "evalgate run --task-class vuln-remediation --cases 'lodash-*' --sut 'command:python3 fix.py'",
      ],
      [
        "Run shard 1 of 2 (plans first; `evalgate merge` joins the bundles)",
        "evalgate run --task-class vuln-remediation --shard 1/2",
      ],
      ["Run shard 2 of 2, on any machine", "evalgate run --task-class vuln-remediation --shard 2/2"],
    ],
  });

  taskClass = Option.String("--task-class", { description: "The task class to run (with --plan: the plan's)" });
  cases = Option.String("--cases", { description: "Only cases whose case_id matches this glob" });
  sut = Option.String("--sut", { description: "The system under test (see details)" });
  concurrency = Option.String("--concurrency", { description: "Cases in flight at once (default min(cpus, 4))" });
  maxCostUsd = Option.String("--max-cost-usd", {
    description: `Stop past this SUT-reported spend (default ${RUN_DEFAULTS.maxCostUsd})`,
  });
  timeoutPerCase = Option.String("--timeout-per-case", {
    description: `Per-case SUT deadline in seconds (default ${RUN_DEFAULTS.timeoutPerCaseSeconds})`,
  });
  trials = Option.String("--trials", {
    description: `Trials per case (default ${RUN_DEFAULTS.trials}): each its own SUT call, seed, cache key and rubric run; the bound stays over cases`,
  });
  retryErrors = Option.Boolean("--retry-errors", false, {
    description:
      "Rerun only the cases that ended in a harness error in the last run of this task class and SUT (the rest from the cache)",
  });
  cache = Option.Boolean("--cache", true, { description: "Use cached scores (--no-cache reruns every case)" });
  out = stateDirOption("The state directory (default .evalgate): runs/, cache/, recommendations/");
  benchRoot = benchRootOption();
  format = formatOption();
  withVerdict = Option.Boolean("--with-verdict", false, {
    description: "Also evaluate promotion and write the verdict",
  });
  trustTiers = trustTiersOption("The trust-tier file for --with-verdict (default docs/trust-tiers.yaml)");
  record = Option.Boolean("--record", false, {
    description: "With --sut cli:<adapter>: write each session as the case's cassette (refused where one exists)",
  });
  recordOverwrite = Option.Boolean("--record-overwrite", false, {
    description: "With --record: replace cassettes that exist (then re-sign the bench)",
  });
  allowCliSubscription = Option.Boolean("--allow-cli-subscription", false, {
    description: "Opt in to driving an agent CLI (with --acknowledge-unsandboxed-cli)",
  });
  acknowledgeUnsandboxedCli = Option.Boolean("--acknowledge-unsandboxed-cli", false, {
    description: "Acknowledge the agent CLI runs unsandboxed",
  });
  allowStaleCompliance = Option.Boolean("--allow-stale-compliance", false, {
    description: "Accept a compliance report older than 30 days (loud warning)",
  });
  sandbox = Option.String("--sandbox", {
    description:
      "How rubrics and command SUTs run: bwrap (default; refused where it cannot run) or none (weaker, recorded in the report)",
  });
  sutRead = Option.Array("--sut-read", {
    description: "A path a sandboxed command SUT may read besides its program and scripts (repeatable)",
  });
  sutNetwork = Option.Boolean("--sut-network", false, {
    description:
      "Give a sandboxed command SUT outbound network through slirp4netns, without the host's loopback (recorded as sut_isolation bwrap-slirp4netns)",
  });
  sutPids = Option.String("--sut-pids", {
    description: "A sandboxed command SUT's process limit (default 1024; over the task class's limits)",
  });
  sutMemory = Option.String("--sut-memory", {
    description: "A sandboxed command SUT's memory limit, e.g. 8GiB (default: a share of this machine's memory)",
  });
  sutDisk = Option.String("--sut-disk", {
    description:
      "A sandboxed command SUT's disk limit (largest file, and its workspace's total), e.g. 4GiB (default 1GiB)",
  });
  agentModel = Option.String("--agent-model", {
    description: "With --sut cli:<adapter>: the model the agent CLI uses (its --model; replaces the task class's)",
  });
  agentArg = Option.Array("--agent-arg", {
    description:
      "With --sut cli:<adapter>: one more CLI flag after the task class's, e.g. --agent-arg=--provider --agent-arg=stub (repeatable; bypass, shell and eval flags are refused)",
  });
  agentNetwork = Option.String("--agent-network", {
    description:
      "Agent CLIs: bridge (default: loopback only, the model bridge holds the key) or host (the host's network and login files; both opt-ins)",
  });
  modelUpstream = Option.String("--model-upstream", {
    description:
      "Agent CLIs behind the bridge: where model calls go (a compatible base URL; default the provider's API)",
  });
  caseMaxRequests = Option.String("--case-max-requests", {
    description:
      "Agent CLIs behind the bridge: model requests one case trial may make (the next is refused: agent.budget_exceeded)",
  });
  caseMaxCostUsd = Option.String("--case-max-cost-usd", {
    description:
      "Agent CLIs behind the bridge: metered spend one case trial may reach (the next request is refused: agent.budget_exceeded)",
  });
  streamLog = Option.String("--stream-log", {
    description: "Agent SUTs: extra stream log beside each transcript line: false (default), summary or raw",
  });
  logFormat = Option.String("--log-format", {
    hidden: true,
    description: "Deprecated: use --stream-log (json = raw, summary = summary)",
  });
  plan = Option.String("--plan", { description: "With --shard: the plan file (evalgate plan) whose units to run" });
  shard = Option.String("--shard", {
    description: "Run shard i/N of the plan's units and write a bundle instead of appending (see docs/scale-out.md)",
  });
  bundle = Option.String("--bundle", {
    description: "With --shard: the new bundle directory (default shard-<i>-of-<N>)",
  });
  cacheDir = Option.String("--cache-dir", {
    description:
      "The score cache directory (default <state>/cache); its key is <cache-dir>/../cache.key, so shards can share both",
  });
  junit = Option.String("--junit", {
    description: "Also write a JUnit XML file: one testcase per case, failures with their modes",
  });
  summaryMd = Option.String("--summary-md", {
    description: "Also write a Markdown summary (appended to $GITHUB_STEP_SUMMARY when that is set)",
  });
  quiet = Option.Boolean("--quiet", false, { description: "No progress lines on stderr" });
  signingKey = signingKeyOption();

  /** `--sandbox`: bwrap (default) or none. */
  protected sandboxMode(): "bwrap" | "none" {
    if (this.sandbox !== undefined && this.sandbox !== "bwrap" && this.sandbox !== "none") {
      throw new EvalError("EVAL_USAGE", `--sandbox must be bwrap or none, got "${this.sandbox}"`);
    }
    return this.sandbox ?? "bwrap";
  }

  /** `--sut-pids`, `--sut-memory`, `--sut-disk` as limit overrides (only those given), each within its bounds. */
  protected async sutLimitFlags(): Promise<{ pids?: number; memory?: number; disk?: number }> {
    if (this.sutPids === undefined && this.sutMemory === undefined && this.sutDisk === undefined) return {};
    const { sutLimitOverrides } = await import("../limit-flags.ts");
    return sutLimitOverrides({ pids: this.sutPids, memory: this.sutMemory, disk: this.sutDisk });
  }

  /** The agent-network flags as AgentSutOptions fields (only those given). */
  protected async agentNetworkOptions(
    maxCostUsd: number,
  ): Promise<Pick<AgentSutOptions, "agentNetwork" | "modelUpstream" | "caseBudget" | "runCostCapUsd">> {
    if (this.agentNetwork !== undefined && this.agentNetwork !== "bridge" && this.agentNetwork !== "host") {
      throw new EvalError("EVAL_USAGE", `--agent-network must be bridge or host, got "${this.agentNetwork}"`);
    }
    const { isAbove, numberFlag, numberRule } = await import("../number-flag.ts");
    const t = await import("typanion");
    const requests = numberFlag(
      "--case-max-requests",
      this.caseMaxRequests,
      Number.NaN,
      numberRule("an integer >= 1", [t.isInteger(), t.isAtLeast(1)]),
    );
    const cost = numberFlag(
      "--case-max-cost-usd",
      this.caseMaxCostUsd,
      Number.NaN,
      numberRule("a number of dollars > 0", [isAbove(0)]),
    );
    const caseBudget = {
      ...(Number.isNaN(requests) ? {} : { maxRequests: requests }),
      ...(Number.isNaN(cost) ? {} : { maxCostUsd: cost }),
    };
    return {
      ...(this.agentNetwork === undefined ? {} : { agentNetwork: this.agentNetwork }),
      ...(this.modelUpstream === undefined ? {} : { modelUpstream: this.modelUpstream }),
      ...(Object.keys(caseBudget).length === 0 ? {} : { caseBudget }),
      runCostCapUsd: maxCostUsd,
    };
  }

  /** `--stream-log`, or the deprecated `--log-format` mapped onto it with one warning. */
  protected async resolveStreamLog(onWarning: WarningSink): Promise<false | "summary" | "raw"> {
    if (this.streamLog === undefined && this.logFormat === undefined) return false;
    const streamLog = this.streamLog === undefined ? undefined : this.streamLog === "false" ? false : this.streamLog;
    const { resolveStreamLogOption } = await import("@eval/tool-normalize");
    return resolveStreamLogOption(
      {
        ...(streamLog === undefined ? {} : { stream_log: streamLog as false | "summary" | "raw" }),
        ...(this.logFormat === undefined ? {} : { log_format: this.logFormat as "json" | "summary" }),
      },
      onWarning,
    );
  }
}
