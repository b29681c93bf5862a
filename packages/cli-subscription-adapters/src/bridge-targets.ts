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
   * variables to set. Never the real key.
   */
  configure(home: string, baseUrl: string, key: string): Readonly<Record<string, string>>;
}

function writeHomeFile(home: string, relative: string, content: string): void {
  const path = join(home, relative);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, content, { mode: 0o600 });
}

/** The variable Codex reads its key from (named in its config, so no OpenAI variable is needed). */
const CODEX_KEY_VAR = "EVALGATE_MODEL_KEY";

/**
 * The CLIs that can run behind the bridge. Pi is not among them yet: its provider and model are chosen
 * by flags that must match its models.json, which nothing here writes; it runs with `--agent-network host`.
 */
export const BRIDGE_TARGETS: Readonly<Partial<Record<AgentAdapterName, BridgeTarget>>> = {
  "claude-code": {
    defaultUpstream: "https://api.anthropic.com",
    keyEnv: ["ANTHROPIC_API_KEY"],
    localPrefix: "",
    configure: (_home, baseUrl, key) => ({ ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: key, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
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
          `env_key = "${CODEX_KEY_VAR}"`,
          'wire_api = "responses"',
          "",
          "[analytics]",
          "enabled = false",
          "",
        ].join("\n"),
      );
      return { [CODEX_KEY_VAR]: key };
    },
  },
  gemini: {
    defaultUpstream: "https://generativelanguage.googleapis.com",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    localPrefix: "",
    configure(home, baseUrl, key) {
      // Without the auth type a base URL makes it choose "gateway" auth and exit 41.
      writeHomeFile(home, ".gemini/settings.json", JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }));
      return { GOOGLE_GEMINI_BASE_URL: baseUrl, GEMINI_API_KEY: key };
    },
  },
};
