# scipy's side of __fixtures__/scipy-reference.json; run by generate-scipy-reference.ts, not by the tests.
# Reads one JSON request on stdin and prints, in the same shape:
# - bca_exact: scipy.stats.bootstrap's BCa lower bound at confidence_level=0.90 (the one-sided 95% lower
#   bound) from the bootstrap distribution we give it (so ours must match to 1e-12);
# - bca_independent: the same from scipy's own 200,000 resamples (ours must match within Monte Carlo error);
# - clopper_pearson: scipy.stats.beta.ppf(alpha, k, n - k + 1) (0 for k = 0);
# - student_t: scipy.stats.t.ppf(1 - alpha, dof);
# - student_t_bounds: mean - t.ppf(1 - alpha, n - 1) * std(ddof=1) / sqrt(n).
import json
import sys
import warnings

import numpy as np
import scipy
from scipy import stats
from scipy.stats._resampling import BootstrapResult

warnings.simplefilter("ignore")


def bca(data, distribution):
    sample = (np.asarray(data, dtype=float),)
    if distribution is not None:
        given = BootstrapResult(
            bootstrap_distribution=np.asarray(distribution, dtype=float),
            confidence_interval=None,
            standard_error=None,
        )
        result = stats.bootstrap(sample, np.mean, n_resamples=0, bootstrap_result=given, method="BCa", confidence_level=0.90)
    else:
        result = stats.bootstrap(sample, np.mean, n_resamples=200_000, method="BCa", confidence_level=0.90, rng=0)
    low = float(result.confidence_interval.low)
    return None if np.isnan(low) else low


def clopper_pearson(k, n, alpha):
    return 0.0 if k == 0 else float(stats.beta.ppf(alpha, k, n - k + 1))


def t_bound(data, alpha):
    x = np.asarray(data, dtype=float)
    return float(x.mean() - stats.t.ppf(1 - alpha, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))


request = json.load(sys.stdin)
json.dump(
    {
        "scipy_version": scipy.__version__,
        "numpy_version": np.__version__,
        "bca_exact": [bca(item["data"], item["distribution"]) for item in request["bca_exact"]],
        "bca_independent": [bca(item["data"], None) for item in request["bca_independent"]],
        "clopper_pearson": [clopper_pearson(item["k"], item["n"], item["alpha"]) for item in request["clopper_pearson"]],
        "student_t": [float(stats.t.ppf(1 - item["alpha"], item["dof"])) for item in request["student_t"]],
        "student_t_bounds": [t_bound(item["data"], item["alpha"]) for item in request["student_t_bounds"]],
    },
    sys.stdout,
)
