import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BETTING_TRUNCATION,
  betaQuantile,
  bettingLowerBound,
  clopperPearsonLowerBound,
  compensatedSum,
  FIXED_BETS,
  fixedBetLowerBound,
  logGamma,
  regularizedBeta,
  studentTLowerBound,
  studentTQuantile,
} from "./bounds.ts";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, "__fixtures__", name), "utf8"));

/** scipy's values (__fixtures__/generate-scipy-reference.ts rebuilds them; no Python needed here). */
const scipy = fixture("scipy-reference.json") as {
  clopper_pearson: Array<{ k: number; n: number; alpha: number; scipy_lower: number }>;
  student_t: Array<{ dof: number; alpha: number; scipy_quantile: number }>;
  student_t_bounds: Array<{ data: number[]; alpha: number; scipy_lower: number }>;
};

/** The independent Python implementation of the betting bound, written from the same spec by someone else. */
const independent = fixture("reference-bounds.json") as {
  alpha: number;
  c_values: number[];
  datasets: Array<{
    name: string;
    values: number[];
    betting: Record<string, number>;
    clopper_pearson: number;
    t_lower: number | null;
  }>;
};

/** Within 1e-10, and within 1e-9 relative for the tiny bounds (k = 1 of n = 10,000 is ~5e-6); 0 exactly. */
const closeTo = (ours: number, theirs: number) => Math.abs(ours - theirs) <= Math.min(1e-10, 1e-9 * Math.abs(theirs));

describe("special functions", () => {
  it("logGamma matches known values", () => {
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    // scipy.special.gammaln(10001)
    expect(logGamma(10_001)).toBeCloseTo(82108.92783681436, 8);
  });

  it("regularizedBeta: the ends, a closed form, and both branches of the continued fraction", () => {
    expect(regularizedBeta(0, 2, 3)).toBe(0);
    expect(regularizedBeta(1, 2, 3)).toBe(1);
    // I_x(1, b) = 1 - (1 - x)^b
    expect(regularizedBeta(0.1, 1, 10)).toBeCloseTo(1 - 0.9 ** 10, 14);
    expect(regularizedBeta(0.9, 1, 10)).toBeCloseTo(1 - 0.1 ** 10, 14);
    expect(betaQuantile(0.5, 3, 3)).toBeCloseTo(0.5, 14);
  });

  it("compensatedSum is exact where naive summation is not", () => {
    expect(compensatedSum(Array<number>(10).fill(0.1))).toBe(1);
    expect(compensatedSum([1e16, 1, -1e16])).toBe(1);
  });
});

describe("clopperPearsonLowerBound", () => {
  it("matches scipy.stats.beta.ppf(alpha, k, n - k + 1) to 1e-10 on every (k, n, alpha) of the fixture", () => {
    expect(scipy.clopper_pearson.length).toBeGreaterThan(100);
    expect(scipy.clopper_pearson.some(({ n }) => n === 10_000)).toBe(true);
    for (const { k, n, alpha, scipy_lower } of scipy.clopper_pearson) {
      const ours = clopperPearsonLowerBound(k, n, alpha);
      expect(closeTo(ours, scipy_lower), `k=${k} n=${n} alpha=${alpha}: ours ${ours}, scipy ${scipy_lower}`).toBe(true);
    }
  });

  it("is 0 for no successes and alpha^(1/n) for all successes", () => {
    expect(clopperPearsonLowerBound(0, 0)).toBe(0);
    expect(clopperPearsonLowerBound(0, 30)).toBe(0);
    expect(clopperPearsonLowerBound(10, 10)).toBe(0.05 ** (1 / 10));
    expect(clopperPearsonLowerBound(10, 10)).toBeCloseTo(0.7411344491069477, 15);
  });

  it("rejects counts that are not 0 <= k <= n integers", () => {
    expect(() => clopperPearsonLowerBound(3, 2)).toThrow(RangeError);
    expect(() => clopperPearsonLowerBound(-1, 2)).toThrow(RangeError);
    expect(() => clopperPearsonLowerBound(1.5, 2)).toThrow(RangeError);
  });

  it("property: at the bound, P(X >= k) = alpha exactly (it is the exact binomial bound), and it lies below k/n", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const k = Math.max(1, Math.min(n - 1, Math.round(share * n)));
        const bound = clopperPearsonLowerBound(k, n);
        expect(bound).toBeLessThan(k / n);
        // P(X >= k | n, p) = I_p(k, n - k + 1)
        expect(regularizedBeta(bound, k, n - k + 1)).toBeCloseTo(0.05, 12);
      }),
      { numRuns: 200 },
    );
  });
});

