// The coverage simulation of the paired bound (paired.ts): pairs of per-case values (baseline, candidate) from
// distributions with a known mean difference, shaped like two agents on one bench (independent and correlated
// pass/fail, trial means of stochastic agents, graded scores), and a loop that counts how often the bound lands
// above the true mean difference. For paired-coverage.test.ts and scripts/paired-coverage.ts only.
import { sampleBeta, type Random } from "./coverage-simulation.ts";
import { pairedLowerBound } from "./paired.ts";
import { seededRandom } from "./statistics.ts";

export interface PairDistribution {
  readonly name: string;
  /** E[candidate - baseline]. */
  readonly meanDifference: number;
  readonly sample: (random: Random) => readonly [baseline: number, candidate: number];
}

const pass = (random: Random, p: number): number => (random() < p ? 1 : 0);

/** The mean of k Bernoulli(p) trials. */
const trialMean = (random: Random, p: number, k: number): number => {
  let passes = 0;
  for (let t = 0; t < k; t += 1) passes += pass(random, p);
  return passes / k;
};

/** The distributions of the paired coverage test and table. */
export const PAIR_DISTRIBUTIONS: readonly PairDistribution[] = [
  { name: "independent pass/fail 0.7 vs 0.9", meanDifference: 0.2, sample: (r) => [pass(r, 0.7), pass(r, 0.9)] },
  { name: "independent pass/fail 0.5 vs 0.5", meanDifference: 0, sample: (r) => [pass(r, 0.5), pass(r, 0.5)] },
  // One difficulty per case: the candidate solves every case the baseline does, and 15% more.
  {
    name: "nested pass/fail 0.6 vs 0.75",
    meanDifference: 0.15,
    sample: (r) => ((u) => [u < 0.6 ? 1 : 0, u < 0.75 ? 1 : 0] as const)(r()),
  },
  {
    name: "nested regression 0.8 vs 0.6",
    meanDifference: -0.2,
    sample: (r) => ((u) => [u < 0.8 ? 1 : 0, u < 0.6 ? 1 : 0] as const)(r()),
  },
  {
    // Per-case pass probability p ~ U(0.4, 1); the candidate's is min(1, p + 0.2); 5 trials each.
    name: "5-trial means, p ~ U(0.4,1) vs min(1, p+0.2)",
    meanDifference: (0.8 * 2) / 3 + 1 / 3 - 0.7,
    sample: (r) => ((p) => [trialMean(r, p, 5), trialMean(r, Math.min(1, p + 0.2), 5)] as const)(0.4 + 0.6 * r()),
  },
  {
    name: "graded Beta(2,2) vs (Beta(2,2) + Beta(5,2)) / 2",
    meanDifference: (0.5 + 5 / 7) / 2 - 0.5,
    sample: (r) => ((b) => [b, (b + sampleBeta(5, 2, r)) / 2] as const)(sampleBeta(2, 2, r)),
  },
];

export const PAIRED_COVERAGE_NS: readonly number[] = [10, 15, 30];

export interface PairedCellOutcome {
  readonly distribution: string;
  readonly n: number;
  readonly replications: number;
  /** Replications whose bound was above the true mean difference. */
  readonly misses: number;
  readonly meanBound: number;
}

/** Draws `replications` benches of n pairs (seeded by the cell) and bounds each one. Deterministic. */
export function simulatePairedCell(
  distribution: PairDistribution,
  n: number,
  replications: number,
  seed = "paired-coverage",
): PairedCellOutcome {
  const random = seededRandom(`${seed}:${distribution.name}:${n}`);
  let misses = 0;
  let sum = 0;
  for (let rep = 0; rep < replications; rep += 1) {
    const pairs = Array.from({ length: n }, () => distribution.sample(random));
    const bound = pairedLowerBound(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
    sum += bound;
    if (bound > distribution.meanDifference + 1e-12) misses += 1;
  }
  return { distribution: distribution.name, n, replications, misses, meanBound: sum / replications };
}
