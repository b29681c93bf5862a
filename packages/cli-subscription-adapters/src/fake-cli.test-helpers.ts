import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const STREAMS_DIR = join(here, "__fixtures__", "streams");
const FAKE_CLI = join(here, "__fixtures__", "fake-clis", "fake-cli.mjs");

export interface FakeStep {
  stdout?: string;
  stderr?: string;
  split?: string;
  chunk?: number;
  delayMs?: number;
  sleepMs?: number;
  hang?: boolean;
  flood?: boolean;
  exit?: number;
  ignoreSignals?: boolean;
  spawnChild?: boolean;
  echoEnv?: string;
  echoArgs?: boolean;
  modifyFile?: { path: string; content: string };
  /** Writes the files of the first entry whose `match` occurs in the prompt (argv or stdin): a CLI that does the task. */
  writeByPrompt?: { match: string; files: Record<string, string> }[];
  /** A shell script run in the CLI's working directory (what an agent's tool call would do there). */
  shell?: string;
}

export interface FakeScenario {
  version: string;
  steps: FakeStep[];
  authStatus?: { args: string; stdout?: string; stderr?: string; code?: number; delayMs?: number };
}

export interface FakeCli {
  readonly dir: string;
  readonly binaryPath: string;
  invocations(): { args: string[]; stdin: string; cwd: string; envNames: string[] }[];
  childPid(): number | null;
}

/** Writes an executable named `name` (e.g. `claude`) into a fresh temp dir, driven by `scenario`. */
export function createFakeCli(name: string, scenario: FakeScenario): FakeCli {
  const dir = mkdtempSync(join(tmpdir(), "evalgate-fake-cli-"));
  writeFileSync(join(dir, "scenario.json"), JSON.stringify({ ...scenario, streamsDir: STREAMS_DIR }));
  const binaryPath = join(dir, name);
  writeFileSync(binaryPath, `#!${process.execPath}\nimport(${JSON.stringify(FAKE_CLI)});\n`);
  chmodSync(binaryPath, 0o755);
  return {
    dir,
    binaryPath,
    invocations: () => {
      const path = join(dir, "invocations.jsonl");
      if (!existsSync(path)) return [];
      return readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { args: string[]; stdin: string; cwd: string; envNames: string[] });
    },
    childPid: () => {
      const path = join(dir, "child.pid");
      return existsSync(path) ? Number(readFileSync(path, "utf8")) : null;
    },
  };
}

export function readStream(name: string): string {
  return readFileSync(join(STREAMS_DIR, name), "utf8");
}

/** True while process `pid` exists. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
