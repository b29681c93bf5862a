// Aggregate statistics of one run: Welford mean/stddev, the gate's lower bound (bounds.ts: Clopper-Pearson
// for binary task classes, the betting bound for graded ones), and two informational bounds, BCa bootstrap
// and Wilson. BCa is implemented here because no maintained JS library has it; statistics.test.ts checks it
// against scipy.stats.bootstrap, exactly when both are given the same bootstrap distribution.
import { blake3 } from "@eval/hashing";
import { bettingLowerBound, clopperPearsonLowerBound, compensatedSum, fixedBetLowerBound } from "./bounds.ts";

export interface WelfordResult {
  readonly n: number;
  readonly mean: number;
  /** Sample variance (n - 1 denominator); 0 when n < 2. */
  readonly variance: number;
  readonly stddev: number;
}

/** Mean and sample standard deviation in one numerically stable pass (Welford 1962). */
export function welford(values: readonly number[]): WelfordResult {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (const value of values) {
    n += 1;
    const delta = value - mean;
    mean += delta / n;
    m2 += delta * (value - mean);
  }
  const variance = n < 2 ? 0 : Math.max(0, m2 / (n - 1));
  return { n, mean: n === 0 ? 0 : mean, variance, stddev: Math.sqrt(variance) };
}

/** erf by its Taylor series for |x| < 3 and erfc by a continued fraction beyond: ~1e-15 relative. */
function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x);
  if (x < 3) {
    let sum = x;
    let term = x;
    const x2 = x * x;
    for (let k = 1; k < 200; k += 1) {
      term *= -x2 / k;
      const add = term / (2 * k + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  // Lentz's method on erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))).
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 300; k += 1) {
    const a = k / 2;
    d = x + a * d;
    d = d === 0 ? 1e-300 : 1 / d;
    c = x + a / c;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** The standard normal CDF (scipy.special.ndtr). */
export function normalCdf(z: number): number {
  if (z === Infinity) return 1;
  if (z === -Infinity) return 0;
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** The standard normal quantile (scipy.special.ndtri): Acklam's approximation + two Newton steps. */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const a = [
    -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
    2.506628277459239,
  ];
  const b = [
    -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
  ];
  const c = [
    -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  for (let step = 0; step < 2; step += 1) {
    const error = normalCdf(x) - p;
    const density = Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
    if (density === 0) break;
    x -= error / density;
  }
  return x;
}

/**
 * A small seeded PRNG (sfc32) whose 128-bit state comes from BLAKE3 of the seed string. The state lives in an
 * Int32Array: as closure variables, 32-bit values outside V8's small-integer range are boxed on every
 * update, which made each draw ~3x slower (the bootstrap draws 10^7 of them at n = 1,000).
 */
export function seededRandom(seed: string): () => number {
  // The first 16 bytes of BLAKE3-256 equal BLAKE3 with a 16-byte output (BLAKE3 output is a prefix-stable XOF).
  const bytes = blake3(`evalgate.bootstrap.v1:${seed}`).subarray(0, 16);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  const state = Int32Array.of(view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getUint32(12));
  const next = (): number => {
    const a = state[0]!;
    const b = state[1]!;
    const c = state[2]!;
    const d = state[3]!;
    const t = (((a + b) | 0) + d) | 0;
    state[3] = (d + 1) | 0;
    state[0] = b ^ (b >>> 9);
    state[1] = (c + (c << 3)) | 0;
    state[2] = (((c << 21) | (c >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i += 1) next();
  return next;
}

const mean = (values: readonly number[]): number => compensatedSum(values) / values.length;

/**
 * The bootstrap distribution of the mean: `resamples` means of n draws with replacement. Each resample is
 * summed with Neumaier compensation (as compensatedSum, inlined), so a resample whose mean equals the sample
 * mean ties with it exactly, as BCa's tie count needs.
 */
export function bootstrapMeans(values: readonly number[], resamples: number, random: () => number): number[] {
  const n = values.length;
  const out = new Array<number>(resamples);
  for (let b = 0; b < resamples; b += 1) {
    let sum = 0;
    let compensation = 0;
    for (let i = 0; i < n; i += 1) {
      const value = values[Math.floor(random() * n)]!;
      const t = sum + value;
      compensation += Math.abs(sum) >= Math.abs(value) ? sum - t + value : value - t + sum;
      sum = t;
    }
    out[b] = (sum + compensation) / n;
  }
  return out;
}

/** Linear-interpolation quantile of sorted values (numpy/scipy "linear", Hyndman-Fan type 7). */
function quantileSorted(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export interface BcaResult {
  /** The lower end of the BCa interval, or null when BCa is undefined (no spread, n < 2). */
  readonly lower: number | null;
  readonly z0: number;
  readonly acceleration: number;
  /** The adjusted percentile (alpha_1) the lower end is read at. */
  readonly adjustedAlpha: number;
}

/**
 * BCa lower bound of the mean from a given bootstrap distribution (Efron & Tibshirani 1993, 14.3),
 * following scipy.stats.bootstrap's conventions exactly: z0 from the "mean" percentile of score
 * ((#< + #<=) / 2B), acceleration from the jackknife, and the bound read from the bootstrap
 * distribution at ndtr(z0 + (z0 + z_alpha) / (1 - a (z0 + z_alpha))) by linear interpolation.
 * `alpha` = 0.05 gives the one-sided 95% lower bound, which is also the lower end of scipy's
 * two-sided 90% interval (confidence_level=0.90) and of its alternative="greater" 95% interval.
 */
export function bcaLowerBoundFromDistribution(
  values: readonly number[],
  distribution: readonly number[],
  alpha = 0.05,
): BcaResult {
  const n = values.length;
  const thetaHat = mean(values);
  let below = 0;
  let belowOrEqual = 0;
  for (const theta of distribution) {
    if (theta < thetaHat) below += 1;
    if (theta <= thetaHat) belowOrEqual += 1;
  }
  const z0 = normalQuantile((below + belowOrEqual) / (2 * distribution.length));
  // Leave-one-out means in O(n): (sum - x_i) / (n - 1) from one compensated sum (scipy recomputes each).
  const total = compensatedSum(values);
  const jackknife = values.map((value) => (total - value) / (n - 1));
  const jackMean = mean(jackknife);
  let num = 0;
  let den = 0;
  for (const theta of jackknife) {
    const u = (n - 1) * (jackMean - theta);
    num += u ** 3;
    den += u ** 2;
  }
  num /= n ** 3;
  den /= n ** 2;
  const acceleration = num / 6 / den ** 1.5;
  const zAlpha = normalQuantile(alpha);
  const shifted = z0 + zAlpha;
  const adjustedAlpha = normalCdf(z0 + shifted / (1 - acceleration * shifted));
  // No spread is checked directly: rounding in the jackknife can leave a tiny nonzero u for equal scores
  // (ten scores of 0.95 did), which would otherwise "define" a bound equal to the score.
  const spread = values.some((value) => value !== values[0]);
  if (n < 2 || !spread || !Number.isFinite(z0) || !Number.isFinite(acceleration) || !Number.isFinite(adjustedAlpha)) {
    return { lower: null, z0, acceleration, adjustedAlpha };
  }
  const sorted = Float64Array.from(distribution).sort();
  return { lower: quantileSorted(sorted, adjustedAlpha), z0, acceleration, adjustedAlpha };
}

/** Bootstrap resamples of the informational BCa bound unless a caller says otherwise. */
export const DEFAULT_RESAMPLES = 10_000;

/** BCa bootstrap lower bound of the mean with `resamples` seeded resamples (null when undefined). */
export function bcaLowerBound(
  values: readonly number[],
  options: { seed: string; resamples?: number; alpha?: number },
): number | null {
  if (values.length < 2) return null;
  const distribution = bootstrapMeans(values, options.resamples ?? DEFAULT_RESAMPLES, seededRandom(options.seed));
  return bcaLowerBoundFromDistribution(values, distribution, options.alpha ?? 0.05).lower;
}

/** Wilson score lower bound on a binomial proportion, one-sided at 1 - alpha (z = 1.645 for 0.05). */
export function wilsonLowerBound(successes: number, trials: number, alpha = 0.05): number {
  if (trials === 0) return 0;
  const z = -normalQuantile(alpha);
  const p = successes / trials;
  const z2 = z * z;
  const centre = p + z2 / (2 * trials);
  const margin = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return Math.max(0, (centre - margin) / (1 + z2 / trials));
}

/** How a task class's rubric scores: exactly 0/1 with passed iff 1, or anywhere in [0, 1]. */
export type ScoreKind = "binary" | "graded";

export interface RunStatistics {
  readonly n: number;
  /** The mean score, clamped to [0, 1]. */
  readonly mean: number;
  /** Sample standard deviation (n - 1); 0 for n < 2. */
  readonly stddev: number;
  readonly passedCount: number;
  readonly scoreKind: ScoreKind;
  /**
   * The gate's input: Clopper-Pearson on passedCount/n for binary, the betting bound on the mean score for
   * graded. 0 when n = 0. Never above mean. Deterministic.
   */
  readonly lowerBound95: number;
  readonly lowerBoundMethod: "clopper_pearson" | "betting";
  /** What lowerBound95 bounds. */
  readonly boundQuantity: "pass_rate" | "mean_score";
  /**
   * Informational only, never the gate's input: BCa with `resamples` (default 10,000) seeded resamples;
   * null when undefined (n < 2 or no spread).
   */
  readonly bcaLowerBound95: number | null;
  /** 0 when BCa is undefined. */
  readonly bootstrapResamples: number;
  /** Informational only: Wilson on passedCount/n; null when n = 0. */
  readonly wilsonLowerBound95: number | null;
}

const clampUnit = (value: number): number => Math.min(1, Math.max(0, value));

/**
 * The order the adaptive betting bound reads scores in (compare's paired bound; the gate's graded bound before
 * it moved to fixed bets): the case positions permuted by a Fisher-Yates shuffle seeded by `orderSeed`.
 */
export function bettingOrder(values: readonly number[], orderSeed: string): number[] {
  const random = seededRandom(`evalgate.betting_order.v2:${orderSeed}`);
  const order = [...values];
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The same shuffle over the sorted scores: the order of the first adaptive rule (version 1). */
function sortedBettingOrder(values: readonly number[], orderSeed: string): number[] {
  const random = seededRandom(`evalgate.betting_order.v1:${orderSeed}`);
  const order = [...values].sort((a, b) => a - b);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * The graded bounds honest records carry from before the gate moved to fixed bets: the adaptive betting bound
 * (bounds.ts) over the sorted-then-shuffled order (v1) and over the shuffled case positions (v2). Neither is
 * valid for a bench whose cases differ in difficulty (docs/runner.md); promotion uses them only to tell an
 * honest older record from a forged one, and judges the fixed-bet bound either way.
 */
export function legacyBettingBounds(values: readonly number[], orderSeed: string): number[] {
  if (values.length === 0) return [0, 0];
  const average = welford(values).mean;
  return [sortedBettingOrder(values, orderSeed), bettingOrder(values, orderSeed)].map((order) =>
    clampUnit(Math.min(bettingLowerBound(order), average)),
  );
}

/** The gate's bound for a score kind, chosen by the task class and never by the data (bounds.ts). */
export function gateLowerBound(values: readonly number[], passedCount: number, scoreKind: ScoreKind): number {
  if (values.length === 0) return 0;
  return scoreKind === "binary" ? clopperPearsonLowerBound(passedCount, values.length) : fixedBetLowerBound(values);
}

/**
 * Throws RangeError on scores no rubric contract allows: any score outside [0, 1], and for the binary kind a
 * score other than 0 or 1 or a `passed` that disagrees with it (passed exactly when the score is 1). The
 * runner enforces the contract before scoring (resolveRubricScore); this keeps the statistics from computing
 * a Clopper-Pearson bound on a pass count that does not match the scores (a record built by hand, say).
 */
function checkScores(scores: readonly { score: number; passed: boolean }[], scoreKind: ScoreKind): void {
  scores.forEach(({ score, passed }, i) => {
    if (!(score >= 0 && score <= 1)) throw new RangeError(`runStatistics: score ${i} is ${score}, outside [0, 1]`);
    if (scoreKind === "binary" && ((score !== 0 && score !== 1) || passed !== (score === 1))) {
      throw new RangeError(
        `runStatistics: score ${i} is not binary (score ${score}, passed ${passed}): a binary score is 0 or 1, passed exactly when 1`,
      );
    }
  });
}

/** The figures the gate reads, without the informational bounds: what promotion recomputes from a record. */
export type GateStatistics = Pick<
  RunStatistics,
  "n" | "mean" | "stddev" | "passedCount" | "scoreKind" | "lowerBound95" | "lowerBoundMethod" | "boundQuantity"
>;

/** The gate's figures over per-case scores (checked by checkScores): mean, spread, pass count and the bound. */
export function gateStatistics(
  scores: readonly { score: number; passed: boolean }[],
  options: { scoreKind: ScoreKind; orderSeed: string },
): GateStatistics {
  checkScores(scores, options.scoreKind);
  const values = scores.map((s) => s.score);
  const { n, mean: average, stddev } = welford(values);
  const passedCount = scores.filter((s) => s.passed).length;
  const binary = options.scoreKind === "binary";
  return {
    n,
    mean: clampUnit(average),
    stddev,
    passedCount,
    scoreKind: options.scoreKind,
    lowerBound95: clampUnit(Math.min(gateLowerBound(values, passedCount, options.scoreKind), average)),
    lowerBoundMethod: binary ? "clopper_pearson" : "betting",
    boundQuantity: binary ? "pass_rate" : "mean_score",
  };
}

/**
 * The case is the unit: the scores the gate bounds for cases of k trials each, and the kind they are bounded
 * as. One trial: each case's score, under the task class's kind. More: each case's mean over its trials,
 * passed when every trial passed, under the betting bound (a mean of trials is no longer 0/1; for a binary
 * task class it bounds the per-trial pass rate).
 */
export function caseLevelScores(
  cases: readonly (readonly { score: number; passed: boolean }[])[],
  options: { scoreKind: ScoreKind; trials: number },
): { readonly scores: { score: number; passed: boolean }[]; readonly boundKind: ScoreKind } {
  const scoreKind = options.scoreKind;
  if (options.trials === 1) return { scores: cases.map((trials) => trials[0]!), boundKind: scoreKind };
  const scores = cases.map((trials) => ({
    score: trials.reduce((sum, t) => sum + t.score, 0) / trials.length,
    passed: trials.every((t) => t.passed),
  }));
  return { scores, boundKind: "graded" };
}

/** The gate's figures for cases of k trials each (caseLevelScores), labelled with the task class's kind. */
export function caseGateStatistics(
  cases: readonly (readonly { score: number; passed: boolean }[])[],
  options: { scoreKind: ScoreKind; trials: number; orderSeed: string },
): GateStatistics {
  const { scores, boundKind } = caseLevelScores(cases, options);
  const figures = gateStatistics(scores, { scoreKind: boundKind, orderSeed: options.orderSeed });
  return boundKind === options.scoreKind
    ? figures
    : {
        ...figures,
        scoreKind: options.scoreKind,
        boundQuantity: options.scoreKind === "binary" ? "pass_rate" : "mean_score",
      };
}

/**
 * The statistics a report carries. The gate reads lowerBound95, whose method follows the task class's score
 * kind alone: binary, the exact Clopper-Pearson bound on the pass rate; graded, the betting bound on the mean
 * score. Both are valid at every n (coverage.test.ts). It is clamped to the mean: for a binary rubric (passed
 * iff score 1) the mean is the pass rate and the clamp is a no-op; otherwise it keeps "never above the mean".
 * The graded bound (fixed bets) does not depend on the order of the scores; `orderSeed` is not read by it.
 * BCa (10,000 resamples unless `resamples` says otherwise, seeded by `seed`) and Wilson are reported for
 * comparison only: both under-cover at small n.
 */
export function runStatistics(
  scores: readonly { score: number; passed: boolean }[],
  options: { scoreKind: ScoreKind; seed: string; orderSeed: string; resamples?: number },
): RunStatistics {
  const figures = gateStatistics(scores, options);
  const values = scores.map((s) => s.score);
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const spread = values.some((value) => value !== values[0]);
  const bca = figures.n >= 2 && spread ? bcaLowerBound(values, { seed: options.seed, resamples }) : null;
  return {
    ...figures,
    bcaLowerBound95: bca === null ? null : clampUnit(Math.min(bca, welford(values).mean)),
    bootstrapResamples: bca === null ? 0 : resamples,
    wilsonLowerBound95: figures.n === 0 ? null : wilsonLowerBound(figures.passedCount, figures.n),
  };
}
