// The real agent CLIs (Claude Code, Codex, Gemini CLI, Pi) behind the model bridge, in the sandbox with no
// network but the relay, against the scripted model endpoint: each edits its workspace as without the
// bridge, the metered tokens are what the endpoint sent, a one-request budget ends the session, and a session
// recorded behind the bridge replays with the endpoint stopped (the real CLI again) or diverges on a changed prompt.
// Needs the pinned CLIs (scripts/agent-clis.sh installs them into ~/.cache/evalgate/agent-clis/<digest>/,
// or EVALGATE_AGENT_CLIS names them); skips without them.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScenario, startModelStub } from "@eval/model-stub";
import type { ModelStub } from "@eval/model-stub";
import type { AgentAdapterName } from "@eval/models";
import { sandboxSupport } from "@eval/sandbox";
import { cassetteDirOf, createLiveSut, createReplaySut, readCassette } from "@eval/agent-sut";
import { CliSubscriptionBackend } from "@eval/cli-subscription-adapters";
import { sutCaseOf } from "@eval/models";
import { benchRootOf, testBenchCase } from "@eval/test-utils";
import { createReplayMatcher } from "@eval/model-bridge";

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

// One after another: the time from the refusal to the trial's end is the measure, and four CLIs starting at
// once on 2 cores stretched Gemini's to 30 s once.
describe.runIf(runnable)("every adapter's real CLI behind the model bridge, against the scripted endpoint", () => {
  for (const { adapter } of ADAPTERS) {
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

// Each test waits on its own CLI processes and its own endpoint; they run at once (vitest runs one file at a
// time on 2 cores).
describe.runIf(runnable)(
  "every adapter's real CLI recorded behind the bridge, then replayed with the endpoint stopped",
  { concurrent: true },
  () => {
    for (const entry of ADAPTERS) {
      it(`cli:${entry.adapter} edits its workspace through the only door it has, the bridge metering exactly what the endpoint sent; recorded, it runs again against the recording: the same workspace diff; a changed prompt diverges`, async () => {
        const own = await startModelStub({
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
        const caseId = `demo-${entry.adapter}`;
        const caseDir = join(root, "bench", "vuln-remediation", "cases", caseId);
        mkdirSync(join(caseDir, "input"), { recursive: true });
        writeFileSync(join(caseDir, "input", "README.md"), "fix me\n");
        const benchRoot = benchRootOf(caseDir);
        const benchCase = (prompt: string) => sutCaseOf(testBenchCase({ caseDir, prompt }));
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
        // The scripted session's turn (2400 in, 120 out) and its final answer (1000, 50), plus any side call
        // (Gemini's router) at the scenario's default usage: whatever the endpoint sent, the bridge counted.
        const answered = own.requests().filter((request) => request.usage !== null && request.protocol !== null);
        expect(answered.length).toBeGreaterThanOrEqual(2);
        expect(recorded).toMatchObject({ trial_class: "parse_success" });
        expect(recorded.agent_network).toMatchObject({
          agent_network: "bridge",
          key_withheld: true,
          upstream_host: new URL(own.url).host,
          metered: {
            requests: answered.length,
            input_tokens: answered.reduce((sum, request) => sum + request.usage!.input_tokens, 0),
            output_tokens: answered.reduce((sum, request) => sum + request.usage!.output_tokens, 0),
          },
        });
        // The endpoint needs no key here: the CLI's dummy never left the host.
        expect(own.requests().every((request) => !JSON.stringify(request.headers).includes("evalgate-case-"))).toBe(
          true,
        );
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