describe("studentTLowerBound", () => {
  it("uses scipy.stats.t.ppf(1 - alpha, dof) to 1e-10, dof 1 .. 9,999", () => {
    for (const { dof, alpha, scipy_quantile } of scipy.student_t) {
      expect(Math.abs(studentTQuantile(alpha, dof) - scipy_quantile), `dof=${dof} alpha=${alpha}`).toBeLessThan(1e-10);
    }
  });

  it("is mean - t·s/sqrt(n) (scipy to 1e-10) and null below two values", () => {
    for (const { data, alpha, scipy_lower } of scipy.student_t_bounds)
      expect(Math.abs(studentTLowerBound(data, alpha)! - scipy_lower)).toBeLessThan(1e-10);
    expect(studentTLowerBound([])).toBeNull();
    expect(studentTLowerBound([0.4])).toBeNull();
    expect(studentTLowerBound([0.4, 0.4, 0.4])).toBeCloseTo(0.4, 15);
  });
});

/**
 * The spec of the betting bound, written again as plainly as possible (log space, log1p, no early exit, no
 * rescaling) so the optimized implementation can be checked against it on random and adversarial data.
 */
function plainBettingBound(values: readonly number[], alpha: number, c: number): number {
  const n = values.length;
  const lambdas: number[] = [];
  let mu = 0.5;
  let variance = 0.25;
  let sum = 0;
  let squares = 0;
  values.forEach((x, i) => {
    lambdas.push(Math.sqrt((2 * Math.log(1 / alpha)) / (n * variance)));
    sum += x;
    mu = (0.5 + sum) / (i + 2);
    squares += (x - mu) ** 2;
    variance = (0.25 + squares) / (i + 2);
  });
  const rejected = (m: number) => {
    let logK = 0;
    let best = -Infinity;
    values.forEach((x, i) => {
      logK += Math.log1p(Math.min(lambdas[i]!, c / m) * (x - m));
      best = Math.max(best, logK);
    });
    return best >= Math.log(1 / alpha);
  };
  let [lo, hi] = [0, 1];
  while (hi - lo > 1e-13) {
    const mid = (lo + hi) / 2;
    if (rejected(mid)) lo = mid;
    else hi = mid;
  }
  return Math.min(lo, values.reduce((a, b) => a + b, 0) / n);
}

