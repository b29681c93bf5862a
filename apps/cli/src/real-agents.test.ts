// Every adapter end to end, as CI runs it: the BUILT evalgate drives the REAL agent CLI (the versions pinned in
// scripts/agent-clis/, installed by scripts/agent-clis.sh) in its sandbox against the scripted model endpoint
// (@eval/model-stub) on loopback, on the repository's real benches and rubrics. The scripted sessions apply
// the cases' correct fixes (the shipped cassettes' workspace diffs) through the CLI's own tools, and a
// wrong fix in each task class; the scores, failure modes, token counts and canonical tool names come from the real run.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyUnifiedDiff } from "@eval/cli-subscription-adapters";
import { parseScenario, startModelStub } from "@eval/model-stub";
import type { ModelStub, ScenarioAction } from "@eval/model-stub";
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
  scenario: () => ({
    usage: { input_tokens: 1000, output_tokens: 50 },
    sessions: [
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
  }),
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
  scenario: () => ({
    sessions: [
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
  }),
};

// The dummy key, unique to this run of the file: other sessions on the machine run the same cached CLIs, and
// only processes whose environment holds this key are this file's.
const DUMMY_KEY = `sk-scripted-${process.pid}-${Date.now()}`;

interface Adapter {
  readonly name: string;
  /** What the command line of this CLI's processes holds (its bin link or its package). */
  readonly processMarkers: readonly string[];
  /** Points the CLI at the stub: files under its HOME, environment, `run` flags. */
  setup(home: string, url: string): { env: Record<string, string>; flags: string[] };
}

const ADAPTERS: readonly Adapter[] = [
  {
    name: "claude-code",
    processMarkers: ["/.bin/claude", "@anthropic-ai/claude-code"],
    setup: (_home, url) => ({
      env: {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: DUMMY_KEY,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      flags: [],
    }),
  },
  {
    name: "codex",
    processMarkers: ["/.bin/codex", "@openai/codex"],
    setup(home, url) {
      mkdirSync(join(home, ".codex"), { recursive: true });
      const config = `model = "gpt-5.5"\nmodel_provider = "stub"\n[model_providers.stub]\nname = "stub"\nbase_url = "${url}/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\n[analytics]\nenabled = false\n`;
      writeFileSync(join(home, ".codex", "config.toml"), config);
      return { env: { OPENAI_API_KEY: DUMMY_KEY }, flags: [] };
    },
  },
  {
    name: "pi",
    processMarkers: ["/.bin/pi", "pi-coding-agent"],
    setup(home, url) {
      mkdirSync(join(home, ".pi", "agent"), { recursive: true });
      const models = {
        providers: {
          stub: {
            baseUrl: `${url}/v1`,
            api: "openai-completions",
            apiKey: "PI_STUB_KEY",
            models: [{ id: "stub-model" }],
          },
        },
      };
      writeFileSync(join(home, ".pi", "agent", "models.json"), JSON.stringify(models));
      return {
        env: { PI_STUB_KEY: DUMMY_KEY, PI_OFFLINE: "1" },
        flags: ["--agent-model", "stub-model", "--agent-arg=--provider", "--agent-arg=stub"],
      };
    },
  },
];

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

interface CaseLine {
  readonly case_id: string;
  readonly score: { readonly score: number; readonly failure_modes: readonly { readonly code: string }[] };
}

async function evalgate(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], {
      cwd: scratch,
      env,
      maxBuffer: 64 * 1024 * 1024,
      // Generous: the adapters run at once, and a shared 2-core machine may be under heavy load.
      timeout: 600_000,
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

/** One `evalgate run --sut cli:<adapter>` of a task class's cases against a stub serving `scenario`. */
async function runThrough(
  adapter: Adapter,
  suite: typeof VULN | typeof MIGRATION,
): Promise<{ cases: Map<string, CaseLine>; stub: ModelStub; state: string; stderr: string }> {
  const stub = await startModelStub({ scenario: parseScenario(suite.scenario()) });
  const home = mkdtempSync(join(scratch, `home-${adapter.name}-`));
  const state = join(scratch, `state-${adapter.name}-${suite.taskClass}`);
  const { env, flags } = adapter.setup(home, stub.url);
  const started = Date.now();
  try {
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
        `cli:${adapter.name}`,
        "--agent-network",
        "host",
        "--allow-cli-subscription",
        "--acknowledge-unsandboxed-cli",
        "--allow-stale-compliance",
        "--concurrency",
        "3",
        "--out",
        state,
        "--quiet",
        ...flags,
      ],
      {
        PATH: `${join(clis.dir!, "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        HOME: home,
        CI: "true",
        ...env,
      },
    );
    timings[`${adapter.name}/${suite.taskClass}`] = Math.round((Date.now() - started) / 1000);
    const lines = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const cases = new Map(
      lines.filter((line) => line.type === "case").map((line) => [line.case_id as string, line as unknown as CaseLine]),
    );
    return { cases, stub, state, stderr: result.stderr };
  } finally {
    await stub.close();
  }
}

function transcripts(state: string, taskClass: string): Record<string, unknown>[] {
  return readFileSync(join(state, "transcripts", `${taskClass}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** No process of this adapter's CLI started by this file is left (its command line names the CLI, its environment holds DUMMY_KEY). */
function leftovers(markers: readonly string[]): string[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (!cmdline.includes(clis.dir!) || !markers.some((marker) => cmdline.includes(marker))) return [];
        return readFileSync(`/proc/${pid}/environ`, "utf8").includes(DUMMY_KEY)
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
      it(`cli:${adapter.name}: correct fixes score 1, a wrong one 0 with the rubric's failure modes; tokens from the endpoint; nothing left running`, async () => {
        const vuln = await runThrough(adapter, VULN);
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
        expect(vuln.stub.requests().every((request) => !JSON.stringify(request).includes(DUMMY_KEY))).toBe(true);

        const migration = await runThrough(adapter, MIGRATION);
        expect(migration.cases.get("go-healthd-distroless")?.score.score, migration.stderr).toBe(1);
        const wrongMigration = migration.cases.get("go-api-alpine-runtime")!;
        expect(wrongMigration.score.score, migration.stderr).toBe(0);
        expect(wrongMigration.score.failure_modes.map((mode) => mode.code)).toContain("base_not_hardened");
        expect(leftovers(adapter.processMarkers)).toEqual([]);
      }, 1_200_000);
    }

    it("cli:gemini refuses, before any case runs, cases that edit build files (its Build File Protection cannot be turned off)", async () => {
      const stub = await startModelStub({ scenario: parseScenario(VULN.scenario()) });
      try {
        const home = mkdtempSync(join(scratch, "home-gemini-"));
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
            "--allow-stale-compliance",
            "--out",
            join(scratch, "state-gemini"),
            "--quiet",
          ],
          {
            PATH: `${join(clis.dir!, "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
            HOME: home,
            GEMINI_API_KEY: DUMMY_KEY,
            GOOGLE_GEMINI_BASE_URL: stub.url,
            GEMINI_CLI_NO_RELAUNCH: "1",
          },
        );
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /cli:gemini cannot run 1 selected case\(s\) whose task is to edit build files: lodash-template-cve-2021-23337 \(package-lock\.json, package\.json\)/,
        );
        expect(stub.requests()).toEqual([]);
      } finally {
        await stub.close();
      }
    }, 600_000);
  },
);
