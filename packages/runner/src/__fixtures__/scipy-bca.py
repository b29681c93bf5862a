# Reference for statistics.test.ts: reads {"datasets": [{"data": [...], "distribution": [...] | null}]} on
# stdin and prints, per dataset, scipy.stats.bootstrap's BCa lower bound at confidence_level=0.90 (the
# one-sided 95% lower bound): from the given bootstrap distribution when one is given (an exact check),
# otherwise from scipy's own 200,000 resamples (an independent check, compared within a tolerance).
import json
import sys
import warnings

import numpy as np
from scipy import stats
from scipy.stats._resampling import BootstrapResult

warnings.simplefilter("ignore")
request = json.load(sys.stdin)
out = []
for item in request["datasets"]:
    data = (np.asarray(item["data"], dtype=float),)
    if item.get("distribution") is not None:
        given = BootstrapResult(
            bootstrap_distribution=np.asarray(item["distribution"], dtype=float),
            confidence_interval=None,
            standard_error=None,
        )
        result = stats.bootstrap(data, np.mean, n_resamples=0, bootstrap_result=given, method="BCa", confidence_level=0.90)
    else:
        result = stats.bootstrap(data, np.mean, n_resamples=200_000, method="BCa", confidence_level=0.90, rng=0)
    low = float(result.confidence_interval.low)
    out.append(None if np.isnan(low) else low)
json.dump(out, sys.stdout)
