// What network an agent CLI gets. `bridge` (the default in the sandbox): its own network namespace with
// loopback only, where a relay on 127.0.0.1 leads to evalgate's model bridge on the host, which holds the
// real key. `host`: the host's network, for subscription logins (both opt-ins).
import { randomBytes } from "node:crypto";
import { lchownSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvalError } from "@eval/errors";
import type { AgentAdapterName } from "@eval/models";
import { findSocat, RELAY_PORT, relayInvocation, startModelBridge } from "@eval/model-bridge";
import { sandboxOwner } from "@eval/sandbox";
import type {
  BudgetStop,
  CaseBudget,
  MeteredFigures,
  RecordedExchange,
  ReplayDivergence,
  ReplayMatcher,
  SpendLedger,
  UnreachableUpstream,
  Upstream,
} from "@eval/model-bridge";
import { BRIDGE_TARGETS } from "./bridge-targets.ts";
import { requireUpstreamUrl } from "./endpoint.ts";
import type { BridgeTarget } from "./bridge-targets.ts";

export type AgentNetwork = "bridge" | "host";

/**
 * Behind the bridge the CLI's workspace and HOME sit at these paths inside its sandbox, whatever their
 * host paths: a recorded session's absolute paths (in tool calls the model answered) hold on replay.
 */
export const AGENT_WORKSPACE = "/workspace";
export const AGENT_HOME = "/home/agent";

/** What a trial records about the agent's network: what it could reach and what it spent there. */
export interface AgentNetworkRecord {
  readonly agent_network: AgentNetwork;
  /** The host model calls went to (null with the host's network, or a replay: nothing went out). */
  readonly upstream_host: string | null;
  /** True when the real key never entered the sandbox (bridge mode). */
  readonly key_withheld: boolean;
  readonly metered: MeteredFigures | null;
  readonly budget_stop: BudgetStop | null;
  readonly replay_divergence: ReplayDivergence | null;
  /** The first model call the bridge could not connect upstream for: the agent's infrastructure failed. */
  readonly upstream_unreachable: UnreachableUpstream | null;
}

export const HOST_NETWORK_RECORD: AgentNetworkRecord = Object.freeze({
  agent_network: "host",
  upstream_host: null,
  key_withheld: false,
  metered: null,
  budget_stop: null,
  replay_divergence: null,
  upstream_unreachable: null,
});

/** Bridge settings of one backend: where model calls go and what a case may spend. */
export interface BridgeSettings {
  readonly upstream: Upstream;
  readonly budget?: CaseBudget;
  /** The run's spend, shared by all its cases (the run's cost cap, enforced per request). */
  readonly ledger?: SpendLedger;
  readonly relay?: RelayChoice;
}

/** Which relay serves in the sandbox: `auto`, socat when it is installed (else Node); `node`, the Node relay. */
export type RelayChoice = "auto" | "node";

/** How an adapter's CLI is pointed at the bridge; refused for a CLI that cannot run behind it yet. */
function bridgeTarget(adapter: AgentAdapterName): BridgeTarget {
  const target = BRIDGE_TARGETS[adapter];
  if (target === undefined)
    throw new EvalError(
      "EVAL_ADAPTER_INVALID",
      `the ${adapter} CLI cannot run behind evalgate's model bridge yet: pass --agent-network host (with both opt-ins)`,
    );
  return target;
}

/**
 * The upstream for an adapter: `baseUrl` when given (keyless unless the provider's key variable is set),
 * else the provider's API, which needs the key from the host environment (refused without one, naming it).
 */
export function resolveUpstream(
  adapter: AgentAdapterName,
  hostEnv: Readonly<Record<string, string | undefined>>,
  baseUrl?: string,
): Upstream {
  const target = bridgeTarget(adapter);
  const key = target.keyEnv.map((name) => hostEnv[name]).find((value) => value !== undefined && value !== "") ?? null;
  if (baseUrl !== undefined) {
    requireUpstreamUrl(baseUrl);
    return { baseUrl, apiKey: key };
  }
  if (key === null) {
    throw new EvalError(
      "EVAL_MODEL_KEY_MISSING",
      `the ${adapter} CLI runs behind evalgate's model bridge, which needs the provider's key: none of ${target.keyEnv.join(", ")} is set`,
      {
        details: { adapter, keyEnv: target.keyEnv },
      },
    );
  }
  return { baseUrl: target.defaultUpstream, apiKey: key };
}

