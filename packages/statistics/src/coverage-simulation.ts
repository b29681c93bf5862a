// The coverage simulation behind coverage.test.ts and scripts/benchmarks/bound.bench.ts: score distributions
// shaped like real rubrics (pass/fail, graded, mostly-perfect with rare failures), seeded samplers, and a
// loop that counts how often a lower bound lands above the true mean. For tests and the benchmark only:
// not exported from the package's index.
import { clopperPearsonLowerBound } from "./bounds.ts";
import { gateLowerBound, seededRandom } from "./statistics.ts";

export type Random = () => number;

export interface ScoreDistribution {
  readonly name: string;
  /** The true mean score, which a valid bound stays below with probability >= 95%. */
  readonly mean: number;
  /** Scores are exactly 0 or 1 (the binary kind applies). */
  readonly bernoulli: boolean;
  readonly sample: (random: Random) => number;
}

/** A uniform draw in (0, 1]: never 0, so logarithms of it are finite. */
const open = (random: Random): number => 1 - random();

/** A standard normal draw (Box-Muller, one of the pair). */
export function sampleNormal(random: Random): number {
  return Math.sqrt(-2 * Math.log(open(random))) * Math.cos(2 * Math.PI * random());
}

/** A Gamma(shape, 1) draw: Marsaglia & Tsang (2000); shape < 1 through Gamma(shape + 1) · U^(1/shape). */
export function sampleGamma(shape: number, random: Random): number {
  if (shape < 1) return sampleGamma(shape + 1, random) * Math.pow(open(random), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const z = sampleNormal(random);
    const v = (1 + c * z) ** 3;
    if (v <= 0) continue;
    if (Math.log(open(random)) < 0.5 * z * z + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A Beta(a, b) draw as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b). */
export function sampleBeta(a: number, b: number, random: Random): number {
  const x = sampleGamma(a, random);
  return x / (x + sampleGamma(b, random));
}

const bernoulli = (p: number): ScoreDistribution => ({
  name: `Bernoulli(${p})`,
  mean: p,
  bernoulli: true,
  sample: (random) => (random() < p ? 1 : 0),
});

/** The distributions of the coverage test and the bound benchmark. */
export const SCORE_DISTRIBUTIONS: readonly ScoreDistribution[] = [
  bernoulli(0.5),
  bernoulli(0.7),
  bernoulli(0.9),
  bernoulli(0.97),
  { name: "Beta(5,2)", mean: 5 / 7, bernoulli: false, sample: (random) => sampleBeta(5, 2, random) },
  { name: "Beta(0.5,0.5)", mean: 0.5, bernoulli: false, sample: (random) => sampleBeta(0.5, 0.5, random) },
  {
    name: "0/0.85/1 w.p. 0.2/0.2/0.6",
    mean: 0.2 * 0.85 + 0.6,
    bernoulli: false,
    sample: (random) => {
      const u = random();
      return u < 0.2 ? 0 : u < 0.4 ? 0.85 : 1;
    },
  },
  {
    name: "Beta(5,2) with 5% zeros",
    mean: 0.95 * (5 / 7),
    bernoulli: false,
    sample: (random) => (random() < 0.05 ? 0 : sampleBeta(5, 2, random)),
  },
  {
    name: "0.95 with 3% 0.1",
    mean: 0.97 * 0.95 + 0.03 * 0.1,
    bernoulli: false,
    sample: (random) => (random() < 0.03 ? 0.1 : 0.95),
  },
];

export const COVERAGE_NS: readonly number[] = [5, 10, 15, 30, 100];

/** A lower bound of the mean from one sample; null when the method is undefined for it (never a miss). */
export type BoundMethod = (values: readonly number[]) => number | null;

/** The gate's bound for binary scores: Clopper-Pearson on the number of 1s. */
export const clopperPearsonMethod: BoundMethod = (values) =>
  clopperPearsonLowerBound(values.filter((v) => v === 1).length, values.length);

/** The gate's bound for graded scores, as runEval computes it: the fixed-bet bound (order-free). */
export const bettingMethod: BoundMethod = (values) => gateLowerBound(values, 0, "graded");

export interface MethodOutcome {
  /** Replications whose bound was above the true mean. */
  readonly misses: number;
  /** Replications where the method gave a bound (not null). */
  readonly defined: number;
  /** The mean of the defined bounds. */
  readonly meanBound: number;
  /** Replications whose bound was above that sample's own mean (beyond 1e-12). */
  readonly aboveSampleMean: number;
}

export interface CellOutcome {
  readonly distribution: string;
  readonly n: number;
  readonly replications: number;
  readonly methods: Readonly<Record<string, MethodOutcome>>;
}

/** The largest miss rate consistent with a nominal 5% at `replications` draws: 5% plus 3 standard errors. */
export function missRateLimit(replications: number, alpha = 0.05): number {
  return alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / replications);
}

/**
 * Draws `replications` samples of n scores from the distribution (seeded by the cell) and applies every
 * method to each sample. Deterministic for a seed.
 */
export function simulateCell(
  distribution: ScoreDistribution,
  n: number,
  replications: number,
  methods: Readonly<Record<string, BoundMethod>>,
  seed = "coverage",
): CellOutcome {
  const random = seededRandom(`${seed}:${distribution.name}:${n}`);
  const names = Object.keys(methods);
  const tally = names.map(() => ({ misses: 0, defined: 0, sum: 0, aboveSampleMean: 0 }));
  const values = new Array<number>(n);
  for (let rep = 0; rep < replications; rep += 1) {
    for (let i = 0; i < n; i += 1) values[i] = distribution.sample(random);
    const sampleMean = values.reduce((a, b) => a + b, 0) / n;
    names.forEach((name, j) => {
      const bound = methods[name]!(values);
      if (bound === null) return;
      const entry = tally[j]!;
      entry.defined += 1;
      entry.sum += bound;
      if (bound > distribution.mean) entry.misses += 1;
      if (bound > sampleMean + 1e-12) entry.aboveSampleMean += 1;
    });
  }
  const outcomes = Object.fromEntries(
    names.map((name, j) => {
      const { misses, defined, sum, aboveSampleMean } = tally[j]!;
      return [name, { misses, defined, meanBound: defined === 0 ? Number.NaN : sum / defined, aboveSampleMean }];
    }),
  );
  return { distribution: distribution.name, n, replications, methods: outcomes };
}
