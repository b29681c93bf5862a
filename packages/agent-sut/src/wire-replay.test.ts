// Record and replay at the wire, with a stand-in agent behind the bridge: recording keeps every model
// exchange in the cassette; replaying runs the CLI again, with the upstream gone, against the recorded
// answers; a request the recording does not hold ends the case as replay.diverged, naming the field.
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchCase, SutInvocation } from "@eval/models";
import { sutCaseOf } from "@eval/models";
import { benchRootOf, testBenchCase } from "@eval/test-utils";
import { sandboxSupport } from "@eval/sandbox";
import { readStream, startAnthropicUpstream, writeReport } from "@eval/cli-subscription-adapters/test-helpers";
import { readCassette } from "./cassette-files.ts";
import { cassetteDirOf, createLiveSut, createReplaySut } from "./suts.ts";

const sandboxed = sandboxSupport().available;
const SEED = "ab".repeat(32);
let root: string;
let binaryPath: string;
let complianceDir: string;
let benchCase: BenchCase;
let benchRoot: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evalgate-wire-replay-"));
  const packageDir = join(root, "prefix", "node_modules", "stand-in-agent");
  mkdirSync(packageDir, { recursive: true });
  mkdirSync(join(root, "prefix", "bin"));
  // Sends its prompt and the workspace's input.txt to its model, with ids that change every run; writes the answer.
  writeFileSync(
    join(packageDir, "cli.mjs"),
    `#!${process.execPath}
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
if (process.argv.includes("--version")) { console.log("2.1.330 (Claude Code)"); process.exit(0); }
const prompt = process.argv[process.argv.indexOf("--print") + 1];
const body = { model: "claude-sonnet-4-5", stream: true, metadata: { user_id: randomUUID() }, tools: [{ name: "Write" }], messages: [{ role: "user", content: prompt + "\\n" + readFileSync("input.txt", "utf8") + "\\nsession " + randomUUID() + " at " + new Date().toISOString() }] };
const response = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", { method: "POST", headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "content-type": "application/json" }, body: JSON.stringify(body) });
const text = (await response.text()).split("\\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6))).filter((event) => event.delta?.type === "text_delta").map((event) => event.delta.text).join("");
if (response.status !== 200) { console.error(text || response.status); process.exit(1); }
writeFileSync("answer.txt", text + "\\n");
process.stdout.write(${JSON.stringify(readStream("claude-success.stdout.jsonl"))});
`,
  );
  chmodSync(join(packageDir, "cli.mjs"), 0o755);
  binaryPath = join(root, "prefix", "bin", "claude");
  symlinkSync(join(packageDir, "cli.mjs"), binaryPath);
  complianceDir = join(root, "state", "compliance");
  writeReport(complianceDir, { adapter: "claude-code", binaryPath, version: "2.1.330" });
  const caseDir = join(root, "bench", "vuln-remediation", "cases", "demo-case");
  mkdirSync(join(caseDir, "input"), { recursive: true });
  writeFileSync(join(caseDir, "input", "input.txt"), "the vulnerable line\n");
  benchRoot = benchRootOf(caseDir);
  benchCase = testBenchCase({ caseDir, prompt: "Fix the vulnerable line in input.txt." });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function invocation(): SutInvocation {
  const workspacePath = mkdtempSync(join(root, "ws-"));
  cpSync(benchCase.input_path, workspacePath, { recursive: true });
  return {
    benchCase: sutCaseOf(benchCase),
    workspacePath,
    canarySeed: SEED,
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    invocationTag: "bench:t:vuln-remediation:demo-case",
  };
}

const gate = () => ({
  allow_cli_subscription: true,
  acknowledge_unsandboxed_cli: false,
  complianceDir,
  env: { PATH: process.env.PATH },
});

describe.runIf(sandboxed)("record and replay at the wire", () => {
  it("records every exchange; the replay runs the CLI again with the upstream stopped and leaves the same workspace; a changed input diverges", async () => {
    const upstream = await startAnthropicUpstream();
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath,
      version: "2.1.330",
      origin: new URL(upstream.url).origin,
      name: "upstream.jsonl",
    });
    const recording = invocation();
    const live = createLiveSut({
      ...gate(),
      adapter: "claude-code",
      binaryPath,
      model_upstream: upstream.url,
      record: true,
      benchRoot,
    });
    const recorded = await live.run(recording);
    await upstream.close();
    expect(readFileSync(join(recording.workspacePath, "answer.txt"), "utf8")).toBe("done\n");
    const cassette = readCassette(cassetteDirOf(benchRoot, recording));
    expect(cassette.exchanges).toHaveLength(1);
    expect(cassette.exchanges![0]).toMatchObject({ path: "/v1/messages", protocol: "anthropic-messages", status: 200 });
    expect(JSON.stringify(cassette.exchanges)).not.toMatch(/evalgate-case-[0-9a-f]{36}/);
    expect(recorded.agent_network).toMatchObject({ agent_network: "bridge" });

    const replay = createReplaySut({ benchRoot, wire: { ...gate(), binaryPathOf: () => binaryPath } });
    expect(replay.isolation).toBe("bwrap-bridge");
    const again = invocation();
    const output = await replay.run(again);
    expect(output).toMatchObject({
      wire_replay: true,
      diff_matches_recording: true,
      trial_class: "parse_success",
      diff: recorded.diff,
    });
    expect(readFileSync(join(again.workspacePath, "answer.txt"), "utf8")).toBe("done\n");

    const changed = invocation();
    writeFileSync(join(changed.workspacePath, "input.txt"), "another line\n");
    await expect(replay.run(changed)).rejects.toMatchObject({
      failure_mode: "replay.diverged",
      message: expect.stringContaining("messages[first user].text"),
    });
  }, 120_000);
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.runIf(sandboxed)("the model endpoint unreachable behind the bridge", () => {
  it("a live agent whose model calls cannot connect upstream ends as agent.infrastructure naming the host, not as the agent's failure", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath,
      version: "2.1.330",
      origin: url,
      name: "down.jsonl",
    });
    const live = createLiveSut({ ...gate(), adapter: "claude-code", binaryPath, model_upstream: url, benchRoot });
    const thrown = await live.run(invocation()).catch((error: unknown) => error);
    expect(thrown).toMatchObject({
      failure_mode: "agent.infrastructure",
      message: `claude-code: ECONNREFUSED connecting to the model endpoint ${new URL(url).host} (model request 1)`,
    });
    expect((thrown as Error).message).not.toMatch(/evalgate-case-|sk-/);
  }, 120_000);

  it("an endpoint that answers with an HTTP error is reachable: the CLI's failure stays the SUT's attempt", async () => {
    const failing = createHttpServer((_request, response) =>
      response.writeHead(500, { "content-type": "application/json" }).end('{"error":"overloaded"}'),
    );
    await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    try {
      writeReport(complianceDir, {
        adapter: "claude-code",
        binaryPath,
        version: "2.1.330",
        origin: url,
        name: "500.jsonl",
      });
      const live = createLiveSut({ ...gate(), adapter: "claude-code", binaryPath, model_upstream: url, benchRoot });
      const thrown = await live.run(invocation()).catch((error: unknown) => error);
      expect(thrown).toMatchObject({ code: "EVAL_ADAPTER_TRIAL_FAILED" });
      expect((thrown as { failure_mode?: unknown }).failure_mode).toBeUndefined();
    } finally {
      failing.closeAllConnections();
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  }, 120_000);
});
