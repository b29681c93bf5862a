// The real agent CLIs behind the model bridge, in the sandbox, against the scripted model endpoint: a case
// scores as without the bridge (the CLI edits its workspace), the metered tokens are what the endpoint
// sent, and a one-request budget ends the session. Needs the pinned CLIs (scripts/agent-clis.sh installs
// them into ~/.cache/evalgate/agent-clis/<digest>/); skips, saying so, without them.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScenario, startModelStub } from "@eval/model-stub";
import type { ModelStub } from "@eval/model-stub";
import { sandboxSupport } from "@eval/sandbox";
import { cassetteDirOf, CliSubscriptionBackend, createLiveSut, createReplaySut, readCassette } from "@eval/cli-subscription-adapters";
import { BenchCaseSchema, parseWire, sutCaseOf } from "@eval/models";
import { createReplayMatcher } from "@eval/model-bridge";

function pinnedClis(): string | null {
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "evalgate", "agent-clis");
  if (!existsSync(cache)) return null;
  const ready = readdirSync(cache).map((name) => join(cache, name)).find((dir) => existsSync(join(dir, ".complete")) || existsSync(join(dir, "node_modules", ".bin", "claude")));
  return ready ?? null;
}

const clis = pinnedClis();
const claude = clis === null ? null : join(clis, "node_modules", ".bin", "claude");
const runnable = sandboxSupport().available && claude !== null && existsSync(claude);
let root: string;
let stub: ModelStub;

beforeAll(async () => {
  if (!runnable) return;
  root = mkdtempSync(join(tmpdir(), "evalgate-bridge-real-"));
  stub = await startModelStub({
    scenario: parseScenario({
      usage: { input_tokens: 1000, output_tokens: 50 },
      turns: [{ text: "Fixing.", tools: [{ write: { path: "fixed.txt", content: "fixed\n" } }], usage: { input_tokens: 2400, output_tokens: 120 } }],
      final_text: "Fixed.",
    }),
  });
});
afterAll(async () => {
  if (!runnable) return;
  await stub.close();
  rmSync(root, { recursive: true, force: true });
});

function backend(extra: Partial<ConstructorParameters<typeof CliSubscriptionBackend>[0]> = {}) {
  return new CliSubscriptionBackend({
    adapter: "claude-code",
    allow_cli_subscription: true,
    acknowledge_unsandboxed_cli: false,
    allow_stale_compliance: true,
    complianceDir: join(root, "compliance"),
    binaryPath: claude!,
    model_upstream: stub.url,
    env: { PATH: process.env.PATH, HOME: join(root, "home") },
    ...extra,
  });
}

describe.runIf(runnable)("Claude Code behind the model bridge, against the scripted endpoint", () => {
  it("edits its workspace through the only door it has; the bridge meters exactly what the endpoint sent", async () => {
    const workspace = mkdtempSync(join(root, "ws-"));
    writeFileSync(join(workspace, "README.md"), "fix me\n");
    const seen = stub.requests().length;
    const result = await backend().run({ prompt: "Create fixed.txt containing the word fixed.", workspace: { root: workspace, editable: ["."], readonly: [] }, timeoutMs: 120_000 });
    expect(result.classification.trial_class).toBe("parse_success");
    expect(readFileSync(join(workspace, "fixed.txt"), "utf8")).toBe("fixed\n");
    const answered = stub.requests().slice(seen).filter((request) => request.usage !== null && request.protocol !== null);
    const sent = answered.reduce((sum, request) => ({ input: sum.input + request.usage!.input_tokens, output: sum.output + request.usage!.output_tokens }), { input: 0, output: 0 });
    expect(result.agent_network).toMatchObject({ agent_network: "bridge", key_withheld: true, metered: { requests: answered.length, input_tokens: sent.input, output_tokens: sent.output } });
    // The endpoint needs no key here: the CLI's dummy never left the host.
    expect(stub.requests().slice(seen).every((request) => !JSON.stringify(request.headers).includes("evalgate-case-"))).toBe(true);
  }, 180_000);

  it("a budget of one request: the next is refused with the protocol's 400 and the session ends within 1 s of it", async () => {
    const workspace = mkdtempSync(join(root, "ws-"));
    writeFileSync(join(workspace, "README.md"), "fix me\n");
    const result = await backend({ case_budget: { maxRequests: 1 } }).run({ prompt: "Create fixed.txt containing the word fixed.", workspace: { root: workspace, editable: ["."], readonly: [] }, timeoutMs: 120_000 });
    const ended = Date.now();
    const stop = result.agent_network.budget_stop!;
    expect(stop.refused_request).toBe(2);
    expect(ended - stop.refused_at).toBeLessThan(3_000);
    expect(result.agent_network.metered?.requests).toBe(1);
  }, 180_000);
});

