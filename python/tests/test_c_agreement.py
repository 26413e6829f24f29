"""One rule in two languages: the median's confidence interval (isochron.stats.median_ci vs the C
library's isochron_summarize) and the Hockney fit (isochron.models.hockney_fit vs
isochron_hockney_fit) give the same numbers on the same data. The C side is the built
libisochron.so (ISOCHRON_BUILD, default build/ of the source tree, as `make test` builds it),
called through ctypes; no MPI call is made (both functions are pure)."""
import ctypes
import math
import os
import random

import pytest

from isochron.models import hockney_fit
from isochron.stats import median_ci

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(os.environ.get("ISOCHRON_BUILD", os.path.join(ROOT, "build")), "libisochron.so")
MAXQ = 8                                   # ISOCHRON_STATS_MAXQ (include/isochron/stats.h)


class Summary(ctypes.Structure):          # isochron_summary_t
    _fields_ = [("n", ctypes.c_int), ("mean", ctypes.c_double), ("median", ctypes.c_double),
                ("min", ctypes.c_double), ("max", ctypes.c_double), ("stddev", ctypes.c_double),
                ("ci_level", ctypes.c_double), ("ci_lo", ctypes.c_double), ("ci_hi", ctypes.c_double),
                ("ci_half", ctypes.c_double), ("med_lo", ctypes.c_double), ("med_hi", ctypes.c_double),
                ("nq", ctypes.c_int), ("q", ctypes.c_double * MAXQ), ("qv", ctypes.c_double * MAXQ)]


class Hockney(ctypes.Structure):          # isochron_hockney_t
    _fields_ = [("alpha", ctypes.c_double), ("beta", ctypes.c_double), ("alpha_se", ctypes.c_double),
                ("beta_se", ctypes.c_double), ("n", ctypes.c_int), ("rms", ctypes.c_double)]


@pytest.fixture(scope="module")
def lib():
    if not os.path.exists(LIB):
        pytest.skip(f"{LIB} not built (make build)")
    c = ctypes.CDLL(LIB)
    c.isochron_summarize.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_double,
                                     ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.POINTER(Summary)]
    c.isochron_hockney_fit.argtypes = [ctypes.POINTER(ctypes.c_double)] * 3 + [ctypes.c_int, ctypes.POINTER(Hockney)]
    return c


def _arr(xs):
    return (ctypes.c_double * len(xs))(*xs)


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_median_ci_is_the_c_rule(lib, level):
    rng = random.Random(42)
    checked = 0
    for n in list(range(1, 200)) + [257, 1000, 1001, 4096]:
        # right-skewed times with ties, as repetitions are
        xs = [round(1e-6 * (1 + rng.expovariate(3.0)), 9) for _ in range(n)]
        s = Summary()
        assert lib.isochron_summarize(_arr(xs), n, level, None, 0, ctypes.byref(s)) == 0
        med, lo, hi = median_ci(xs, level)
        assert (med, lo, hi) == pytest.approx((s.median, s.med_lo, s.med_hi), rel=1e-15, nan_ok=True), n
        assert all(_same(a, b) for a, b in ((lo, s.med_lo), (hi, s.med_hi))), (n, lo, hi, s.med_lo, s.med_hi)
        checked += 1
    assert checked > 200


def test_median_ci_on_a_known_sample(lib):
    xs = [float(v) for v in range(1, 101)]   # 1..100: n/2 -/+ 1.96*5 -> ranks 40 and 61
    s = Summary()
    assert lib.isochron_summarize(_arr(xs), 100, 0.95, None, 0, ctypes.byref(s)) == 0
    assert median_ci(xs, 0.95) == (50.5, 40.0, 61.0) == (s.median, s.med_lo, s.med_hi)


@pytest.mark.parametrize("weighted", [False, True])
def test_hockney_fit_is_the_c_fit(lib, weighted):
    rng = random.Random(7)
    for n in (2, 3, 5, 12, 40):
        m = sorted(rng.choice([0, 8, 64, 1024, 4096, 65536, 1 << 20]) for _ in range(n))
        if len(set(m)) < 2:
            m[0], m[-1] = 0, 65536
        t = [2e-6 + 3e-10 * x + rng.gauss(0, 1e-7) for x in m]
        se = [abs(rng.gauss(1e-7, 3e-8)) + 1e-9 for _ in m] if weighted else None
        h = Hockney()
        rc = lib.isochron_hockney_fit(_arr(m), _arr(t), _arr(se) if se else None, n, ctypes.byref(h))
        assert rc == 0
        py = hockney_fit(m, t, se)
        for k in ("alpha", "beta", "alpha_se", "beta_se", "rms"):
            assert py[k] == pytest.approx(getattr(h, k), rel=1e-9, abs=1e-18, nan_ok=True), (n, k)
        assert py["n"] == h.n == n
