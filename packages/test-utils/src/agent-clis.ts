// Where the pinned real agent CLIs are (scripts/agent-clis.sh installs them), for the tests that drive them.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export interface PinnedAgentClis {
  /** The installed directory (its node_modules/.bin holds claude, codex, gemini and pi), or null. */
  readonly dir: string | null;
  /** Why there is none (the tests skip, saying so); "" when dir is set. */
  readonly reason: string;
}

/**
 * The pinned CLIs' directory. `EVALGATE_AGENT_CLIS` (exported by scripts/test.sh after installing them) is a
 * promise: a directory named there that is not ready throws, so the tests that need it fail instead of skipping.
 * Without it, the installer is asked (check only: it installs nothing) where its cache for this user is.
 */
export function pinnedAgentClis(
  repoRoot: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PinnedAgentClis {
  const promised = env.EVALGATE_AGENT_CLIS ?? "";
  if (promised !== "") {
    if (existsSync(join(promised, ".complete"))) return { dir: promised, reason: "" };
    throw new Error(
      `EVALGATE_AGENT_CLIS=${promised} is not a complete install of the pinned agent CLIs: run scripts/agent-clis.sh, or unset it to let these tests skip`,
    );
  }
  let dir = "";
  try {
    dir = execFileSync(join(repoRoot, "scripts", "agent-clis.sh"), [], {
      env: { ...env, EVALGATE_AGENT_CLIS_CHECK_ONLY: "1" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    dir = "";
  }
  if (dir !== "" && existsSync(join(dir, ".complete"))) return { dir, reason: "" };
  return {
    dir: null,
    reason: "the pinned agent CLIs are not installed (scripts/agent-clis.sh installs them; scripts/test.sh runs it)",
  };
}
