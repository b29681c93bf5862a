// The sandbox an agent CLI runs in: its workspace, a temporary HOME with only its own login files,
// its installation, the network (it calls its API), and nothing else of the host.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { nodeInstallDir, programFootprint } from "@eval/sandbox";
import type { SandboxPolicy } from "@eval/sandbox";
import type { AgentAdapter } from "./adapter-contract.ts";

/** Where a CLI is installed, as the sandbox must show it (`programFootprint`: never a home directory). */
export function installationOf(binaryPath: string): string {
  return programFootprint(binaryPath);
}

export interface AgentSandbox {
  readonly policy: SandboxPolicy;
  /** The CLI as started inside: its real path (a link such as `bin/claude` is not in the sandbox's view). */
  readonly command: string;
  /** The CLI's environment inside: `cliEnv` with HOME the temporary home and PATH finding node and the system. */
  readonly env: Record<string, string>;
  readonly home: string;
  /** Removes the temporary HOME and TMPDIR. */
  remove(): void;
}

/**
 * A temporary HOME holding copies of the adapter's declared login and config files (those that exist
 * in `hostHome`), and the policy: read-only installation and Node, the scratch workspace and the temp
 * HOME writable, network on. The bench, the harness's state and the rest of the host are invisible.
 */
export function prepareAgentSandbox(
  adapter: AgentAdapter,
  binaryPath: string,
  workspace: string,
  cliEnv: Readonly<Record<string, string>>,
  hostHome: string | undefined,
): AgentSandbox {
  // HOME and TMPDIR are siblings: Codex refuses to create its helpers under TMPDIR (every command and
  // patch then fails while it exits 0), and the CLIs put per-user directories in TMPDIR.
  const root = realpathSync(mkdtempSync(join(tmpdir(), "evalgate-agent-")));
  const home = join(root, "home");
  const tmp = join(root, "tmp");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(tmp, { mode: 0o700 });
  if (hostHome !== undefined && hostHome !== "") {
    for (const file of adapter.homeFiles) {
      const source = join(hostHome, file);
      if (!existsSync(source)) continue;
      mkdirSync(dirname(join(home, file)), { recursive: true, mode: 0o700 });
      copyFileSync(source, join(home, file));
    }
  }
  const nodeBin = dirname(realpathSync(process.execPath));
  return {
    policy: {
      readOnly: [installationOf(binaryPath), nodeInstallDir()],
      writable: [workspace, home, tmp],
      network: true,
    },
    command: realpathSync(binaryPath),
    env: { ...cliEnv, HOME: home, PATH: `${nodeBin}:/usr/local/bin:/usr/bin:/bin`, TMPDIR: tmp },
    home,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
