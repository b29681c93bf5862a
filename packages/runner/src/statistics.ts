// Aggregate statistics of one run: Welford mean/stddev, BCa bootstrap and Wilson lower bounds.
// BCa is implemented here because no maintained JS library has it; statistics.test.ts checks it
// against scipy.stats.bootstrap, exactly when both are given the same bootstrap distribution.
import { blake3 } from "@noble/hashes/blake3.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";

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
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  let x: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  for (let step = 0; step < 2; step += 1) {
    const error = normalCdf(x) - p;
    const density = Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
    if (density === 0) break;
    x -= error / density;
  }
  return x;
}

/** A small seeded PRNG (sfc32) whose 128-bit state comes from BLAKE3 of the seed string. */
export function seededRandom(seed: string): () => number {
  const bytes = blake3(utf8ToBytes(`evalgate.bootstrap.v1:${seed}`), { dkLen: 16 });
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  let a = view.getUint32(0);
  let b = view.getUint32(4);
  let c = view.getUint32(8);
  let d = view.getUint32(12);
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i += 1) next();
  return next;
}

/**
 * Neumaier-compensated sum: nearly correctly rounded, so sums that are equal in real arithmetic
 * (a bootstrap resample whose mean equals the sample mean) compare equal, as BCa's tie count needs.
 */
function compensatedSum(values: Iterable<number>): number {
  let sum = 0;
  let compensation = 0;
  for (const value of values) {
    const t = sum + value;
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - t + value : value - t + sum;
    sum = t;
  }
  return sum + compensation;
}

const mean = (values: readonly number[]): number => compensatedSum(values) / values.length;

/** The bootstrap distribution of the mean: `resamples` means of n draws with replacement. */
export function bootstrapMeans(values: readonly number[], resamples: number, random: () => number): number[] {
  const n = values.length;
  const out = new Array<number>(resamples);
  const draw = new Array<number>(n);
  for (let b = 0; b < resamples; b += 1) {
    for (let i = 0; i < n; i += 1) draw[i] = values[Math.floor(random() * n)]!;
    out[b] = compensatedSum(draw) / n;
  }
  return out;
}

/** Linear-interpolation quantile of sorted values (numpy/scipy "linear", Hyndman-Fan type 7). */
function quantileSorted(sorted: readonly number[], p: number): number {
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
export function bcaLowerBoundFromDistribution(values: readonly number[], distribution: readonly number[], alpha = 0.05): BcaResult {
  const n = values.length;
  const thetaHat = mean(values);
  let below = 0;
  let belowOrEqual = 0;
  for (const theta of distribution) {
    if (theta < thetaHat) below += 1;
    if (theta <= thetaHat) belowOrEqual += 1;
  }
  const z0 = normalQuantile((below + belowOrEqual) / (2 * distribution.length));
  const jackknife = values.map((_, skip) => compensatedSum(values.filter((__, i) => i !== skip)) / (n - 1));
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
  if (n < 2 || !Number.isFinite(z0) || !Number.isFinite(acceleration) || !Number.isFinite(adjustedAlpha)) {
    return { lower: null, z0, acceleration, adjustedAlpha };
  }
  const sorted = [...distribution].sort((x, y) => x - y);
  return { lower: quantileSorted(sorted, adjustedAlpha), z0, acceleration, adjustedAlpha };
}

/** BCa bootstrap lower bound of the mean with `resamples` seeded resamples (null when undefined). */
export function bcaLowerBound(values: readonly number[], options: { seed: string; resamples?: number; alpha?: number }): number | null {
  if (values.length < 2) return null;
  const distribution = bootstrapMeans(values, options.resamples ?? 1000, seededRandom(options.seed));
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

/** Share of scores that must be exactly 0 or 1 for a rubric to count as binary (seed gap 6). */
export const BINARY_SHARE = 0.8;

export interface RunStatistics {
  readonly n: number;
  readonly mean: number;
  readonly stddev: number;
  readonly passedCount: number;
  readonly lowerBound95: number;
  readonly lowerBoundMethod: "bca_bootstrap" | "wilson" | "degenerate";
  readonly bcaLowerBound95: number | null;
  readonly wilsonLowerBound95: number | null;
  readonly bootstrapResamples: number;
}

const clampUnit = (value: number): number => Math.min(1, Math.max(0, value));

/**
 * The statistics a report carries. Which bound the gate reads:
 * - no cases: "degenerate", 0;
 * - effectively binary scores (>= 80% in {0, 1}): "wilson", the Wilson bound on passed/total;
 * - n = 1 or every score equal: "degenerate", the minimum score (the bootstrap has no spread);
 * - otherwise "bca_bootstrap", never above the mean.
 * The BCa and Wilson bounds are both reported whenever they are defined.
 */
export function runStatistics(scores: readonly { score: number; passed: boolean }[], options: { seed: string; resamples?: number }): RunStatistics {
  const values = scores.map((s) => s.score);
  const { n, mean: average, stddev } = welford(values);
  const passedCount = scores.filter((s) => s.passed).length;
  const resamples = options.resamples ?? 1000;
  const allEqual = values.every((value) => value === values[0]);
  const bca = n >= 2 && !allEqual ? bcaLowerBound(values, { seed: options.seed, resamples }) : null;
  const bcaBound = bca === null ? null : clampUnit(Math.min(bca, average));
  const wilson = n === 0 ? null : wilsonLowerBound(passedCount, n);
  const binary = n > 0 && values.filter((value) => value === 0 || value === 1).length >= BINARY_SHARE * n;
  let method: RunStatistics["lowerBoundMethod"];
  let bound: number;
  if (n === 0) {
    method = "degenerate";
    bound = 0;
  } else if (binary) {
    method = "wilson";
    bound = wilson!;
  } else if (bcaBound === null) {
    method = "degenerate";
    bound = Math.min(...values);
  } else {
    method = "bca_bootstrap";
    bound = bcaBound;
  }
  return {
    n,
    mean: clampUnit(average),
    stddev,
    passedCount,
    lowerBound95: clampUnit(bound),
    lowerBoundMethod: method,
    bcaLowerBound95: bcaBound,
    wilsonLowerBound95: wilson,
    bootstrapResamples: bca === null ? 0 : resamples,
  };
}
