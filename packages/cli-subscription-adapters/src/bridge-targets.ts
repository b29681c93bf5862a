// How each CLI is pointed at the model bridge: the base URL setting (in its environment or its temporary
// HOME), the dummy key it holds, where its provider's API is, and where the real key is read on the host.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AgentAdapterName } from "@eval/models";

export interface BridgeTarget {
  /** The provider's API: the upstream when none is configured. */
  readonly defaultUpstream: string;
  /** Host variables the real key is read from, first found wins. */
  readonly keyEnv: readonly string[];
  /** The path prefix of the base URL the CLI is given (`/v1` for OpenAI-style clients). */
  readonly localPrefix: string;
  /**
   * Points the CLI at `baseUrl` holding `key`: writes its config files under `home` and returns the
   * variables to set. Never the real key. `cliArgs` are the flags the CLI is run with (e.g. `--model x`).
   */
  configure(home: string, baseUrl: string, key: string, cliArgs: readonly string[]): BridgeConfig;
}

export interface BridgeConfig {
  readonly env: Readonly<Record<string, string>>;
  /** Flags appended after the CLI's own (last, so they win over a user's `--provider`). */
  readonly args?: readonly string[];
}

function writeHomeFile(home: string, relative: string, content: string): void {
  const path = join(home, relative);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, content, { mode: 0o600 });
}

/** The variable Codex and Pi read their key from (named in their config, so no provider variable is needed). */
const MODEL_KEY_VAR = "EVALGATE_MODEL_KEY";

/** The provider name Pi's models.json gives the bridge. */
const PI_PROVIDER = "evalgate";
/** Pi's model behind the bridge when `--model` (evalgate's `--agent-model`) names none. */
export const PI_DEFAULT_MODEL = "gpt-5-mini";

/** The value of `--model x` or `--model=x` in `args` (the last one wins, as in the CLIs' parsers), or null. */
export function modelFlag(args: readonly string[]): string | null {
  let model: string | null = null;
  for (const [index, arg] of args.entries()) {
    if (arg === "--model" && index + 1 < args.length) model = args[index + 1]!;
    else if (arg.startsWith("--model=")) model = arg.slice("--model=".length);
  }
  return model;
}

/** The CLIs that can run behind the bridge, each pointed at it in its own way. */
export const BRIDGE_TARGETS: Readonly<Partial<Record<AgentAdapterName, BridgeTarget>>> = {
  "claude-code": {
    defaultUpstream: "https://api.anthropic.com",
    keyEnv: ["ANTHROPIC_API_KEY"],
    localPrefix: "",
    configure: (_home, baseUrl, key) => ({
      env: { ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: key, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    }),
  },
  codex: {
    defaultUpstream: "https://api.openai.com/v1",
    keyEnv: ["OPENAI_API_KEY", "CODEX_API_KEY"],
    localPrefix: "/v1",
    configure(home, baseUrl, key) {
      writeHomeFile(
        home,
        ".codex/config.toml",
        [
          'model_provider = "evalgate"',
          "",
          "[model_providers.evalgate]",
          'name = "evalgate model bridge"',
          `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
          `env_key = "${MODEL_KEY_VAR}"`,
          'wire_api = "responses"',
          "",
          "[analytics]",
          "enabled = false",
          "",
        ].join("\n"),
      );
      return { env: { [MODEL_KEY_VAR]: key } };
    },
  },
  gemini: {
    defaultUpstream: "https://generativelanguage.googleapis.com",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    localPrefix: "",
    configure(home, baseUrl, key) {
      // Without the auth type a base URL makes it choose "gateway" auth and exit 41.
      writeHomeFile(
        home,
        ".gemini/settings.json",
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
      );
      // No relaunch: it would start a second Node only to raise its heap limit.
      return { env: { GOOGLE_GEMINI_BASE_URL: baseUrl, GEMINI_API_KEY: key, GEMINI_CLI_NO_RELAUNCH: "1" } };
    },
  },
  pi: {
    // Pi speaks Chat Completions to an OpenAI-compatible provider its models.json defines.
    defaultUpstream: "https://api.openai.com/v1",
    keyEnv: ["OPENAI_API_KEY"],
    localPrefix: "/v1",
    configure(home, baseUrl, key, cliArgs) {
      const model = modelFlag(cliArgs) ?? PI_DEFAULT_MODEL;
      // The only provider it is given; its key is named by variable, so the file holds no key at all.
      const provider = {
        baseUrl: `${baseUrl}/v1`,
        api: "openai-completions",
        apiKey: MODEL_KEY_VAR,
        models: [{ id: model }],
      };
      writeHomeFile(home, ".pi/agent/models.json", JSON.stringify({ providers: { [PI_PROVIDER]: provider } }, null, 2));
      return { env: { [MODEL_KEY_VAR]: key, PI_OFFLINE: "1" }, args: ["--provider", PI_PROVIDER, "--model", model] };
    },
  },
};
