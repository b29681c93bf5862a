// The real agent CLIs (Claude Code, Codex, Gemini CLI, Pi) behind the model bridge, in the sandbox with no
// network but the relay, against the scripted model endpoint: each edits its workspace as without the
// bridge, the metered tokens are what the endpoint sent, a one-request budget ends the session, and a session
// recorded behind the bridge replays with the endpoint stopped (the real CLI again) or diverges on a changed prompt.
// Needs the pinned CLIs (scripts/agent-clis.sh installs them into ~/.cache/evalgate/agent-clis/<digest>/,
// or EVALGATE_AGENT_CLIS names them); skips without them.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScenario, startModelStub } from "@eval/model-stub";
import type { ModelStub } from "@eval/model-stub";
import type { AgentAdapterName } from "@eval/models";
import { sandboxSupport } from "@eval/sandbox";
import { cassetteDirOf, createLiveSut, createReplaySut, readCassette } from "@eval/agent-sut";
import { applyUnifiedDiff, CliSubscriptionBackend } from "@eval/cli-subscription-adapters";
import { BenchCaseSchema, parseWire, sutCaseOf } from "@eval/models";
import { createReplayMatcher, PRICE_TABLE } from "@eval/model-bridge";

// The pinned CLIs' directory (EVALGATE_AGENT_CLIS, else the installer's cache when it is ready), or null.
function pinnedClis(): string | null {
  const named = process.env.EVALGATE_AGENT_CLIS ?? "";
  if (named !== "") return existsSync(join(named, ".complete")) ? named : null;
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "evalgate", "agent-clis");
  if (!existsSync(cache)) return null;
  return (
    readdirSync(cache)
      .map((name) => join(cache, name))
      .find((dir) => existsSync(join(dir, ".complete"))) ?? null
  );
}

const clis = pinnedClis();
const binOf = (name: string): string => join(clis!, "node_modules", ".bin", name);
const claude = clis === null ? null : binOf("claude");
const runnable = sandboxSupport().available && claude !== null && existsSync(claude);
let root: string;
let stub: ModelStub;

/** Each adapter behind the bridge: its binary and the flags it runs with (a model its stub session accepts). */
// `base`: the endpoint's base URL as the provider's own would be written (OpenAI-style ones end in /v1).
const ADAPTERS: readonly {
  readonly adapter: AgentAdapterName;
  readonly bin: string;
  readonly args: readonly string[];
  readonly base: string;
}[] = [
  { adapter: "claude-code", bin: "claude", args: [], base: "" },
  // A slug Codex knows, else it warns and offers no apply_patch.
  { adapter: "codex", bin: "codex", args: ["--model", "gpt-5.5"], base: "/v1" },
  { adapter: "gemini", bin: "gemini", args: [], base: "" },
  // The id its models.json (written by the bridge target) lists under the bridge's provider.
  { adapter: "pi", bin: "pi", args: ["--model", "stub-model"], base: "/v1" },
];

beforeAll(async () => {
  if (!runnable) return;
  root = mkdtempSync(join(tmpdir(), "evalgate-bridge-real-"));
  stub = await startModelStub({
    scenario: parseScenario({
      usage: { input_tokens: 1000, output_tokens: 50 },
      turns: [
        {
          text: "Fixing.",
          tools: [{ write: { path: "fixed.txt", content: "fixed\n" } }],
          usage: { input_tokens: 2400, output_tokens: 120 },
        },
      ],
      final_text: "Fixed.",
    }),
  });
});
afterAll(async () => {
  if (!runnable) return;
  await stub.close();
  rmSync(root, { recursive: true, force: true });
});

