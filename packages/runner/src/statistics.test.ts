import { execFileSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bcaLowerBound,
  bcaLowerBoundFromDistribution,
  bootstrapMeans,
  normalCdf,
  normalQuantile,
  runStatistics,
  seededRandom,
  welford,
  wilsonLowerBound,
} from "./statistics.ts";

const DATASETS: number[][] = [
  [0.2, 0.9, 0.75, 1.0, 0.4, 0.85, 0.6, 0.95, 0.3, 0.8],
  [0.5, 0.55, 0.6, 0.52, 0.58],
  [0.1, 0.95, 0.97, 0.99, 0.92, 0.88, 0.9, 0.93, 0.96, 0.91, 0.94, 0.89],
  [0.33, 0.67],
  Array.from({ length: 40 }, (_, i) => ((i * 37) % 100) / 100),
];

/** The first Python with scipy: EVALGATE_PYTHON, python3 on PATH, then pyenv's shim (PATH may be trimmed). */
const python = (() => {
  const home = process.env.HOME ?? "/root";
  const candidates = [process.env.EVALGATE_PYTHON, "python3", join(home, ".pyenv", "shims", "python3"), "/usr/bin/python3"];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === "") continue;
    try {
      execFileSync(candidate, ["-c", "import scipy"], { stdio: "ignore" });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error("these tests check BCa against scipy: install it (pip install scipy) or set EVALGATE_PYTHON to a python3 that has it");
})();

function scipy(datasets: Array<{ data: number[]; distribution: number[] | null }>): Array<number | null> {
  const script = join(import.meta.dirname, "__fixtures__", "scipy-bca.py");
  return JSON.parse(execFileSync(python, [script], { input: JSON.stringify({ datasets }), encoding: "utf8" }));
}

describe("normal distribution helpers", () => {
  it("match scipy.special.ndtr/ndtri to 1e-12", () => {
    // Printed by scipy 1.17.1: ndtr(1.2345), ndtr(-3.5), ndtr(7.2), ndtri(0.05), ndtri(0.9999), ndtri(1e-10).
    expect(normalCdf(1.2345)).toBeCloseTo(0.8914916766373298, 12);
    expect(normalCdf(-3.5)).toBeCloseTo(0.00023262907903552502, 14);
    expect(normalCdf(7.2)).toBeCloseTo(0.9999999999996989, 12);
    expect(normalQuantile(0.05)).toBeCloseTo(-1.6448536269514729, 12);
    expect(normalQuantile(0.9999)).toBeCloseTo(3.719016485455709, 10);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 9);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(2)).toBeNaN();
    expect(normalCdf(Infinity)).toBe(1);
    expect(normalCdf(-Infinity)).toBe(0);
  });
});

describe("welford", () => {
  it("gives the arithmetic mean and the sample standard deviation", () => {
    const result = welford([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(result.mean).toBe(5);
    expect(result.stddev).toBeCloseTo(2.138089935299395, 12);
    expect(welford([]).mean).toBe(0);
    expect(welford([0.3]).stddev).toBe(0);
  });

  it("property: mean equals the arithmetic mean", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 200 }), (values) => {
        const arithmetic = values.reduce((a, b) => a + b, 0) / values.length;
        expect(welford(values).mean).toBeCloseTo(arithmetic, 10);
      }),
    );
  });
});

