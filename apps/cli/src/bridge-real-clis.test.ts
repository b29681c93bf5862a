// The real agent CLIs behind the model bridge, in the sandbox, against the scripted model endpoint: a case
// scores as without the bridge (the CLI edits its workspace), the metered tokens are what the endpoint
// sent, and a one-request budget ends the session. Needs the pinned CLIs (scripts/agent-clis.sh installs
// them into ~/.cache/evalgate/agent-clis/<digest>/); skips, saying so, without them.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScenario, startModelStub } from "@eval/model-stub";
import type { ModelStub } from "@eval/model-stub";
import { sandboxSupport } from "@eval/sandbox";
import { CliSubscriptionBackend } from "@eval/cli-subscription-adapters";

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
