// One-sided lower confidence bounds for the promotion gate, valid at every n (5 cases as well as 10,000):
// - clopperPearsonLowerBound: the exact binomial bound on a pass rate (binary task classes);
// - fixedBetLowerBound: the gate's bound on the mean of [0, 1] scores (graded task classes, trial means):
//   a mixture of constant bets, valid for independent cases of different means in any order;
// - bettingLowerBound: the adaptive (predictable plug-in) betting bound of Waudby-Smith & Ramdas, "Estimating
//   means of bounded random variables by betting", JRSS-B 2024; valid when every case has the same mean, so
//   no longer the gate's bound (kept to recognise records written with it, and for comparison);
// - studentTLowerBound: the textbook t bound, informational only (it under-covers skewed scores at small n).
// The special functions (log-gamma, the regularized incomplete beta and its inverse by bisection) are written
// here rather than taken from npm: they are ~60 lines, not worth a dependency of the runner, and bounds.test.ts
// holds them to 1e-10 against scipy (__fixtures__/scipy-reference.json, k = 0 .. n, n up to 10,000).

/** Neumaier-compensated sum: nearly correctly rounded, whatever the order or spread of the values. */
export function compensatedSum(values: Iterable<number>): number {
  let sum = 0;
  let compensation = 0;
  for (const value of values) {
    const t = sum + value;
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - t + value : value - t + sum;
    sum = t;
  }
  return sum + compensation;
}

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * ln Γ(x) for x > 0: shifted up to x >= 15 by Γ(x + 1) = xΓ(x), then Stirling's series to 1/x^13 (truncation
 * error < 1e-19 there). The absolute error is a few ulps of the result, which is what the incomplete beta's
 * prefactor needs at n = 10,000 (ln Γ ~ 8e4, so ~1e-11 relative in the tail, ~1e-14 in a quantile).
 */
export function logGamma(x: number): number {
  let shift = 0;
  while (x < 15) {
    shift += Math.log(x);
    x += 1;
  }
  const inv = 1 / x;
  const inv2 = inv * inv;
  const series =
    inv *
    (1 / 12 +
      inv2 *
        (-1 / 360 + inv2 * (1 / 1260 + inv2 * (-1 / 1680 + inv2 * (1 / 1188 + inv2 * (-691 / 360360 + inv2 / 156))))));
  return (x - 0.5) * Math.log(x) - x + HALF_LOG_2PI + series - shift;
}

const TINY = 1e-300;
const MAX_FRACTION_TERMS = 100_000;

/** The continued fraction of I_x(a, b) (modified Lentz); converges fast for x < (a + 1) / (a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  const guard = (v: number) => (Math.abs(v) < TINY ? TINY : v);
  let c = 1;
  let d = 1 / guard(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m <= MAX_FRACTION_TERMS; m += 1) {
    const m2 = 2 * m;
    const even = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) return h;
  }
  throw new Error(`incomplete beta: no convergence for x=${x}, a=${a}, b=${b}`);
}

/**
 * The regularized incomplete beta I_x(a, b) = P(Beta(a, b) <= x), a, b > 0, to ~1e-14 relative.
 * `y` is 1 - x, passed separately when the caller has it more accurately than 1 - x would be.
 */
export function regularizedBeta(x: number, a: number, b: number, y = 1 - x): number {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  const logFront = a * Math.log(x) + b * Math.log(y) + logGamma(a + b) - logGamma(a) - logGamma(b);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaFraction(x, a, b)) / a;
  return 1 - (Math.exp(logFront) * betaFraction(y, b, a)) / b;
}

