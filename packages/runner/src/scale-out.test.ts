// plan -> shards -> merge through the library, on a real task class with real rubric subprocesses:
// the merged run equals the one-machine run of the plan, and every bad input is refused writing nothing.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyChain } from "@eval/audit-chain";
import { blake3Digest } from "@eval/hashing";
import type { BenchRunReport, RunPlan, SystemUnderTest } from "@eval/models";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import {
  mergeBundles,
  moduleSut,
  parseShard,
  planRun,
  planUnits,
  readBundle,
  runEval,
  runShard,
  shardUnits,
} from "./index.ts";
import type { RunEvalOptions } from "./index.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };
let sutFile: string;
let plan: RunPlan;
let oneMachine: BenchRunReport;
const bundles: string[] = [];

const runOptions = async (stateDir: string): Promise<RunEvalOptions & { systemUnderTest: SystemUnderTest }> => ({
  systemUnderTest: await moduleSut(`${sutFile}#halfUpper`),
  benchRoot: bench.benchRoot,
  stateDir,
  concurrency: 2,
  sandbox: "none",
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-scale-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: {
      "c-1": "alpha beta",
      "c-2": "gamma",
      "c-3": "delta epsilon zeta",
      "c-4": "eta",
      "c-5": "THETA",
      "c-6": "iota kappa",
    },
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
  for (let index = 1; index <= 3; index += 1) {
    const bundleDir = join(root, `bundle-${index}`);
    await runShard(bench.slug, {
      ...(await runOptions(join(root, `shard-state-${index}`))),
      plan,
      planOptions: { sutSpec: plan.sut.spec },
      shard: { index, count: 3 },
      bundleDir,
    });
    bundles.push(bundleDir);
  }
  oneMachine = (await runEval(bench.slug, await runOptions(join(root, "one-machine")))).report;
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("plan and shards", () => {
  it("the plan's identity depends on the run, never on when it was made", async () => {
    const sut = await moduleSut(`${sutFile}#halfUpper`);
    const again = await planRun(bench.slug, {
      systemUnderTest: sut,
      sutSpec: plan.sut.spec,
      benchRoot: bench.benchRoot,
      sandbox: "none",
      now: () => new Date("2030-01-01T00:00:00Z"),
    });
    expect(again.plan_id).toBe(plan.plan_id);
    const other = await planRun(bench.slug, {
      systemUnderTest: await moduleSut(`${sutFile}#full`),
      sutSpec: "module:x#full",
      benchRoot: bench.benchRoot,
      sandbox: "none",
    });
    expect(other.plan_id).not.toBe(plan.plan_id);
    expect(plan.cases.map((c) => c.case_id)).toEqual(["c-1", "c-2", "c-3", "c-4", "c-5", "c-6"]);
  });

  it("shards partition the units: every unit in exactly one shard, sizes differing by at most one, for N = 1..8", () => {
    const all = planUnits(plan).map((unit) => `${unit.case_id}#${unit.trial}`);
    for (let count = 1; count <= 8; count += 1) {
      const parts = Array.from({ length: count }, (_, i) =>
        shardUnits(plan, { index: i + 1, count }).map((unit) => `${unit.case_id}#${unit.trial}`),
      );
      expect(parts.flat().sort()).toEqual([...all].sort());
      const sizes = parts.map((part) => part.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it("parses i/N and refuses anything else with one line", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["5/4", "0/4", "1/0", "a/b", "1", "-1/4", "1/4/2"])
      expect(() => parseShard(bad)).toThrow(/--shard must be i\/N with 1 <= i <= N/);
  });

  it("a shard refuses a plan this machine's bench does not match, before running anything", async () => {
    const edited = { ...plan, rubric_digest: `blake3:${"0".repeat(64)}` } as RunPlan;
    const bundleDir = join(root, "never");
    await expect(
      runShard(bench.slug, {
        ...(await runOptions(join(root, "mismatch-state"))),
        plan: edited,
        planOptions: { sutSpec: plan.sut.spec },
        shard: { index: 1, count: 2 },
        bundleDir,
      }),
    ).rejects.toMatchObject({
      code: "EVAL_PLAN_MISMATCH",
      message: expect.stringMatching(/rubric_digest is blake3:.*, the plan says blake3:0{64}/),
    });
    expect(existsSync(bundleDir)).toBe(false);
    await expect(
      runShard(bench.slug, {
        ...(await runOptions(join(root, "x"))),
        plan,
        planOptions: { sutSpec: plan.sut.spec },
        shard: { index: 1, count: 3 },
        bundleDir: bundles[0]!,
      }),
    ).rejects.toThrow(/already exists/);
  });

  it("a bundle reads back with its plan and units; a shard never touches a chain", async () => {
    const read = await readBundle(bundles[0]!);
    expect(read.plan.plan_id).toBe(plan.plan_id);
    expect(read.manifest.shard).toEqual({ index: 1, count: 3 });
    expect(read.units.map((unit) => unit.case_id)).toEqual(
      shardUnits(plan, { index: 1, count: 3 }).map((unit) => unit.case_id),
    );
    expect(read.units.every((unit) => unit.detail !== null && unit.detail.case_id === unit.case_id)).toBe(true);
    const records = (await readdir(join(root, "shard-state-1", "runs"))).filter((name) => name.endsWith(".json"));
    expect(records).toEqual([]);
  });
});

describe("merge", () => {
  it("equals the one-machine run of the plan case for case and figure for figure; merging again appends nothing", async () => {
    const stateDir = join(root, "merge-ok");
    const merged = await mergeBundles([...bundles].reverse(), { stateDir });
    expect(merged.appended).toBe(true);
    const strip = (report: BenchRunReport) => ({
      ...report,
      run_id: null,
      started_at: null,
      ended_at: null,
      host_fingerprint: null,
      prev_hash: null,
      chain_head: null,
      per_case: report.per_case.map((c) => ({ ...c, score: { ...c.score, wall_clock_ms: null } })),
    });
    expect(strip(merged.report as BenchRunReport)).toEqual(strip(oneMachine));
    expect(merged.report.run_id).toBe(`plan-${plan.plan_id.slice(7)}`);
    const again = await mergeBundles(bundles, { stateDir });
    expect(again.appended).toBe(false);
    expect(await verifyChain({ runsDir: join(stateDir, "runs"), strict: true })).toMatchObject({
      ok: true,
      records: 1,
    });
    const details = await readdir(join(stateDir, "runs", merged.report.run_id, "cases"));
    expect(details.sort()).toEqual(plan.cases.map((c) => `${c.case_id}.json`));
  });

  it("records the limit values only when every shard ran under the same", async () => {
    expect(oneMachine.resource_limit_values).toBeDefined();
    const other = join(root, "bundle-other-limits");
    await cp(bundles[2]!, other, { recursive: true });
    const manifestPath = join(other, "manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as Record<string, unknown>;
    expect(manifest.resource_limit_values).toEqual(oneMachine.resource_limit_values);
    manifest.resource_limit_values = { sut: null, rubric: { pids: 16, memory_bytes: 64 << 20, disk_bytes: 1 << 20 } };
    await writeFile(manifestPath, JSON.stringify(manifest));
    const merged = await mergeBundles([bundles[0]!, bundles[1]!, other], { stateDir: join(root, "merge-limits") });
    expect((merged.report as BenchRunReport).resource_limit_values).toBeUndefined();
  });

  it("identical duplicates are fine (a bundle given twice)", async () => {
    const merged = await mergeBundles([...bundles, bundles[1]!], { stateDir: join(root, "merge-dup") });
    expect(merged).toMatchObject({ appended: true, duplicates: shardUnits(plan, { index: 2, count: 3 }).length });
  });

  it("missing units are refused, naming them; --allow-incomplete records an incomplete run", async () => {
    const stateDir = join(root, "merge-missing");
    const missing = shardUnits(plan, { index: 3, count: 3 }).map((unit) => `${unit.case_id}#t0`);
    await expect(mergeBundles(bundles.slice(0, 2), { stateDir })).rejects.toMatchObject({
      code: "EVAL_UNITS_MISSING",
      message: expect.stringContaining(missing.join(", ")),
    });
    expect(existsSync(join(stateDir, "runs"))).toBe(false);
    const partial = await mergeBundles(bundles.slice(0, 2), { stateDir, allowIncomplete: true });
    expect(partial.report).toMatchObject({
      complete: false,
      incomplete_reason: "units_missing",
      run_id: `partial:plan-${plan.plan_id.slice(7)}`,
    });
    expect(partial.missing.map((unit) => `${unit.case_id}#t${unit.trial}`)).toEqual(missing);
  });

  it("refuses a bundle that is not a plain tree: units/ symlinked elsewhere, a symlinked file, a FIFO, naming it", async () => {
    const stateDir = join(root, "merge-links");
    // units/ moved elsewhere and symlinked back: every digest still matches.
    const linked = join(root, "bundle-linked-units");
    await cp(bundles[0]!, linked, { recursive: true });
    await rename(join(linked, "units"), join(root, "units-elsewhere"));
    await symlink(join(root, "units-elsewhere"), join(linked, "units"));
    await expect(mergeBundles([linked, bundles[1]!, bundles[2]!], { stateDir })).rejects.toMatchObject({
      code: "EVAL_BUNDLE_TAMPERED",
      message: expect.stringMatching(/units is a symlink/),
    });
    const linkedPlan = join(root, "bundle-linked-plan");
    await cp(bundles[0]!, linkedPlan, { recursive: true });
    await rename(join(linkedPlan, "plan.json"), join(root, "plan-elsewhere.json"));
    await symlink(join(root, "plan-elsewhere.json"), join(linkedPlan, "plan.json"));
    await expect(mergeBundles([linkedPlan, bundles[1]!, bundles[2]!], { stateDir })).rejects.toMatchObject({
      code: "EVAL_BUNDLE_TAMPERED",
      message: expect.stringMatching(/plan\.json is a symlink/),
    });
    const fifo = join(root, "bundle-fifo");
    await cp(bundles[0]!, fifo, { recursive: true });
    // A listed unit replaced by a FIFO: reading it would block the merge for ever.
    const unit = `units/${shardUnits(plan, { index: 1, count: 3 })[0]!.case_id}.t0.json`;
    await rm(join(fifo, unit));
    expect(spawnSync("mkfifo", [join(fifo, unit)]).status).toBe(0);
    await expect(mergeBundles([fifo, bundles[1]!, bundles[2]!], { stateDir })).rejects.toMatchObject({
      code: "EVAL_BUNDLE_TAMPERED",
      message: expect.stringContaining(`${unit} is a fifo`),
    });
    expect(existsSync(join(stateDir, "runs"))).toBe(false);
  }, 30_000);

  it("a bundle path that does not exist is EVAL_IO, not tampering; a re-listed plan.json that is not a plan is tampering", async () => {
    const stateDir = join(root, "merge-missing-path");
    const nowhere = join(root, "bundle-typo");
    await expect(mergeBundles([nowhere, ...bundles], { stateDir })).rejects.toMatchObject({
      code: "EVAL_IO",
      message: `bundle ${nowhere} does not exist`,
    });
    const empty = join(root, "bundle-empty");
    await mkdir(empty);
    await expect(mergeBundles([empty], { stateDir })).rejects.toMatchObject({
      code: "EVAL_BUNDLE_TAMPERED",
      message: expect.stringMatching(/has no manifest\.json/),
    });
    // plan.json rewritten and its digest re-listed in the (unsigned) manifest: the digests agree, the plan does not parse.
    const relisted = join(root, "bundle-relisted-plan");
    await cp(bundles[0]!, relisted, { recursive: true });
    const notAPlan = `${JSON.stringify({ schema_version: "evalgate.run_plan.v1" })}\n`;
    await writeFile(join(relisted, "plan.json"), notAPlan);
    const manifestPath = join(relisted, "manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { files: { path: string; digest: string }[] };
    for (const file of manifest.files) if (file.path === "plan.json") file.digest = blake3Digest(notAPlan);
    await writeFile(manifestPath, JSON.stringify(manifest));
    await expect(mergeBundles([relisted], { stateDir })).rejects.toMatchObject({
      code: "EVAL_BUNDLE_TAMPERED",
      message: expect.stringMatching(/plan\.json is not a run plan/),
    });
    expect(existsSync(join(stateDir, "runs"))).toBe(false);
  });

  it("refuses bundles of different plans, an edited bundle, a conflicting rerun, a tampered chain and a moved chain", async () => {
    const stateDir = join(root, "merge-bad");
    // A bundle of another plan (another SUT).
    const otherSut = await moduleSut(`${sutFile}#full`);
    const otherPlan = await planRun(bench.slug, {
      systemUnderTest: otherSut,
      sutSpec: `module:${sutFile}#full`,
      benchRoot: bench.benchRoot,
      sandbox: "none",
    });
    const foreign = join(root, "bundle-foreign");
    await runShard(bench.slug, {
      ...(await runOptions(join(root, "foreign-state"))),
      systemUnderTest: otherSut,
      plan: otherPlan,
      planOptions: { sutSpec: otherPlan.sut.spec },
      shard: { index: 1, count: 3 },
      bundleDir: foreign,
    });
    await expect(mergeBundles([bundles[0]!, foreign], { stateDir })).rejects.toMatchObject({
      code: "EVAL_PLAN_MISMATCH",
      message: expect.stringMatching(/bundles from different plans/),
    });

    // A unit edited after the shard wrote it.
    const edited = join(root, "bundle-edited");
    await cp(bundles[0]!, edited, { recursive: true });
    const unitFile = join(edited, "units", `${shardUnits(plan, { index: 1, count: 3 })[0]!.case_id}.t0.json`);
    await writeFile(unitFile, (await readFile(unitFile, "utf8")).replace(/"score": 0\.\d+/, '"score": 1'));
    await expect(mergeBundles([edited, bundles[1]!, bundles[2]!], { stateDir })).rejects.toMatchObject({
      code: "EVAL_BUNDLE_TAMPERED",
      message: expect.stringMatching(/units\/c-1\.t0\.json was edited after the shard wrote it/),
    });

    // The same shard run twice with different results: re-sealed so only the conflict remains.
    const rerun = join(root, "bundle-rerun");
    const read = await readBundle(bundles[0]!);
    const { writeBundle } = await import("./bundle.ts");
    await writeBundle(rerun, {
      plan,
      shard: read.manifest.shard,
      hostFingerprint: read.manifest.host_fingerprint,
      startedAt: read.manifest.started_at,
      endedAt: read.manifest.ended_at,
      complete: true,
      units: read.units.map((unit, index) => ({
        ...unit,
        score: index === 0 ? { ...unit.score, score: 0.5 } : unit.score,
        detail: unit.detail as Record<string, unknown> | null,
      })),
      transcripts: null,
    });
    await expect(mergeBundles([...bundles, rerun], { stateDir })).rejects.toMatchObject({
      code: "EVAL_UNIT_CONFLICT",
      message: expect.stringMatching(/^unit c-1 trial 0 has different results in .*bundle-1 .* and .*bundle-rerun/),
    });
    expect(existsSync(join(stateDir, "runs"))).toBe(false);

    // A chain that moved past --expect-head, and a tampered chain.
    const moved = join(root, "merge-moved");
    await runEval(bench.slug, await runOptions(moved));
    await expect(
      mergeBundles(bundles, { stateDir: moved, expectHead: `sha256:${"1".repeat(64)}` }),
    ).rejects.toMatchObject({ code: "EVAL_CHAIN_MOVED" });
    const record = (await readdir(join(moved, "runs"))).find((name) => name.endsWith(".json"))!;
    await writeFile(
      join(moved, "runs", record),
      (await readFile(join(moved, "runs", record), "utf8")).replace('"complete":true', '"complete":false'),
    );
    await rm(join(moved, "chain.checkpoint"));
    await expect(mergeBundles(bundles, { stateDir: moved })).rejects.toMatchObject({ code: "EVAL_CHAIN_TAMPERED" });
  }, 60_000);
});
