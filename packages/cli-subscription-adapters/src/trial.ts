import type { SafetyDetection, Transcript, TrialClassification } from "@eval/models";
import { createTranscriptParser } from "@eval/tool-normalize";
import type { AgentAdapter, AuthStatus, ProcessFacts, StreamFacts } from "./adapter-contract.ts";
import { runProcess } from "@eval/sandbox";
import type { ProcessOutcome, ResourceLimits, SandboxPolicy } from "@eval/sandbox";
import { prepareAgentSandbox } from "./agent-sandbox.ts";
import type { AgentSandbox } from "./agent-sandbox.ts";
import { AGENT_HOME, AGENT_WORKSPACE, HOST_NETWORK_RECORD, openBridge } from "./agent-network.ts";
import type { AgentNetworkRecord, BridgeSettings, OpenedBridge } from "./agent-network.ts";
import type { RecordedExchange, ReplayMatcher } from "@eval/model-bridge";
import { redactArgv, scrubSecrets, secretValuesInArgv, secretValuesInEnv } from "./redaction.ts";
import { collectChanges, copyBack, prepareScratch, removeScratch } from "./scratch.ts";
import type { WorkspaceSpec } from "./scratch.ts";
import { unifiedDiff } from "./workspace-diff.ts";

export interface TrialLimits {
  readonly timeoutMs: number;
  readonly graceMs?: number;
  readonly stdoutCapBytes?: number;
  readonly lingerAfterTerminalMs?: number;
  readonly signal?: AbortSignal;
}

export interface TrialRun {
  readonly classification: TrialClassification;
  readonly safety: SafetyDetection;
  readonly transcript: Transcript;
  readonly facts: StreamFacts;
  readonly outcome: ProcessOutcome;
  /** stdout and stderr with secret values scrubbed: what may be recorded. */
  readonly stdoutText: string;
  readonly stderrText: string;
  readonly argvRedacted: readonly string[];
  readonly authStatus: AuthStatus | null;
  /** Unified diff of the editable files the CLI changed (copied back into the workspace). */
  readonly diff: string;
  readonly changedFiles: readonly string[];
  readonly undeclaredChanges: readonly string[];
  readonly binaryChanges: readonly string[];
  /** What the agent could reach, and what the bridge metered. */
  readonly network: AgentNetworkRecord;
  /** Every model exchange through the bridge (secrets removed); empty with the host's network. */
  readonly exchanges: readonly RecordedExchange[];
}

/** Decides a recorded or live session: the same parser and rules either way. */
export function judgeSession(
  adapter: AgentAdapter,
  stdoutText: string,
  proc: ProcessFacts,
  labels: Readonly<Record<string, string>>,
): { classification: TrialClassification; safety: SafetyDetection; transcript: Transcript; facts: StreamFacts } {
  const observer = adapter.observeStream();
  const parser = createTranscriptParser(adapter.streamFormat, { source: labels });
  const lines = stdoutText.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
    observer.push(clean);
    parser.push(clean);
  }
  const facts = observer.facts();
  return {
    classification: adapter.classify(facts, proc),
    safety: adapter.detectSafety(facts),
    transcript: parser.end(),
    facts,
  };
}

/** Runs the adapter's login check in its own process group, bounded by `timeoutMs`. */
export async function checkAuthStatus(
  adapter: AgentAdapter,
  binaryPath: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
  timeoutMs: number,
  signal?: AbortSignal,
  sandbox: SandboxPolicy | null = null,
): Promise<AuthStatus | null> {
  if (adapter.authStatus === undefined) return null;
  const outcome = await runProcess({
    command: binaryPath,
    args: adapter.authStatus.args,
    cwd,
    env,
    timeoutMs,
    graceMs: 1_000,
    stdoutCapBytes: 1024 * 1024,
    ...(signal === undefined ? {} : { signal }),
    sandbox,
  });
  if (outcome.spawnError !== null || outcome.timedOut || outcome.aborted) return "unknown";
  return adapter.authStatus.interpret(
    { stdout: outcome.stdout.toString("utf8"), stderr: outcome.stderr, exitCode: outcome.exitCode },
    env,
  );
}

const AUTH_CHECK_TIMEOUT_MS = 20_000;

/**
 * One live session: scratch directory with the declared files, the CLI under process control (and,
 * for CLIs whose stream cannot say "not logged in", their login check alongside: a logged-out answer
 * stops the session early), classification from the stream, changed editable files copied back.
 */