/** The x in [0, 1] where an increasing function f(x) crosses `target`, by bisection to full double precision. */
function invertIncreasing(f: (x: number) => number, target: number): number {
  let lo = 0;
  let hi = 1;
  for (let step = 0; step < 2000; step += 1) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The p-quantile of Beta(a, b) (scipy.stats.beta.ppf), by bisection on I_x(a, b). */
export function betaQuantile(p: number, a: number, b: number): number {
  return invertIncreasing((x) => regularizedBeta(x, a, b), p);
}

/**
 * The exact one-sided (1 - alpha) Clopper-Pearson lower bound on a binomial proportion: the alpha-quantile
 * of Beta(k, n - k + 1), i.e. the p at which P(X >= k | n, p) = alpha. 0 when k = 0 (and when n = 0);
 * alpha^(1/n) when k = n. Valid for every n: P(bound > p) <= alpha for every true p.
 */
export function clopperPearsonLowerBound(successes: number, n: number, alpha = 0.05): number {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError(`clopperPearsonLowerBound: need integers 0 <= successes <= n, got ${successes} of ${n}`);
  }
  if (successes === 0) return 0;
  if (successes === n) return Math.pow(alpha, 1 / n);
  return betaQuantile(alpha, successes, n - successes + 1);
}

/**
 * The (1 - alpha) quantile of Student's t with `dof` degrees of freedom (scipy.stats.t.ppf(1 - alpha, dof)),
 * alpha in (0, 0.5]: P(T > t) = I_{dof/(dof + t²)}(dof/2, 1/2) / 2, solved for x = dof/(dof + t²).
 */
export function studentTQuantile(alpha: number, dof: number): number {
  // I_x(dof/2, 1/2) increases in x; the quantile is where it equals 2·alpha.
  const x = invertIncreasing((v) => regularizedBeta(v, dof / 2, 0.5), 2 * alpha);
  return Math.sqrt((dof * (1 - x)) / x);
}

/** Sample mean minus t_{1-alpha, n-1} · s / sqrt(n); null for n < 2. Informational only: not valid at small n. */
export function studentTLowerBound(values: readonly number[], alpha = 0.05): number | null {
  const n = values.length;
  if (n < 2) return null;
  const average = compensatedSum(values) / n;
  const squares = compensatedSum(values.map((v) => (v - average) ** 2));
  return average - (studentTQuantile(alpha, n - 1) * Math.sqrt(squares / (n - 1))) / Math.sqrt(n);
}

/**
 * The default truncation constant c of the betting bound, chosen by measurement (coverage-simulation.ts, nine
 * score distributions, 2,000 replications per cell). Every c is valid (max miss rate 4.3% over all cells), so c
 * only trades tightness between sample sizes and score shapes. Mean bound averaged over the nine distributions:
 *
 *   c                 n = 5   n = 10  n = 15  n = 30  n = 100
 *   0.5               0.244   0.399   0.477   0.575   0.666
 *   0.75              0.298   0.446   0.514   0.593   0.669
 *   0.9               0.322   0.461   0.522   0.594   0.668
 *   mix(0.5,.75,.9)   0.295   0.443   0.511   0.591   0.668
 *
 * c = 0.9 is the tightest at the sizes promotion decisions are made at: highest mean bound on all nine
 * distributions at n = 5 and 10, on six of nine at n = 15 (0.003 behind 0.75 on the other three), and level
 * with 0.75 from n = 30 on. Ten scores of 1 give 0.720 (c = 0.5: 0.589, 0.75: 0.682; no valid bound can
 * exceed 0.05^(1/10) = 0.741). The mixture is valid too but never the tightest: it pays for the weaker members.
 */
export const BETTING_TRUNCATION = 0.9;

export interface BettingOptions {
  /**
   * Truncation constant(s) c in (0, 1): the bet on a candidate mean m is capped at c/m, so one score can at
   * worst multiply the capital by 1 - c. Several values: the equal-weight mixture of their
   * capitals, which is itself a test supermartingale (still valid). Default BETTING_TRUNCATION.
   */
  readonly truncation?: number | readonly number[];
}

/** The predictable plug-in bets λ_1..λ_n: sqrt(2 ln(1/α) / (n σ̂²_{t-1})), with the paper's shrunk μ̂, σ̂². */
function plugInBets(values: readonly number[], alpha: number): Float64Array {
  const n = values.length;
  const bets = new Float64Array(n);
  const scale = (2 * Math.log(1 / alpha)) / n;
  let sum = 0;
  let squares = 0;
  let variance = 0.25; // σ̂²_0
  for (let t = 1; t <= n; t += 1) {
    const x = values[t - 1]!;
    bets[t - 1] = Math.sqrt(scale / variance);
    sum += x;
    const muHat = (0.5 + sum) / (t + 1); // μ̂_t includes x_t, as in the paper
    squares += (x - muHat) ** 2;
    variance = (0.25 + squares) / (t + 1);
  }
  return bets;
}