describe("BCa bootstrap against scipy.stats.bootstrap(method='BCa', confidence_level=0.90)", () => {
  it("is exact (1e-12) when both are given the same bootstrap distribution", () => {
    const inputs = DATASETS.map((data, i) => ({ data, distribution: bootstrapMeans(data, 1000, seededRandom(`dataset-${i}`)) }));
    const expected = scipy(inputs);
    inputs.forEach((input, i) => {
      const ours = bcaLowerBoundFromDistribution(input.data, input.distribution).lower;
      expect(ours).not.toBeNull();
      expect(Math.abs(ours! - expected[i]!)).toBeLessThan(1e-12);
    });
  });

  it("is within 0.03 of scipy's own 200,000-resample bound with our 1000 seeded resamples", () => {
    const expected = scipy(DATASETS.map((data) => ({ data, distribution: null })));
    DATASETS.forEach((data, i) => {
      const ours = bcaLowerBound(data, { seed: `independent-${i}` });
      expect(Math.abs(ours! - expected[i]!)).toBeLessThan(0.03);
    });
  });

  it("is undefined without spread or with fewer than two values", () => {
    expect(bcaLowerBound([0.4], { seed: "x" })).toBeNull();
    const flat = [0.5, 0.5, 0.5];
    expect(bcaLowerBoundFromDistribution(flat, bootstrapMeans(flat, 100, seededRandom("y"))).lower).toBeNull();
  });

  it("is deterministic for a seed and moves with the seed", () => {
    const data = DATASETS[0]!;
    expect(bcaLowerBound(data, { seed: "a" })).toBe(bcaLowerBound(data, { seed: "a" }));
    expect(bcaLowerBound(data, { seed: "a" })).not.toBe(bcaLowerBound(data, { seed: "b" }));
  });
});

describe("wilsonLowerBound", () => {
  it("matches the closed form (z = 1.6449) and its edge cases", () => {
    // (p + z²/2n - z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n) with z = -ndtri(0.05), evaluated in numpy.
    expect(wilsonLowerBound(8, 10)).toBeCloseTo(0.5407928056874879, 12);
    expect(wilsonLowerBound(10, 10)).toBeCloseTo(0.7870580299165928, 12);
    expect(wilsonLowerBound(0, 10)).toBe(0);
    expect(wilsonLowerBound(0, 0)).toBe(0);
  });
});

describe("runStatistics", () => {
  const scores = (values: number[]) => values.map((score) => ({ score, passed: score >= 0.7 }));

  it("uses BCa for graded scores and reports both bounds", () => {
    const stats = runStatistics(scores(DATASETS[0]!), { seed: "s" });
    expect(stats.lowerBoundMethod).toBe("bca_bootstrap");
    expect(stats.lowerBound95).toBe(stats.bcaLowerBound95);
    expect(stats.wilsonLowerBound95).not.toBeNull();
    expect(stats.bootstrapResamples).toBe(1000);
    expect(stats.mean).toBeCloseTo(0.675, 12);
    expect(stats.passedCount).toBe(6);
  });

  it("uses Wilson when at least 80% of scores are exactly 0 or 1", () => {
    const stats = runStatistics(scores([1, 1, 1, 0, 1, 1, 1, 1, 0.5, 1]), { seed: "s" });
    expect(stats.lowerBoundMethod).toBe("wilson");
    expect(stats.lowerBound95).toBeCloseTo(wilsonLowerBound(8, 10), 12);
    const allPass = runStatistics(scores([1, 1, 1]), { seed: "s" });
    expect(allPass.lowerBoundMethod).toBe("wilson");
    expect(allPass.lowerBound95).toBeLessThan(1);
  });

  it("is degenerate for n = 1, equal scores and no cases", () => {
    expect(runStatistics(scores([0.6]), { seed: "s" })).toMatchObject({ lowerBoundMethod: "degenerate", lowerBound95: 0.6 });
    expect(runStatistics(scores([0.6, 0.6, 0.6]), { seed: "s" })).toMatchObject({ lowerBoundMethod: "degenerate", lowerBound95: 0.6, bootstrapResamples: 0 });
    expect(runStatistics([], { seed: "s" })).toMatchObject({ lowerBoundMethod: "degenerate", lowerBound95: 0, mean: 0, n: 0 });
  });

  it("property: lower_bound_95 <= mean, deterministic, mean is the arithmetic mean", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ score: fc.double({ min: 0, max: 1, noNaN: true }), passed: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        fc.string(),
        (cases, seed) => {
          const a = runStatistics(cases, { seed, resamples: 200 });
          const b = runStatistics(cases, { seed, resamples: 200 });
          expect(a).toEqual(b);
          const arithmetic = cases.reduce((sum, c) => sum + c.score, 0) / cases.length;
          expect(a.mean).toBeCloseTo(arithmetic, 10);
          if (a.lowerBoundMethod !== "wilson") expect(a.lowerBound95).toBeLessThanOrEqual(a.mean + 1e-12);
          expect(a.lowerBound95).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