describe("bettingLowerBound", () => {
  it(`matches the independent Python reference (reference-bounds.py) to 1e-9 for every c it gives`, () => {
    expect(independent.c_values).toEqual([0.5, 0.75, 0.9]);
    expect(independent.datasets.length).toBeGreaterThan(20);
    for (const dataset of independent.datasets) {
      for (const [c, theirs] of Object.entries(dataset.betting)) {
        const ours = bettingLowerBound(dataset.values, independent.alpha, { truncation: Number(c) });
        expect(Math.abs(ours - theirs), `${dataset.name}, c = ${c}: ours ${ours}, theirs ${theirs}`).toBeLessThan(1e-9);
      }
      const successes = dataset.values.filter((v) => v === 1).length;
      expect(
        Math.abs(clopperPearsonLowerBound(successes, dataset.values.length) - dataset.clopper_pearson),
      ).toBeLessThan(1e-10);
      const t = studentTLowerBound(dataset.values);
      if (dataset.t_lower === null) expect(t).toBeNull();
      else expect(Math.abs(t! - dataset.t_lower)).toBeLessThan(1e-10);
    }
  });

  it("gives ten 1s 0.5887 / 0.6823 / 0.7204 for c = 0.5 / 0.75 / 0.9 (no valid bound exceeds 0.05^(1/10) = 0.7411)", () => {
    const tenOnes = Array<number>(10).fill(1);
    expect(BETTING_TRUNCATION).toBe(0.9);
    expect(bettingLowerBound(tenOnes, 0.05, { truncation: 0.5 })).toBeCloseTo(0.5887320123909809, 10);
    expect(bettingLowerBound(tenOnes, 0.05, { truncation: 0.75 })).toBeCloseTo(0.6822629877171655, 10);
    expect(bettingLowerBound(tenOnes)).toBeCloseTo(0.7204133168689504, 10);
    expect(bettingLowerBound(tenOnes)).toBeLessThan(0.05 ** (1 / 10));
  });

  it("is 0 for no values, one value, or all zeros", () => {
    expect(bettingLowerBound([])).toBe(0);
    expect(bettingLowerBound([0.9])).toBe(0);
    expect(bettingLowerBound(Array<number>(10).fill(0))).toBe(0);
  });

  it("an equal-weight mixture of truncations lies between its members' bounds and is one of them for one member", () => {
    const data = [1, 1, 0.85, 1, 0.15, 1, 1, 0, 1, 0.85, 1, 1, 1, 0.9, 1];
    const single = [0.5, 0.75, 0.9].map((c) => bettingLowerBound(data, 0.05, { truncation: c }));
    const mixture = bettingLowerBound(data, 0.05, { truncation: [0.5, 0.75, 0.9] });
    expect(mixture).toBeGreaterThan(Math.min(...single) - 0.05);
    expect(mixture).toBeLessThanOrEqual(Math.max(...single));
    expect(bettingLowerBound(data, 0.05, { truncation: [0.75] })).toBe(single[1]);
  });

  it("rejects scores outside [0, 1] and truncations outside (0, 1)", () => {
    expect(() => bettingLowerBound([0.5, 1.2])).toThrow(RangeError);
    expect(() => bettingLowerBound([0.5, Number.NaN])).toThrow(RangeError);
    expect(() => bettingLowerBound([0.5], 0.05, { truncation: 1 })).toThrow(RangeError);
    expect(() => bettingLowerBound([0.5], 0.05, { truncation: [] })).toThrow(RangeError);
  });

  it("does not overflow at n = 10,000, including capital that sinks below 1e-200 and climbs back", () => {
    const sinkThenClimb = [...Array<number>(3000).fill(0), ...Array<number>(7000).fill(1)];
    for (const c of [0.5, 0.9])
      expect(
        Math.abs(bettingLowerBound(sinkThenClimb, 0.05, { truncation: c }) - plainBettingBound(sinkThenClimb, 0.05, c)),
      ).toBeLessThan(1e-9);
    const ones = bettingLowerBound(Array<number>(10_000).fill(1));
    expect(ones).toBeGreaterThan(0.999);
    expect(ones).toBeLessThan(0.05 ** (1 / 10_000));
  });

  it("property: equals the plain log-space spec, never exceeds the mean, and falls as alpha falls", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1)), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.constantFrom(0.5, 0.75, 0.9),
        (values, c) => {
          const bound = bettingLowerBound(values, 0.05, { truncation: c });
          expect(Math.abs(bound - plainBettingBound(values, 0.05, c))).toBeLessThan(1e-9);
          expect(bound).toBeLessThanOrEqual(compensatedSum(values) / values.length);
          expect(bettingLowerBound(values, 0.01, { truncation: c })).toBeLessThanOrEqual(bound + 1e-12);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The independent numpy/scipy implementation of the fixed-bet bound (fixed-bet-reference.py, brentq on log K). */
const fixedBetReference = fixture("fixed-bet-reference.json") as {
  alpha: number;
  datasets: Array<{ name: string; values: number[]; bound: number }>;
};

describe("fixedBetLowerBound", () => {
  it("matches the independent numpy/scipy reference (fixed-bet-reference.py) to 1e-9, n = 1 to 1,000", () => {
    expect(fixedBetReference.datasets.length).toBeGreaterThan(20);
    for (const { name, values, bound } of fixedBetReference.datasets)
      expect(Math.abs(fixedBetLowerBound(values, fixedBetReference.alpha) - bound), name).toBeLessThan(1e-9);
  });

  it("bets c = 1/20 .. 1 with weights summing to 1, half of them on c = 1", () => {
    expect(FIXED_BETS.map((bet) => bet.c)).toEqual(Array.from({ length: 20 }, (_, j) => (j + 1) / 20));
    expect(compensatedSum(FIXED_BETS.map((bet) => bet.weight))).toBeCloseTo(1, 14);
    expect(FIXED_BETS.at(-1)!.weight).toBeCloseTo(0.5 + 0.5 / 10.5, 14);
  });

  it("ten 1s give 0.7195 (adaptive bound 0.7204, no valid bound above 0.05^(1/10) = 0.7411); 0 for none or all 0", () => {
    expect(fixedBetLowerBound(Array<number>(10).fill(1))).toBeCloseTo(0.7194682369600147, 10);
    expect(fixedBetLowerBound(Array<number>(10).fill(1))).toBeLessThan(0.05 ** (1 / 10));
    expect(fixedBetLowerBound([])).toBe(0);
    expect(fixedBetLowerBound(Array<number>(10).fill(0))).toBe(0);
  });

  it("rejects scores outside [0, 1]", () => {
    expect(() => fixedBetLowerBound([0.5, 1.2])).toThrow(RangeError);
    expect(() => fixedBetLowerBound([0.5, Number.NaN])).toThrow(RangeError);
  });

  it("holds at n = 10,000 (sums of logs, no overflow)", () => {
    const ones = fixedBetLowerBound(Array<number>(10_000).fill(1));
    expect(ones).toBeGreaterThan(0.999);
    expect(ones).toBeLessThan(0.05 ** (1 / 10_000));
    const mixed = Array.from({ length: 10_000 }, (_, i) => (i % 4 === 0 ? 0 : 1));
    expect(fixedBetLowerBound(mixed)).toBeGreaterThan(0.7);
    expect(fixedBetLowerBound(mixed)).toBeLessThan(0.75);
  });

  it("property: the same for every order of the scores, never above the mean, falls as alpha falls", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1)), {
          minLength: 1,
          maxLength: 60,
        }),
        (values) => {
          const bound = fixedBetLowerBound(values);
          expect(fixedBetLowerBound([...values].reverse())).toBe(bound);
          expect(fixedBetLowerBound([...values].sort((a, b) => a - b))).toBe(bound);
          expect(bound).toBeLessThanOrEqual(compensatedSum(values) / values.length);
          expect(fixedBetLowerBound(values, 0.01)).toBeLessThanOrEqual(bound + 1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });
});