/**
 * Whether the capital process for candidate mean m reaches 1/alpha at some t <= n (Ville: a true m does so
 * with probability <= alpha). With several truncations the capitals are averaged (reject iff their sum
 * reaches J/alpha). Capitals are plain products, 3-4x faster than summing log1p; they share a scale that is
 * renormalized when the largest leaves [1e-200, 1e200], so nothing overflows at n = 10,000. A capital that
 * underflows to 0 against the largest only lowers the average: the test stays valid (conservative).
 */
function rejects(
  values: readonly number[],
  bets: Float64Array,
  truncations: readonly number[],
  m: number,
  logThreshold: number,
): boolean {
  const capitals = new Float64Array(truncations.length).fill(1);
  let logScale = 0; // the true capitals are capitals[j] · e^logScale
  let threshold = truncations.length * Math.exp(logThreshold);
  for (let t = 0; t < values.length; t += 1) {
    const excess = values[t]! - m;
    let total = 0;
    let max = 0;
    for (let j = 0; j < truncations.length; j += 1) {
      const capital = capitals[j]! * (1 + Math.min(bets[t]!, truncations[j]! / m) * excess);
      capitals[j] = capital;
      total += capital;
      max = Math.max(max, capital);
    }
    if (total >= threshold) return true;
    if (max < 1e-200 || max > 1e200) {
      for (let j = 0; j < capitals.length; j += 1) capitals[j] = capitals[j]! / max;
      logScale += Math.log(max);
      threshold = truncations.length * Math.exp(logThreshold - logScale);
    }
  }
  return false;
}

const BISECTION_TOLERANCE = 1e-12;

/**
 * The one-sided (1 - alpha) betting lower bound on the mean of scores in [0, 1], taken in the given order
 * (Waudby-Smith & Ramdas 2024, the predictable plug-in with truncation c):
 *   μ̂_0 = 1/2, σ̂²_0 = 1/4; μ̂_t = (1/2 + Σ_{i<=t} x_i)/(t+1), σ̂²_t = (1/4 + Σ_{i<=t} (x_i - μ̂_i)²)/(t+1);
 *   λ_t = sqrt(2 ln(1/α) / (n σ̂²_{t-1})); for a candidate m, λ_t(m) = min(λ_t, c/m);
 *   K_t(m) = Π_{i<=t} (1 + λ_i(m)(x_i - m)); m is rejected iff max_{t<=n} K_t(m) >= 1/α.
 * Every factor is positive and non-increasing in m, so the rejected m form an interval [0, L): L is found by
 * bisection on [0, 1] to 1e-12, returning the rejected (lower, conservative) end. The bound is min(L, mean):
 * clamping down keeps validity, and the gate must never exceed the mean. 0 for no values.
 * Valid at every n when each score has mean μ given the scores before it (independent draws from one
 * distribution, say): P(bound > μ) <= alpha. Because of max_t, the order matters: scores sorted high-first
 * reach the mean sooner than the same scores low-first, so the order must not depend on the scores.
 */
export function bettingLowerBound(values: readonly number[], alpha = 0.05, options: BettingOptions = {}): number {
  const n = values.length;
  if (n === 0) return 0;
  for (const value of values) {
    if (!(value >= 0 && value <= 1)) throw new RangeError(`bettingLowerBound: scores must be in [0, 1], got ${value}`);
  }
  const truncation = options.truncation ?? BETTING_TRUNCATION;
  const truncations = typeof truncation === "number" ? [truncation] : [...truncation];
  if (truncations.length === 0 || truncations.some((c) => !(c > 0 && c < 1))) {
    throw new RangeError(`bettingLowerBound: truncation constants must be in (0, 1), got ${truncations.join(", ")}`);
  }
  const bets = plugInBets(values, alpha);
  const logThreshold = Math.log(1 / alpha);
  let lo = 0;
  let hi = 1;
  while (hi - lo > BISECTION_TOLERANCE) {
    const mid = (lo + hi) / 2;
    if (rejects(values, bets, truncations, mid, logThreshold)) lo = mid;
    else hi = mid;
  }
  return Math.min(lo, compensatedSum(values) / n);
}