export async function executeTrial(options: {
  readonly adapter: AgentAdapter;
  readonly binaryPath: string;
  readonly cliVersion: string;
  readonly prompt: string;
  readonly workspace: WorkspaceSpec;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: TrialLimits;
  /** Appended after the adapter's own flags. */
  readonly extraArgs?: readonly string[];
  /** Copied into the transcript's `source.labels` (e.g. the case id). */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Run the CLI in the bubblewrap sandbox (see agent-sandbox.ts), with copies of its login files from
   * this HOME; null: a plain subprocess on the host (the two opt-ins' "unsandboxed" mode).
   */
  readonly sandbox?: { readonly hostHome: string | undefined; readonly limits?: ResourceLimits } | null;
  /**
   * In the sandbox: its own network namespace whose only way out is the model bridge (no login files are
   * copied; the CLI holds a dummy key). Absent: the host's network (a subscription login).
   */
  readonly bridge?: BridgeSettings & { readonly replay?: ReplayMatcher };
  /** The CLI was pointed at a model endpoint with a key of evalgate's choosing: its own login does not matter. */
  readonly endpointPointed?: boolean;
}): Promise<TrialRun> {
  const { adapter, binaryPath, limits } = options;
  const scratch = await prepareScratch(options.workspace);
  const bridged = options.sandbox != null && options.bridge !== undefined;
  const sandbox =
    options.sandbox == null
      ? null
      : prepareAgentSandbox(
          adapter,
          binaryPath,
          scratch.dir,
          bridged ? withoutProviderEnv(adapter, options.env) : options.env,
          bridged ? undefined : options.sandbox.hostHome,
        );
  const stopEarly = new AbortController();
  let bridge: OpenedBridge | null = null;
  let finished: { network: AgentNetworkRecord; exchanges: readonly RecordedExchange[] } | null = null;
  try {
    if (bridged && sandbox !== null) {
      // A refused call (budget, replay divergence, unreachable upstream) makes every CLI stop within a fraction of a second; one that does not is stopped.
      bridge = await openBridge({
        adapter: adapter.name,
        home: sandbox.home,
        settings: options.bridge!,
        cliArgs: options.extraArgs ?? [],
        ...(options.bridge!.replay === undefined ? {} : { replay: options.bridge!.replay }),
        onStop: () => setTimeout(() => stopEarly.abort(), STOP_AFTER_REFUSAL_MS).unref(),
      });
    }
    const env =
      sandbox === null
        ? options.env
        : bridge === null
          ? sandbox.env
          : { ...sandbox.env, ...bridge.env, HOME: AGENT_HOME };
    const base = adapter.buildArgv(options.prompt, {
      workspaceDir: bridge === null ? scratch.dir : AGENT_WORKSPACE,
      insideSandbox: sandbox !== null,
    });
    const built = { ...base, args: [...base.args, ...(options.extraArgs ?? []), ...(bridge?.args ?? [])] };
    const cliEnv = { ...env, ...built.env };
    const secrets = [...secretValuesInEnv(cliEnv), ...secretValuesInArgv(built.args)];
    const observer = adapter.observeStream();
    const stopAuthCheck = new AbortController();
    const onOuterAbort = (): void => {
      stopEarly.abort();
      stopAuthCheck.abort();
    };
    limits.signal?.addEventListener("abort", onOuterAbort, { once: true });
    if (limits.signal?.aborted) onOuterAbort();

    // Behind the bridge, or pointed at an endpoint, the CLI's own login does not matter (and a login check would say "logged out").
    const authCheck =
      adapter.capabilities.auth_visible_in_stream || bridge !== null || options.endpointPointed === true
        ? Promise.resolve(null)
        : checkAuthStatus(
            adapter,
            sandbox?.command ?? binaryPath,
            cliEnv,
            scratch.dir,
            Math.min(AUTH_CHECK_TIMEOUT_MS, limits.timeoutMs),
            stopAuthCheck.signal,
            sandbox?.policy ?? null,
          ).then((status) => {
            if (status === "logged_out") stopEarly.abort();
            return status;
          });
    const launched = launchSpec(sandbox, bridge, binaryPath, built.args, scratch.dir);
    const outcome = await runProcess({
      command: launched.command,
      args: launched.args,
      cwd: scratch.dir,
      env: cliEnv,
      ...(built.stdin === undefined ? {} : { stdin: built.stdin }),
      timeoutMs: limits.timeoutMs,
      ...(limits.graceMs === undefined ? {} : { graceMs: limits.graceMs }),
      ...(limits.stdoutCapBytes === undefined ? {} : { stdoutCapBytes: limits.stdoutCapBytes }),
      ...(limits.lingerAfterTerminalMs === undefined ? {} : { lingerAfterTerminalMs: limits.lingerAfterTerminalMs }),
      signal: stopEarly.signal,
      onStdoutLine: (line) => observer.push(line),
      sandbox:
        launched.policy === null || options.sandbox?.limits === undefined
          ? launched.policy
          : { ...launched.policy, limits: options.sandbox.limits },
    });
    if (bridge !== null) {
      const closed = await bridge.finish();
      finished = { network: closed.record, exchanges: closed.exchanges };
    }
    // A session that reached its success result needs no login verdict: do not wait for one.
    if (observer.facts().terminal?.success === true) stopAuthCheck.abort();
    const authStatus = await authCheck;
    limits.signal?.removeEventListener("abort", onOuterAbort);
    const outerAborted = limits.signal?.aborted === true;

    const stdoutText = scrubSecrets(outcome.stdout.toString("utf8"), secrets);
    const stderrText = scrubSecrets(outcome.stderr, secrets);
    const judged = judgeSession(
      adapter,
      stdoutText,
      {
        exitCode: outcome.exitCode,
        timedOut: outcome.timedOut,
        stdoutCapped: outcome.stdoutCapped,
        // Stopped because the login check said "logged out" is not a user cancellation.
        aborted: outcome.aborted && outerAborted,
        stderr: stderrText,
        spawnError: outcome.spawnError,
        authStatus,
      },
      { ...options.labels, adapter: adapter.name, cli_version: options.cliVersion },
    );
    const changes = await collectChanges(scratch);
    const { copied, undeclared } = await copyBack(scratch, options.workspace.root, changes);
    const { diff, binaryPaths } = unifiedDiff(copied);
    return {
      ...judged,
      outcome,
      stdoutText,
      stderrText,
      argvRedacted: redactArgv(built.args),
      authStatus,
      diff,
      changedFiles: copied.map((change) => change.path),
      undeclaredChanges: undeclared.map((change) => change.path),
      binaryChanges: binaryPaths,
      network: finished?.network ?? HOST_NETWORK_RECORD,
      exchanges: finished?.exchanges ?? [],
    };
  } finally {
    if (bridge !== null && finished === null) await bridge.finish();
    await removeScratch(scratch);
    sandbox?.remove();
  }
}

/** How long a CLI may take to stop by itself after the bridge refused its call. */
const STOP_AFTER_REFUSAL_MS = 250;

/** What starts the CLI: on the host, in the sandbox, or in the sandbox behind the relay with no network but the bridge's socket. */
function launchSpec(
  sandbox: AgentSandbox | null,
  bridge: OpenedBridge | null,
  binaryPath: string,
  args: readonly string[],
  workspace: string,
): { command: string; args: readonly string[]; policy: SandboxPolicy | null } {
  if (sandbox === null) return { command: binaryPath, args, policy: null };
  if (bridge === null) return { command: sandbox.command, args, policy: sandbox.policy };
  const wrapped = bridge.wrap(sandbox.command, args);
  // Workspace and HOME at fixed paths (not at their host paths), the bridge's socket, and no network.
  const policy: SandboxPolicy = {
    ...sandbox.policy,
    network: false,
    readOnly: [...(sandbox.policy.readOnly ?? []), bridge.socketDir],
    writable: (sandbox.policy.writable ?? []).filter((path) => path !== workspace && path !== sandbox.home),
    binds: [
      { source: workspace, target: AGENT_WORKSPACE },
      { source: sandbox.home, target: AGENT_HOME },
    ],
    chdir: AGENT_WORKSPACE,
  };
  return { command: wrapped.command, args: wrapped.args, policy };
}

/** The CLI's environment without its provider's variables (keys, base URLs) or proxies: the bridge sets what it needs. */
function withoutProviderEnv(adapter: AgentAdapter, env: Readonly<Record<string, string>>): Record<string, string> {
  const provider = (name: string): boolean =>
    adapter.envPassthrough.some((pattern) => (pattern.endsWith("_") ? name.startsWith(pattern) : name === pattern));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !provider(name) && !/_proxy$/i.test(name)));
}
