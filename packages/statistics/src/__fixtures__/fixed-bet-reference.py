#!/usr/bin/env python3
"""
Independent numpy/scipy reference for the gate's graded bound (fixedBetLowerBound in bounds.ts), written from
the formula, not from the TypeScript:

  bets c_j = j/20 (j = 1..20), weights w_j = 0.5 * c_j / sum(c) + (0.5 if c_j == 1 else 0);
  K(m) = sum_j w_j prod_i (1 + c_j (x_i - m) / m);  m rejected iff K(m) >= 1/alpha (alpha = 0.05);
  bound = min(sup of the rejected m, mean(x)); 0 for no values.

K is decreasing in m, so the boundary is the root of log K(m) = log(1/alpha), found here with scipy's brentq
(xtol 1e-15) on log K computed with logsumexp over the bets. Also checks validity by simulation for cases of
unequal difficulty (--check).

Regenerate (from the repo root):
  python3 packages/statistics/src/__fixtures__/fixed-bet-reference.py \
      > packages/statistics/src/__fixtures__/fixed-bet-reference.json
"""

import json
import math
import sys

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

ALPHA = 0.05
C = np.arange(1, 21) / 20.0
W = 0.5 * C / C.sum()
W[-1] += 0.5


def log_capital(x, m):
    with np.errstate(divide="ignore"):
        per_bet = np.log1p(np.outer(C, (x - m) / m)).sum(axis=1)
    return logsumexp(per_bet, b=W)


def fixed_bet_bound(x, alpha=ALPHA):
    x = np.asarray(x, dtype=float)
    if len(x) == 0:
        return 0.0
    target = math.log(1.0 / alpha)
    f = lambda m: log_capital(x, m) - target
    lo, hi = 1e-300, 1.0 - 1e-15
    if f(lo) < 0:
        return 0.0
    if f(hi) >= 0:
        return float(min(hi, x.mean()))
    return float(min(brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps), x.mean()))


def datasets():
    rng = np.random.default_rng(20261126)
    out = [
        ("ten ones", [1.0] * 10),
        ("thirty ones", [1.0] * 30),
        ("all zero", [0.0] * 8),
        ("one value", [0.7]),
        ("demo-like 42", [1.0] * 35 + [0.85, 0.85, 0.15, 0.0, 0.0, 0.0, 0.0]),
        ("half 0.5", [0.5] * 12),
    ]
    for n in (5, 10, 15, 30, 100, 1000):
        out.append((f"Beta(5,2) n={n}", np.round(rng.beta(5, 2, n), 6).tolist()))
        out.append((f"Bernoulli(0.8) n={n}", (rng.random(n) < 0.8).astype(float).tolist()))
        out.append((f"0/0.85/1 n={n}", rng.choice([0.0, 0.85, 1.0], n, p=[0.2, 0.2, 0.6]).tolist()))
    return out


def check():
    """Miss rate for cases of unequal difficulty (pass probability falling from 1 to 0.4), 4,000 replications."""
    rng = np.random.default_rng(7)
    for n in (10, 15, 30):
        p = 1 - 0.6 * np.arange(n) / (n - 1)
        misses = sum(fixed_bet_bound((rng.random(n) < p).astype(float)) > p.mean() for _ in range(4000))
        print(f"n={n}: miss {misses / 4000:.4f}", file=sys.stderr)


if __name__ == "__main__":
    if "--check" in sys.argv:
        check()
    else:
        rows = [{"name": name, "values": values, "bound": fixed_bet_bound(values)} for name, values in datasets()]
        json.dump({"alpha": ALPHA, "datasets": rows}, sys.stdout, indent=1)
        sys.stdout.write("\n")