function backend(
  adapter: AgentAdapterName,
  extra: Partial<ConstructorParameters<typeof CliSubscriptionBackend>[0]> = {},
) {
  const entry = ADAPTERS.find((candidate) => candidate.adapter === adapter)!;
  return new CliSubscriptionBackend({
    adapter,
    allow_cli_subscription: true,
    acknowledge_unsandboxed_cli: false,
    allow_stale_compliance: true,
    complianceDir: join(root, "compliance"),
    binaryPath: binOf(entry.bin),
    model_upstream: `${stub.url}${entry.base}`,
    extra_args: entry.args,
    env: { PATH: process.env.PATH, HOME: join(root, "home"), GEMINI_CLI_NO_RELAUNCH: "1" },
    ...extra,
  });
}

const PROMPT = "Create fixed.txt containing the word fixed.";
function workspace(): string {
  const dir = mkdtempSync(join(root, "ws-"));
  writeFileSync(join(dir, "README.md"), "fix me\n");
  return dir;
}

describe.runIf(runnable)("every adapter's real CLI behind the model bridge, against the scripted endpoint", () => {
  for (const { adapter } of ADAPTERS) {
    it(`cli:${adapter} edits its workspace through the only door it has; the bridge meters exactly what the endpoint sent`, async () => {
      const dir = workspace();
      const seen = stub.requests().length;
      const result = await backend(adapter).run({
        prompt: PROMPT,
        workspace: { root: dir, editable: ["."], readonly: [] },
        timeoutMs: 240_000,
      });
      expect(result.classification.trial_class, `${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(
        "parse_success",
      );
      expect(readFileSync(join(dir, "fixed.txt"), "utf8")).toBe("fixed\n");
      const answered = stub
        .requests()
        .slice(seen)
        .filter((request) => request.usage !== null && request.protocol !== null);
      // The scripted session's turn (2400 in, 120 out) and its final answer (1000, 50), plus any side call
      // (Gemini's router) at the scenario's default usage: whatever the endpoint sent, the bridge counted.
      expect(answered.length).toBeGreaterThanOrEqual(2);
      const sent = answered.reduce(
        (sum, request) => ({
          input: sum.input + request.usage!.input_tokens,
          output: sum.output + request.usage!.output_tokens,
        }),
        { input: 0, output: 0 },
      );
      expect(result.agent_network).toMatchObject({
        agent_network: "bridge",
        key_withheld: true,
        upstream_host: new URL(stub.url).host,
        metered: { requests: answered.length, input_tokens: sent.input, output_tokens: sent.output },
      });
      // The endpoint needs no key here: the CLI's dummy never left the host.
      expect(
        stub
          .requests()
          .slice(seen)
          .every((request) => !JSON.stringify(request.headers).includes("evalgate-case-")),
      ).toBe(true);
    }, 300_000);

    it(`cli:${adapter} with a budget of one request: the next is refused with the protocol's 400 and the session ends soon after`, async () => {
      const result = await backend(adapter, { case_budget: { maxRequests: 1 } }).run({
        prompt: PROMPT,
        workspace: { root: workspace(), editable: ["."], readonly: [] },
        timeoutMs: 240_000,
      });
      const ended = Date.now();
      const stop = result.agent_network.budget_stop!;
      expect(stop.refused_request).toBe(2);
      // Within 1 s on an idle machine (the harness stops a CLI that carries on 0.25 s after the refusal); generous under load.
      expect(ended - stop.refused_at).toBeLessThan(3_000);
      expect(result.agent_network.metered?.requests).toBe(1);
      process.stderr.write(
        `cli:${adapter}: ${ended - stop.refused_at} ms from the refused request to the trial's end\n`,
      );
    }, 300_000);
  }
});

const execFileAsync = promisify(execFile);
const repo = join(import.meta.dirname, "..", "..", "..");

/** Writes of every file the case's cassette diff changes, with the content it leaves (the case's correct fix). */
function correctFix(caseDir: string): { write: { path: string; content: string } }[] {
  const work = mkdtempSync(join(tmpdir(), "evalgate-fix-"));
  try {
    cpSync(join(caseDir, "input"), work, { recursive: true });
    const changed = applyUnifiedDiff(work, readFileSync(join(caseDir, "cassette", "workspace.diff"), "utf8"));
    return changed.map((path) => ({ write: { path, content: readFileSync(join(work, path), "utf8") } }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe.runIf(runnable)("evalgate run behind the bridge (the default), through the built CLI", () => {
  it("a real case scores 1 as without the bridge; the case detail records the metered tokens the endpoint sent", async () => {
    const caseId = "lodash-template-cve-2021-23337";
    const caseDir = join(repo, "bench", "vuln-remediation", "cases", caseId);
    const own = await startModelStub({
      scenario: parseScenario({
        usage: { input_tokens: 1000, output_tokens: 50 },
        turns: [{ tools: correctFix(caseDir), usage: { input_tokens: 2400, output_tokens: 300 } }],
        final_text: "Fixed.",
      }),
    });
    const state = join(root, "state-cli");
    try {
      const args = [
        "run",
        "--task-class",
        "vuln-remediation",
        "--bench-root",
        join(repo, "bench"),
        "--cases",
        caseId,
        "--sut",
        "cli:claude-code",
        "--allow-cli-subscription",
        "--allow-stale-compliance",
        "--model-upstream",
        own.url,
        "--out",
        state,
        "--quiet",
      ];
      const env = {
        PATH: `${join(clis!, "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        HOME: join(root, "home-cli"),
        CI: "true",
      };
      const { stdout } = await execFileAsync(process.execPath, [join(repo, "apps", "cli", "dist", "bin.js"), ...args], {
        cwd: root,
        env,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 280_000,
      });
      const line = stdout
        .split("\n")
        .filter((text) => text.startsWith("{"))
        .map((text) => JSON.parse(text) as { type: string; case_id?: string; score?: { score: number } })
        .find((entry) => entry.type === "case" && entry.case_id === caseId);
      expect(line?.score?.score, stdout).toBe(1);
      const runsDir = join(state, "runs");
      const detailFile = readdirSync(runsDir, { recursive: true, encoding: "utf8" }).find(
        (path) => path.includes(`${join("cases", caseId)}`) && path.endsWith(".json"),
      )!;
      const detail = JSON.parse(readFileSync(join(runsDir, detailFile), "utf8")) as {
        sut_output: { agent_network: Record<string, unknown> };
      };
      const answered = own.requests().filter((request) => request.usage !== null && request.protocol !== null);
      const sent = answered.reduce(
        (sum, request) => ({
          input: sum.input + request.usage!.input_tokens,
          output: sum.output + request.usage!.output_tokens,
        }),
        { input: 0, output: 0 },
      );
      expect(sent).toEqual({ input: 3400, output: 350 });
      expect(detail.sut_output.agent_network).toMatchObject({
        agent_network: "bridge",
        key_withheld: true,
        metered: { requests: answered.length, input_tokens: 3400, output_tokens: 350 },
      });
      // The run's report sums what was metered on the wire, with its price source; show, the JSON line and JUnit say so.
      const run = stdout
        .split("\n")
        .filter((text) => text.startsWith("{"))
        .map((text) => JSON.parse(text) as { type: string; run_id?: string; metered?: Record<string, unknown> })
        .find((entry) => entry.type === "run")!;
      expect(run.metered).toMatchObject({
        trials: 1,
        requests: answered.length,
        input_tokens: 3400,
        output_tokens: 350,
        price_tables: [PRICE_TABLE.version],
        upstream_hosts: [new URL(own.url).host],
      });
      const shown = await execFileAsync(
        process.execPath,
        [join(repo, "apps", "cli", "dist", "bin.js"), "show", run.run_id!, "--out", state],
        { cwd: root, env },
      );
      expect(shown.stdout).toContain(
        `metered from the wire over 1 trial(s): ${answered.length} requests, 3400 input tokens`,
      );
    } finally {
      await own.close();
    }
  }, 300_000);
});

describe.runIf(runnable)(
  "every adapter's real CLI recorded behind the bridge, then replayed with the endpoint stopped",
  () => {
    for (const entry of ADAPTERS) {
      it(`cli:${entry.adapter} runs again against the recording: the same workspace diff; a changed prompt diverges`, async () => {
        const own = await startModelStub({
          scenario: parseScenario({
            turns: [{ tools: [{ write: { path: "fixed.txt", content: "fixed\n" } }] }],
            final_text: "Fixed.",
          }),
        });
        const caseId = `demo-${entry.adapter}`;
        const caseDir = join(root, "bench", "vuln-remediation", "cases", caseId);
        mkdirSync(join(caseDir, "input"), { recursive: true });
        writeFileSync(join(caseDir, "input", "README.md"), "fix me\n");
        const benchRoot = dirname(dirname(dirname(caseDir)));
        const benchCase = (prompt: string) =>
          sutCaseOf(
            parseWire(BenchCaseSchema, {
              case_id: caseId,
              task_class: "vuln-remediation",
              prompt,
              disposition: "positive",
              difficulty: "easy",
              source: "curated",
              curation_class: "held-out",
              added_at: "2026-01-01T00:00:00Z",
              last_validated_at: "2026-01-01T00:00:00Z",
              cassette_canary_pin: "0123456789abcdef0123456789abcdef",
              case_path: caseDir,
              input_path: join(caseDir, "input"),
              expected_path: join(caseDir, "expected"),
              cassette_path: null,
              case_digest: `blake3:${"0".repeat(64)}`,
            }),
          );
        const invocation = (prompt: string) => {
          const workspacePath = mkdtempSync(join(root, "ws-"));
          cpSync(join(caseDir, "input"), workspacePath, { recursive: true });
          return {
            benchCase: benchCase(prompt),
            workspacePath,
            canarySeed: "ab".repeat(32),
            signal: new AbortController().signal,
            timeoutMs: 240_000,
            invocationTag: `bench:t:vuln-remediation:${caseId}`,
          };
        };
        const gate = {
          allow_cli_subscription: true,
          acknowledge_unsandboxed_cli: false,
          allow_stale_compliance: true,
          complianceDir: join(root, "compliance"),
          extra_args: entry.args,
          env: { PATH: process.env.PATH, HOME: join(root, "home"), GEMINI_CLI_NO_RELAUNCH: "1" },
        };
        const prompt = "Create fixed.txt containing the word fixed.";
        const recorded = await createLiveSut({
          ...gate,
          adapter: entry.adapter,
          binaryPath: binOf(entry.bin),
          model_upstream: `${own.url}${entry.base}`,
          record: true,
          benchRoot,
        }).run(invocation(prompt));
        await own.close();
        const cassette = readCassette(cassetteDirOf(benchRoot, { benchCase: benchCase(prompt), trial: 0 }));
        expect(cassette.exchanges!.length).toBeGreaterThan(0);
        const replay = createReplaySut({ benchRoot, wire: { ...gate, binaryPathOf: () => binOf(entry.bin) } });
        const again = invocation(prompt);
        const output = await replay.run(again);
        expect(output).toMatchObject({ wire_replay: true, diff_matches_recording: true, diff: recorded.diff });
        expect(readFileSync(join(again.workspacePath, "fixed.txt"), "utf8")).toBe("fixed\n");
        // A changed prompt (the replay SUT refuses a stale cassette before this; here the backend is asked directly).
        const changed = invocation(prompt);
        const diverged = await new CliSubscriptionBackend({
          ...gate,
          adapter: entry.adapter,
          binaryPath: binOf(entry.bin),
          replay_only: true,
        }).run({
          prompt: "Create broken.txt instead.",
          workspace: { root: changed.workspacePath, editable: ["."], readonly: [] },
          timeoutMs: 240_000,
          replay: createReplayMatcher(cassette.exchanges!),
        });
        expect(diverged.agent_network.replay_divergence).not.toBeNull();
        process.stderr.write(
          `cli:${entry.adapter}: a changed prompt diverged at ${diverged.agent_network.replay_divergence?.endpoint} ${diverged.agent_network.replay_divergence?.field}\n`,
        );
      }, 600_000);
    }
  },
);
