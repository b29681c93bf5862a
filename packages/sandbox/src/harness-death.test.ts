// A harness killed with SIGKILL (no handler runs) must leave nothing of its sandboxes behind. bwrap's
// --die-with-parent is an edge (PR_SET_PDEATHSIG), armed by each of its processes only once its own set-up
// is done: a harness killed while a sandbox is being built left that sandbox running for good. Each trial
// here is a harness (a Node process) that starts a sandboxed program that never ends and is killed
// `delay` ms later, the delays sweeping the sandbox's start-up.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostProcessesMatching, killHostProcesses } from "@eval/test-utils";
import { sandboxSupport } from "./bwrap.ts";

const support = sandboxSupport();
const MARKER = `harness-death-${process.pid}`;
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "harness-death-"));
  chmodSync(work, 0o777);
  writeFileSync(
    join(work, "harness.mjs"),
    `import { runProcess } from ${JSON.stringify(join(import.meta.dirname, "process-runner.ts"))};
     const [delay, marker, work] = process.argv.slice(2);
     process.stdout.write(process.pid + "\\n");
     void runProcess({
       command: "/bin/sh",
       args: ["-c", "while :; do sleep 1; done", marker],
       cwd: work,
       env: { PATH: "/usr/bin:/bin" },
       timeoutMs: 600_000,
       sandbox: { writable: [work] },
     });
     setTimeout(() => process.kill(process.pid, "SIGKILL"), Number(delay));`,
  );
});
afterAll(() => {
  // Whatever a failing run left behind: these processes were started by this test.
  killHostProcesses(MARKER);
  rmSync(work, { recursive: true, force: true });
});

/** Runs one harness that is SIGKILLed `delay` ms after starting its sandbox; resolves its pid. */
function killedHarness(delay: number, marker: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(work, "harness.mjs"), String(delay), marker, work], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (_code, signal) =>
      signal === "SIGKILL" ? resolve(Number(out.trim())) : reject(new Error(`harness ended by ${signal}: ${out}`)),
    );
  });
}

/** Pids still in the cgroups a dead harness made (cgroup path only; empty elsewhere). */
function cgroupMembers(harnessPid: number): string[] {
  const parent = `/sys/fs/cgroup/pids/evalgate-${harnessPid}`;
  if (!existsSync(parent)) return [];
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => readFileSync(join(parent, entry.name, "cgroup.procs"), "utf8").split("\n"))
    .filter((pid) => pid !== "");
}

describe.skipIf(!support.available)("a harness killed with SIGKILL", () => {
  it("leaves no process of its sandbox running, whenever during the sandbox's start-up it dies", async () => {
    const delays = Array.from({ length: 24 }, (_, i) => i * 4);
    const harnesses: number[] = [];
    for (const delay of delays) harnesses.push(await killedHarness(delay, `${MARKER}-d${delay}`));
    // A short grace: bwrap's processes see their parent die and are killed by the kernel.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const left = hostProcessesMatching(MARKER);
    const leftDelays = [...new Set(left.map((line) => /-d(\d+)/.exec(line)?.[1]))];
    expect(left, `survivors from the harnesses killed at ${leftDelays.join(", ")} ms`).toEqual([]);
    expect(harnesses.flatMap(cgroupMembers)).toEqual([]);
  }, 180_000);
});
