// `evalgate model-stub` as a user runs it: the BUILT binary as a subprocess, serving until SIGTERM.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const bin = join(import.meta.dirname, "..", "..", "dist", "bin.js");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-model-stub-cli-"));
  writeFileSync(
    join(dir, "fix.yaml"),
    "turns:\n  - tools:\n      - run: { command: 'echo hi' }\n    usage: { input_tokens: 7, output_tokens: 3 }\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(...args: string[]): {
  child: ReturnType<typeof spawn>;
  lines: AsyncIterator<string>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [bin, "model-stub", ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator](), stderr: () => stderr };
}

describe("evalgate model-stub", () => {
  it("prints its URL, answers a CLI's request from the scenario, logs it redacted, and stops cleanly on SIGTERM", async () => {
    const { child, lines } = start("--scenario", "fix.yaml", "--log", "requests.jsonl");
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const { url } = JSON.parse((await lines.next()).value as string) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-should-not-be-logged" },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "go" }],
        tools: [{ type: "function", function: { name: "bash", parameters: { properties: { command: {} } } } }],
      }),
    });
    const answer = (await response.json()) as {
      choices: { message: { tool_calls: { function: { arguments: string } }[] } }[];
      usage: unknown;
    };
    expect(JSON.parse(answer.choices[0]!.message.tool_calls[0]!.function.arguments)).toEqual({ command: "echo hi" });
    expect(answer.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    child.kill("SIGTERM");
    expect(JSON.parse((await lines.next()).value as string)).toEqual({
      type: "model_stub_stopped",
      schema_version: "evalgate.model_stub_stopped_line.v1",
      stopped: true,
      requests: 1,
    });
    expect(await exited).toBe(0);
    const log = readFileSync(join(dir, "requests.jsonl"), "utf8");
    expect(log).toContain('"authorization":"[redacted]"');
    expect(log).not.toContain("sk-should-not-be-logged");
  }, 60_000);

  it("stopped the moment its URL line is read, still prints the stopped line and exits 0 (10 of 10)", async () => {
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const { child, lines } = start("--scenario", "fix.yaml");
      const exited = new Promise<string>((resolve) => child.on("exit", (code, signal) => resolve(`${code}/${signal}`)));
      expect(JSON.parse((await lines.next()).value as string)).toMatchObject({ type: "model_stub" });
      child.kill("SIGTERM");
      const rest: string[] = [];
      for (let next = await lines.next(); next.done !== true; next = await lines.next()) rest.push(next.value);
      outcomes.push(`${await exited} ${rest.length}`);
    }
    expect(outcomes).toEqual(Array.from({ length: 10 }, () => "0/null 1"));
  }, 120_000);

  it("refuses a bad scenario and a non-loopback host in one line each, exit 1", async () => {
    writeFileSync(join(dir, "bad.yaml"), "turns: []\n");
    for (const [args, message] of [
      [["--scenario", "bad.yaml"], /bad\.yaml: turns: .*EVAL_SCENARIO_INVALID/],
      [["--scenario", "fix.yaml", "--host", "0.0.0.0"], /loopback only/],
    ] as const) {
      const { child, stderr } = start(...args);
      const code = await new Promise<number | null>((resolve) => child.on("exit", (exitCode) => resolve(exitCode)));
      expect(code).toBe(1);
      expect(stderr()).toMatch(message);
      expect(stderr().trim().split("\n")).toHaveLength(1);
    }
  }, 60_000);
});
