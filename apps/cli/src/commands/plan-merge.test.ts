// plan, run --shard and merge in-process (the CLI's mapping of flags and its output), on the small upper
// bench; scale-out.test.ts runs the same through the built binary as separate processes.
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

let bench: { root: string; benchRoot: string; benchPath: string };
beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "b-2": "bravo", "c-3": "charlie" });
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const cwd = () => ({ cwd: bench.root });
const planArgs = (output: string, extra: string[] = []) => [
  "plan",
  "--task-class",
  "upper",
  "--bench-root",
  bench.benchRoot,
  "--sut",
  "module:sut.mjs#upper",
  "--sandbox",
  "none",
  "--output",
  output,
  ...extra,
];
const shardArgs = (plan: string, shard: string, bundle: string, state: string, extra: string[] = []) => [
  "run",
  "--plan",
  plan,
  "--shard",
  shard,
  "--bundle",
  bundle,
  "--bench-root",
  bench.benchRoot,
  "--sandbox",
  "none",
  "--out",
  state,
  ...extra,
];

describe("evalgate plan / run --shard / merge, in-process", () => {
  it("plans (JSON and human), runs two shards, merges (JSON and human), and merging again appends nothing", async () => {
    const planned = await invoke(planArgs("plan.json"), cwd());
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({
      type: "plan",
      task_class: "upper",
      cases: 3,
      trials: 1,
      units: 3,
      path: join(bench.root, "plan.json"),
    });
    const human = await invoke(planArgs("plan-human.json", ["--format", "human"]), cwd());
    expect(human.stdout).toMatch(
      /^plan blake3:[0-9a-f]{64}: upper, 3 cases x 1 trials = 3 units, SUT module:sut\.mjs#upper\nwrote .*plan-human\.json\n$/,
    );

    for (const index of [1, 2]) {
      const shard = await invoke(shardArgs("plan.json", `${index}/2`, `bundle-${index}`, `state-${index}`), cwd());
      expect(shard.code, shard.stderr).toBe(0);
      expect(JSON.parse(shard.stdout)).toMatchObject({
        type: "shard",
        shard: `${index}/2`,
        units: index === 1 ? 2 : 1,
        complete: true,
        bundle: join(bench.root, `bundle-${index}`),
      });
    }
    const merged = await invoke(["merge", "bundle-1", "bundle-2", "--out", "merged"], cwd());
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({
      type: "merge",
      appended: true,
      bundles: 2,
      duplicates: 0,
      missing: [],
      complete: true,
      scored: 3,
      passed_count: 3,
      mean_score: 1,
    });
    const again = await invoke(["merge", "bundle-1", "bundle-2", "--out", "merged", "--format", "human"], cwd());
    expect(again.stdout).toMatch(
      /^already recorded run plan-[0-9a-f]{64}: 3\/3 cases, 3 passed, mean 1\.000, lower bound /,
    );
    const partial = await invoke(
      ["merge", "bundle-1", "--out", "partial", "--allow-incomplete", "--format", "human"],
      cwd(),
    );
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stdout).toMatch(/^merged run partial:plan-[0-9a-f]{64}: 2\/3 cases \(INCOMPLETE\)/);
    const moved = await invoke(
      ["merge", "bundle-1", "bundle-2", "--out", "merged", "--expect-head", `sha256:${"2".repeat(64)}`],
      cwd(),
    );
    expect(moved.code).toBe(11);
  }, 120_000);

  it("refuses bad flags and plan files with one line each, before running anything", async () => {
    const dir = join(bench.root, "flags");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "broken.json"), "{ not json");
    await writeFile(join(dir, "not-a-plan.json"), JSON.stringify({ schema_version: "evalgate.run_plan.v1" }));
    const at = { cwd: dir };
    const cases: Array<[string[], number, RegExp]> = [
      [
        ["run", "--plan", "broken.json", "--shard", "1/2", "--bench-root", bench.benchRoot],
        1,
        /the plan file .*broken\.json is not JSON .*\(EVAL_PLAN_INVALID\); pass the file `evalgate plan` wrote/,
      ],
      [
        ["run", "--plan", "not-a-plan.json", "--shard", "1/2", "--bench-root", bench.benchRoot],
        1,
        /not-a-plan\.json is not a run plan: .* \(EVAL_PLAN_INVALID\)/,
      ],
      [
        [
          "run",
          "--plan",
          join(bench.root, "plan.json"),
          "--shard",
          "1/2",
          "--task-class",
          "other",
          "--bench-root",
          bench.benchRoot,
        ],
        9,
        /--task-class other is not the plan's task class upper/,
      ],
      [
        ["run", "--task-class", "upper", "--shard", "1/2", "--cases", "a-*", "--bench-root", bench.benchRoot],
        1,
        /a shard runs its part of a whole-task-class plan: drop --cases/,
      ],
      [
        ["run", "--bench-root", bench.benchRoot],
        1,
        /`evalgate run` needs --task-class \(or --plan <file> with --shard i\/N\)/,
      ],
      [
        ["plan", "--task-class", "upper", "--bench-root", bench.benchRoot, "--sandbox", "maybe"],
        1,
        /--sandbox must be bwrap or none/,
      ],
      [
        [
          "plan",
          "--task-class",
          "upper",
          "--bench-root",
          bench.benchRoot,
          "--trials",
          "0",
          "--sut",
          "module:../sut.mjs#upper",
        ],
        1,
        /--trials must be a whole number >= 1 and at most 1000, got 0/,
      ],
      // Without --sut a plan takes run's default: replay needs a cassette, and this class has none.
      [
        ["plan", "--task-class", "upper", "--bench-root", bench.benchRoot, "--sandbox", "none"],
        1,
        /no --sut given and no selected case of upper has a cassette to replay \(EVAL_SUT_INVALID\)/,
      ],
      [["merge", "nowhere"], 1, /bundle .*nowhere does not exist \(EVAL_IO\); check the path/],
      [["merge", "."], 9, /bundle .*flags: has no manifest\.json .*\(EVAL_BUNDLE_TAMPERED\)/],
    ];
    for (const [argv, code, pattern] of cases) {
      const result = await invoke(argv, at);
      expect(result.code, argv.join(" ")).toBe(code);
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(pattern);
    }
    expect((await readdir(dir)).sort()).toEqual(["broken.json", "not-a-plan.json"]);
  }, 60_000);

  it("a plan with three trials per case: two shards split its units and the merge equals a one-machine run of three trials", async () => {
    const planned = await invoke(planArgs("plan-trials.json", ["--trials", "3"]), cwd());
    expect(JSON.parse(planned.stdout)).toMatchObject({ trials: 3, units: 9 });
    for (const index of [1, 2]) {
      const shard = await invoke(
        shardArgs("plan-trials.json", `${index}/2`, `bundle-trials-${index}`, `state-trials-${index}`),
        cwd(),
      );
      expect(shard.code, shard.stderr).toBe(0);
      expect(JSON.parse(shard.stdout)).toMatchObject({ units: index === 1 ? 5 : 4, complete: true });
    }
    const merged = await invoke(["merge", "bundle-trials-1", "bundle-trials-2", "--out", "merged-trials"], cwd());
    expect(merged.code, merged.stderr).toBe(0);
    const one = await invoke(
      [
        "run",
        "--task-class",
        "upper",
        "--trials",
        "3",
        "--bench-root",
        bench.benchRoot,
        "--sut",
        "module:sut.mjs#upper",
        "--sandbox",
        "none",
        "--out",
        "one-trials",
      ],
      cwd(),
    );
    expect(one.code, one.stderr).toBe(0);
    const oneSummary = JSON.parse(one.stdout.trim().split("\n").at(-1)!);
    const mergedSummary = JSON.parse(merged.stdout);
    expect(mergedSummary).toMatchObject({ complete: true, scored: 3 });
    for (const field of ["mean_score", "score_stddev", "lower_bound_95", "passed_count"])
      expect(mergedSummary[field], field).toBe(oneSummary[field]);
    expect(oneSummary.trials_per_case).toBe(3);
  }, 60_000);
});
