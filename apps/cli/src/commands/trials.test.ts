// Trials per case and paired comparison end to end: a stochastic command SUT (solves each trial with probability p,
// seeded per trial) on a 15-case binary bench, through `evalgate run --trials 5` and `evalgate compare`.
import { copyFile, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ComparisonSchema, parseWire } from "@eval/models";
import { fixedBetLowerBound, passHatK } from "@eval/statistics";
import { invoke } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

let bench: { root: string; benchRoot: string; benchPath: string };
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const CASES = Object.fromEntries(
  Array.from({ length: 15 }, (_, i) => [`case-${String(i + 1).padStart(2, "0")}`, `text number ${i + 1}`]),
);
const env = { PATH: process.env.PATH };

beforeAll(async () => {
  bench = await makeUpperBench(CASES, { score_kind: "binary" });
  await copyFile(
    join(import.meta.dirname, "..", "__fixtures__", "stochastic-sut.mjs"),
    join(bench.root, "stochastic-sut.mjs"),
  );
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const run = (state: string, p: number, ...extra: string[]) =>
  invoke(
    [
      "run",
      "--task-class",
      "upper",
      "--bench-root",
      bench.benchRoot,
      "--out",
      join(bench.root, state),
      "--sut",
      `command:node stochastic-sut.mjs ${p}`,
      "--concurrency",
      "2",
      ...extra,
    ],
    { cwd: bench.root, env },
  );

type Summary = {
  run_id: string;
  case_count: number;
  trials_per_case: number;
  lower_bound_95: number;
  lower_bound_method: string;
  bound_quantity: string;
  mean_score: number;
  passed_count: number;
  reliability: {
    case_count: number;
    pass_at_1: number;
    pass_at_k: number;
    pass_hat_k: number;
    flaky_case_ids: string[];
  };
  harness_error_count: number;
  failed_trial_count: number;
  record_path: string;
};

describe("evalgate run --trials", () => {
  let summary07: Summary;
  let summary09: Summary;

  beforeAll(async () => {
    const first = await run("shared", 0.7, "--trials", "5");
    expect(first.code, first.stderr).toBe(0);
    summary07 = lines(first.stdout).at(-1) as unknown as Summary;
    const second = await run("shared", 0.9, "--trials", "5");
    expect(second.code, second.stderr).toBe(0);
    summary09 = lines(second.stdout).at(-1) as unknown as Summary;
  }, 120_000);

  it("gives each trial its own SUT call and cache key; the report has per-case k-of-5, pass@1, pass@5, pass^5 and flaky cases over 15 cases", async () => {
    const record = JSON.parse(await readFile(summary07.record_path, "utf8")) as {
      report: {
        per_case: { case_id: string; trials: { passed: boolean }[]; case_value: number }[];
        selection: { selected_case_ids_digest: string };
      };
    };
    const perCase = record.report.per_case;
    expect(perCase).toHaveLength(15);
    expect(perCase.every((c) => c.trials.length === 5)).toBe(true);
    expect(summary07).toMatchObject({ case_count: 15, trials_per_case: 5, harness_error_count: 0 });
    expect(summary07.reliability.case_count).toBe(15);
    // p = 0.7: pass@1 near 0.7 and pass^5 near 0.7^5 = 0.168 (75 seeded draws: within 4 standard errors).
    expect(Math.abs(summary07.reliability.pass_at_1 - 0.7)).toBeLessThan(4 * Math.sqrt((0.7 * 0.3) / 75));
    expect(Math.abs(summary07.reliability.pass_hat_k - 0.168)).toBeLessThan(4 * Math.sqrt((0.168 * 0.832) / 15));
    const passes = perCase.map((c) => c.trials.filter((t) => t.passed).length);
    expect(summary07.reliability.pass_hat_k).toBeCloseTo(passes.reduce((s, k) => s + passHatK(5, k, 5), 0) / 15, 12);
    const flaky = perCase.filter((_, i) => passes[i]! > 0 && passes[i]! < 5).map((c) => c.case_id);
    expect(flaky.length).toBeGreaterThan(0);
    expect(summary07.reliability.flaky_case_ids).toEqual(flaky);
    expect(summary07.passed_count).toBe(passes.filter((k) => k === 5).length);
    expect(summary07.failed_trial_count).toBe(75 - passes.reduce((a, b) => a + b, 0));
    // Trials never inflate n: the bound is the betting bound over the 15 case means (not 75 trials).
    const means = perCase.map((c) => c.case_value);
    expect(summary07.lower_bound_95).toBeCloseTo(Math.min(fixedBetLowerBound(means), summary07.mean_score), 12);
    expect(summary07).toMatchObject({ lower_bound_method: "betting", bound_quantity: "pass_rate" });
    // 75 trials, 75 distinct detail files and cache entries.
    const details = await readdir(join(bench.root, "shared", "runs", summary07.run_id, "cases"));
    expect(details).toHaveLength(75);
    expect(details).toContain("case-01.trial-4.json");
  });

  it("reruns every trial from the cache with identical figures, and --format human prints k-of-n, reliability and flaky cases", async () => {
    const again = await run("shared", 0.7, "--trials", "5", "--format", "human");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/case-01\s+\d\.\d{3}\s+[0-5]\/5/);
    expect(again.stdout).toMatch(
      /reliability over 15 cases x 5 trials: pass@1 0\.\d{3}, pass@5 \d\.\d{3}, pass\^5 0\.\d{3} \(the case is the unit/,
    );
    expect(again.stdout).toContain(
      `flaky cases (${summary07.reliability.flaky_case_ids.length}): ${summary07.reliability.flaky_case_ids.join(", ")}`,
    );
    expect(again.stdout).toContain(`one-sided 95% lower bound ${summary07.lower_bound_95.toFixed(3)}`);
    expect(again.stdout).toMatch(/15\/15 cases, \d+ passed every trial, 75 from cache/);
    expect(again.stdout).not.toMatch(/rubric\./);
  });

  it("compare: the paired bound, McNemar's p and the changed cases; the reverse comparison fails under --fail-on-regression", async () => {
    const state = ["--out", join(bench.root, "shared")];
    const forward = await invoke(
      ["compare", "--baseline", summary07.run_id, "--candidate", summary09.run_id, "--write", ...state],
      { cwd: bench.root },
    );
    expect(forward.code, forward.stderr).toBe(0);
    const comparison = parseWire(
      ComparisonSchema,
      (({ type: _type, path: _path, ...rest }) => rest)(lines(forward.stdout)[0]!),
    );
    expect(comparison.case_count).toBe(15);
    expect(comparison.mean_difference).toBeCloseTo(summary09.mean_score - summary07.mean_score, 12);
    expect(comparison.lower_bound_95).toBeLessThanOrEqual(comparison.mean_difference);
    expect(comparison.mcnemar).not.toBeNull();
    expect(comparison.improved.length).toBeGreaterThan(0);
    expect(
      (await readdir(join(bench.root, "shared", "recommendations"))).some((name) => name.includes("-upper-compare-")),
    ).toBe(true);

    const reverse = await invoke(
      [
        "compare",
        "--baseline",
        summary09.run_id,
        "--candidate",
        summary07.run_id,
        "--fail-on-regression=-0.05",
        "--format",
        "human",
        ...state,
      ],
      { cwd: bench.root },
    );
    expect(reverse.code, reverse.stderr).toBe(12);
    expect(reverse.stdout).toMatch(/one-sided 95% lower bound on the improvement -0\.\d{3}/);
    expect(reverse.stdout).toMatch(/exact McNemar .* p = /);
    expect(reverse.stdout).toMatch(/regressed \(\d+\):\n {2}case-/);
    expect(reverse.stderr).toMatch(/below the margin -0\.05/);
  });

  it("compare: a cached rerun of the candidate (same data, new run id) gives byte-identical figures and human output", async () => {
    const rerun = await run("shared", 0.9, "--trials", "5");
    expect(rerun.code, rerun.stderr).toBe(0);
    const rerunId = (lines(rerun.stdout).at(-1) as { run_id: string }).run_id;
    expect(rerunId).not.toBe(summary09.run_id);
    const state = ["--out", join(bench.root, "shared")];
    const compareWith = async (candidate: string, ...extra: string[]) => {
      const result = await invoke(
        ["compare", "--baseline", summary07.run_id, "--candidate", candidate, ...state, ...extra],
        {
          cwd: bench.root,
        },
      );
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    // Only the candidate's identity (run id, chain head) and the comparison's time may differ; every figure is
    // the same bytes.
    const figures = (stdout: string) =>
      JSON.stringify(lines(stdout)[0], (key, value) =>
        key === "candidate" ? { ...value, run_id: null, chain_head: null } : key === "compared_at" ? null : value,
      );
    const original = await compareWith(summary09.run_id);
    const cached = await compareWith(rerunId);
    expect(figures(cached)).toBe(figures(original));
    expect(lines(cached)[0]).toMatchObject({ candidate: { run_id: rerunId } });
    const human = async (candidate: string) =>
      (await compareWith(candidate, "--format", "human")).replaceAll(candidate, "<candidate>");
    expect(await human(rerunId)).toBe(await human(summary09.run_id));
  }, 300_000);

  it("one trial: a compact reliability line; harness errors are counted apart and --retry-errors reruns only them", async () => {
    await writeFile(
      join(bench.root, "boom.mjs"),
      "export async function boom(invocation) { if (invocation.benchCase.case_id === 'case-02') throw new Error('transient'); return { cost_usd: 0 }; }\n",
    );
    const args = [
      "run",
      "--task-class",
      "upper",
      "--bench-root",
      bench.benchRoot,
      "--out",
      join(bench.root, "errors"),
      "--sut",
      "module:boom.mjs#boom",
      "--format",
      "human",
    ];
    const first = await invoke(args, { cwd: bench.root, env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /reliability: 1 trial per case, pass@1 0\.000 over 15 cases \(--trials k for pass\^k and flaky cases\)/,
    );
    expect(first.stdout).toContain(
      "harness errors: 1 trial in case-02 (`run --retry-errors` reruns them); SUT failures: 14 trials",
    );
    const retry = await invoke([...args.slice(0, -2), "--retry-errors"], { cwd: bench.root, env });
    expect(retry.code, retry.stderr).toBe(0);
    const out = lines(retry.stdout);
    expect(out.filter((l) => l.type === "case" && l.cache_hit === false).map((l) => l.case_id)).toEqual(["case-02"]);
    const badMargin = await invoke(
      [
        "compare",
        "--baseline",
        "a",
        "--candidate",
        "b",
        "--fail-on-regression=lots",
        "--out",
        join(bench.root, "errors"),
      ],
      { cwd: bench.root },
    );
    expect(badMargin.code).toBe(1);
    expect(badMargin.stderr).toMatch(/--fail-on-regression must be a number in \[-1, 1\]/);
  });

  it("compare refuses runs over different case sets, naming the cases", async () => {
    const subset = await run("shared", 0.9, "--cases", "case-0*");
    expect(subset.code, subset.stderr).toBe(0);
    const subsetId = (lines(subset.stdout).at(-1) as { run_id: string }).run_id;
    const refused = await invoke(
      ["compare", "--baseline", summary07.run_id, "--candidate", subsetId, "--out", join(bench.root, "shared")],
      { cwd: bench.root },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /scored different cases \(only in the baseline: case-10, case-11, case-12, case-13, case-14, \.\.\. \(6 in all\)\)/,
    );
    const unknown = await invoke(
      ["compare", "--baseline", "nope", "--candidate", subsetId, "--out", join(bench.root, "shared")],
      { cwd: bench.root },
    );
    expect(unknown.stderr).toMatch(/no run nope/);
  });
});
