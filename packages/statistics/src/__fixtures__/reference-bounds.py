#!/usr/bin/env python3
"""
Independent Python/numpy/scipy reference implementation of one-sided lower
confidence bounds for the mean of [0,1]-valued scores, used to cross-check the
TypeScript implementation. Written from the spec below, WITHOUT reading the
TypeScript code.

Betting lower bound (Waudby-Smith & Ramdas, "Estimating means of bounded random
variables by betting", JRSS-B 2024), one-sided, level 1 - alpha, alpha = 0.05.
Values x_1..x_n in [0,1] are used IN THE GIVEN ORDER.
  * mu_0 = 1/2, s2_0 = 1/4; for t >= 1:
        mu_t = (1/2 + sum_{i<=t} x_i) / (t+1)
        s2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t+1)
    (x_i - mu_i uses mu at index i, which already includes x_i).
  * lambda_t = sqrt(2 ln(1/alpha) / (n * s2_{t-1}))   (predictable)
  * for candidate m in (0,1): lambda_t(m) = min(lambda_t, c/m), c in (0,1)
  * K_t(m) = prod_{i<=t} (1 + lambda_i(m) (x_i - m)); m is rejected iff
    max_{t<=n} K_t(m) >= 1/alpha.
  * Every factor is positive and non-increasing in m, so the rejected set is
    an interval starting at 0; L = its upper boundary (sup of rejected m),
    found by bisection in log space to < 1e-15 (f(0) < 0 -> L = 0).
    Note K_t(m) <= 1 as m -> 1, so L < 1 always.
  * Returned bound: min(L, mean(x)); n = 0 -> 0.
Also per dataset:
  * clopper_pearson: one-sided 95% lower bound for k = #(values == 1) out of n,
    scipy.stats.beta.ppf(0.05, k, n-k+1), 0 when k = 0.
  * t_lower: mean - t.ppf(0.95, n-1) * s / sqrt(n), s = sample sd (ddof=1);
    null for n < 2.
The exact data values are stored in the JSON; consumers must read the data from
the JSON (the RNG here is only used to generate it). The n=10,000 dataset is
rounded to 6 decimals and all statistics are computed from the rounded values.

Regenerate (from the repo root):
  /root/.pyenv/shims/python3 packages/statistics/src/__fixtures__/reference-bounds.py \
      > packages/statistics/src/__fixtures__/reference-bounds.json
Coverage simulation / sanity checks (printed to stderr, no JSON written):
  /root/.pyenv/shims/python3 packages/statistics/src/__fixtures__/reference-bounds.py --check
"""

import json
import math
import sys

import numpy as np
from scipy import stats

ALPHA = 0.05
C_VALUES = [0.5, 0.75, 0.9]
SEED = 20240601


