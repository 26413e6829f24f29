"""Statistics that C and Python must state alike, by the one rule of the C library.

A point's median and its confidence interval are computed by ``isochron_summarize``
(src/stats/stats.c) when the driver writes the record; a plot that recomputes them from the raw
repetitions must draw the same numbers, or a figure's error bar would differ from the table's.
So :func:`median_ci` is that function's rule, step for step: the median is the linear
interpolation between order statistics at (n - 1)/2 (numpy's default), and the distribution-free
interval of the median at ``level`` is the pair of order statistics j, k (1-based) with
j = floor(n/2 - z sqrt(n)/2), k = ceil(n/2 + z sqrt(n)/2) + 1, clamped to 1..n, z the normal
quantile of (1 + level)/2 (the binomial B(n, 1/2) by its normal approximation); below 6 values
there is no interval (NaN). The Hockney fit has its twin in ``models.hockney_fit``
(src/models/models.c). python/tests/test_c_agreement.py calls the C library on the same data and
checks that both give the same numbers.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Iterable

#: fewer values than this: no interval of the median (as src/stats/stats.c)
MEDIAN_CI_MIN_N = 6


def median_ci(values: Iterable[float], level: float = 0.95) -> tuple[float, float, float]:
    """(median, lo, hi) of ``values`` by isochron_summarize's rule; lo, hi NaN below 6 values,
    all three NaN for none."""
    s = sorted(float(v) for v in values)
    n = len(s)
    if n == 0:
        return math.nan, math.nan, math.nan
    h = (n - 1) * 0.5
    i = int(math.floor(h))
    med = s[n - 1] if i >= n - 1 else s[i] + (h - i) * (s[i + 1] - s[i])
    if n < MEDIAN_CI_MIN_N:
        return med, math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + level / 2)
    half = 0.5 * z * math.sqrt(n)
    j = max(1, int(math.floor(0.5 * n - half)))
    k = min(n, int(math.ceil(0.5 * n + half)) + 1)
    return med, s[j - 1], s[k - 1]
