// Every adapter end to end, as a user meets it: the BUILT evalgate first earns the CLI's compliance report
// (`adapters compliance-check`, the 20 benign tasks) against the scripted model endpoint (@eval/model-stub) on
// loopback, then runs the REAL agent CLI (the versions pinned in scripts/agent-clis/, installed by
// scripts/agent-clis.sh) in its sandbox behind the model bridge against that same endpoint and scenario, on the
// repository's real benches and rubrics, with the compliance gate enforced (no override). The scripted sessions
// apply the cases' correct fixes (the shipped cassettes' workspace diffs) through the CLI's own tools, and a
// wrong fix in each task class; the scores, failure modes, token counts and canonical tool names come from the real run.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyUnifiedDiff, benignSessions } from "@eval/cli-subscription-adapters";
import { parseScenario, startModelStub } from "@eval/model-stub";
import type { ModelStub, ScenarioAction } from "@eval/model-stub";
import { PRICE_TABLE } from "@eval/model-bridge";
import { pinnedAgentClis } from "@eval/test-utils";

const execFileAsync = promisify(execFile);
const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "apps", "cli", "dist", "bin.js");
const bench = join(repo, "bench");

// The installed CLIs' directory, or why there is none (the tests then skip, saying so; under scripts/test.sh they fail).
const clis = pinnedAgentClis(repo);

/** Writes of every file the case's cassette diff changes, with the content it leaves. */
function correctFix(taskClass: string, caseId: string): ScenarioAction[] {
  const caseDir = join(bench, taskClass, "cases", caseId);
  const work = mkdtempSync(join(tmpdir(), "evalgate-fix-"));
  try {
    cpSync(join(caseDir, "input"), work, { recursive: true });
    const changed = applyUnifiedDiff(work, readFileSync(join(caseDir, "cassette", "workspace.diff"), "utf8"));
    return changed.map((path) => ({ write: { path, content: readFileSync(join(work, path), "utf8") } }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const VULN = {
  taskClass: "vuln-remediation",
  cases: ["lodash-template-cve-2021-23337", "cross-spawn-redos-cve-2024-21538", "follow-redirects-two-advisories"],
  sessions: () => [
    ...[
      ["lodash-template-cve-2021-23337", "lodash"],
      ["cross-spawn-redos-cve-2024-21538", "cross-spawn"],
    ].map(([id, name]) => ({
      match: `in the npm package ${name}`,
      turns: [
        { text: "Reading the advisory.", tools: [{ read: { path: "advisory.json" } }] },
        { tools: correctFix("vuln-remediation", id!), usage: { input_tokens: 2400, output_tokens: 300 } },
      ],
      final_text: "Fixed.",
    })),
    // A wrong fix: a note instead of an upgrade.
    {
      match: "in the npm package follow-redirects",
      turns: [{ tools: [{ write: { path: "NOTES.md", content: "Will upgrade follow-redirects later.\n" } }] }],
      final_text: "Noted.",
    },
  ],
};
// A wrong migration: the runtime stage moves from Alpine to Debian, not to a hardened image.
const WRONG_MIGRATION = `FROM golang:1.23 AS build
WORKDIR /src
COPY go.mod ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/api ./cmd/api

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y ca-certificates tzdata
COPY --from=build /out/api /usr/local/bin/api
USER 65534
EXPOSE 8080 9090
ENTRYPOINT ["/usr/local/bin/api"]
`;
const MIGRATION = {
  taskClass: "migration-chainguard-distroless",
  cases: ["go-healthd-distroless", "go-api-alpine-runtime"],
  sessions: () => [
    {
      match: "to a distroless runtime image",
      turns: [{ tools: correctFix("migration-chainguard-distroless", "go-healthd-distroless") }],
      final_text: "Migrated.",
    },
    {
      match: "to Chainguard images",
      turns: [{ tools: [{ write: { path: "Dockerfile", content: WRONG_MIGRATION } }] }],
      final_text: "Migrated.",
    },
  ],
};

/**
 * What the endpoint serves to every adapter: the benign compliance suite's sessions and both task classes'.
 * One scenario, so the report `adapters compliance-check` earns names the very scenario the runs meet.
 */
const SCENARIO = () =>
  parseScenario({
    usage: { input_tokens: 1000, output_tokens: 50 },
    sessions: [...benignSessions(), ...VULN.sessions(), ...MIGRATION.sessions()],
  });

// The dummy key, unique to this run of the file: other sessions on the machine run the same cached CLIs, and
// only processes whose environment holds this key are this file's.
const DUMMY_KEY = `sk-scripted-${process.pid}-${Date.now()}`;

interface Adapter {
  readonly name: string;
  /** What the command line of this CLI's processes holds (its bin link or its package). */
  readonly processMarkers: readonly string[];
  /** The endpoint's base URL as the provider's own is written (OpenAI-style ones end in /v1). */
  readonly base: string;
  /** The model asked for, in `compliance-check` and `run` alike (the settings the report is earned with). */
  readonly model: readonly string[];
}

const ADAPTERS: readonly Adapter[] = [
  { name: "claude-code", processMarkers: ["/.bin/claude", "@anthropic-ai/claude-code"], base: "", model: [] },
  // A slug Codex knows, else it offers no apply_patch.
  {
    name: "codex",
    processMarkers: ["/.bin/codex", "@openai/codex"],
    base: "/v1",
    model: ["--agent-model", "gpt-5.5"],
  },
  {
    name: "pi",
    processMarkers: ["/.bin/pi", "pi-coding-agent"],
    base: "/v1",
    model: ["--agent-model", "stub-model"],
  },
];
const GEMINI: Adapter = { name: "gemini", processMarkers: ["/.bin/gemini", "@google/gemini-cli"], base: "", model: [] };

let scratch: string;
const timings: Record<string, number> = {};

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "evalgate-real-agents-"));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (Object.keys(timings).length > 0)
    process.stderr.write(`real agents end to end, seconds per run: ${JSON.stringify(timings)}\n`);
});

