// Both relays, run as real processes on this host's loopback (the sandbox adds only its own network namespace):
// the agent they start connects the moment it starts, with no retry, and must reach the bridge every time (the
// start-up handshake: the agent starts only once the relay listens); a relay that cannot listen never starts the
// agent and exits 125 saying why; the agent's exit status is the relay's.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelBridge } from "./bridge.ts";
import { startModelBridge } from "./bridge.ts";
import { findSocat, relayInvocation } from "./relay.ts";
import { startTestUpstream } from "./test-upstream.test-helpers.ts";
import type { TestUpstream } from "./test-upstream.test-helpers.ts";

const CASE_KEY = "evalgate-case-relay-test-0000000000";
const socat = findSocat();
let dir: string;
let upstream: TestUpstream;
let bridge: ModelBridge;
let agent: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-relay-test-"));
  upstream = await startTestUpstream();
  bridge = await startModelBridge({
    socketPath: join(dir, "model.sock"),
    upstream: { baseUrl: upstream.url, apiKey: null },
    localPrefix: "",
    clientKey: CASE_KEY,
  });
  // The stand-in agent: one model call the moment it starts (no retry), then it reports what it got and the
  // names of its relay's children (itself among them), and exits with the status it was given.
  agent = join(dir, "agent.mjs");
  writeFileSync(
    agent,
    `import { readFileSync, writeFileSync } from "node:fs";
const [port, report, status] = process.argv.slice(2);
let result;
try {
  const response = await fetch("http://127.0.0.1:" + port + "/v1/messages", { method: "POST", headers: { "x-api-key": ${JSON.stringify(CASE_KEY)}, "content-type": "application/json" }, body: JSON.stringify({ model: "claude-sonnet-4-5", stream: true, messages: [] }) });
  result = { status: response.status, body: await response.text() };
} catch (error) { result = { error: String(error.cause?.code ?? error.message) }; }
const children = readFileSync("/proc/" + process.ppid + "/task/" + process.ppid + "/children", "utf8").trim().split(/\\s+/).filter(Boolean).map((pid) => { try { return readFileSync("/proc/" + pid + "/comm", "utf8").trim(); } catch { return "gone"; } });
writeFileSync(report, JSON.stringify({ ...result, children }));
process.exit(Number(status));
`,
  );
});
afterAll(async () => {
  await bridge.close();
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port free on 127.0.0.1 a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function run(command: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(command, [...args], { timeout: 60_000 }, (_error, _stdout, stderr) =>
      resolve({ code: child.exitCode, stderr }),
    );
  });
}

// socat's path is skipped where it is not installed (README command 1 installs it).
const paths: ReadonlyArray<{ name: string; socatPath: string | null; runnable: boolean }> = [
  { name: "socat (the default when installed)", socatPath: socat, runnable: socat !== null },
  { name: "Node (the fallback)", socatPath: null, runnable: true },
];

describe.each(paths)("the $name relay", ({ socatPath, runnable }) => {
  it.runIf(runnable)(
    "starts the agent only once it listens: an immediate first call reaches the bridge, every time",
    async () => {
      const answers: Array<{ status?: number; error?: string; children: string[] }> = [];
      for (let trial = 0; trial < 12; trial += 1) {
        const port = await freePort();
        const report = join(dir, `report-${socatPath === null ? "node" : "socat"}-${trial}.json`);
        const relay = relayInvocation(
          { nodePath: process.execPath, socatPath, socketPath: bridge.socketPath, port },
          process.execPath,
          [agent, String(port), report, "0"],
        );
        const { code, stderr } = await run(relay.command, relay.args);
        expect(code, stderr).toBe(0);
        answers.push(JSON.parse(readFileSync(report, "utf8")) as { status?: number; children: string[] });
      }
      expect(answers.map((answer) => answer.status ?? answer.error)).toEqual(Array(12).fill(200));
      // With socat the shell runs socat (and the notice drain) beside the agent; the Node relay is alone.
      if (socatPath !== null) expect(answers.every((answer) => answer.children.includes("socat"))).toBe(true);
      else expect(answers.every((answer) => !answer.children.includes("socat"))).toBe(true);
    },
    240_000,
  );

  it.runIf(runnable)(
    "passes the agent's exit status through",
    async () => {
      const port = await freePort();
      const relay = relayInvocation(
        { nodePath: process.execPath, socatPath, socketPath: bridge.socketPath, port },
        process.execPath,
        [agent, String(port), join(dir, "status.json"), "3"],
      );
      expect((await run(relay.command, relay.args)).code).toBe(3);
    },
    60_000,
  );

  it.runIf(runnable)(
    "cannot listen (the port is taken): exits 125 saying why, and the agent never starts",
    async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
      const port = (taken.address() as AddressInfo).port;
      const report = join(dir, `never-${socatPath === null ? "node" : "socat"}.json`);
      try {
        const relay = relayInvocation(
          { nodePath: process.execPath, socatPath, socketPath: bridge.socketPath, port },
          process.execPath,
          [agent, String(port), report, "0"],
        );
        const { code, stderr } = await run(relay.command, relay.args);
        expect(code).toBe(125);
        expect(stderr).toMatch(/evalgate relay: .*(EADDRINUSE|Address already in use|did not listen)/s);
        expect(existsSync(report)).toBe(false);
      } finally {
        taken.close();
      }
    },
    60_000,
  );
});

describe("choosing the relay", () => {
  it("finds socat where Debian installs it, or says there is none", () => {
    expect(socat === null || socat.endsWith("/socat")).toBe(true);
  });

  it("a socat path that is not socat: exits 125 before the agent starts", async () => {
    const port = await freePort();
    const report = join(dir, "never-bad-socat.json");
    const relay = relayInvocation(
      { nodePath: process.execPath, socatPath: join(dir, "no-such-socat"), socketPath: bridge.socketPath, port },
      process.execPath,
      [agent, String(port), report, "0"],
    );
    const { code, stderr } = await run(relay.command, relay.args);
    expect(code).toBe(125);
    expect(stderr).toContain("evalgate relay: socat did not listen");
    expect(existsSync(report)).toBe(false);
  }, 60_000);
});
