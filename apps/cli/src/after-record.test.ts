// Against the BUILT binary: once a run's record is in the chain, nothing after it (an output that cannot be
// written, a SIGTERM) changes the run's exit code; a fault outside every case still records the run.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: Awaited<ReturnType<typeof makeUpperBench>>;

beforeAll(async () => {
  bench = await makeUpperBench({ "c-1": "one", "c-2": "two", "c-3": "three" });
  writeFileSync(
    join(bench.root, "break-cache.mjs"),
    `import { readFileSync, renameSync, writeFileSync } from "node:fs";
     export async function upper(invocation) {
       const path = invocation.workspacePath + "/text.txt";
       writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
       if (invocation.benchCase.case_id === "c-2") { const cache = process.env.BREAK_CACHE; renameSync(cache, cache + ".gone"); writeFileSync(cache, "not a directory"); }
       return { cost_usd: 0 };
     }`,
  );
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const records = (state: string): string[] => {
  try {
    return readdirSync(join(bench.root, state, "runs")).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
};

function run(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(
    process.execPath,
    [
      bin,
      "run",
      "--task-class",
      "upper",
      "--sut",
      "module:sut.mjs#upper",
      "--bench-root",
      bench.benchRoot,
      "--sandbox",
      "none",
      "--quiet",
      ...args,
    ],
    {
      cwd: bench.root,
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exited };
}

describe("after the record is written", () => {
  it("an output that cannot be written is a warning: the recorded run keeps exit 0", async () => {
    writeFileSync(join(bench.root, "a-file"), "");
    const { exited } = run(["--out", join(bench.root, "state-junit"), "--junit", "a-file/junit.xml"]);
    const result = await exited;
    expect(result.stderr).toMatch(
      /"code":"run.after_record".*is recorded as .*writing its CI outputs and summary failed/,
    );
    expect(result.code).toBe(0);
    expect(records("state-junit")).toHaveLength(1);
  }, 120_000);

  it("a SIGTERM that arrives after the record is written does not exit 143", async () => {
    // The Markdown summary is appended to a FIFO: the CLI blocks opening it, after the record is written.
    const fifo = join(bench.root, "summary.fifo");
    execFileSync("mkfifo", [fifo]);
    const { child, exited } = run(["--out", join(bench.root, "state-term")], { GITHUB_STEP_SUMMARY: fifo });
    const deadline = Date.now() + 90_000;
    while (records("state-term").length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(records("state-term")).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Unblock the CLI: open the FIFO for reading (non-blocking: a CLI already gone must not hang the test).
    const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const result = await exited;
    closeSync(fd);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("SIGTERM arrived after the run's cases had finished");
  }, 120_000);
});

describe("a fault outside every case", () => {
  it("records the run as incomplete (harness_error), exits 1 and says so in one line", async () => {
    const state = join(bench.root, "state-fault");
    mkdirSync(state, { recursive: true });
    const { exited } = run(["--out", state, "--sut", "module:break-cache.mjs#upper", "--concurrency", "1"], {
      BREAK_CACHE: join(state, "cache"),
    });
    const result = await exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /cannot write the score cache entry of c-[12]: .*[01] of 3 cases finished, recorded as incomplete run partial:/,
    );
    expect(result.stderr).not.toMatch(/internal error/);
    const files = records("state-fault");
    expect(files).toHaveLength(1);
    const record = JSON.parse(readFileSync(join(state, "runs", files[0]!), "utf8")) as {
      report: { incomplete_reason: string };
    };
    expect(record.report.incomplete_reason).toBe("harness_error");
  }, 120_000);
});
