// Ctrl-C and SIGTERM against the BUILT binary in a real run: a clean stop, an incomplete record, nothing left behind.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: Awaited<ReturnType<typeof makeUpperBench>>;
const TOKEN = `slow-sut-${process.pid}`;

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "one", "b-1": "two", "b-2": "three", "b-3": "four" });
  // Case a-1 is answered at once; every other case hangs, with a child of its own, until killed.
  writeFileSync(
    join(bench.root, `${TOKEN}.mjs`),
    `import { readFileSync, writeFileSync } from "node:fs";
     import { spawn } from "node:child_process";
     const request = JSON.parse(readFileSync(0, "utf8"));
     const path = request.workspace_path + "/text.txt";
     if (request.case.case_id === "a-1") { writeFileSync(path, readFileSync(path, "utf8").toUpperCase()); process.stdout.write("{}"); }
     else { spawn("sleep", ["300"], { stdio: "ignore" }); setInterval(() => {}, 1000); }`,
  );
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

/** Processes (pid, command line) of this test's SUT still alive anywhere on the host. */
function survivors(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(join("/proc", pid, "cmdline"), "utf8").replaceAll("\0", " ");
      if (cmdline.includes(TOKEN)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function interruptedRun(signal: NodeJS.Signals, state: string) {
  const tmp = join(bench.root, `tmp-${state}`);
  mkdirSync(tmp);
  const child = spawn(
    process.execPath,
    [
      bin,
      "run",
      "--task-class",
      "upper",
      "--sut",
      `command:node ${TOKEN}.mjs`,
      "--out",
      join(bench.root, state),
      "--bench-root",
      bench.benchRoot,
      "--concurrency",
      "2",
    ],
    {
      cwd: bench.root,
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // Wait until case a-1 is scored and cached and the hanging SUTs are running, then interrupt.
  const cached = (): boolean => {
    try {
      return readdirSync(join(bench.root, state, "cache"), { recursive: true }).some((name) =>
        String(name).endsWith(".json"),
      );
    } catch {
      return false;
    }
  };
  for (let waited = 0; !(cached() && survivors().length >= 2) && waited < 20_000; waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect(cached()).toBe(true);
  expect(survivors().length).toBeGreaterThanOrEqual(2);
  const sent = performance.now();
  child.kill(signal);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (exitCode) => resolve(exitCode)));
  return { code, stderr, stoppedMs: performance.now() - sent, tmp };
}

describe("evalgate run, interrupted", () => {
  it("SIGTERM stops a run whose module: SUT loops without yielding (its worker is terminated): exit 143", async () => {
    writeFileSync(join(bench.root, "spin.mjs"), "export function spin() { for (;;) {} }\n");
    const child = spawn(
      process.execPath,
      [
        bin,
        "run",
        "--task-class",
        "upper",
        "--sut",
        "module:spin.mjs#spin",
        "--out",
        join(bench.root, "state-spin"),
        "--bench-root",
        bench.benchRoot,
      ],
      {
        cwd: bench.root,
        env: { PATH: process.env.PATH, TMPDIR: bench.root },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    // The first progress line comes once the signal handlers are in place and the cases start (a fixed sleep
    // raced the CLI's start-up on a loaded machine: SIGTERM then killed Node before it had a handler).
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    for (let waited = 0; !stderr.includes("evalgate run: ") && waited < 40_000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stderr).toContain("evalgate run: ");
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the worker is now spinning in spin()
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("exit", (exitCode) => resolve(exitCode)));
    expect(code, stderr).toBe(143);
    const records = readdirSync(join(bench.root, "state-spin", "runs")).filter((name) => name.endsWith(".json"));
    expect(JSON.parse(readFileSync(join(bench.root, "state-spin", "runs", records[0]!), "utf8")).report).toMatchObject({
      complete: false,
      incomplete_reason: "interrupted",
    });
  }, 60_000);

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s: exit %i, the finished cases chained as an incomplete run, no process or temp dir left",
    async (signal, expected) => {
      const state = `state-${signal}`;
      const { code, stderr, stoppedMs, tmp } = await interruptedRun(signal, state);
      expect(code, stderr).toBe(expected);
      expect(stoppedMs).toBeLessThan(10_000);
      expect(stderr).toMatch(
        new RegExp(`interrupted by ${signal}: \\d of 4 cases finished, recorded as incomplete run partial:`),
      );
      const records = readdirSync(join(bench.root, state, "runs")).filter((name) => name.endsWith(".json"));
      expect(records).toHaveLength(1);
      const report = JSON.parse(readFileSync(join(bench.root, state, "runs", records[0]!), "utf8")).report;
      expect(report).toMatchObject({ complete: false, incomplete_reason: "interrupted", case_count: 4 });
      expect(report.per_case.map((entry: { case_id: string }) => entry.case_id)).toContain("a-1");
      expect(survivors()).toEqual([]);
      expect(readdirSync(tmp).filter((name) => name.startsWith("evalgate-"))).toEqual([]);
    },
    60_000,
  );
});