def predictable_lambdas(x, alpha=ALPHA):
    """lambda_t for t = 1..n (uses s2_{t-1})."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    t = np.arange(1, n + 1, dtype=float)
    mu = (0.5 + np.cumsum(x)) / (t + 1.0)  # mu_1..mu_n
    s2 = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1.0)  # s2_1..s2_n
    s2_prev = np.concatenate(([0.25], s2[:-1]))  # s2_0..s2_{n-1}
    return np.sqrt(2.0 * math.log(1.0 / alpha) / (n * s2_prev))


def max_log_k(x, lam, m, c):
    """max_{1<=t<=n} log K_t(m)."""
    if m > 0.0:
        lm = np.minimum(lam, c / m)
    else:
        lm = lam  # limit m -> 0+
    return float(np.max(np.cumsum(np.log1p(lm * (x - m)))))


def betting_boundary(x, c, alpha=ALPHA):
    """L = sup{m : max_t log K_t(m) >= log(1/alpha)} (0 if none)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return 0.0
    lam = predictable_lambdas(x, alpha)
    thr = math.log(1.0 / alpha)

    def rejected(m):
        return max_log_k(x, lam, m, c) >= thr

    if not rejected(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    if rejected(hi):  # cannot happen (K_t(1) <= 1), kept for safety
        return 1.0
    # invariant: rejected(lo) and not rejected(hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if rejected(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return lo


def betting_lower_bound(x, c, alpha=ALPHA):
    n = len(x)
    if n == 0:
        return 0.0
    return min(betting_boundary(x, c, alpha), math.fsum(x) / n)


def clopper_pearson_lower(x, alpha=ALPHA):
    n = len(x)
    k = int(sum(1 for v in x if v == 1.0))
    if n == 0 or k == 0:
        return 0.0
    return float(stats.beta.ppf(alpha, k, n - k + 1))


def t_lower(x, alpha=ALPHA):
    n = len(x)
    if n < 2:
        return None
    a = np.asarray(x, dtype=float)
    mean = math.fsum(x) / n
    s = float(np.sqrt(np.sum((a - mean) ** 2) / (n - 1)))
    return mean - float(stats.t.ppf(1.0 - alpha, n - 1)) * s / math.sqrt(n)


def make_datasets():
    rng = np.random.default_rng(SEED)
    ds = []

    def add(name, vals):
        ds.append((name, [float(v) for v in vals]))

    add("ten_ones", [1.0] * 10)
    add("fifteen_ones", [1.0] * 15)
    demo = [1.0] * 10 + [0.85] * 2 + [0.15, 0.0, 0.0]
    add("demo_n15_ordered", demo)
    add("demo_n15_shuffled", list(rng.permutation(np.array(demo))))
    add("all_zeros_n10", [0.0] * 10)
    add("single_0.9", [0.9])
    add("halves_n8", [0.5] * 8)
    for n in (5, 10, 30, 100, 1000):
        add(f"beta52_n{n}", rng.beta(5, 2, size=n))
    add("bernoulli09_n15", (rng.random(15) < 0.9).astype(float))
    add("bernoulli09_n100", (rng.random(100) < 0.9).astype(float))
    add("mix_0_085_1_n30", rng.choice([0.0, 0.85, 1.0], size=30, p=[0.1, 0.3, 0.6]))
    add("uniform_n10000_round6", np.round(rng.random(10000), 6))
    # order matters: exact 0s early, 1s late, and the reverse
    early0 = [0.0] * 5 + list(np.round(rng.uniform(0.3, 0.9, size=10), 4)) + [1.0] * 15
    add("zeros_early_ones_late_n30", early0)
    add("ones_early_zeros_late_n30", early0[::-1])
    # adversarial shapes
    add("one_zero_first_n20", [0.0] + [1.0] * 19)
    add("one_zero_last_n20", [1.0] * 19 + [0.0])
    add("one_zero_first_n100", [0.0] + [1.0] * 99)
    add("one_zero_last_n100", [1.0] * 99 + [0.0])
    add("alternating_0_1_n20", [float(i % 2) for i in range(20)])
    add("near_one_0.999_n50", [0.999] * 50)
    add("two_values_n2", [1.0, 0.0])
    add("empty", [])
    return ds


def build():
    out = {"alpha": ALPHA, "c_values": C_VALUES, "datasets": []}
    for name, x in make_datasets():
        n = len(x)
        out["datasets"].append({
            "name": name,
            "n": n,
            "values": x,
            "betting": {str(c): betting_lower_bound(x, c) for c in C_VALUES},
            "clopper_pearson": clopper_pearson_lower(x),
            "t_lower": t_lower(x),
            "mean": (math.fsum(x) / n) if n else 0.0,
        })
    return out


def checks():
    err = sys.stderr
    # 1. ten ones: closed form when lambda_t >= c/m throughout
    x = np.ones(10)
    lam = predictable_lambdas(x)
    r = 20.0 ** 0.1
    print(f"lambda_t for ten ones: min={lam.min():.6f} max={lam.max():.6f}", file=err)
    for c in C_VALUES:
        m_closed = c / (r - 1.0 + c)
        L = betting_lower_bound(list(x), c)
        print(f"ten ones c={c}: closed-form m={m_closed!r} bisection L={L!r} "
              f"diff={L - m_closed:.3e} c/m={c / m_closed:.6f} "
              f"truncated throughout={bool(np.all(lam >= c / m_closed))}", file=err)
    # 2. demo dataset
    demo = [1.0] * 10 + [0.85] * 2 + [0.15, 0.0, 0.0]
    for c in C_VALUES:
        print(f"demo n15 c={c}: {betting_lower_bound(demo, c)!r}", file=err)
    # 3. coverage simulation
    rng = np.random.default_rng(12345)
    reps = 2000
    for dist, mu, sampler in (
        ("Beta(5,2)", 5.0 / 7.0, lambda n: rng.beta(5, 2, size=n)),
        ("Bernoulli(0.9)", 0.9, lambda n: (rng.random(n) < 0.9).astype(float)),
    ):
        for n in (10, 30):
            miss = {c: 0 for c in C_VALUES}
            avg = {c: 0.0 for c in C_VALUES}
            for _ in range(reps):
                s = list(sampler(n))
                for c in C_VALUES:
                    b = betting_lower_bound(s, c)
                    avg[c] += b / reps
                    if b > mu:
                        miss[c] += 1
            print(f"{dist} n={n}: " + ", ".join(
                f"c={c}: miss={miss[c] / reps:.4f} meanLB={avg[c]:.4f}" for c in C_VALUES),
                file=err)


if __name__ == "__main__":
    if "--check" in sys.argv:
        checks()
    else:
        json.dump(build(), sys.stdout, indent=1)
        sys.stdout.write("\n")
