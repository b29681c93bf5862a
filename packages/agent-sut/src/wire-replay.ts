// `--sut replay` on a cassette recorded behind the bridge: the real CLI runs again in its sandbox, and the
// bridge answers each of its model calls from the recording instead of any upstream (the CLI's workspace
// and HOME sit at the same fixed paths as when it was recorded). A call the recording does not hold ends the
// case as `replay.diverged`, naming the first differing field.
import type { AgentAdapterName, SutInvocation, SutOutput } from "@eval/models";
import { createReplayMatcher } from "@eval/model-bridge";
import { AgentTrialFailed, CliSubscriptionBackend, ReplayDiverged } from "@eval/cli-subscription-adapters";
import type { CliSubscriptionBackendOptions } from "@eval/cli-subscription-adapters";
import type { Cassette } from "./cassette-files.ts";

/** What a wire replay needs to start the real CLI (its opt-in and compliance gate apply as for a live run). */
export type WireReplayOptions = Omit<
  CliSubscriptionBackendOptions,
  "adapter" | "agent_network" | "model_upstream" | "replay_only" | "binaryPath" | "case_budget" | "spend_ledger"
> & {
  /** Where each adapter's CLI is (else looked up on PATH). */
  readonly binaryPathOf?: (adapter: AgentAdapterName) => string | undefined;
};

/** Runs one case's recorded session again with the real CLI; the SUT output beside what was recorded. */
export async function replayOnTheWire(
  backends: Map<AgentAdapterName, CliSubscriptionBackend>,
  options: WireReplayOptions,
  cassette: Cassette,
  invocation: SutInvocation,
  prompt: string,
): Promise<SutOutput> {
  const adapter = cassette.meta.adapter;
  let backend = backends.get(adapter);
  if (backend === undefined) {
    const binaryPath = options.binaryPathOf?.(adapter);
    backend = new CliSubscriptionBackend({
      ...options,
      adapter,
      agent_network: "bridge",
      replay_only: true,
      ...(binaryPath === undefined ? {} : { binaryPath }),
    });
    backends.set(adapter, backend);
  }
  const result = await backend.run({
    prompt,
    workspace: { root: invocation.workspacePath, editable: ["."], readonly: [] },
    timeoutMs: invocation.timeoutMs,
    signal: invocation.signal,
    env: { EVALGATE_BENCH_INVOCATION_TAG: invocation.invocationTag },
    labels: { case_id: invocation.benchCase.case_id },
    replay: createReplayMatcher(cassette.exchanges ?? []),
  });
  const divergence = result.agent_network.replay_divergence;
  if (divergence !== null) {
    throw new ReplayDiverged(
      `request ${divergence.index + 1} to ${divergence.endpoint} differs from the recording at ${divergence.field}: recorded ${JSON.stringify(divergence.recorded)}, got ${JSON.stringify(divergence.received)}`,
    );
  }
  if (result.classification.trial_class === "cli_error") {
    throw new AgentTrialFailed(
      adapter,
      result.classification.cli_error_kind ?? "cli_error",
      result.classification.reason,
      { exit_code: result.backend_metadata.exit_code },
    );
  }
  return {
    adapter,
    cli_version: result.cli_version,
    trial_class: result.classification.trial_class,
    classification: result.classification,
    safety: result.safety,
    diff: result.diff,
    transcript: result.transcript,
    // Replaying spends nothing; what the recorded session cost is kept beside it.
    cost_usd: 0,
    replayed: true,
    wire_replay: true,
    recorded_cli_version: cassette.meta.cli_version,
    diff_matches_recording: result.diff === cassette.diff,
    recorded_cost_usd: cassette.meta.cost_usd,
    agent_network: result.agent_network,
  };
}
