// Which model endpoint a CLI talks to, as a compliance report and a recorded session name it: the
// origin (scheme, host, port; never a path or a key) and, for evalgate's scripted model stub, the
// digest of the scenario it serves.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvalError } from "@eval/errors";
import type { AgentAdapterName } from "@eval/models";
import { probeModelStub } from "@eval/model-stub";
import { BRIDGE_TARGETS } from "./bridge-targets.ts";

/** The variable each CLI reads its API's base URL from, where it has one (Codex and Pi take theirs from config files). */
const BASE_URL_ENV: Readonly<Partial<Record<AgentAdapterName, string>>> = {
  "claude-code": "ANTHROPIC_BASE_URL",
  gemini: "GOOGLE_GEMINI_BASE_URL",
};

/** The origin of an http(s) URL, or null when it is not one. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** Refuses a `--model-upstream` that is not an http(s) URL. */
export function requireUpstreamUrl(baseUrl: string): void {
  if (originOf(baseUrl) === null) {
    throw new EvalError("EVAL_USAGE", `--model-upstream must be an http(s) base URL, got "${baseUrl}"`, {
      hint: "e.g. --model-upstream https://gateway.example/v1",
    });
  }
}

/**
 * The origin the CLI sends model calls to: `modelUpstream` when given (the bridge's upstream, or where the
 * compliance check points the CLI), else its base-URL variable in `env`, else its provider's API. A CLI
 * pointed elsewhere by its own config files (Codex's config.toml, Pi's models.json) is not seen here.
 */
export function endpointOrigin(
  adapter: AgentAdapterName,
  env: Readonly<Record<string, string | undefined>>,
  modelUpstream?: string,
): string {
  const variable = BASE_URL_ENV[adapter];
  const candidates = [
    modelUpstream,
    variable === undefined ? undefined : env[variable],
    BRIDGE_TARGETS[adapter]?.defaultUpstream,
  ];
  for (const candidate of candidates) {
    const origin = candidate === undefined || candidate === "" ? null : originOf(candidate);
    if (origin !== null) return origin;
  }
  return "cli-default";
}

/** The endpoint's identity: its origin and, when it is evalgate's model stub (on loopback), its scenario's digest. */
export async function endpointIdentity(origin: string): Promise<{ origin: string; scenario_sha256: string | null }> {
  return { origin, scenario_sha256: await probeModelStub(origin) };
}

/**
 * Points the CLI at `baseUrl` (for a compliance check run on the host): a fresh HOME holding the config
 * files the CLI reads its endpoint from, a TMPDIR beside it (Codex refuses a HOME under TMPDIR), and the
 * variables and flags to pass. The CLI sends the provider's key from `hostEnv` when there is one, else a
 * placeholder (a scripted endpoint takes any).
 */
export function pointCliAt(
  adapter: AgentAdapterName,
  baseUrl: string,
  hostEnv: Readonly<Record<string, string | undefined>>,
  cliArgs: readonly string[],
): { env: Record<string, string>; args: readonly string[]; root: string } {
  // Every adapter has endpoint settings (the bridge's targets).
  const target = BRIDGE_TARGETS[adapter]!;
  const key =
    target.keyEnv.map((name) => hostEnv[name]).find((value) => value !== undefined && value !== "") ??
    "evalgate-no-key";
  const root = mkdtempSync(join(tmpdir(), "evalgate-compliance-cli-"));
  const home = join(root, "home");
  const tmp = join(root, "tmp");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(tmp, { mode: 0o700 });
  const base = baseUrl.replace(/\/+$/, "");
  // The target's settings add its own prefix (`/v1`) for OpenAI-style clients: give it the origin's base.
  const configured = target.configure(
    home,
    target.localPrefix !== "" && base.endsWith(target.localPrefix) ? base.slice(0, -target.localPrefix.length) : base,
    key,
    cliArgs,
  );
  return { env: { ...configured.env, HOME: home, TMPDIR: tmp }, args: configured.args ?? [], root };
}
