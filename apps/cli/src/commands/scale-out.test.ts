// End to end with the BUILT evalgate: the GitHub Actions example's own commands, run as separate
// processes in separate working directories (4 shards, each with its own state directory, as on 4
// machines), merged, verified and judged; compared with a one-machine run of the same plan. Then every
// bad input of a scale-out run through the CLI: one line on stderr and its documented exit code.
import { spawn } from "node:child_process";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workflowCommands } from "../examples.test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

const BIN = join(import.meta.dirname, "..", "..", "dist", "bin.js");
const CASES: Record<string, string> = Object.fromEntries(
  [
    "alpha",
    "bravo xx",
    "charlie",
    "delta xx",
    "echo",
    "foxtrot xx",
    "golf",
    "hotel",
    "india xx",
    "juliet",
    "kilo",
    "lima xx",
  ].map((text, index) => [`case-${String(index).padStart(2, "0")}`, text]),
);
/** Upper-cases all of the text, or only its first half when it contains "xx" (graded scores); variant "b" leaves it alone. */
const SUT = `export async function half(inv) {
  const fs = await import("node:fs");
  const path = inv.workspacePath + "/text.txt";
  const text = fs.readFileSync(path, "utf8");
  const n = process.env.SUT_VARIANT === "b" ? 0 : text.includes("xx") ? Math.floor(text.length / 2) : text.length;
  fs.writeFileSync(path, text.slice(0, n).toUpperCase() + text.slice(n));
  return { cost_usd: 0.01 };
}
export async function other() { return {}; }
`;

