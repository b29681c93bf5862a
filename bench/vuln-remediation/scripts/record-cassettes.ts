// Re-records the shipped cassettes of both benches with the real agent CLIs (the versions pinned in
// scripts/agent-clis/, installed by scripts/agent-clis.sh): the built `evalgate run --sut cli:<adapter> --record
// --record-overwrite` runs each case in its sandbox behind the model bridge, against `evalgate model-stub`
// serving the bench's scripted sessions (`<task-class>/cassette-sessions.yaml`, one session per case, chosen
// by the case's canary line). Each cassette then records its provenance: the CLI's version and binary digest,
// the endpoint's host and the scenario's digest. Run from the repo root after `pnpm run build`, then re-sign:
//   node bench/vuln-remediation/scripts/record-cassettes.ts <task-class> <adapter> <case-id>...
//   node apps/cli/dist/bin.js bench sign --task-class <task-class> --bench-root bench
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const EVALGATE = join(REPO, "apps", "cli", "dist", "bin.js");
/** The model each CLI asks the stub for (Codex offers its tools only for a model slug it knows). */
const ADAPTER_FLAGS: Record<string, readonly string[]> = {
  "claude-code": [],
  codex: ["--agent-model", "gpt-5.5"],
  pi: ["--agent-model", "stub-model"],
};
/** The endpoint as each provider's own base URL is written: OpenAI-style ones end in /v1. */
const BASE_PATH: Record<string, string> = { "claude-code": "", codex: "/v1", pi: "/v1" };

async function startStub(scenario: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [EVALGATE, "model-stub", "--scenario", scenario], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const parsed = JSON.parse(line) as { url?: string };
    if (parsed.url !== undefined) return { url: parsed.url, stop: () => child.kill("SIGTERM") };
  }
  throw new Error("evalgate model-stub exited before printing its URL");
}

async function main(): Promise<number> {
  const [taskClass, adapter, ...cases] = process.argv.slice(2);
  if (taskClass === undefined || adapter === undefined || !(adapter in ADAPTER_FLAGS) || cases.length === 0) {
    process.stderr.write(
      `usage: record-cassettes.ts <task-class> <${Object.keys(ADAPTER_FLAGS).join("|")}> <case-id>...\n`,
    );
    return 2;
  }
  const clis = execFileSync(join(REPO, "scripts", "agent-clis.sh"), { encoding: "utf8" }).trim();
  const benchRoot = process.env.EVALGATE_RECORD_BENCH_ROOT ?? join(REPO, "bench");
  const stub = await startStub(join(benchRoot, taskClass, "cassette-sessions.yaml"));
  const scratch = mkdtempSync(join(tmpdir(), "evalgate-record-"));
  try {
    const args = [
      "run",
      "--task-class",
      taskClass,
      "--bench-root",
      benchRoot,
      "--sut",
      `cli:${adapter}`,
      "--cases",
      cases.length === 1 ? cases[0]! : `{${cases.join(",")}}`,
      "--record",
      "--record-overwrite",
      "--model-upstream",
      `${stub.url}${BASE_PATH[adapter]}`,
      "--allow-cli-subscription",
      // The benign compliance suite is not what this endpoint serves: recording is not evaluation.
      "--allow-stale-compliance",
      "--out",
      join(scratch, "state"),
      "--quiet",
      ...ADAPTER_FLAGS[adapter]!,
    ];
    const child = spawn(process.execPath, [EVALGATE, ...args], {
      cwd: scratch,
      stdio: "inherit",
      env: {
        PATH: `${join(clis, "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        HOME: join(scratch, "home"),
        CI: "true",
      },
    });
    return await new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  } finally {
    stub.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
