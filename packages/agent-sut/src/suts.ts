import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { blake3Digest, treeDigest } from "@eval/hashing";
import type { AgentAdapterName, SutCase, SutInvocation, SutOutput, SystemUnderTest, TaskAgent } from "@eval/models";
import type { WarningSink } from "@eval/errors";
import { EvalError, ignoreWarnings } from "@eval/errors";
import {
  agentArgsFor,
  AgentBudgetExceeded,
  AgentInfrastructureFailure,
  AgentResourceLimit,
  AgentTrialFailed,
  applyUnifiedDiff,
  binarySha256,
  buildAgentPrompt,
  CassetteInvalid,
  CliSubscriptionBackend,
  getAdapter,
  installationOf,
  judgeSession,
  promptSha256,
} from "@eval/cli-subscription-adapters";
import type { AgentNetworkRecord, CliSubscriptionBackendOptions, TrialResult } from "@eval/cli-subscription-adapters";
import { readCassette, writeCassette } from "./cassette-files.ts";
import { refuseUneditableCases } from "./limits.ts";
import { logTranscript } from "./transcript-log.ts";
import { replayOnTheWire } from "./wire-replay.ts";
import type { WireReplayOptions } from "./wire-replay.ts";
import type { TranscriptLogOptions } from "./transcript-log.ts";

/**
 * The cassette directory of a case's trial: `<benchRoot>/<task-class>/cases/<id>/cassette/` for trial 0,
 * `cassette.trial-<t>/` for trial t (`--record --trials k` records k sessions). The invocation carries no path
 * into the bench (a SUT must not learn where expected/ is), so replay and recording, which are harness code,
 * find it from the bench root they were built with.
 */
export function cassetteDirOf(benchRoot: string, invocation: Pick<SutInvocation, "benchCase" | "trial">): string {
  const trial = invocation.trial ?? 0;
  return join(
    benchRoot,
    invocation.benchCase.task_class,
    "cases",
    invocation.benchCase.case_id,
    trial === 0 ? "cassette" : `cassette.trial-${trial}`,
  );
}

/**
 * Refuses, before a run starts, a replay of more trials than a case has recorded sessions: each trial replays
 * its own cassette, never a repeat of another. Names the cases and how many sessions each has.
 */
function checkCassettesPerTrial(benchRoot: string, cases: readonly SutCase[], trials: number): void {
  if (trials === 1) return;
  const short = cases.flatMap((benchCase) => {
    let recorded = 0;
    while (recorded < trials && existsSync(cassetteDirOf(benchRoot, { benchCase, trial: recorded }))) recorded += 1;
    return recorded < trials ? [`${benchCase.case_id} (${recorded})`] : [];
  });
  if (short.length === 0) return;
  throw new EvalError(
    "EVAL_CASSETTES_TOO_FEW",
    `replay of ${trials} trials per case needs ${trials} recorded sessions per case; too few in ${short.slice(0, 5).join(", ")}${short.length > 5 ? ` and ${short.length - 5} more` : ""}`,
  );
}

/**
 * Refuses, before a recording run starts, to replace sessions already recorded (a signed bench's cassettes
 * are part of its cases' digests): names the cases, and says how to replace them on purpose.
 */
function refuseOverwritingCassettes(benchRoot: string, cases: readonly SutCase[], trials: number): void {
  const recorded = cases.filter((benchCase) =>
    Array.from({ length: trials }, (_, trial) => trial).some((trial) =>
      existsSync(cassetteDirOf(benchRoot, { benchCase, trial })),
    ),
  );
  if (recorded.length === 0) return;
  const names = recorded.slice(0, 5).map((benchCase) => benchCase.case_id);
  const signed = existsSync(join(benchRoot, recorded[0]!.task_class, "cases", "digests.yaml"));
  throw new EvalError(
    "EVAL_USAGE",
    `--record would replace the recorded sessions of ${recorded.length} case(s): ${names.join(", ")}${recorded.length > 5 ? ` and ${recorded.length - 5} more` : ""}`,
    {
      hint: `pass --record-overwrite to replace them${signed ? ", then re-sign the bench (evalgate bench sign): its digests cover the cassettes" : ""}, or select other cases with --cases`,
    },
  );
}

export interface LiveSutOptions extends Omit<CliSubscriptionBackendOptions, "adapter"> {
  readonly adapter: AgentAdapterName;
  /** What the task class declares about its agents (registration `agent`): the files a solution edits, per-adapter model and flags. */
  readonly task_agent?: TaskAgent | null;
  /** `--agent-model`: replaces the task class's model for this adapter. `extra_args` (`--agent-arg`) come after the class's flags. */
  readonly agent_model?: string;
  /** Where `--record` writes each case's cassette (`<benchRoot>/<task-class>/cases/<id>/cassette`). */
  readonly benchRoot: string;
  /** Write each successful session as the case's cassette (what `replay` reads). */
  readonly record?: boolean;
  /** With `record`: replace cassettes that exist (otherwise the run is refused before any case). */
  readonly record_overwrite?: boolean;
  /** Where each invocation's transcript line (and optional stream log) is written. */
  readonly transcriptLog?: TranscriptLogOptions;
  readonly onWarning?: WarningSink;
}