let bench: { root: string; benchRoot: string; benchPath: string };
let tiers: string;
let sutSpec: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function evalgate(argv: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CI: "1", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const lastJson = (result: Result): Record<string, unknown> =>
  JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

/** The workflow's commands for shard `shard` of 4 on this test's task class. */
const commands = (shard: number) =>
  workflowCommands({ "${{ matrix.shard }}": String(shard), $SHARDS: "4", $TASK_CLASS: "upper" });

beforeAll(async () => {
  bench = await makeUpperBench(CASES);
  await writeFile(join(bench.root, "half.mjs"), SUT);
  sutSpec = `module:${join(bench.root, "half.mjs")}#half`;
  tiers = join(bench.root, "tiers.yaml");
  await writeFile(
    tiers,
    "schema_version: evalgate.trust_tiers.v1\ncalibrated: false\ntiers:\n  - name: untrusted\n    threshold: 0.0\n    min_cases: 0\n    min_held_out: 0\n    description: x\n  - name: bronze\n    threshold: 0.6\n    min_cases: 10\n    min_held_out: 5\n    description: y\ncurrent:\n  upper: untrusted\n",
  );
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

/** Plans in `dir` with the workflow's plan command (plus where the bench and SUT are). */
async function plan(dir: string, spec = sutSpec): Promise<void> {
  await mkdir(dir, { recursive: true });
  const planned = await evalgate([...commands(1)[0]!.argv, "--bench-root", bench.benchRoot, "--sut", spec], dir);
  expect(planned.code, planned.stderr).toBe(0);
}

/** Runs shard i/4 of `planDir`'s plan.json with the workflow's shard command in its own new directory; returns the bundle path. */
async function shard(
  planDir: string,
  index: number,
  name: string,
  env: Record<string, string> = {},
): Promise<{ result: Result; bundle: string }> {
  const dir = join(bench.root, name);
  await mkdir(dir, { recursive: true });
  await cp(join(planDir, "plan.json"), join(dir, "plan.json"));
  const result = await evalgate([...commands(index)[1]!.argv, "--bench-root", bench.benchRoot], dir, env);
  return { result, bundle: join(dir, `bundle-${index}`) };
}

/** Puts bundles where the merge job's download step would (bundles/bundle-<i>), and expands the workflow's bundles/* . */
async function mergeArgv(dir: string, bundles: readonly string[]): Promise<string[]> {
  await rm(join(dir, "bundles"), { recursive: true, force: true });
  await mkdir(join(dir, "bundles"), { recursive: true });
  for (const [index, bundle] of bundles.entries())
    await cp(bundle, join(dir, "bundles", `bundle-${index + 1}`), { recursive: true });
  const argv = commands(1)[3]!.argv;
  return argv.flatMap((word) =>
    word === "bundles/*" ? bundles.map((_, index) => `bundles/bundle-${index + 1}`) : [word],
  );
}

describe("4 shards + merge, the workflow's commands, against one machine", () => {
  it("gives the one-machine run's scores and statistics, case for case; merge, verify and promote-verdict pass", async () => {
    const planDir = join(bench.root, "plan-host");
    await plan(planDir);
    const started = performance.now();
    const shards = await Promise.all([1, 2, 3, 4].map((index) => shard(planDir, index, `machine-${index}`)));
    const shardMs = performance.now() - started;
    for (const { result } of shards) expect(result.code, result.stderr).toBe(0);
    const mergeDir = join(bench.root, "merge-host");
    await mkdir(mergeDir, { recursive: true });
    const mergeStarted = performance.now();
    const merged = await evalgate(
      await mergeArgv(
        mergeDir,
        shards.map((s) => s.bundle),
      ),
      mergeDir,
    );
    const mergeMs = performance.now() - mergeStarted;
    expect(merged.code, merged.stderr).toBe(0);
    const anchored = await evalgate(commands(1)[4]!.argv, mergeDir);
    expect(anchored.code, anchored.stderr).toBe(0);
    // The next merge's download step puts this run's anchor under previous-anchor/, and its verify reads it.
    await mkdir(join(mergeDir, "previous-anchor"));
    await cp(join(mergeDir, "evalgate-anchor.json"), join(mergeDir, "previous-anchor", "evalgate-anchor.json"));
    const verify = await evalgate(commands(1)[2]!.argv, mergeDir);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^audit chain OK: 1 records \(1 complete, 0 incomplete\)/);
    const verdict = await evalgate(
      [...commands(1)[5]!.argv, "--bench-root", bench.benchRoot, "--trust-tiers", tiers],
      mergeDir,
    );
    expect(verdict.code, verdict.stderr).toBe(0);
    expect(verdict.stdout).toMatch(/^upper: untrusted -> bronze: evidence (NOT )?sufficient/);

    const oneDir = join(bench.root, "one-machine");
    await mkdir(oneDir, { recursive: true });
    const oneStarted = performance.now();
    const one = await evalgate(
      ["run", "--task-class", "upper", "--bench-root", bench.benchRoot, "--sut", sutSpec],
      oneDir,
    );
    const oneMs = performance.now() - oneStarted;
    expect(one.code, one.stderr).toBe(0);

    const record = async (dir: string) => {
      const runs = join(dir, ".evalgate", "runs");
      const name = (await readdir(runs)).find((file) => file.endsWith(".json"))!;
      return (
        JSON.parse(await readFile(join(runs, name), "utf8")) as {
          report: Record<string, unknown> & { per_case: { case_id: string; score: Record<string, unknown> }[] };
        }
      ).report;
    };
    const [m, o] = [await record(mergeDir), await record(oneDir)];
    const figures = (report: typeof m) => ({
      per_case: report.per_case.map((c) => ({ ...c, score: { ...c.score, wall_clock_ms: 0 } })),
      ...Object.fromEntries(
        [
          "mean_score",
          "score_stddev",
          "lower_bound_95",
          "lower_bound_method",
          "bound_quantity",
          "informational",
          "passed_count",
          "total_cost_usd",
          "block_severity_failure_modes",
          "selection",
          "case_count",
          "complete",
          "sut_digest",
          "rubric_digest",
          "isolation_class",
        ].map((key) => [key, report[key]]),
      ),
    });
    expect(figures(m)).toEqual(figures(o));
    expect(new Set(m.per_case.map((c) => c.score.score)).size).toBeGreaterThan(1);
    console.info(
      `12 cases: 4 shards in parallel ${Math.round(shardMs)} ms + merge ${Math.round(mergeMs)} ms; one machine ${Math.round(oneMs)} ms`,
    );

    // Merging the same bundles again appends nothing.
    const again = await evalgate(
      await mergeArgv(
        mergeDir,
        shards.map((s) => s.bundle),
      ),
      mergeDir,
    );
    expect(lastJson(again)).toMatchObject({ appended: false });
    expect((await evalgate(commands(1)[2]!.argv, mergeDir)).stdout).toMatch(/^audit chain OK: 1 records/);
  }, 300_000);
});

describe("bad input: one line, a documented exit code, nothing written", () => {
  const oneLine = (result: Result, pattern: RegExp) => {
    expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(pattern);
  };

  it("--shard 5/4, --plan without --shard, a missing plan file", async () => {
    const dir = join(bench.root, "usage");
    await plan(dir);
    const bad = await evalgate(["run", "--plan", "plan.json", "--shard", "5/4", "--bench-root", bench.benchRoot], dir);
    expect(bad.code).toBe(1);
    oneLine(bad, /^evalgate: --shard must be i\/N with 1 <= i <= N, got "5\/4" \(EVAL_USAGE\)/);
    const noShard = await evalgate(["run", "--plan", "plan.json", "--bench-root", bench.benchRoot], dir);
    expect(noShard.code).toBe(1);
    oneLine(noShard, /--plan runs a shard of the plan: add --shard i\/N/);
    const missing = await evalgate(
      ["run", "--plan", "nope.json", "--shard", "1/2", "--bench-root", bench.benchRoot],
      dir,
    );
    expect(missing.code).toBe(1);
    oneLine(missing, /cannot read the plan file .*nope\.json: ENOENT/);
    const verdict = await evalgate(
      ["run", "--plan", "plan.json", "--shard", "1/2", "--with-verdict", "--bench-root", bench.benchRoot],
      dir,
    );
    expect(verdict.code).toBe(1);
    oneLine(verdict, /a shard never writes a verdict/);
    expect((await readdir(dir)).sort()).toEqual(["plan.json"]);
  }, 60_000);

  it("--shard without --plan plans first; shards in separate state directories share one cache with --cache-dir", async () => {
    const shared = join(bench.root, "shared-volume");
    const shardArgs = [
      "run",
      "--task-class",
      "upper",
      "--shard",
      "1/1",
      "--bench-root",
      bench.benchRoot,
      "--sut",
      sutSpec,
      "--cache-dir",
      join(shared, "cache"),
      "--quiet",
    ];
    const first = join(bench.root, "cache-host-1");
    const second = join(bench.root, "cache-host-2");
    await mkdir(first, { recursive: true });
    await mkdir(second, { recursive: true });
    const a = await evalgate(shardArgs, first);
    expect(a.code, a.stderr).toBe(0);
    expect(lastJson(a)).toMatchObject({ type: "shard", shard: "1/1", units: 12, cache_hits: 0, complete: true });
    const b = await evalgate(shardArgs, second);
    expect(b.code, b.stderr).toBe(0);
    expect(lastJson(b)).toMatchObject({ units: 12, cache_hits: 12 });
    expect(b.stderr).toBe("");
    expect((await readdir(shared)).sort()).toEqual(["cache", "cache.key"]);
    expect((await readdir(join(second, "shard-1-of-1"))).sort()).toEqual(["manifest.json", "plan.json", "units"]);
  }, 120_000);

  it("bundles from different plans, an edited bundle, a missing shard, a shard run twice with different results, a chain that moved", async () => {
    const planDir = join(bench.root, "bad-plan");
    await plan(planDir);
    const shards = await Promise.all([1, 2, 3, 4].map((index) => shard(planDir, index, `bad-${index}`)));
    const bundles = shards.map((s) => s.bundle);
    const mergeDir = join(bench.root, "bad-merge");
    await mkdir(mergeDir, { recursive: true });
    const merge = async (list: readonly string[], extra: string[] = []) =>
      evalgate([...(await mergeArgv(mergeDir, list)), ...extra], mergeDir);
    const nothingWritten = async () =>
      expect((await readdir(mergeDir)).filter((name) => name !== "bundles")).toEqual([]);

    const otherPlan = join(bench.root, "other-plan");
    await plan(otherPlan, `module:${join(bench.root, "half.mjs")}#other`);
    const foreign = await shard(otherPlan, 1, "other-1");
    const different = await merge([foreign.bundle, ...bundles.slice(1)]);
    expect(different.code).toBe(9);
    oneLine(different, /bundles from different plans: .* \(EVAL_PLAN_MISMATCH\)/);

    const edited = join(bench.root, "edited-1");
    await cp(bundles[0]!, edited, { recursive: true });
    const unit = join(edited, "units", (await readdir(join(edited, "units")))[0]!);
    await writeFile(unit, (await readFile(unit, "utf8")).replace('"passed": true', '"passed": false'));
    const tampered = await merge([edited, ...bundles.slice(1)]);
    expect(tampered.code).toBe(9);
    oneLine(tampered, /units\/case-\d+\.t0\.json was edited after the shard wrote it .*\(EVAL_BUNDLE_TAMPERED\)/);

    const missing = await merge(bundles.slice(0, 3));
    expect(missing.code).toBe(10);
    oneLine(
      missing,
      /3 of 12 units of plan blake3:[0-9a-f]{64} are in no bundle: case-03#t0, case-07#t0, case-11#t0 \(EVAL_UNITS_MISSING\)/,
    );

    const rerun = await shard(planDir, 2, "rerun-2", { SUT_VARIANT: "b" });
    expect(rerun.result.code, rerun.result.stderr).toBe(0);
    const conflict = await merge([...bundles, rerun.bundle]);
    expect(conflict.code).toBe(9);
    oneLine(
      conflict,
      /^evalgate: unit case-01 trial 0 has different results in .*bundles\/bundle-2 \(score 0\.625\) and .*bundles\/bundle-5 \(score 0\.125\) \(EVAL_UNIT_CONFLICT\)/,
    );
    await nothingWritten();

    const ok = await merge(bundles, ["--allow-incomplete"]);
    expect(ok.code, ok.stderr).toBe(0);
    const head = lastJson(ok).chain_head as string;
    const appended = await evalgate(
      ["run", "--task-class", "upper", "--bench-root", bench.benchRoot, "--sut", sutSpec],
      mergeDir,
    );
    expect(appended.code, appended.stderr).toBe(0);
    const moved = await merge(bundles, ["--expect-head", head]);
    expect(moved.code).toBe(11);
    oneLine(
      moved,
      /^evalgate: the chain moved: its head is sha256:[0-9a-f]{64}, not the expected sha256:[0-9a-f]{64} \(EVAL_CHAIN_MOVED\)/,
    );
  }, 300_000);
});
