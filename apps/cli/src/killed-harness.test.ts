// Against the BUILT binary: whatever kills evalgate mid-case (SIGKILL: no handler runs; SIGTERM: its own
// stop), no process of the run may remain, whether the rubric or a `command:` SUT is the one that never ends.
// (A harness killed while a sandbox is still being built is the case bwrap alone missed: harness-death.test.ts
// in @eval/sandbox sweeps that window.)
// Processes of a run are found by the run's temp root in their command line (every sandbox names its bench
// or script paths) and, on the cgroup path, by the groups evalgate made.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostProcessesMatching, killHostProcesses } from "@eval/test-utils";
import { sandboxSupport } from "@eval/sandbox";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const bin = join(import.meta.dirname, "..", "dist", "bin.js");
let bench: Awaited<ReturnType<typeof makeUpperBench>>;

const HANG = "setInterval(() => {}, 1000);\n";

beforeAll(async () => {
  bench = await makeUpperBench({ "c-1": "one", "c-2": "two", "c-3": "three", "c-4": "four" });
  writeFileSync(join(bench.root, "hang-sut.mjs"), HANG);
  // Written after signing, as a broken rubric would be: the SUT case below never reaches it.
  writeFileSync(join(bench.benchPath, "rubric.ts"), HANG);
}, 60_000);
afterAll(async () => {
  // What a failing run left: started by this test.
  killHostProcesses(bench.root);
  await rm(bench.root, { recursive: true, force: true });
});

/** A sandboxed process of this test's runs other than evalgate itself. */
const sandboxed = (): string[] => hostProcessesMatching(bench.root).filter((line) => !line.includes(bin));

/** Pids left in the cgroups evalgate `pid` made (cgroup path only). */
function cgroupMembers(pid: number): string[] {
  const parent = `/sys/fs/cgroup/pids/evalgate-${pid}`;
  if (!existsSync(parent)) return [];
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => readFileSync(join(parent, entry.name, "cgroup.procs"), "utf8").split("\n"))
    .filter((pid) => pid !== "");
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;)
    if (check()) return true;
    else await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

/** Starts a run whose rubric or SUT never ends and signals evalgate once two of those programs run. */
async function signalledRun(what: "rubric" | "sut", signal: NodeJS.Signals, state: string) {
  const tmp = join(bench.root, `tmp-${state}`);
  mkdirSync(tmp);
  const sut = what === "sut" ? "command:node hang-sut.mjs" : "module:sut.mjs#upper";
  const child = spawn(
    process.execPath,
    [bin, "run", "--task-class", "upper", "--sut", sut, "--out", join(bench.root, state)].concat([
      "--bench-root",
      bench.benchRoot,
      "--concurrency",
      "2",
      "--quiet",
    ]),
    { cwd: bench.root, env: { PATH: process.env.PATH, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, exitSignal) => resolve({ code, signal: exitSignal })),
  );
  // The program itself runs (its node, inside a sandbox), not just bwrap.
  const programs = (): number =>
    sandboxed().filter((line) => {
      const argv = line.slice(line.indexOf(": ") + 2).split(" ");
      return argv[0]!.endsWith("/node") && argv.some((arg) => /(rubric\.ts|hang-sut\.mjs)$/.test(arg));
    }).length;
  expect(await until(() => programs() >= 2, 60_000), `${what} never started: ${stderr}`).toBe(true);
  child.kill(signal);
  const ended = await exited;
  // A short grace: what the kernel or the sandbox kills on its own, it kills now.
  await until(() => sandboxed().length === 0, 5_000);
  return { ...ended, stderr, pid: child.pid!, state: join(bench.root, state), tmp };
}

describe.skipIf(!sandboxSupport().available)("evalgate killed mid-case", () => {
  it.each(["rubric", "sut"] as const)(
    "SIGKILL while the %s never ends: no process of the run remains",
    async (what) => {
      const run = await signalledRun(what, "SIGKILL", `kill-${what}`);
      expect(run.signal).toBe("SIGKILL");
      expect(sandboxed()).toEqual([]);
      expect(cgroupMembers(run.pid)).toEqual([]);
    },
    120_000,
  );

  it("SIGTERM while the rubric never ends: exit 143, an incomplete run recorded, no process left", async () => {
    const run = await signalledRun("rubric", "SIGTERM", "term-rubric");
    expect(run.code, run.stderr).toBe(143);
    const records = readdirSync(join(run.state, "runs")).filter((name) => name.endsWith(".json"));
    expect(records).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(run.state, "runs", records[0]!), "utf8")).report;
    expect(report).toMatchObject({ complete: false, incomplete_reason: "interrupted", case_count: 4 });
    expect(sandboxed()).toEqual([]);
    expect(cgroupMembers(run.pid)).toEqual([]);
    expect(readdirSync(run.tmp).filter((name) => name.startsWith("evalgate-"))).toEqual([]);
  }, 120_000);
});
