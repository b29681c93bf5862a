import type {
  AgentAdapterName,
  CliBackendMetadata,
  SafetyDetection,
  Transcript,
  TrialClassification,
} from "@eval/models";
import { CliBackendMetadataSchema, parseWire } from "@eval/models";
import type { WarningSink } from "@eval/errors";
import { ignoreWarnings } from "@eval/errors";
import type { AgentAdapter } from "./adapter-contract.ts";
import { getAdapter } from "./adapter-registry.ts";
import { buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
import { findLatestComplianceReport, readComplianceReport, verifyRecentCompliance } from "./compliance.ts";
import { endpointIdentity, endpointOrigin, originOf } from "./endpoint.ts";
import { AgentAdapterInvalid, CliSubscriptionNotOptedIn, ComplianceReportMissing } from "./errors.ts";
import { describeEnv, redactArgv } from "./redaction.ts";
import type { WorkspaceSpec } from "./scratch.ts";
import { executeTrial } from "./trial.ts";
import { limitHitDetail, SandboxUnavailable, sandboxSupport } from "@eval/sandbox";
import type { ResourceLimits } from "@eval/sandbox";
import type { CaseBudget, RecordedExchange, ReplayMatcher, SpendLedger } from "@eval/model-bridge";
import { resolveUpstream } from "./agent-network.ts";
import type { AgentNetwork, AgentNetworkRecord, BridgeSettings, RelayChoice } from "./agent-network.ts";

/** Flags that would hand the agent more power than a reviewed eval may: never passed, whoever asks. */
const FORBIDDEN_ARG = /(dangerously|yolo|bypass|^--(shell|bash|eval|repl|code-act)\b|^-y$)/i;

/** The backend metadata's isolation for each sandbox mode. */
export const ISOLATION_TAGS = { bwrap: "cli_subscription_bwrap", none: "cli_subscription_unsandboxed" } as const;
export const BACKEND_CAPABILITIES = Object.freeze(["agent_loop_external", "host_fs_visible"] as const);

export interface CliSubscriptionBackendOptions {
  readonly adapter: AgentAdapterName;
  /** Acknowledges the backend is experimental. */
  readonly allow_cli_subscription: boolean;
  /** The sandboxed CLI's process-count, memory and disk limits (default: @eval/sandbox's defaultLimits()). */
  readonly resourceLimits?: ResourceLimits;
  /** Acknowledges the CLI runs its own agent loop unsandboxed on this host (required with `sandbox: "none"`). */
  readonly acknowledge_unsandboxed_cli: boolean;
  /**
   * `bwrap` (default): the CLI runs in the bubblewrap sandbox, seeing its workspace, a temporary HOME with
   * copies of its own login files (the adapter's `homeFiles`), its installation and the network; refused
   * (SandboxUnavailable) where the sandbox cannot run. `none`: on the host, as the user.
   */
  readonly sandbox?: "bwrap" | "none";
  /**
   * `bridge` (the default in the sandbox): the CLI's own network namespace, loopback only, whose one way
   * out is evalgate's model bridge holding the real key. `host`: the host's network and copies of the CLI's
   * login files (a subscription login); needs both opt-ins. Without the sandbox it is always `host`.
   */
  readonly agent_network?: AgentNetwork;
  /** Where the bridge sends model calls (a gateway, a local model server); default the provider's API. */
  readonly model_upstream?: string;
  /** Only ever answers from recordings (wire replay): no upstream, no key needed. */
  readonly replay_only?: boolean;
  /** The relay in the sandbox: `auto` (default) uses socat when it is installed, else the Node relay; `node` always the Node relay. */
  readonly relay?: RelayChoice;
  /** What one case trial may spend through the bridge. */
  readonly case_budget?: CaseBudget;
  /** The run's spend, shared by every case: the run's cost cap enforced per model call. */
  readonly spend_ledger?: SpendLedger;
  /** Run without a fresh passing compliance report (a loud warning is emitted). */
  readonly allow_stale_compliance?: boolean;
  /** `<state>/compliance`: where `runComplianceCheck` wrote its reports. */
  readonly complianceDir: string;
  /** The CLI's path; looked up on PATH when absent. */
  readonly binaryPath?: string;
  /** The host environment the CLI's allowlisted variables come from (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra CLI flags (e.g. `--model x`); permission-bypass, shell and eval flags are refused. */
  readonly extra_args?: readonly string[];
  readonly graceMs?: number;
  readonly stdoutCapBytes?: number;
  readonly lingerAfterTerminalMs?: number;
  readonly onWarning?: WarningSink;
  readonly now?: () => Date;
}

export interface BackendTask {
  readonly prompt: string;
  readonly workspace: WorkspaceSpec;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Extra variables for the CLI (e.g. EVALGATE_BENCH_INVOCATION_TAG); never secrets. */
  readonly env?: Readonly<Record<string, string>>;
  /** Copied into the transcript's `source.labels`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Answer model calls from a recording instead of the upstream (bridge mode only). */
  readonly replay?: ReplayMatcher;
}

/** One trial's result. Every field is safe to record: secrets are scrubbed, env is names only. */
export interface TrialResult {
  readonly adapter: AgentAdapterName;
  readonly cli_version: string;
  readonly isolation: (typeof ISOLATION_TAGS)[keyof typeof ISOLATION_TAGS];
  readonly capabilities: readonly string[];
  readonly classification: TrialClassification;
  readonly safety: SafetyDetection;
  readonly transcript: Transcript;
  readonly cost_usd: number | null;
  /** Unified diff of the editable files the CLI changed (already copied back into the workspace). */
  readonly diff: string;
  /** Raw stdout stream (secrets scrubbed), for cassettes and forensics; partial when capped. */
  readonly stdout: string;
  readonly stderr: string;
  readonly backend_metadata: CliBackendMetadata;
  /** What the agent could reach, the upstream host, whether the key was withheld, and the metered figures. */
  readonly agent_network: AgentNetworkRecord;
  /** The model exchanges through the bridge, secrets removed (what a wire cassette holds). */
  readonly exchanges: readonly RecordedExchange[];
  /** The sandbox limit the CLI hit (which, its value, cgroup or rlimit), or null. */
  readonly resource_limit: string | null;
}

/**
 * Drives one agent CLI as a subprocess. Construction is the gate: it refuses without both opt-in flags,
 * resolves the binary and reads its version once (recorded on every result), and requires a compliance
 * report for that exact binary path and version, at most 30 days old, passing at least 99% of the benign
 * suite (`allow_stale_compliance` overrides with a loud warning). Nothing here is a sandbox.
 */
export class CliSubscriptionBackend {
  readonly adapter: AgentAdapter;
  readonly binaryPath: string;
  readonly cliVersion: string;
  readonly complianceReportPath: string | null;
  readonly staleOverride: boolean;
  /** The origin model calls go to (null for a replay-only backend: none go anywhere). */
  readonly endpointOrigin: string | null;
  /** Where the CLI runs its sessions. */
  readonly sandbox: "bwrap" | "none";
  readonly agentNetwork: AgentNetwork;
  readonly #bridge: BridgeSettings | null;
  readonly #options: CliSubscriptionBackendOptions;
  readonly #hostEnv: Readonly<Record<string, string | undefined>>;

  constructor(options: CliSubscriptionBackendOptions) {
    this.sandbox = options.sandbox ?? "bwrap";
    if (this.sandbox === "none" && options.agent_network === "bridge") {
      throw new AgentAdapterInvalid(
        "the model bridge needs the sandbox (its network namespace is the sandbox's): drop --sandbox none, or use --agent-network host",
        { adapter: options.adapter },
      );
    }
    this.agentNetwork = this.sandbox === "none" ? "host" : (options.agent_network ?? "bridge");
    const missing = [
      ...(options.allow_cli_subscription === true ? [] : ["allow_cli_subscription"]),
      // The host's network (and its login files) is the unsandboxed risk the second opt-in acknowledges.
      ...(options.acknowledge_unsandboxed_cli === true || this.agentNetwork === "bridge"
        ? []
        : ["acknowledge_unsandboxed_cli"]),
    ];
    if (missing.length > 0) throw new CliSubscriptionNotOptedIn(missing);
    if (this.sandbox === "bwrap") {
      const support = sandboxSupport();
      if (!support.available) throw new SandboxUnavailable(`the ${options.adapter} CLI`, support.reason);
    }
    this.#options = options;
    this.adapter = getAdapter(options.adapter);
    this.#bridge =
      this.agentNetwork === "bridge"
        ? {
            // A replay-only bridge answers every call from its recording; nothing is ever sent to this address.
            upstream:
              options.replay_only === true
                ? { baseUrl: "http://replay.invalid", apiKey: null }
                : resolveUpstream(options.adapter, options.env ?? process.env, options.model_upstream),
            ...(options.case_budget === undefined ? {} : { budget: options.case_budget }),
            ...(options.spend_ledger === undefined ? {} : { ledger: options.spend_ledger }),
            ...(options.relay === undefined ? {} : { relay: options.relay }),
          }
        : null;
    for (const arg of options.extra_args ?? []) {
      if (FORBIDDEN_ARG.test(arg)) {
        throw new AgentAdapterInvalid(
          `extra CLI argument "${redactArgv([arg])[0]}" is refused: evalgate never enables permission bypass, shell, eval or REPL modes`,
          {
            adapter: options.adapter,
          },
        );
      }
    }
    this.#hostEnv = options.env ?? process.env;
    this.binaryPath = resolveBinary(this.adapter, { binaryPath: options.binaryPath, env: this.#hostEnv });
    this.cliVersion = readVersion(this.adapter, this.binaryPath, buildCliEnv(this.adapter, this.#hostEnv));
    // The endpoint the compliance report must have been earned against: where this backend's model calls go.
    this.endpointOrigin =
      options.replay_only === true
        ? null
        : this.#bridge === null
          ? endpointOrigin(this.adapter.name, buildCliEnv(this.adapter, this.#hostEnv))
          : originOf(this.#bridge.upstream.baseUrl);
    const lookup = {
      complianceDir: options.complianceDir,
      adapter: this.adapter.name,
      binaryPath: this.binaryPath,
      cliVersion: this.cliVersion,
      now: (options.now ?? (() => new Date()))(),
      endpointOrigin: this.endpointOrigin,
    };
    if (options.allow_stale_compliance === true) {
      let reason: string | null = null;
      try {
        this.complianceReportPath = verifyRecentCompliance(lookup).reportPath;
      } catch (error) {
        reason = (error as Error).message;
        this.complianceReportPath = findLatestComplianceReport(lookup)?.reportPath ?? null;
      }
      this.staleOverride = reason !== null;
      if (reason !== null) {
        (options.onWarning ?? ignoreWarnings)({
          code: "adapter.compliance_overridden",
          message: `!!! COMPLIANCE GATE OVERRIDDEN for ${this.adapter.name} ${this.cliVersion} (${this.binaryPath}): ${reason}. Results from this CLI have NOT been shown parseable; treat them as unverified. !!!`,
          details: {
            adapter: this.adapter.name,
            binaryPath: this.binaryPath,
            cliVersion: this.cliVersion,
            reportPath: this.complianceReportPath,
          },
        });
      }
    } else {
      this.complianceReportPath = verifyRecentCompliance(lookup).reportPath;
      this.staleOverride = false;
    }
  }

  /**
   * The scenario digest of the endpoint model calls go to, when it is evalgate's model stub (null
   * otherwise), checked against the compliance report's: a report earned against one script does not
   * admit runs against another (ComplianceReportMissing; with `allow_stale_compliance`, a loud warning).
   */
  async endpointScenario(): Promise<string | null> {
    if (this.endpointOrigin === null) return null;
    const served = (await endpointIdentity(this.endpointOrigin)).scenario_sha256;
    const report = this.complianceReportPath === null ? null : readComplianceReport(this.complianceReportPath);
    const earned = report?.endpoint.scenario_sha256 ?? null;
    if (report === null || earned === served) return served;
    const why = `the compliance report ${this.complianceReportPath} was earned against ${earned ?? "no scripted scenario"} at ${this.endpointOrigin}, which now serves ${served ?? "no scripted scenario"}`;
    if (this.#options.allow_stale_compliance !== true)
      throw new ComplianceReportMissing(this.adapter.name, this.binaryPath, this.cliVersion, why);
    (this.#options.onWarning ?? ignoreWarnings)({
      code: "adapter.compliance_overridden",
      message: `!!! COMPLIANCE GATE OVERRIDDEN for ${this.adapter.name} ${this.cliVersion}: ${why}. Results from this CLI have NOT been shown to do the tasks against this endpoint; treat them as unverified. !!!`,
      details: { adapter: this.adapter.name, reportPath: this.complianceReportPath, earned, served },
    });
    return served;
  }

  /** Runs one session in a scratch copy of the declared files; changed editable files are copied back. */
  async run(task: BackendTask): Promise<TrialResult> {
    const env = buildCliEnv(this.adapter, this.#hostEnv, task.env ?? {});
    const run = await executeTrial({
      adapter: this.adapter,
      binaryPath: this.binaryPath,
      cliVersion: this.cliVersion,
      prompt: task.prompt,
      workspace: task.workspace,
      env,
      extraArgs: this.#options.extra_args ?? [],
      sandbox:
        this.sandbox === "bwrap"
          ? {
              hostHome: this.#hostEnv.HOME,
              ...(this.#options.resourceLimits === undefined ? {} : { limits: this.#options.resourceLimits }),
            }
          : null,
      ...(this.#bridge === null
        ? {}
        : { bridge: { ...this.#bridge, ...(task.replay === undefined ? {} : { replay: task.replay }) } }),
      ...(task.labels === undefined ? {} : { labels: task.labels }),
      limits: {
        timeoutMs: task.timeoutMs,
        ...(task.signal === undefined ? {} : { signal: task.signal }),
        ...(this.#options.graceMs === undefined ? {} : { graceMs: this.#options.graceMs }),
        ...(this.#options.stdoutCapBytes === undefined ? {} : { stdoutCapBytes: this.#options.stdoutCapBytes }),
        ...(this.#options.lingerAfterTerminalMs === undefined
          ? {}
          : { lingerAfterTerminalMs: this.#options.lingerAfterTerminalMs }),
      },
    });
    const metadata = parseWire(CliBackendMetadataSchema, {
      backend_kind: "cli_subscription",
      isolation: ISOLATION_TAGS[this.sandbox],
      capabilities: [...BACKEND_CAPABILITIES],
      adapter: this.adapter.name,
      cli_binary_path: this.binaryPath,
      cli_version: this.cliVersion,
      argv_redacted: [...run.argvRedacted],
      exit_code: run.outcome.exitCode,
      exit_signal: run.outcome.exitSignal,
      timed_out: run.outcome.timedOut,
      stdout_capped: run.outcome.stdoutCapped,
      stdout_bytes: run.outcome.stdoutBytes,
      stderr_bytes: run.outcome.stderrBytes,
      duration_ms: run.outcome.durationMs,
      env_allowlist: describeEnv(env),
      compliance_report_path: this.complianceReportPath,
      compliance_stale_override: this.staleOverride,
      changed_files: [...run.changedFiles],
      undeclared_changes: [...run.undeclaredChanges],
    });
    if (run.binaryChanges.length > 0) {
      (this.#options.onWarning ?? ignoreWarnings)({
        code: "adapter.binary_changes_not_in_diff",
        message: `${run.binaryChanges.length} binary or large file(s) changed; they were copied back but a unified diff cannot carry them: ${run.binaryChanges.join(", ")}`,
      });
    }
    return {
      adapter: this.adapter.name,
      cli_version: this.cliVersion,
      isolation: ISOLATION_TAGS[this.sandbox],
      capabilities: [...BACKEND_CAPABILITIES],
      classification: run.classification,
      safety: run.safety,
      transcript: run.transcript,
      cost_usd: run.facts.costUsd,
      diff: run.diff,
      stdout: run.stdoutText,
      stderr: run.stderrText,
      backend_metadata: metadata,
      agent_network: run.network,
      exchanges: run.exchanges,
      resource_limit: limitHitDetail(run.outcome),
    };
  }
}