/**
 * The constant bets of fixedBetLowerBound, as fractions c = λm of the largest bet 1/m a candidate mean m allows:
 * c = 1/20, 2/20, ..., 1. Weights: 1/2 on c = 1 (the bet that wins most when every score is high: ten scores
 * of 1 give 0.719, against 0.720 for the adaptive bound and 0.741 for any valid bound), the other 1/2 spread in
 * proportion to c (small bets rarely win at the bench sizes promotion is decided on). Chosen by measurement
 * (docs/runner.md, "The bets"); any fixed grid and weights summing to 1 are valid.
 */
export const FIXED_BETS: readonly { readonly c: number; readonly weight: number }[] = (() => {
  const cs = Array.from({ length: 20 }, (_, j) => (j + 1) / 20);
  const total = cs.reduce((a, b) => a + b, 0);
  return cs.map((c) => ({ c, weight: (0.5 * c) / total + (c === 1 ? 0.5 : 0) }));
})();

/** The distinct values with their counts: the capital depends on the multiset alone, never on the order. */
function tally(values: readonly number[]): { readonly value: number; readonly count: number }[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => ({ value, count }));
}

/** ln Σ_j w_j Π_i (1 + c_j (x_i − m)/m): the log of the mixture's capital at candidate mean m (log-sum-exp). */
function logMixtureCapital(
  scores: readonly { readonly value: number; readonly count: number }[],
  bets: readonly { readonly c: number; readonly weight: number }[],
  m: number,
): number {
  const logs = bets.map(({ c, weight }) => {
    let log = Math.log(weight);
    for (const { value, count } of scores) log += count * Math.log1p((c * (value - m)) / m);
    return log;
  });
  const max = Math.max(...logs);
  if (max === -Infinity) return -Infinity;
  return max + Math.log(logs.reduce((sum, log) => sum + Math.exp(log - max), 0));
}

/**
 * The one-sided (1 - alpha) lower bound on the mean of the case means of independent scores in [0, 1], valid
 * whatever the cases' means and whatever their order (so for the bench in hand, however unequal its cases):
 *   for a candidate m and a constant c in [0, 1], K_c(m) = Π_i (1 + c (x_i − m)/m); K(m) = Σ_j w_j K_{c_j}(m)
 *   over FIXED_BETS; m is rejected iff K(m) >= 1/α; the bound is the supremum L of the rejected m, min(L, mean).
 * Why valid: for independent X_i with means μ_i and a bet λ = c/m fixed in advance, every factor is
 * nonnegative and E[K_c(m)] = Π_i (1 + λ(μ_i − m)) <= (1 + λ(μ̄ − m))^n (AM-GM) <= 1 when μ̄ <= m; a fixed mixture
 * keeps E[K(m)] <= 1, so by Markov's inequality the true μ̄ is rejected with probability <= α. Each factor is
 * non-increasing in m, so the rejected m form an interval [0, L), found by bisection to 1e-12 (the rejected,
 * lower end). Only the final capital is tested (no maximum over t, which needs a supermartingale, i.e. equal
 * means), and a product does not depend on the order: no order seed. 0 for no values.
 */
export function fixedBetLowerBound(
  values: readonly number[],
  alpha = 0.05,
  bets: readonly { readonly c: number; readonly weight: number }[] = FIXED_BETS,
): number {
  const n = values.length;
  if (n === 0) return 0;
  for (const value of values) {
    if (!(value >= 0 && value <= 1)) throw new RangeError(`fixedBetLowerBound: scores must be in [0, 1], got ${value}`);
  }
  const scores = tally(values);
  const logThreshold = Math.log(1 / alpha);
  let lo = 0;
  let hi = 1;
  while (hi - lo > BISECTION_TOLERANCE) {
    const mid = (lo + hi) / 2;
    if (logMixtureCapital(scores, bets, mid) >= logThreshold) lo = mid;
    else hi = mid;
  }
  return Math.min(lo, compensatedSum(values) / n);
}
