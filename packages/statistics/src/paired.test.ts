import { describe, expect, it } from "vitest";
import { fixedBetLowerBound } from "./bounds.ts";
import { mcnemarExact, pairedLowerBound } from "./paired.ts";

/** Outcome vectors with b baseline-only passes, c candidate-only passes and `both` concordant passes. */
function outcomes(b: number, c: number, both = 3): { baseline: boolean[]; candidate: boolean[] } {
  const baseline = [...Array(b).fill(true), ...Array(c).fill(false), ...Array(both).fill(true), false];
  const candidate = [...Array(b).fill(false), ...Array(c).fill(true), ...Array(both).fill(true), false];
  return { baseline, candidate };
}

describe("mcnemarExact", () => {
  // scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue (two-sided), scipy 1.17.1.
  const reference: [number, number, number][] = [
    [0, 0, 1],
    [1, 0, 1],
    [3, 0, 0.25],
    [2, 7, 0.1796875],
    [5, 5, 1],
    [0, 10, 0.001953125],
    [12, 30, 0.007915897334896727],
    [1, 14, 0.0009765625],
  ];
  for (const [b, c, p] of reference) {
    it(`matches scipy's exact binomial test for b = ${b}, c = ${c}`, () => {
      const { baseline, candidate } = outcomes(b, c);
      const result = mcnemarExact(baseline, candidate);
      expect(result.baselineOnly).toBe(b);
      expect(result.candidateOnly).toBe(c);
      expect(result.pValue).toBeCloseTo(p, 12);
    });
  }

  it("refuses outcome vectors of different lengths", () => {
    expect(() => mcnemarExact([true], [true, false])).toThrow(RangeError);
  });
});

describe("pairedLowerBound", () => {
  it("is the fixed-bet bound on (d + 1) / 2, mapped back, and reads no order", () => {
    const baseline = [0, 1, 0.5, 1, 0, 1, 1, 0.2, 0.6, 1];
    const candidate = [1, 1, 0.9, 1, 1, 0, 1, 0.8, 0.6, 1];
    const rescaled = baseline.map((b, i) => (candidate[i]! - b + 1) / 2);
    const expected = 2 * fixedBetLowerBound(rescaled) - 1;
    expect(pairedLowerBound(baseline, candidate)).toBeCloseTo(expected, 12);
    expect(pairedLowerBound([...baseline].reverse(), [...candidate].reverse())).toBe(
      pairedLowerBound(baseline, candidate),
    );
  });

  it("stays below the mean difference and above -1", () => {
    const baseline = Array(15).fill(0.2);
    const candidate = Array(15).fill(0.9);
    const bound = pairedLowerBound(baseline, candidate);
    expect(bound).toBeLessThanOrEqual(0.7 + 1e-12);
    expect(bound).toBeGreaterThan(0);
    expect(pairedLowerBound(candidate, baseline)).toBeGreaterThanOrEqual(-1);
    expect(pairedLowerBound(candidate, baseline)).toBeLessThan(-0.7);
  });

  it("is -1 for no pairs and refuses bad input", () => {
    expect(pairedLowerBound([], [])).toBe(-1);
    expect(() => pairedLowerBound([0.5], [])).toThrow(RangeError);
    expect(() => pairedLowerBound([1.5], [0])).toThrow(RangeError);
  });
});