export interface OpenedBridge {
  /** Variables pointing the CLI at the relay, with the case's dummy key. */
  readonly env: Readonly<Record<string, string>>;
  /** Flags the CLI needs behind the bridge, appended after its own. */
  readonly args: readonly string[];
  /** The directory holding the bridge's socket: shown read-only in the sandbox. */
  readonly socketDir: string;
  /** The dummy key (scrubbed from what is recorded, like any key). */
  readonly clientKey: string;
  /** `command args` started behind the relay. */
  wrap(command: string, args: readonly string[]): { readonly command: string; readonly args: readonly string[] };
  /** Stops the bridge; what it metered, and every exchange. */
  finish(): Promise<{ readonly record: AgentNetworkRecord; readonly exchanges: readonly RecordedExchange[] }>;
}

/**
 * Starts a bridge for one trial: a socket in a fresh 0700 directory, a per-trial dummy key, and the CLI's
 * settings (files written into its temporary `home`). `onStop` fires when the bridge refuses a call for
 * budget, a replay departs from its recording, or the upstream cannot be connected to: the caller ends the session.
 */
export async function openBridge(options: {
  readonly adapter: AgentAdapterName;
  readonly home: string;
  readonly settings: BridgeSettings;
  /** The flags the CLI runs with (its model is read from `--model`). */
  readonly cliArgs: readonly string[];
  readonly replay?: ReplayMatcher;
  readonly onStop: () => void;
}): Promise<OpenedBridge> {
  const target = bridgeTarget(options.adapter);
  const socketDir = realpathSync(mkdtempSync(join(tmpdir(), "evalgate-bridge-")));
  const socketPath = join(socketDir, "model.sock");
  const clientKey = `evalgate-case-${randomBytes(18).toString("hex")}`;
  const bridge = await startModelBridge({
    socketPath,
    upstream: options.settings.upstream,
    localPrefix: target.localPrefix,
    clientKey,
    ...(options.settings.budget === undefined ? {} : { budget: options.settings.budget }),
    ...(options.settings.ledger === undefined ? {} : { ledger: options.settings.ledger }),
    ...(options.replay === undefined ? {} : { replay: options.replay }),
    onBudgetStop: options.onStop,
    onDivergence: options.onStop,
    onUnreachable: options.onStop,
  });
  // As root the sandboxed relay runs as the sandbox's unprivileged uid: the socket must be its to connect to.
  const owner = sandboxOwner();
  if (owner !== null) for (const path of [socketDir, socketPath]) lchownSync(path, owner.uid, owner.gid);
  const config = target.configure(options.home, `http://127.0.0.1:${RELAY_PORT}`, clientKey, options.cliArgs);
  return {
    env: config.env,
    args: config.args ?? [],
    socketDir,
    clientKey,
    wrap: (command, args) =>
      relayInvocation(
        {
          nodePath: realpathSync(process.execPath),
          socatPath: options.settings.relay === "node" ? null : findSocat(),
          socketPath,
        },
        command,
        args,
      ),
    async finish() {
      await bridge.close();
      rmSync(socketDir, { recursive: true, force: true });
      return {
        record: {
          agent_network: "bridge",
          upstream_host: options.replay === undefined ? new URL(options.settings.upstream.baseUrl).host : null,
          key_withheld: true,
          metered: bridge.figures(),
          budget_stop: bridge.budgetStop(),
          replay_divergence: bridge.divergence(),
          upstream_unreachable: bridge.unreachable(),
        },
        exchanges: bridge.exchanges(),
      };
    },
  };
}