function outputOf(
  result: Pick<
    TrialResult,
    "adapter" | "cli_version" | "classification" | "safety" | "transcript" | "cost_usd" | "diff"
  >,
  extra: Record<string, unknown>,
): SutOutput {
  return {
    adapter: result.adapter,
    cli_version: result.cli_version,
    trial_class: result.classification.trial_class,
    classification: result.classification,
    safety: result.safety,
    diff: result.diff,
    transcript: result.transcript,
    ...(result.cost_usd === null ? {} : { cost_usd: result.cost_usd }),
    ...extra,
  };
}

/** The digest of an agent CLI's binary and its installation (its node_modules, or the file itself); refuses the SUT when unreadable. */
function agentInstallDigest(binaryPath: string): string {
  const real = realpathSync(binaryPath);
  try {
    return [...new Set([real, installationOf(real)])].map((path) => treeDigest(path)).join(",");
  } catch (error) {
    throw new EvalError(
      "EVAL_SUT_INVALID",
      `cannot digest the agent CLI's installation at ${installationOf(real)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): its identity, and so its cached scores, would be unknown`,
    );
  }
}

/**
 * `cli:<adapter>`: each case runs live through the CLI-subscription backend (constructed now, so a
 * missing opt-in, binary or compliance report fails before any case runs). A session that ends in a
 * CLI error (auth, network, timeout...) throws, which the runner records as `sut.exception`: there
 * is no agent work to score. With `record`, a session that produced a result becomes the case's cassette.
 */
