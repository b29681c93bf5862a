// Reliability of a stochastic system from k trials per case: pass@1, pass@k (Chen et al. 2021), pass^k
// (the all-k-trials measure of tau-bench, Yao et al. 2024), the k-of-n count per case and the flaky cases.
// The case is the unit: each figure is an average over cases of a per-case estimate, never a count over
// k x n trials taken as independent samples.

/** ln C(n, k) for integers 0 <= k <= n, by a sum of logs (exact enough for the n of trials: k <= 1,000). */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i += 1) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

function checkCounts(trials: number, passes: number, k: number): void {
  if (
    ![trials, passes, k].every(Number.isInteger) ||
    trials < 1 ||
    passes < 0 ||
    passes > trials ||
    k < 1 ||
    k > trials
  ) {
    throw new RangeError(
      `need integers 0 <= passes <= trials and 1 <= k <= trials, got passes ${passes}, trials ${trials}, k ${k}`,
    );
  }
}

/**
 * The unbiased estimator of pass@k for one case with `passes` of `trials` passing (Chen et al. 2021, "Evaluating
 * large language models trained on code", eq. 1): 1 - C(trials - passes, k) / C(trials, k), the probability
 * that at least one of k trials drawn without replacement passes.
 */
export function passAtK(trials: number, passes: number, k: number): number {
  checkCounts(trials, passes, k);
  if (trials - passes < k) return 1;
  return 1 - Math.exp(logChoose(trials - passes, k) - logChoose(trials, k));
}

/**
 * The unbiased estimator of pass^k for one case (tau-bench): C(passes, k) / C(trials, k), the probability that
 * all of k trials drawn without replacement pass. With k = trials it is 1 when every trial passed, else 0.
 */
export function passHatK(trials: number, passes: number, k: number): number {
  checkCounts(trials, passes, k);
  if (passes < k) return 0;
  return Math.exp(logChoose(passes, k) - logChoose(trials, k));
}

export interface CaseTrials {
  readonly case_id: string;
  /** One entry per trial, in trial order. */
  readonly passed: readonly boolean[];
}

export interface Reliability {
  /** Trials per case (every case has the same number). */
  readonly trials: number;
  /** The cases every figure rests on (never cases x trials). */
  readonly caseCount: number;
  /** Mean over cases of passes/trials. */
  readonly passAt1: number;
  /** Mean over cases of passAtK(trials, passes, trials). */
  readonly passAtK: number;
  /** Mean over cases of passHatK(trials, passes, trials). */
  readonly passHatK: number;
  /** Cases with some trials passing and some failing, sorted. */
  readonly flakyCaseIds: readonly string[];
}

/** The run-level reliability figures over cases that each ran the same number of trials (>= 1). */
export function reliability(cases: readonly CaseTrials[]): Reliability {
  const trials = cases[0]?.passed.length ?? 0;
  if (cases.some((c) => c.passed.length !== trials || trials === 0)) {
    throw new RangeError("reliability: every case needs the same number (>= 1) of trials");
  }
  let at1 = 0;
  let atK = 0;
  let hatK = 0;
  const flaky: string[] = [];
  for (const entry of cases) {
    const passes = entry.passed.filter(Boolean).length;
    at1 += passes / trials;
    atK += passAtK(trials, passes, trials);
    hatK += passHatK(trials, passes, trials);
    if (passes > 0 && passes < trials) flaky.push(entry.case_id);
  }
  const n = cases.length;
  return {
    trials,
    caseCount: n,
    passAt1: n === 0 ? 0 : at1 / n,
    passAtK: n === 0 ? 0 : atK / n,
    passHatK: n === 0 ? 0 : hatK / n,
    flakyCaseIds: flaky.sort(),
  };
}
