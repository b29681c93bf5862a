// Metered figures from the model bridge: recorded by harness code through `recordMetered`, never read from a
// SUT's output; a priced figure is the trial's cost; the run report sums them beside the self-reported rest, the
// same in a one-machine run and a merge of its shards; a cache hit spent nothing now.
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MeteredUsage, SystemUnderTest } from "@eval/models";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { mergeBundles, moduleSut, planRun, runEval, runShard } from "./index.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };

const usage = (overrides: Partial<MeteredUsage> = {}): MeteredUsage => ({
  requests: 3,
  input_tokens: 1200,
  cached_input_tokens: 200,
  cache_write_tokens: 0,
  output_tokens: 300,
  cost_usd: 0.0125,
  unpriced_models: [],
  price_table: "evalgate.prices.test",
  upstream_host: "api.example",
  ...overrides,
});

/**
 * Upper-cases the text. c-1: metered and priced (reports $9 about itself); c-2: metered, model unpriced (reports
 * $0.5); c-3: not metered, its output claims metered figures and reports $0.25.
 */
const sut: SystemUnderTest = {
  label: "metered-test",
  digest: `blake3:${"a".repeat(64)}`,
  async run(invocation) {
    const path = join(invocation.workspacePath, "text.txt");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
    const id = invocation.benchCase.case_id;
    if (id === "c-1") invocation.recordMetered?.(usage());
    if (id === "c-2")
      invocation.recordMetered?.(
        usage({
          requests: 1,
          input_tokens: 10,
          cached_input_tokens: 0,
          output_tokens: 5,
          cost_usd: null,
          unpriced_models: ["gpt-unknown"],
          upstream_host: "gateway.example",
        }),
      );
    if (id === "c-1") return { cost_usd: 9 };
    if (id === "c-2") return { cost_usd: 0.5 };
    return { cost_usd: 0.25, metered: usage({ requests: 1000, cost_usd: 1000 }) };
  },
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-metered-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "alpha", "c-2": "beta", "c-3": "gamma" },
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const EXPECTED = {
  trials: 2,
  requests: 4,
  input_tokens: 1210,
  cached_input_tokens: 200,
  cache_write_tokens: 0,
  output_tokens: 305,
  cost_usd: 0.0125,
  unpriced_trials: 1,
  unpriced_models: ["gpt-unknown"],
  price_tables: ["evalgate.prices.test"],
  upstream_hosts: ["api.example", "gateway.example"],
  sut_reported_cost_usd: 0.75,
};

describe("metered figures", () => {
  it("a run sums what the harness metered; a priced figure is the trial's cost; a SUT's own claims stay self-reported", async () => {
    const stateDir = join(root, "state");
    const result = await runEval(bench.slug, {
      systemUnderTest: sut,
      benchRoot: bench.benchRoot,
      stateDir,
      concurrency: 2,
    });
    const { report } = result;
    expect(report.metered).toEqual(EXPECTED);
    const costs = Object.fromEntries(report.per_case.map((c) => [c.case_id, c.score.cost_usd]));
    expect(costs).toEqual({ "c-1": 0.0125, "c-2": 0.5, "c-3": 0.25 });
    expect(report.total_cost_usd).toBeCloseTo(0.7625, 10);
    const details = Object.fromEntries(
      result.caseResults.map((r) => [
        r.case_id,
        JSON.parse(readFileSync(r.detailPath!, "utf8")) as { metered?: MeteredUsage },
      ]),
    );
    expect(details["c-1"]!.metered).toEqual(usage());
    expect(details["c-3"]!.metered).toBeUndefined();

    // The same inputs again: every unit a cache hit, nothing spent now, nothing metered.
    const again = await runEval(bench.slug, {
      systemUnderTest: sut,
      benchRoot: bench.benchRoot,
      stateDir,
      concurrency: 2,
    });
    expect(again.caseResults.every((r) => r.cacheHit)).toBe(true);
    expect(again.report.metered).toBeUndefined();
    expect(again.report.total_cost_usd).toBe(0);
  }, 180_000);

  it("figures that do not validate are the SUT call's failure, not a recorded figure", async () => {
    const bad: SystemUnderTest = {
      ...sut,
      digest: `blake3:${"b".repeat(64)}`,
      async run(invocation) {
        invocation.recordMetered?.({ ...usage(), requests: -1 });
        return {};
      },
    };
    const result = await runEval(bench.slug, {
      systemUnderTest: bad,
      benchRoot: bench.benchRoot,
      stateDir: join(root, "state-bad"),
      concurrency: 2,
      caseFilter: "c-1",
    });
    expect(result.report.metered).toBeUndefined();
    expect(result.report.per_case[0]!.score.failure_modes.map((m) => m.code)).toEqual(["sut.exception"]);
  }, 180_000);

  it("a module SUT (user code in a worker) gets no meter recorder: what it claims is never metered", async () => {
    const file = join(root, "claims.mjs");
    writeFileSync(
      file,
      `export async function claim(invocation) {
  invocation.recordMetered?.(${JSON.stringify(usage())});
  return { cost_usd: 0.5, has_recorder: typeof invocation.recordMetered };
}
`,
    );
    const result = await runEval(bench.slug, {
      systemUnderTest: await moduleSut(`${file}#claim`),
      benchRoot: bench.benchRoot,
      stateDir: join(root, "state-module"),
      concurrency: 1,
      caseFilter: "c-1",
    });
    expect(result.report.metered).toBeUndefined();
    expect(result.report.total_cost_usd).toBe(0.5);
    const detail = JSON.parse(readFileSync(result.caseResults[0]!.detailPath!, "utf8")) as {
      metered?: unknown;
      sut_output: { has_recorder: string };
    };
    expect(detail.sut_output.has_recorder).toBe("undefined");
    expect(detail.metered).toBeUndefined();
  }, 180_000);

  it("a merge of shards sums the same figures as the one-machine run", async () => {
    const plan = await planRun(bench.slug, {
      systemUnderTest: sut,
      sutSpec: "module:./metered.mjs#run",
      benchRoot: bench.benchRoot,
    });
    const bundles = [1, 2].map((index) => join(root, `bundle-${index}`));
    for (const [offset, bundleDir] of bundles.entries()) {
      await runShard(bench.slug, {
        systemUnderTest: sut,
        benchRoot: bench.benchRoot,
        stateDir: join(root, `shard-${offset}`),
        plan,
        planOptions: { sutSpec: plan.sut.spec },
        shard: { index: offset + 1, count: 2 },
        bundleDir,
      });
    }
    const merged = await mergeBundles(bundles, { stateDir: join(root, "merged") });
    expect(merged.report.schema_version).toBe("evalgate.bench_run_report.v3");
    expect("metered" in merged.report ? merged.report.metered : undefined).toEqual(EXPECTED);
  }, 180_000);
});