export function createLiveSut(options: LiveSutOptions): SystemUnderTest {
  const taskAgent = options.task_agent ?? null;
  const extraArgs = agentArgsFor(getAdapter(options.adapter), taskAgent, {
    model: options.agent_model,
    args: options.extra_args,
  });
  const backend = new CliSubscriptionBackend({ ...options, extra_args: extraArgs });
  const adapter = backend.adapter;
  const probe = adapter.buildArgv("<prompt>", {
    workspaceDir: "<workspace>",
    insideSandbox: backend.sandbox === "bwrap",
  });
  // Read once, when the first session is recorded: the binary a cassette says it came from.
  let binaryDigest: string | null = null;
  // The scenario a scripted endpoint serves (null for any other), probed and checked against the compliance report before any case.
  let scenarioSha256: string | null = null;
  // The model and extra flags are part of what is evaluated: a different one is a different SUT.
  // What runs is the binary and its installation, by content: two CLIs printing the same --version differ here.
  const installed = agentInstallDigest(backend.binaryPath);
  const digest = blake3Digest(
    JSON.stringify({
      kind: "evalgate.live-sut.v2",
      adapter: adapter.name,
      cli_version: backend.cliVersion,
      installation: installed,
      argv: probe.args,
      ...(extraArgs.length === 0 ? {} : { extra_args: extraArgs }),
    }),
  );
  return {
    label: `cli:${adapter.name}`,
    digest,
    // In the sandbox the agent reaches only the model bridge, or (a subscription login) the host's network; with `--sandbox none` it runs on the host.
    isolation:
      backend.sandbox === "none" ? "process" : backend.agentNetwork === "bridge" ? "bwrap-bridge" : "bwrap-network",
    async preflight({ cases, trials }) {
      refuseUneditableCases(adapter, options.benchRoot, cases, taskAgent);
      if (options.record === true && options.record_overwrite !== true)
        refuseOverwritingCassettes(options.benchRoot, cases, trials);
      scenarioSha256 = await backend.endpointScenario();
    },
    async run(invocation) {
      const prompt = buildAgentPrompt(invocation.benchCase, invocation.canarySeed);
      assertStartable(adapter.name, backend.binaryPath);
      const result = await backend.run({
        prompt,
        workspace: { root: invocation.workspacePath, editable: ["."], readonly: [] },
        timeoutMs: invocation.timeoutMs,
        signal: invocation.signal,
        env: { EVALGATE_BENCH_INVOCATION_TAG: invocation.invocationTag },
        labels: { case_id: invocation.benchCase.case_id },
      });
      const meta = result.backend_metadata;
      invocation.recordStreams?.({ stdout: result.stdout, stderr: result.stderr });
      if (options.transcriptLog !== undefined)
        await logTranscript(options.transcriptLog, invocation, result.transcript, result.stdout);
      const network = result.agent_network;
      recordMetered(network, invocation);
      if (network.budget_stop !== null) {
        throw new AgentBudgetExceeded(
          `${network.budget_stop.reason}: the bridge refused model request ${network.budget_stop.refused_request} (${describeMetered(network)})`,
          network.metered?.cost_usd ?? 0,
        );
      }
      // The bridge could not connect to the model endpoint: a fact the harness observed, not the CLI's claim.
      if (network.upstream_unreachable !== null)
        throw new AgentInfrastructureFailure(
          `${adapter.name}: ${network.upstream_unreachable.error_code} connecting to the model endpoint ${network.upstream_unreachable.host} (model request ${network.upstream_unreachable.request})`,
        );
      if (result.classification.cli_error_kind === "spawn_failed")
        throw new AgentInfrastructureFailure(`${adapter.name}: ${result.classification.reason}`);
      if (result.resource_limit !== null)
        throw new AgentResourceLimit(result.resource_limit, network.metered?.cost_usd ?? result.cost_usd ?? 0);
      if (result.classification.trial_class === "cli_error") {
        throw new AgentTrialFailed(
          adapter.name,
          result.classification.cli_error_kind ?? "cli_error",
          result.classification.reason,
          {
            exit_code: meta.exit_code,
            timed_out: meta.timed_out,
          },
        );
      }
      if (options.record === true) {
        writeCassette(cassetteDirOf(options.benchRoot, invocation), {
          meta: {
            schema_version: "evalgate.cassette.v1",
            adapter: adapter.name,
            cli_version: result.cli_version,
            argv_redacted: [...meta.argv_redacted],
            prompt_sha256: promptSha256(prompt),
            exit_code: meta.exit_code,
            timed_out: meta.timed_out,
            stdout_capped: meta.stdout_capped,
            duration_ms: meta.duration_ms,
            cost_usd: result.cost_usd,
            recorded_at: new Date().toISOString(),
            synthetic: false,
            provenance: {
              cli_binary_sha256: (binaryDigest ??= binarySha256(backend.binaryPath)),
              agent_network: network.agent_network,
              endpoint_host: network.upstream_host,
              model_source: scenarioSha256 === null ? "live" : "scripted",
              ...(scenarioSha256 === null ? {} : { scenario_sha256: scenarioSha256 }),
            },
          },
          stdout: result.stdout,
          stderr: result.stderr,
          diff: result.diff,
          // Behind the bridge: the wire recording a replay answers the real CLI from.
          exchanges: network.agent_network === "bridge" ? result.exchanges : null,
        });
      }
      warnOnCostDisagreement(
        network,
        result.cost_usd,
        invocation.benchCase.case_id,
        options.onWarning ?? ignoreWarnings,
      );
      // The wire's figure when it is priced: the CLI's own is a self-report (and Codex and Gemini make none).
      const cost = network.metered?.cost_usd ?? result.cost_usd;
      return outputOf(
        { ...result, cost_usd: cost },
        { backend_metadata: meta, replayed: false, agent_network: network, cli_reported_cost_usd: result.cost_usd },
      );
    },
  };
}

/**
 * Before each session: the CLI the backend was built with is still there and executable, as the harness sees
 * it on the host (inside a sandbox, a CLI that cannot start is reported on the stream the agent shares).
 */
