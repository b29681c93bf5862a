// `gc` beside live runs and merges: it removes only what a dead run left, never a live run's detail
// directory, so every run and merge lands in the chain with its details.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordsNewestFirst, verifyChain } from "@eval/audit-chain";
import type { RunPlan } from "@eval/models";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { collectGarbage, mergeBundles, moduleSut, planRun, runEval, runShard } from "./index.ts";
import { OWNER_FILE } from "./run-owner.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };
let sutFile: string;
let plan: RunPlan;
const bundles: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-gc-live-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "alpha beta", "c-2": "gamma", "c-3": "delta", "c-4": "eta" },
  });
  sutFile = join(root, "sut.mjs");
  await writeFile(sutFile, HALF_UPPER_SUT);
  const sut = await moduleSut(`${sutFile}#halfUpper`);
  plan = await planRun(bench.slug, {
    systemUnderTest: sut,
    sutSpec: `module:${sutFile}#halfUpper`,
    benchRoot: bench.benchRoot,
    sandbox: "none",
  });
  for (let index = 1; index <= 2; index += 1) {
    const bundleDir = join(root, `bundle-${index}`);
    await runShard(bench.slug, {
      systemUnderTest: sut,
      benchRoot: bench.benchRoot,
      stateDir: join(root, `shard-${index}`),
      sandbox: "none",
      plan,
      planOptions: { sutSpec: plan.sut.spec },
      shard: { index, count: 2 },
      bundleDir,
    });
    bundles.push(bundleDir);
  }
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("gc beside live runs", () => {
  it("a gc loop beside cold runs and a merge removes nothing live: every run is recorded with its details", async () => {
    const stateDir = join(root, "state");
    const sut = await moduleSut(`${sutFile}#halfUpper`);
    mkdirSync(join(root, "no-temps"), { recursive: true });
    let stop = false;
    let sweeps = 0;
    const removed: string[] = [];
    const loop = (async () => {
      while (!stop) {
        const result = await collectGarbage({ stateDir, tempParent: join(root, "no-temps") });
        removed.push(...result.removedDetailDirs);
        sweeps += 1;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const runs: string[] = [];
    try {
      for (let round = 0; round < 4; round += 1) {
        const [a, b] = await Promise.all([
          runEval(bench.slug, {
            systemUnderTest: sut,
            benchRoot: bench.benchRoot,
            stateDir,
            sandbox: "none",
            noCache: true,
            concurrency: 2,
          }),
          runEval(bench.slug, {
            systemUnderTest: sut,
            benchRoot: bench.benchRoot,
            stateDir,
            sandbox: "none",
            noCache: true,
            concurrency: 2,
          }),
        ]);
        runs.push(a.report.run_id, b.report.run_id);
      }
      const merged = await mergeBundles(bundles, { stateDir });
      runs.push(merged.report.run_id);
    } finally {
      stop = true;
      await loop;
    }
    expect(sweeps).toBeGreaterThan(5);
    expect(removed).toEqual([]);
    const recorded: string[] = [];
    for await (const found of recordsNewestFirst(join(stateDir, "runs"), bench.slug))
      recorded.push(found.record.report.run_id);
    expect(recorded.sort()).toEqual([...runs].sort());
    for (const runId of runs) {
      expect(readdirSync(join(stateDir, "runs", runId, "cases")).filter((name) => name.endsWith(".json"))).toHaveLength(
        4,
      );
      // The record landed: the run no longer claims its directory.
      expect(existsSync(join(stateDir, "runs", runId, OWNER_FILE))).toBe(false);
    }
    expect((await verifyChain({ runsDir: join(stateDir, "runs") })).ok).toBe(true);
  }, 240_000);

  it("removes a dead owner's detail directory, keeps a live or foreign one, and sweeps a kill's staging and checkpoint leftovers", async () => {
    const stateDir = join(root, "state-dead");
    const runsDir = join(stateDir, "runs");
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const owned = (runId: string, owner: Record<string, unknown>): string => {
      mkdirSync(join(runsDir, runId, "cases"), { recursive: true });
      writeFileSync(join(runsDir, runId, OWNER_FILE), JSON.stringify(owner));
      return join(runsDir, runId);
    };
    const deadDir = owned("20261122T000000Z-dead0000", {
      pid: dead,
      host: hostname(),
      started_at: new Date().toISOString(),
    });
    const liveDir = owned("20261122T000000Z-live0000", {
      pid: process.pid,
      host: hostname(),
      started_at: new Date().toISOString(),
    });
    const foreignDir = owned("20261122T000000Z-frgn0000", {
      pid: dead,
      host: "another-host.example",
      started_at: new Date().toISOString(),
    });
    mkdirSync(join(runsDir, ".staging"), { recursive: true });
    const staleRecordTemp = join(runsDir, ".staging", `.0001-x.json.${dead}.abcdef.tmp`);
    writeFileSync(staleRecordTemp, "half a record");
    const staleCheckpointTemp = join(stateDir, "chain.checkpoint.1234567");
    writeFileSync(staleCheckpointTemp, "half a checkpoint");
    const old = new Date(Date.now() - 10 * 60 * 1000);
    const { utimesSync } = await import("node:fs");
    utimesSync(staleCheckpointTemp, old, old);
    const result = await collectGarbage({ stateDir, tempParent: join(root, "no-temps") });
    expect(result.removedDetailDirs).toEqual([deadDir]);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(foreignDir)).toBe(true);
    expect(existsSync(staleRecordTemp)).toBe(false);
    expect(existsSync(staleCheckpointTemp)).toBe(false);
    expect([...result.removedStaleFiles].sort()).toEqual([staleCheckpointTemp, staleRecordTemp].sort());
  });
});