describe.runIf(runnable)("Claude Code recorded behind the bridge, then replayed with the endpoint stopped", () => {
  it("runs the real CLI again: the same workspace diff; a changed prompt diverges", async () => {
    const own = await startModelStub({ scenario: parseScenario({ turns: [{ tools: [{ write: { path: "fixed.txt", content: "fixed\n" } }] }], final_text: "Fixed." }) });
    const caseDir = join(root, "bench", "vuln-remediation", "cases", "demo-case");
    mkdirSync(join(caseDir, "input"), { recursive: true });
    writeFileSync(join(caseDir, "input", "README.md"), "fix me\n");
    const benchRoot = dirname(dirname(dirname(caseDir)));
    const benchCase = (prompt: string) =>
      sutCaseOf(
        parseWire(BenchCaseSchema, {
          case_id: "demo-case", task_class: "vuln-remediation", prompt, disposition: "positive", difficulty: "easy", source: "curated", curation_class: "held-out",
          added_at: "2026-01-01T00:00:00Z", last_validated_at: "2026-01-01T00:00:00Z", cassette_canary_pin: "0123456789abcdef0123456789abcdef",
          case_path: caseDir, input_path: join(caseDir, "input"), expected_path: join(caseDir, "expected"), cassette_path: null, case_digest: `blake3:${"0".repeat(64)}`,
        }),
      );
    const invocation = (prompt: string) => {
      const workspacePath = mkdtempSync(join(root, "ws-"));
      cpSync(join(caseDir, "input"), workspacePath, { recursive: true });
      return { benchCase: benchCase(prompt), workspacePath, canarySeed: "ab".repeat(32), signal: new AbortController().signal, timeoutMs: 120_000, invocationTag: "bench:t:vuln-remediation:demo-case" };
    };
    const gate = { allow_cli_subscription: true, acknowledge_unsandboxed_cli: false, allow_stale_compliance: true, complianceDir: join(root, "compliance"), env: { PATH: process.env.PATH, HOME: join(root, "home") } };
    const prompt = "Create fixed.txt containing the word fixed.";
    const recorded = await createLiveSut({ ...gate, adapter: "claude-code", binaryPath: claude!, model_upstream: own.url, record: true, benchRoot }).run(invocation(prompt));
    await own.close();
    const cassette = readCassette(cassetteDirOf(benchRoot, { benchCase: benchCase(prompt), trial: 0 }));
    expect(cassette.exchanges!.length).toBeGreaterThan(0);
    const replay = createReplaySut({ benchRoot, wire: { ...gate, binaryPathOf: () => claude! } });
    const again = invocation(prompt);
    const output = await replay.run(again);
    expect(output).toMatchObject({ wire_replay: true, diff_matches_recording: true, diff: recorded.diff });
    expect(readFileSync(join(again.workspacePath, "fixed.txt"), "utf8")).toBe("fixed\n");
    // A changed prompt (the replay SUT refuses a stale cassette before this; here the backend is asked directly).
    const changed = invocation(prompt);
    const diverged = await new CliSubscriptionBackend({ ...gate, adapter: "claude-code", binaryPath: claude!, replay_only: true }).run({
      prompt: "Create broken.txt instead.",
      workspace: { root: changed.workspacePath, editable: ["."], readonly: [] },
      timeoutMs: 120_000,
      replay: createReplayMatcher(cassette.exchanges!),
    });
    expect(diverged.agent_network.replay_divergence).toMatchObject({ index: 0, field: "messages[first user].text" });
  }, 300_000);
});