function assertStartable(adapterName: string, binaryPath: string): void {
  try {
    accessSync(binaryPath, constants.X_OK);
  } catch (error) {
    throw new AgentInfrastructureFailure(
      `${adapterName}: the CLI could not be started: ${binaryPath}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** Hands what the bridge metered on the wire to the harness (a live call behind the bridge; a replay spends nothing). */
function recordMetered(network: AgentNetworkRecord, invocation: SutInvocation): void {
  if (network.metered === null || network.upstream_host === null) return;
  invocation.recordMetered?.({ ...network.metered, upstream_host: network.upstream_host });
}

function describeMetered(network: AgentNetworkRecord): string {
  const metered = network.metered;
  if (metered === null) return "nothing metered";
  const cost = metered.cost_usd === null ? "cost unknown" : `$${metered.cost_usd.toFixed(4)}`;
  return `${metered.requests} request(s), ${metered.input_tokens} input (${metered.cached_input_tokens} cached) and ${metered.output_tokens} output tokens, ${cost}`;
}

/** A CLI's self-reported cost more than 20% (and a cent) away from the metered one is worth a warning. */
function warnOnCostDisagreement(
  network: AgentNetworkRecord,
  cliCost: number | null,
  caseId: string,
  warn: WarningSink,
): void {
  const metered = network.metered?.cost_usd ?? null;
  if (metered === null || cliCost === null) return;
  const gap = Math.abs(metered - cliCost);
  if (gap <= 0.01 || gap <= 0.2 * Math.max(metered, cliCost)) return;
  warn({
    code: "agent.cost_disagreement",
    message: `case ${caseId}: the CLI reported $${cliCost.toFixed(4)} but the bridge metered $${metered.toFixed(4)} from the responses' usage (the metered figure is recorded as the case's cost)`,
    details: { case_id: caseId, cli_reported_cost_usd: cliCost, metered_cost_usd: metered },
  });
}

/**
 * `replay`: reads the case's cassette through the same adapter parser and rules as a live run, refuses
 * a cassette whose prompt hash differs from `buildAgentPrompt(case, canarySeed)` (stale) and one that is
 * missing or malformed (both throw: the runner records `sut.exception`; never a live call), applies the
 * recorded workspace diff to the invocation's workspace (a diff that does not apply throws).
 */
export function createReplaySut(options: {
  readonly benchRoot: string;
  readonly onWarning?: WarningSink;
  readonly transcriptLog?: TranscriptLogOptions;
  /** Run the real CLI again against a cassette's wire recording, when it has one (else the recorded diff is applied). */
  readonly wire?: WireReplayOptions;
}): SystemUnderTest {
  const warn = options.onWarning ?? ignoreWarnings;
  const backends = new Map<AgentAdapterName, CliSubscriptionBackend>();
  const wire = options.wire;
  return {
    label: "replay",
    // Reading recorded sessions is evalgate's own code; a wire replay runs the real CLI behind the bridge.
    isolation: wire === undefined ? "harness" : "bwrap-bridge",
    digest: blake3Digest(wire === undefined ? "evalgate.replay-sut.v1" : "evalgate.replay-sut.wire.v1"),
    async preflight({ cases, trials }) {
      checkCassettesPerTrial(options.benchRoot, cases, trials);
    },
    async run(invocation) {
      const dir = cassetteDirOf(options.benchRoot, invocation);
      const cassette = readCassette(dir);
      const expected = promptSha256(buildAgentPrompt(invocation.benchCase, invocation.canarySeed));
      if (cassette.meta.prompt_sha256 !== expected) {
        throw new CassetteInvalid(
          `cassette ${dir} is stale: it was recorded for prompt ${cassette.meta.prompt_sha256}, but case ${invocation.benchCase.case_id} with this canary pin gives ${expected}`,
          { dir, recorded: cassette.meta.prompt_sha256, expected },
        );
      }
      if (invocation.signal.aborted) throw new Error("replay cancelled before it started");
      invocation.recordStreams?.({ stdout: cassette.stdout, stderr: cassette.stderr });
      if (wire !== undefined && cassette.exchanges != null) {
        const output = await replayOnTheWire(
          backends,
          wire,
          cassette,
          invocation,
          buildAgentPrompt(invocation.benchCase, invocation.canarySeed),
        );
        if (output.diff_matches_recording !== true) {
          warn({
            code: "replay.diff_differs",
            message: `case ${invocation.benchCase.case_id}: the replayed CLI left a different workspace diff than the recording`,
            details: { case_id: invocation.benchCase.case_id },
          });
        }
        return output;
      }
      const adapter = getAdapter(cassette.meta.adapter);
      const judged = judgeSession(
        adapter,
        cassette.stdout,
        {
          exitCode: cassette.meta.exit_code,
          timedOut: cassette.meta.timed_out,
          stdoutCapped: cassette.meta.stdout_capped,
          aborted: false,
          stderr: cassette.stderr,
          spawnError: null,
          authStatus: null,
        },
        { adapter: adapter.name, cli_version: cassette.meta.cli_version, case_id: invocation.benchCase.case_id },
      );
      if (judged.classification.trial_class !== "parse_success") {
        warn({
          code: "replay.cassette_not_clean",
          message: `cassette ${dir} replays as ${judged.classification.trial_class}: ${judged.classification.reason}`,
          details: { case_id: invocation.benchCase.case_id, trial_class: judged.classification.trial_class },
        });
      }
      if (options.transcriptLog !== undefined)
        await logTranscript(options.transcriptLog, invocation, judged.transcript, cassette.stdout);
      try {
        applyUnifiedDiff(invocation.workspacePath, cassette.diff);
      } catch (error) {
        throw new CassetteInvalid(`cassette ${dir}: ${(error as Error).message}`, { dir });
      }
      return outputOf(
        {
          adapter: adapter.name,
          cli_version: cassette.meta.cli_version,
          classification: judged.classification,
          safety: judged.safety,
          transcript: judged.transcript,
          // Replaying spends nothing; what the recorded session cost is kept beside it.
          cost_usd: 0,
          diff: cassette.diff,
        },
        { replayed: true, synthetic_cassette: cassette.meta.synthetic, recorded_cost_usd: cassette.meta.cost_usd },
      );
    },
  };
}
