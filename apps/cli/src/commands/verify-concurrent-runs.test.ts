// 20 concurrent `evalgate run` processes on one host: every run lands, in one linear chain that
// verifies, with no lost and no duplicated record.
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
    const child = spawn(
      process.execPath,
      [
        BIN,
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        stateDir,
        "--sut",
        "module:sut.mjs#upper",
        "--quiet",
      ],
      {
        cwd: bench.root,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CI: "1" },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

it("20 concurrent evalgate runs into one state directory: 20 records, a linear chain that verifies, none lost", async () => {
  const stateDir = join(bench.root, "state");
  const count = 20;
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: count }, () => runCli(stateDir)));
  const wallMs = performance.now() - started;
  for (const result of results) expect(result.code, result.stderr).toBe(0);
  const recorded = results.map(
    (result) => (JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { run_id: string }).run_id,
  );

  const verify = await invoke(["verify", "--strict", "--out", stateDir]);
  expect(verify.code, verify.stderr).toBe(0);
  expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, records: count, complete: count, incomplete: 0 });
  const runsDir = join(stateDir, "runs");
  const records = await Promise.all(
    (await readdir(runsDir))
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map(async (name) => JSON.parse(await readFile(join(runsDir, name), "utf8"))),
  );
  expect(records.map((record) => record.sequence)).toEqual(Array.from({ length: count }, (_, index) => index));
  expect(records.map((record) => record.report.run_id).sort()).toEqual([...recorded].sort());
  expect(new Set(recorded).size).toBe(count);
  console.info(`${count} concurrent runs: ${count} records, 0 lost, ${Math.round(wallMs)} ms wall`);
}, 300_000);
