// Coverage of the gate's lower bound: simulated runs from score distributions shaped like real rubrics, at the
// small n where promotion decisions are made. A valid one-sided 95% bound lands above the true mean in at
// most 5% of runs; with 2,000 replications per cell the test allows 5% plus 3 standard errors (6.46%).
// The last block shows the harness catches an invalid method: the old rule (Wilson / BCa / "degenerate").
import { describe, expect, it } from "vitest";
import { bettingLowerBound } from "./bounds.ts";
import { bcaLowerBound, gateLowerBound, seededRandom, wilsonLowerBound } from "./statistics.ts";
import {
  bettingMethod,
  type BoundMethod,
  clopperPearsonMethod,
  COVERAGE_NS,
  missRateLimit,
  SCORE_DISTRIBUTIONS,
  simulateCell,
  sampleBeta,
  sampleGamma,
} from "./coverage-simulation.ts";

const REPLICATIONS = 2000;
const LIMIT = missRateLimit(REPLICATIONS);

function expectValid(method: BoundMethod, label: string, distributions = SCORE_DISTRIBUTIONS) {
  for (const distribution of distributions) {
    for (const n of COVERAGE_NS) {
      const outcome = simulateCell(distribution, n, REPLICATIONS, { [label]: method }).methods[label]!;
      const where = `${label}, ${distribution.name}, n = ${n}`;
      expect(outcome.defined, where).toBe(REPLICATIONS);
      expect(outcome.misses / REPLICATIONS, where).toBeLessThanOrEqual(LIMIT);
      expect(outcome.aboveSampleMean, where).toBe(0);
    }
  }
}

describe("coverage of the gate's one-sided 95% lower bound (2,000 seeded replications per cell)", () => {
  it("the limit is 5% + 3 SE", () => {
    expect(LIMIT).toBeCloseTo(0.0646, 4);
  });

  // 90,000 bounds: ~2 s alone, far more under coverage on a loaded machine, hence the long timeout.
  it("graded (betting bound): every distribution, n = 5, 10, 15, 30, 100", { timeout: 180_000 }, () => {
    expectValid(bettingMethod, "betting");
  });

  it("binary (Clopper-Pearson on the pass count): every Bernoulli distribution, n = 5, 10, 15, 30, 100", () => {
    expectValid(
      clopperPearsonMethod,
      "clopper_pearson",
      SCORE_DISTRIBUTIONS.filter((d) => d.bernoulli),
    );
  });
});

describe("case order: a bench whose cases are named easy-first", () => {
  // Case i passes with probability falling linearly from 1 to 0.4: read in case_id order, the easy cases
  // come first and the adaptive betting bound's capital runs ahead. The gate's fixed bets ignore the order.
  const miss = (n: number, bound: (values: number[], rep: number) => number): number => {
    const random = seededRandom(`easy-first:${n}`);
    const p = Array.from({ length: n }, (_, i) => 1 - (0.6 * i) / (n - 1));
    const trueMean = p.reduce((a, b) => a + b, 0) / n;
    let misses = 0;
    for (let rep = 0; rep < REPLICATIONS; rep += 1) {
      const values = p.map((pi) => (random() < pi ? 1 : 0));
      if (bound(values, rep) > trueMean) misses += 1;
    }
    return misses / REPLICATIONS;
  };

  it("in case_id order the adaptive betting bound is invalid (the attack); the gate's fixed-bet bound is valid", () => {
    for (const n of [15, 30]) {
      expect(
        miss(n, (values) => bettingLowerBound(values)),
        `unshuffled, n = ${n}`,
      ).toBeGreaterThan(LIMIT);
      expect(
        miss(n, (values) => gateLowerBound(values, 0, "graded")),
        `gate, n = ${n}`,
      ).toBeLessThanOrEqual(LIMIT);
    }
  });
});

describe("the samplers", () => {
  it("draw Gamma and Beta with the right means (50,000 seeded draws)", () => {
    const random = seededRandom("samplers");
    const average = (draw: () => number) => Array.from({ length: 50_000 }, draw).reduce((a, b) => a + b, 0) / 50_000;
    expect(average(() => sampleGamma(2.5, random))).toBeCloseTo(2.5, 1);
    expect(average(() => sampleGamma(0.5, random))).toBeCloseTo(0.5, 1);
    expect(average(() => sampleBeta(5, 2, random))).toBeCloseTo(5 / 7, 2);
    expect(average(() => sampleBeta(0.5, 0.5, random))).toBeCloseTo(0.5, 2);
  });

  it("every distribution's stated mean is its simulated mean (within 4 SE)", () => {
    for (const distribution of SCORE_DISTRIBUTIONS) {
      const random = seededRandom(`mean:${distribution.name}`);
      const draws = Array.from({ length: 40_000 }, () => distribution.sample(random));
      const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
      expect(Math.abs(mean - distribution.mean), distribution.name).toBeLessThan(4 * Math.sqrt(0.25 / draws.length));
      expect(draws.every((x) => x >= 0 && x <= 1 && (!distribution.bernoulli || x === 0 || x === 1))).toBe(true);
    }
  });
});

/**
 * The gate rule this replaced (statistics.ts before the betting bound): Wilson on the pass count when >= 80%
 * of scores are exactly 0 or 1; the minimum score when every score is equal; else BCa with 1000 resamples,
 * clamped to the mean. Passed here means score >= 0.5.
 */
const oldRule: BoundMethod = (values) => {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (values.filter((v) => v === 0 || v === 1).length >= 0.8 * n)
    return wilsonLowerBound(values.filter((v) => v >= 0.5).length, n);
  if (values.every((v) => v === values[0])) return values[0]!;
  return Math.min(bcaLowerBound(values, { seed: values.join(","), resamples: 1000 })!, mean);
};

describe("the harness catches an invalid method", () => {
  const byName = (name: string) => SCORE_DISTRIBUTIONS.find((d) => d.name === name)!;

  it("the old rule misses far more than 5% at n = 10 when failures are rare (all scores 0.95 -> 'degenerate' 0.95)", () => {
    const outcome = simulateCell(byName("0.95 with 3% 0.1"), 10, REPLICATIONS, { old: oldRule }).methods.old!;
    expect(outcome.misses / REPLICATIONS).toBeGreaterThan(0.5);
  });

  it("BCa with 1000 resamples misses more than 6.5% at n = 10 on Beta(5,2) with 5% zeros", () => {
    const bca: BoundMethod = (values) => bcaLowerBound(values, { seed: values.join(","), resamples: 1000 });
    const outcome = simulateCell(byName("Beta(5,2) with 5% zeros"), 10, REPLICATIONS, { bca }).methods.bca!;
    expect(outcome.defined).toBe(REPLICATIONS);
    expect(outcome.misses / REPLICATIONS).toBeGreaterThan(0.065);
  });
});
