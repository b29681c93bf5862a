// Coverage of the paired bound: at n = 10, 15 and 30 pairs, for pass/fail, trial-mean and graded pairs, the
// bound lands above the true mean difference in at most 5% of simulated benches plus Monte-Carlo tolerance
// (2,000 replications per cell: 5% + 3 standard errors = 6.46%).
import { describe, expect, it } from "vitest";
import { missRateLimit } from "./coverage-simulation.ts";
import { seededRandom } from "./statistics.ts";
import { PAIR_DISTRIBUTIONS, PAIRED_COVERAGE_NS, simulatePairedCell } from "./paired-coverage-simulation.ts";

const REPLICATIONS = 2000;

describe("paired bound coverage", () => {
  for (const distribution of PAIR_DISTRIBUTIONS) {
    for (const n of PAIRED_COVERAGE_NS) {
      it(`misses at most 5% (+MC tolerance) for ${distribution.name} at n = ${n}`, () => {
        const cell = simulatePairedCell(distribution, n, REPLICATIONS);
        expect(cell.misses / REPLICATIONS).toBeLessThanOrEqual(missRateLimit(REPLICATIONS));
        // Not vacuous: the bound is informative (above -1) and below the true difference on average.
        expect(cell.meanBound).toBeGreaterThan(-1);
        expect(cell.meanBound).toBeLessThan(distribution.meanDifference);
      });
    }
  }

  it("catches an invalid paired bound: the mean difference itself misses about half the time", () => {
    const distribution = PAIR_DISTRIBUTIONS.find((d) => d.name.startsWith("independent pass/fail 0.5"))!;
    let misses = 0;
    const random = seededRandom("invalid-paired");
    for (let rep = 0; rep < 500; rep += 1) {
      const pairs = Array.from({ length: 15 }, () => distribution.sample(random));
      const mean = pairs.reduce((s, [b, c]) => s + c - b, 0) / 15;
      if (mean > distribution.meanDifference + 1e-12) misses += 1;
    }
    expect(misses / 500).toBeGreaterThan(missRateLimit(500));
  });
});
