import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchCase, RubricRequest } from "@eval/models";
import { ADVERSARIAL_RUBRIC, makeCase, makeRubricBench, PROTOCOL_RUBRIC } from "./bench.test-helpers.ts";
import {
  dependencyReadPaths,
  networkNamespaceWrapper,
  prepareRubricLauncher,
  scrubbedRubricEnv,
} from "./rubric-isolation.ts";
import type { RubricLauncher, RubricOutcome } from "./rubric-isolation.ts";

let benchPath: string;
let launcher: RubricLauncher;

function request(benchCase: BenchCase, harnessOutput: Record<string, unknown> = {}): RubricRequest {
  return {
    schema_version: "evalgate.rubric_request.v1",
    case: benchCase,
    harness_output: harnessOutput,
    context: { workspace_path: null },
  } as RubricRequest;
}

async function runCase(caseId: string, timeoutMs = 20_000): Promise<RubricOutcome> {
  const benchCase = await makeCase(benchPath, caseId);
  return launcher.run({ request: request(benchCase), readablePaths: [benchCase.case_path], timeoutMs });
}

/** Orphaned members of a killed group are reaped by init asynchronously: callers poll. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  benchPath = await makeRubricBench(ADVERSARIAL_RUBRIC);
  launcher = await prepareRubricLauncher({ benchPath, rubricCommand: null, rubricPath: null }, { sandbox: "none" });
});
afterAll(async () => {
  await rm(join(benchPath, ".."), { recursive: true, force: true });
});

describe("rubric isolation without the sandbox (--sandbox none: real subprocesses, Node permission model)", () => {
  it("records the isolation that applies here", () => {
    expect(launcher.isolationClass).toBe(
      networkNamespaceWrapper() === null ? "subprocess-permission" : "subprocess-permission-netns",
    );
  });

  it("scores an honest rubric that reads its case", async () => {
    const outcome = await runCase("honest");
    expect(outcome.kind).toBe("ok");
    if (outcome.kind === "ok") expect(outcome.response.score.score).toBe(0.25);
  });

  it("a rubric using @eval/rubric-protocol imports it through the allowed dependency paths", async () => {
    const protocolBench = await makeRubricBench(PROTOCOL_RUBRIC);
    try {
      const protocolLauncher = await prepareRubricLauncher(
        { benchPath: protocolBench, rubricCommand: null, rubricPath: null },
        { sandbox: "none" },
      );
      const benchCase = await makeCase(protocolBench, "uses-protocol");
      const outcome = await protocolLauncher.run({
        request: request(benchCase, { value: 0.8 }),
        readablePaths: [benchCase.case_path],
        timeoutMs: 20_000,
      });
      expect(outcome.kind, JSON.stringify(outcome.process.stderr)).toBe("ok");
      if (outcome.kind === "ok") expect(outcome.response.score.score).toBe(0.8);
    } finally {
      await rm(join(protocolBench, ".."), { recursive: true, force: true });
    }
  });

  it("adversary: prints process.env looking for a planted ANTHROPIC_API_KEY: absent", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-ant-planted-secret";
    try {
      const outcome = await runCase("env-snoop");
      expect(outcome.kind).toBe("ok");
      if (outcome.kind === "ok") expect(outcome.response.score.score).toBe(1);
      expect(outcome.process.stderr.text).not.toContain("sk-ant-planted-secret");
      expect(Object.keys(JSON.parse(outcome.process.stderr.text)).sort()).toEqual(
        Object.keys(scrubbedRubricEnv("/x")).sort(),
      );
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it("adversary: writes into its cwd, which is gone afterwards", async () => {
    const outcome = await runCase("write-cwd");
    expect(outcome.kind, outcome.process.stderr.text).toBe("ok");
    const cwd = /CWD=(\S+)/.exec(outcome.process.stderr.text)?.[1];
    expect(cwd).toBeDefined();
    expect(existsSync(cwd!)).toBe(false);
  });

  it("adversary: writes outside its cwd: denied, the case fails malformed", async () => {
    const outcome = await runCase("write-outside");
    expect(outcome.kind).toBe("malformed");
    if (outcome.kind === "malformed") expect(outcome.detail).toMatch(/ERR_ACCESS_DENIED|restricted/);
    expect(existsSync(join(benchPath, "cases", "write-outside", "input", "escaped.txt"))).toBe(false);
    expect((await readdir(tmpdir())).some((name) => name.startsWith("evalgate-escape-"))).toBe(false);
  });

  it("adversary: spawns a child process: denied", async () => {
    const outcome = await runCase("spawn-child");
    expect(outcome.kind).toBe("malformed");
    if (outcome.kind === "malformed") expect(outcome.detail).toMatch(/ERR_ACCESS_DENIED|restricted/);
  });

  it("adversary: starts a worker thread: denied", async () => {
    const outcome = await runCase("start-worker");
    expect(outcome.kind).toBe("malformed");
  });

  it("adversary: reads a file outside what it needs: denied", async () => {
    const outcome = await runCase("read-secret");
    expect(outcome.kind).toBe("malformed");
    if (outcome.kind === "malformed") expect(outcome.detail).toMatch(/ERR_ACCESS_DENIED|restricted/);
  });

  it("adversary: loops forever: killed at its timeout, process group gone, cwd removed", async () => {
    const outcome = await runCase("loop-forever", 1500);
    expect(outcome.kind).toBe("timeout");
    expect(outcome.process.wallClockMs).toBeGreaterThanOrEqual(1400);
    expect(outcome.process.wallClockMs).toBeLessThan(10_000);
    await expect.poll(() => groupAlive(outcome.process.pid!), { timeout: 5000 }).toBe(false);
    const cwd = /CWD=(\S+)/.exec(outcome.process.stderr.text)?.[1];
    expect(cwd).toBeDefined();
    expect(existsSync(cwd!)).toBe(false);
  });

  it("adversary: prints 1 GB: capped and killed", async () => {
    const outcome = await runCase("print-1gb");
    expect(outcome.kind).toBe("malformed");
    expect(outcome.process.outputCapped).toBe(true);
    expect(outcome.process.stdout.bytes).toBeLessThan(64 * 1024 * 1024);
    expect(outcome.process.stdout.text.length).toBeLessThanOrEqual(64 * 1024);
  });

  it("adversary: prints invalid JSON: malformed", async () => {
    const outcome = await runCase("invalid-json");
    expect(outcome.kind).toBe("malformed");
    if (outcome.kind === "malformed") expect(outcome.detail).toMatch(/not one JSON document/);
  });

  it.runIf(networkNamespaceWrapper() !== null)(
    "adversary: opens a network connection: no route in its namespace",
    async () => {
      const outcome = await runCase("network");
      expect(outcome.kind).toBe("ok");
      if (outcome.kind === "ok") expect(outcome.response.score.score).toBe(0);
      expect(outcome.process.stderr.text).toMatch(/network: E/);
    },
  );

  it("an abort signal (cost cap) kills the rubric", async () => {
    const benchCase = await makeCase(benchPath, "loop-forever");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const outcome = await launcher.run({
      request: request(benchCase),
      readablePaths: [],
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    expect(outcome.kind).toBe("aborted");
    const aborted = new AbortController();
    aborted.abort();
    expect(
      (
        await launcher.run({
          request: request(benchCase),
          readablePaths: [],
          timeoutMs: 60_000,
          signal: aborted.signal,
        })
      ).kind,
    ).toBe("aborted");
  });
});

describe("declared rubric commands (other languages)", () => {
  it("get process isolation: scrubbed env, own group killed with its children on timeout", async () => {
    const declared = await prepareRubricLauncher(
      { benchPath, rubricCommand: ["/bin/sh", "-c", "sleep 30 & sleep 30 & echo $$ >&2; wait"], rubricPath: null },
      { sandbox: "none", networkIsolation: false },
    );
    expect(declared.isolationClass).toBe("subprocess");
    const benchCase = await makeCase(benchPath, "shell");
    const outcome = await declared.run({ request: request(benchCase), readablePaths: [], timeoutMs: 800 });
    expect(outcome.kind).toBe("timeout");
    await expect.poll(() => groupAlive(outcome.process.pid!), { timeout: 5000 }).toBe(false);
  });

  it("a command that exits non-zero is malformed with its stderr's first line", async () => {
    const declared = await prepareRubricLauncher(
      { benchPath, rubricCommand: ["/bin/sh", "-c", "echo boom >&2; exit 3"], rubricPath: null },
      { sandbox: "none", networkIsolation: false },
    );
    const outcome = await declared.run({
      request: request(await makeCase(benchPath, "shell2")),
      readablePaths: [],
      timeoutMs: 5000,
    });
    expect(outcome).toMatchObject({ kind: "malformed", detail: "rubric exited 3: boom" });
  });

  it("a command that cannot start is malformed", async () => {
    const declared = await prepareRubricLauncher(
      { benchPath, rubricCommand: ["/nonexistent/rubric"], rubricPath: null },
      { sandbox: "none", networkIsolation: false },
    );
    const outcome = await declared.run({
      request: request(await makeCase(benchPath, "shell3")),
      readablePaths: [],
      timeoutMs: 5000,
    });
    expect(outcome.kind).toBe("malformed");
  });

  it("a valid JSON document that is not a RubricResponse is malformed", async () => {
    const declared = await prepareRubricLauncher(
      { benchPath, rubricCommand: ["/bin/sh", "-c", "cat >/dev/null; echo '{\"score\": 2}'"], rubricPath: null },
      { sandbox: "none", networkIsolation: false },
    );
    const outcome = await declared.run({
      request: request(await makeCase(benchPath, "shell4")),
      readablePaths: [],
      timeoutMs: 5000,
    });
    expect(outcome.kind).toBe("malformed");
    if (outcome.kind === "malformed") expect(outcome.detail).toMatch(/rubric response is invalid/);
  });
});

describe("dependencyReadPaths", () => {
  it("resolves workspace links and pnpm store directories transitively", async () => {
    const paths = await dependencyReadPaths(benchPath);
    expect(paths.some((p) => p.endsWith("packages/rubric-protocol"))).toBe(true);
    expect(paths.some((p) => p.endsWith("packages/models"))).toBe(true);
    expect(paths.some((p) => /\.pnpm\/zod@[^/]+\/node_modules$/.test(p))).toBe(true);
    expect(await dependencyReadPaths("/nonexistent-evalgate-bench")).toEqual([]);
  });
});
