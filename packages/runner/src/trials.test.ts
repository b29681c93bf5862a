import { describe, expect, it } from "vitest";
import type { BenchCase, BenchScore } from "@eval/models";
import { clopperPearsonLowerBound, fixedBetLowerBound } from "@eval/statistics";
import { aggregateTrials, trialCacheKey, trialInvocationTag, trialSeedFor, trialsFor } from "./trials.ts";

const score = (passed: boolean, failure?: string): BenchScore =>
  ({
    passed,
    score: passed ? 1 : 0,
    breakdown: {},
    failure_modes: failure === undefined ? [] : [{ code: failure, severity: "block", detail: null }],
    cost_usd: 0,
    wall_clock_ms: 1,
  }) as BenchScore;
const benchCase = (id: string): BenchCase => ({ case_id: id, curation_class: "held-out" }) as BenchCase;
const KEY = `blake3:${"ab".repeat(32)}`;
const SEED = "cd".repeat(32);

describe("per-trial identity", () => {
  it("trial 0 keeps the case's key, seed, tag and detail file; later trials get distinct ones", () => {
    expect(trialCacheKey(KEY, 0)).toBe(KEY);
    expect(trialSeedFor(SEED, 0)).toBe(SEED);
    expect(trialInvocationTag("bench:t:c:x", 0)).toBe("bench:t:c:x");
    const keys = new Set([0, 1, 2, 3].map((t) => trialCacheKey(KEY, t)));
    const seeds = new Set([0, 1, 2, 3].map((t) => trialSeedFor(SEED, t)));
    expect(keys.size).toBe(4);
    expect(seeds.size).toBe(4);
    expect(trialSeedFor(SEED, 2)).toMatch(/^[0-9a-f]{64}$/);
    expect(trialCacheKey(KEY, 2)).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(trialInvocationTag("bench:t:c:x", 2)).toBe("bench:t:c:x:trial-2");
  });

  it("trialsFor defaults to the task class's minimum and refuses fewer", () => {
    expect(trialsFor({ name: "t" }, undefined)).toBe(1);
    expect(trialsFor({ name: "t", minTrials: 3 }, undefined)).toBe(3);
    expect(trialsFor({ name: "t", minTrials: 3 }, 5)).toBe(5);
    expect(() => trialsFor({ name: "t", minTrials: 3 }, 2)).toThrow(/requires at least 3 trials per case/);
  });
});

describe("aggregateTrials", () => {
  const options = (trials: number) => ({ scoreKind: "binary" as const, trials, seed: "s", orderSeed: "o" });

  it("with one trial is the old statistics: Clopper-Pearson on the pass count, no per-case extras", () => {
    const cases = Array.from({ length: 10 }, (_, i) => ({ benchCase: benchCase(`c-${i}`), scores: [score(i < 7)] }));
    const result = aggregateTrials(cases, options(1));
    expect(result.statistics.lowerBound95).toBeCloseTo(clopperPearsonLowerBound(7, 10), 12);
    expect(result.statistics).toMatchObject({ lowerBoundMethod: "clopper_pearson", boundQuantity: "pass_rate", n: 10 });
    expect(result.perCase.every((c) => c.trials === undefined && c.case_value === undefined)).toBe(true);
    expect(result.passedCount).toBe(7);
    expect(result.reliability).toMatchObject({
      trials: 1,
      caseCount: 10,
      passAt1: 0.7,
      passHatK: 0.7,
      flakyCaseIds: [],
    });
  });

  it("trials never inflate n: 15 cases x 5 trials is bounded over 15 case means, never as 75 samples", () => {
    const cases = Array.from({ length: 15 }, (_, i) => ({
      benchCase: benchCase(`c-${String(i).padStart(2, "0")}`),
      scores: Array.from({ length: 5 }, (_, t) => score((i + t) % 4 !== 0)),
    }));
    const result = aggregateTrials(cases, options(5));
    const means = cases.map(({ scores }) => scores.filter((s) => s.passed).length / 5);
    expect(result.statistics.n).toBe(15);
    expect(result.statistics.lowerBound95).toBeCloseTo(Math.min(fixedBetLowerBound(means), result.statistics.mean), 12);
    // The same trials taken as 75 independent samples would claim a tighter bound: that is the inflation refused.
    const inflated = clopperPearsonLowerBound(cases.flatMap(({ scores }) => scores).filter((s) => s.passed).length, 75);
    expect(result.statistics.lowerBound95).toBeLessThan(inflated);
    expect(result.statistics).toMatchObject({
      lowerBoundMethod: "betting",
      boundQuantity: "pass_rate",
      scoreKind: "binary",
    });
    expect(result.perCase[0]!.trials).toHaveLength(5);
    expect(result.perCase[0]!.case_value).toBeCloseTo(means[0]!, 12);
    expect(result.reliability.caseCount).toBe(15);
    expect(result.reliability.flakyCaseIds).toHaveLength(15);
    expect(result.passedCount).toBe(0);
  });

  it("all-passing trials: the bound is the 15-case bound, below what 75 samples would claim", () => {
    const cases = Array.from({ length: 15 }, (_, i) => ({
      benchCase: benchCase(`c-${i}`),
      scores: Array.from({ length: 5 }, () => score(true)),
    }));
    const result = aggregateTrials(cases, options(5));
    expect(result.statistics.lowerBound95).toBeCloseTo(fixedBetLowerBound(Array(15).fill(1)), 12);
    expect(result.statistics.lowerBound95).toBeLessThan(fixedBetLowerBound(Array(75).fill(1)));
    expect(result.passedCount).toBe(15);
  });

  it("counts harness errors apart from the SUT's failures", () => {
    const cases = [
      { benchCase: benchCase("a"), scores: [score(false, "sut.timeout"), score(true)] },
      { benchCase: benchCase("b"), scores: [score(false, "wrong_text"), score(false, "rubric.timeout")] },
      { benchCase: benchCase("c"), scores: [score(true), score(true)] },
    ];
    const result = aggregateTrials(cases, { ...options(2), scoreKind: "graded" });
    expect(result.harnessErrorCount).toBe(2);
    expect(result.harnessErroredCaseIds).toEqual(["a", "b"]);
    expect(result.failedTrialCount).toBe(1);
    expect(result.statistics.boundQuantity).toBe("mean_score");
  });
});