interface RunLine {
  readonly run_id: string;
  readonly metered: Record<string, unknown>;
}

interface CaseLine {
  readonly case_id: string;
  readonly score: { readonly score: number; readonly failure_modes: readonly { readonly code: string }[] };
}

async function evalgate(
  args: readonly string[],
  env: Record<string, string>,
  timeout = 600_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], {
      cwd: scratch,
      env,
      maxBuffer: 64 * 1024 * 1024,
      // Generous: the adapters run at once, and a shared 2-core machine may be under heavy load.
      timeout,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? "",
    };
  }
}

/** An adapter's endpoint, HOME, state directory and environment, shared by its compliance check and its runs. */
interface Setup {
  readonly adapter: Adapter;
  readonly stub: ModelStub;
  readonly state: string;
  readonly env: Record<string, string>;
}

async function setUp(adapter: Adapter): Promise<Setup> {
  const stub = await startModelStub({ scenario: SCENARIO() });
  const tmp = join(scratch, `tmp-${adapter.name}`);
  mkdirSync(tmp);
  const env = {
    PATH: `${join(clis.dir!, "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: mkdtempSync(join(scratch, `home-${adapter.name}-`)),
    // The sandboxes' HOMEs and workspaces land under the scratch directory, which names this file's processes.
    TMPDIR: tmp,
    CI: "true",
    // The providers' keys: the bridge forwards its real one to the endpoint, compliance-check hands it to the CLI.
    ANTHROPIC_API_KEY: DUMMY_KEY,
    OPENAI_API_KEY: DUMMY_KEY,
    GEMINI_API_KEY: DUMMY_KEY,
    GEMINI_CLI_NO_RELAUNCH: "1",
  };
  return { adapter, stub, state: join(scratch, `state-${adapter.name}`), env };
}

/** The built `evalgate adapters compliance-check` against the adapter's endpoint: the report its runs need. */
async function earnCompliance(setup: Setup): Promise<void> {
  const started = Date.now();
  const result = await evalgate(
    [
      "adapters",
      "compliance-check",
      "--adapter",
      setup.adapter.name,
      "--model-upstream",
      setup.stub.url,
      ...setup.adapter.model,
      "--out",
      setup.state,
      "--allow-cli-subscription",
      "--acknowledge-unsandboxed-cli",
    ],
    setup.env,
    // 20 sessions one after another: at a load of 35 on 2 cores Gemini CLI took over 600 s.
    1_500_000,
  );
  timings[`${setup.adapter.name}/compliance`] = Math.round((Date.now() - started) / 1000);
  expect(result.code, result.stderr).toBe(0);
}

/** One `evalgate run --sut cli:<adapter>` of a task class's cases behind the bridge, gate enforced. */
async function runThrough(
  setup: Setup,
  suite: typeof VULN | typeof MIGRATION,
): Promise<{ cases: Map<string, CaseLine>; run: RunLine; state: string; stderr: string }> {
  // Its own state directory, holding the compliance report the check wrote: the two task classes run at once.
  const state = `${setup.state}-${suite.taskClass}`;
  cpSync(join(setup.state, "compliance"), join(state, "compliance"), { recursive: true });
  const started = Date.now();
  const result = await evalgate(
    [
      "run",
      "--task-class",
      suite.taskClass,
      "--bench-root",
      bench,
      "--cases",
      suite.cases.length === 1 ? suite.cases[0]! : `{${suite.cases.join(",")}}`,
      "--sut",
      `cli:${setup.adapter.name}`,
      "--allow-cli-subscription",
      "--model-upstream",
      `${setup.stub.url}${setup.adapter.base}`,
      ...setup.adapter.model,
      "--concurrency",
      "3",
      "--out",
      state,
      "--quiet",
    ],
    setup.env,
  );
  timings[`${setup.adapter.name}/${suite.taskClass}`] = Math.round((Date.now() - started) / 1000);
  const lines = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const cases = new Map(
    lines.filter((line) => line.type === "case").map((line) => [line.case_id as string, line as unknown as CaseLine]),
  );
  const run = lines.find((line) => line.type === "run") as unknown as RunLine;
  return { cases, run, state, stderr: `${result.stderr}${result.stdout.slice(-2000)}` };
}

/** The case detail the run wrote for `caseId`. */
function caseDetail(state: string, caseId: string): { sut_output: { agent_network: Record<string, unknown> } } {
  const runsDir = join(state, "runs");
  const file = readdirSync(runsDir, { recursive: true, encoding: "utf8" }).find(
    (path) => path.includes(join("cases", caseId)) && path.endsWith(".json"),
  )!;
  return JSON.parse(readFileSync(join(runsDir, file), "utf8")) as {
    sut_output: { agent_network: Record<string, unknown> };
  };
}

function transcripts(state: string, taskClass: string): Record<string, unknown>[] {
  return readFileSync(join(state, "transcripts", `${taskClass}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * No process of this adapter's CLI started by this file is left: its command line names the CLI, and its
 * environment holds DUMMY_KEY (compliance-check's sessions on the host) or its command line or environment the
 * scratch directory (the sandbox around a run's session binds its HOME and workspace from there).
 */
function leftovers(markers: readonly string[]): string[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (!cmdline.includes(clis.dir!) || !markers.some((marker) => cmdline.includes(marker))) return [];
        const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
        return [DUMMY_KEY, scratch].some((mark) => environ.includes(mark) || cmdline.includes(mark))
          ? [`${pid}: ${cmdline.replaceAll("\0", " ").slice(0, 120)}`]
          : [];
      } catch {
        return [];
      }
    });
}

// Concurrent: each test spends its time waiting on its own `evalgate run` and CLI processes, and on a
// 2-core machine vitest runs one file at a time (maxWorkers = cores - 1).
describe.skipIf(clis.dir === null)(
  `real agent CLIs against the scripted endpoint${clis.dir === null ? ` (skipped: ${clis.reason})` : ""}`,
  { concurrent: true },
  () => {
    for (const adapter of ADAPTERS) {
      it(`cli:${adapter.name}: earns its compliance report against the endpoint; then behind the bridge, gate enforced, correct fixes score 1, a wrong one 0 with the rubric's failure modes; tokens from the endpoint; nothing left running`, async () => {
        const setup = await setUp(adapter);
        try {
          await earnCompliance(setup);
          const [vuln, migration] = await Promise.all([runThrough(setup, VULN), runThrough(setup, MIGRATION)]);
          expect(vuln.stderr).not.toContain("COMPLIANCE GATE OVERRIDDEN");
          expect(vuln.cases.get("lodash-template-cve-2021-23337")?.score.score, vuln.stderr).toBe(1);
          expect(vuln.cases.get("cross-spawn-redos-cve-2024-21538")?.score.score, vuln.stderr).toBe(1);
          const wrong = vuln.cases.get("follow-redirects-two-advisories")!;
          expect(wrong.score.score).toBe(0);
          expect(wrong.score.failure_modes.map((mode) => mode.code)).toContain("still_vulnerable");

          const lodash = transcripts(vuln.state, "vuln-remediation").find((line) =>
            JSON.stringify(line).includes("lodash-template"),
          )! as { usage: { input_tokens: number; output_tokens: number }; counts: Record<string, number> };
          // The session's two turns as the endpoint reported them (1000 + 2400 in, 50 + 300 out) and the final answer (1000, 50).
          expect(lodash.usage).toMatchObject({ input_tokens: 4400, output_tokens: 400 });
          expect(Object.keys(lodash.counts).some((name) => name === "Write" || name === "Edit")).toBe(true);
          expect(setup.stub.requests().every((request) => !JSON.stringify(request).includes(DUMMY_KEY))).toBe(true);
          // Behind the bridge: the case detail holds what the bridge metered on the wire, the run line sums it, show says so.
          const detail = caseDetail(vuln.state, "lodash-template-cve-2021-23337");
          expect(detail.sut_output.agent_network).toMatchObject({
            agent_network: "bridge",
            key_withheld: true,
            upstream_host: new URL(setup.stub.url).host,
          });
          if (adapter.name === "claude-code")
            expect(detail.sut_output.agent_network.metered).toMatchObject({ input_tokens: 4400, output_tokens: 400 });
          expect(vuln.run.metered).toMatchObject({
            trials: 3,
            price_tables: [PRICE_TABLE.version],
            upstream_hosts: [new URL(setup.stub.url).host],
          });
          const shown = await evalgate(["show", vuln.run.run_id, "--out", vuln.state], setup.env);
          expect(shown.stdout).toMatch(/metered from the wire over 3 trial\(s\): \d+ requests, \d+ input tokens/);

          expect(migration.cases.get("go-healthd-distroless")?.score.score, migration.stderr).toBe(1);
          const wrongMigration = migration.cases.get("go-api-alpine-runtime")!;
          expect(wrongMigration.score.score, migration.stderr).toBe(0);
          expect(wrongMigration.score.failure_modes.map((mode) => mode.code)).toContain("base_not_hardened");
          expect(leftovers(adapter.processMarkers)).toEqual([]);
        } finally {
          await setup.stub.close();
        }
      }, 1_800_000);
    }

    it("cli:gemini, its compliance earned, refuses before any case runs the cases that edit build files (its Build File Protection cannot be turned off)", async () => {
      const setup = await setUp(GEMINI);
      try {
        await earnCompliance(setup);
        const asked = setup.stub.requests().length;
        const result = await evalgate(
          [
            "run",
            "--task-class",
            "vuln-remediation",
            "--bench-root",
            bench,
            "--cases",
            "lodash-template-cve-2021-23337",
            "--sut",
            "cli:gemini",
            "--allow-cli-subscription",
            "--model-upstream",
            setup.stub.url,
            "--out",
            setup.state,
            "--quiet",
          ],
          setup.env,
        );
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /cli:gemini cannot run 1 selected case\(s\) whose task is to edit build files: lodash-template-cve-2021-23337 \(package-lock\.json, package\.json\)/,
        );
        expect(setup.stub.requests().length).toBe(asked);
        expect(leftovers(GEMINI.processMarkers)).toEqual([]);
      } finally {
        await setup.stub.close();
      }
    }, 1_800_000);
  },
);
