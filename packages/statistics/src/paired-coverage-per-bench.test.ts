// Coverage of the paired bound for the bench in hand: fixed benches whose cases differ in how much the candidate
// changes them (per-case pass probabilities of both systems fixed per case, so per-case mean differences unequal),
// each replicated 2,000 times (fresh outcomes on the same cases); every bench's miss rate stays within 5% + 3 SE.
// The bound reads no order, so a bench is its cases alone: no seed can be a lucky or unlucky one.
import { describe, expect, it } from "vitest";
import { bettingLowerBound } from "./bounds.ts";
import { missRateLimit } from "./coverage-simulation.ts";
import { pairedLowerBound } from "./paired.ts";
import { bettingOrder, seededRandom } from "./statistics.ts";

interface Bench {
  readonly name: string;
  /** Per case: the baseline's and the candidate's pass probability. */
  readonly cases: readonly (readonly [baseline: number, candidate: number])[];
  /** Coupled: one uniform per case, the baseline passes iff u < b, the candidate iff u >= 1 - c; else independent. */
  readonly coupled?: boolean;
}

const linear = (n: number, from: number, to: number) =>
  Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));

const BENCHES: readonly Bench[] = [
  // The candidate gains most on the easy cases (listed first) and nothing on the hard ones.
  {
    name: "gain falling 0.5 to 0, n = 30",
    cases: linear(30, 0.5, 0).map((g, i) => [0.4 + 0.01 * i, Math.min(1, 0.4 + 0.01 * i + g)]),
  },
  // A baseline that always fails, a candidate from 1 down to 0.4 (the graded attack's shape, as differences).
  { name: "candidate 1 to 0.4 over a failing baseline, n = 30", cases: linear(30, 1, 0.4).map((c) => [0, c]) },
  // Coupled so d = ±1: the candidate passes exactly where the baseline fails, (d + 1) / 2 passes 1 down to 0.4.
  {
    name: "coupled ±1, candidate 1 to 0.4, n = 30",
    cases: linear(30, 1, 0.4).map((c) => [1 - c, c]),
    coupled: true,
  },
  // Regressions on some cases, gains on others.
  { name: "mixed: -0.6 .. +0.6, n = 20", cases: linear(20, -0.6, 0.6).map((g) => [0.5 - g / 2, 0.5 + g / 2]) },
  // Small bench, lopsided differences.
  { name: "lopsided, n = 10", cases: [...Array(7).fill([0.9, 0.9]), [0, 1], [0, 1], [0.2, 1]] },
];

/** The fraction of `replications` fresh outcome draws on the bench whose bound lands above its true mean difference. */
function missRate(
  bench: Bench,
  bound: (b: number[], c: number[]) => number,
  replications: number,
  stream = "paired-per-bench",
): number {
  const trueDifference = bench.cases.reduce((sum, [b, c]) => sum + c - b, 0) / bench.cases.length;
  const random = seededRandom(`${stream}:${bench.name}`);
  let misses = 0;
  for (let rep = 0; rep < replications; rep += 1) {
    const draws = bench.cases.map(([b, c]) => {
      const u = random();
      return bench.coupled
        ? ([u < b ? 1 : 0, u >= 1 - c ? 1 : 0] as const)
        : ([u < b ? 1 : 0, random() < c ? 1 : 0] as const);
    });
    const value = bound(
      draws.map((d) => d[0]),
      draws.map((d) => d[1]),
    );
    if (value > trueDifference + 1e-12) misses += 1;
  }
  return misses / replications;
}

describe("the paired bound holds for each bench in hand, however unequal its per-case differences", () => {
  const replications = 2000;
  for (const bench of BENCHES) {
    it(`${bench.name}: misses at most 5% + 3 SE`, { timeout: 60_000 }, () => {
      const rate = missRate(bench, (b, c) => pairedLowerBound(b, c), replications);
      expect(rate).toBeLessThanOrEqual(missRateLimit(replications));
    });
  }
});

describe("the attack: the adaptive paired bound in a seeded order (the construction replaced) misses on a bench in hand", () => {
  it("coupled ±1 bench, order seed bench-63: adaptive > 5% + 3 SE, the fixed-bet paired bound within it on the same draws", () => {
    const replications = 2000;
    const limit = missRateLimit(replications);
    const bench = BENCHES.find((b) => b.coupled)!;
    const adaptive = (b: number[], c: number[]) =>
      2 *
        bettingLowerBound(
          bettingOrder(
            b.map((x, i) => (c[i]! - x + 1) / 2),
            "bench-63",
          ),
        ) -
      1;
    expect(missRate(bench, adaptive, replications, "attack")).toBeGreaterThan(limit);
    expect(missRate(bench, (b, c) => pairedLowerBound(b, c), replications, "attack")).toBeLessThanOrEqual(limit);
  });
});
