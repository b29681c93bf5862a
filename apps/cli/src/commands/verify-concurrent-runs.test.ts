// 8 concurrent `evalgate run` processes on one host: one linear chain that verifies, no lost and no
// duplicated record; each loser fails with one clear line and succeeds when rerun.
import { spawn } from "node:child_process";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeUpperBench } from "./run.test-helpers.ts";
import { invoke } from "../test-helpers.ts";

const BIN = join(import.meta.dirname, "..", "..", "dist", "bin.js");
let bench: { root: string; benchRoot: string; benchPath: string };
beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha" });
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

function runCli(stateDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, "run", "--task-class", "upper", "--bench-root", bench.benchRoot, "--out", stateDir, "--sut", "module:sut.mjs#upper", "--quiet"], {
      cwd: bench.root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CI: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

it("8 concurrent evalgate runs: a linear chain, every run recorded once, losers told to rerun", async () => {
  const stateDir = join(bench.root, "state");
  const recorded: string[] = [];
  const conflicts: string[] = [];
  let pending = 8;
  for (let round = 0; pending > 0 && round < 12; round += 1) {
    const results = await Promise.all(Array.from({ length: pending }, () => runCli(stateDir)));
    for (const result of results) {
      if (result.code === 0) {
        const summary = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { run_id: string; chain_head: string };
        recorded.push(summary.run_id);
      } else {
        expect(result.code, result.stderr).toBe(1);
        expect(result.stdout).toBe("");
        expect(result.stderr.trim().split("\n")).toHaveLength(1);
        expect(result.stderr).toMatch(/another run appended first; rerun .*EVAL_CHAIN_CONFLICT/);
        conflicts.push(result.stderr);
      }
    }
    pending = results.filter((result) => result.code !== 0).length;
  }
  expect(pending).toBe(0);
  expect(conflicts.length).toBeGreaterThan(0);

  const verify = await invoke(["verify", "--strict", "--out", stateDir]);
  expect(verify.code, verify.stderr).toBe(0);
  expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, records: 8, complete: 8, incomplete: 0 });
  const runsDir = join(stateDir, "runs");
  const records = await Promise.all(
    (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort().map(async (name) => JSON.parse(await readFile(join(runsDir, name), "utf8"))),
  );
  expect(records.map((record) => record.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(records.map((record) => record.report.run_id).sort()).toEqual([...recorded].sort());
  expect(new Set(recorded).size).toBe(8);
  console.info(`8 concurrent runs: ${conflicts.length} conflicts before every run was recorded`);
}, 300_000);
