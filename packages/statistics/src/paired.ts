// Paired comparison of two systems on the same cases: a one-sided lower bound on the mean improvement that is
// valid at every n for the bench in hand, and the exact McNemar test for pass/fail outcomes.
import { compensatedSum, fixedBetLowerBound } from "./bounds.ts";

/**
 * The one-sided (1 - alpha) lower bound on the mean paired difference d_i = candidate_i - baseline_i of values in
 * [0, 1] (so d in [-1, 1]): the fixed-bet bound (bounds.ts fixedBetLowerBound) on y_i = (d_i + 1) / 2 in [0, 1],
 * mapped back by 2L - 1. Why valid for the bench in hand: y_i is a function of case i's pair alone, so the y_i are
 * independent across cases, bounded in [0, 1], with means ν_i = (δ_i + 1) / 2 that may all differ; that is
 * exactly fixedBetLowerBound's hypothesis (AM-GM on Π_i (1 + λ(ν_i − m)) with bets fixed in advance), so mean ν
 * is missed with probability <= alpha, and 2ν − 1 is the mean difference (an increasing affine map keeps the
 * event). The pair's own dependence (baseline and candidate on one case) is inside y_i and costs nothing. Reads
 * no order (a product does not depend on it): identical data gives the identical bound. Coverage:
 * paired-coverage.test.ts, paired-coverage-per-bench.test.ts. Never above the mean difference; -1 for no pairs.
 */
export function pairedLowerBound(baseline: readonly number[], candidate: readonly number[], alpha = 0.05): number {
  if (baseline.length !== candidate.length)
    throw new RangeError(
      `pairedLowerBound: ${baseline.length} baseline values but ${candidate.length} candidate values`,
    );
  if (baseline.length === 0) return -1;
  const rescaled = baseline.map((b, i) => {
    const c = candidate[i]!;
    if (!(b >= 0 && b <= 1 && c >= 0 && c <= 1))
      throw new RangeError(`pairedLowerBound: values must be in [0, 1], got ${b} and ${c}`);
    return (c - b + 1) / 2;
  });
  const bound = 2 * fixedBetLowerBound(rescaled, alpha) - 1;
  const meanDifference = (2 * compensatedSum(rescaled)) / rescaled.length - 1;
  return Math.max(-1, Math.min(bound, meanDifference));
}

export interface McNemarResult {
  /** Pairs where the baseline passed and the candidate failed. */
  readonly baselineOnly: number;
  /** Pairs where the candidate passed and the baseline failed. */
  readonly candidateOnly: number;
  /**
   * The two-sided exact p-value: 2 · P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2), capped at 1 (1 when there
   * is no discordant pair).
   */
  readonly pValue: number;
}

/** The exact (binomial) McNemar test on paired pass/fail outcomes, two-sided. */
export function mcnemarExact(baseline: readonly boolean[], candidate: readonly boolean[]): McNemarResult {
  if (baseline.length !== candidate.length)
    throw new RangeError(
      `mcnemarExact: ${baseline.length} baseline outcomes but ${candidate.length} candidate outcomes`,
    );
  let b = 0;
  let c = 0;
  baseline.forEach((passed, i) => {
    if (passed && !candidate[i]) b += 1;
    if (!passed && candidate[i]) c += 1;
  });
  const n = b + c;
  const low = Math.min(b, c);
  // P(X <= low) with X ~ Bin(n, 1/2), summing C(n, i) / 2^n in log space.
  let logTerm = -n * Math.LN2; // i = 0
  let tail = 0;
  for (let i = 0; i <= low; i += 1) {
    tail += Math.exp(logTerm);
    logTerm += Math.log(n - i) - Math.log(i + 1);
  }
  return { baselineOnly: b, candidateOnly: c, pValue: n === 0 ? 1 : Math.min(1, 2 * tail) };
}
