"""Launches as the unit of a measurement: the statistics of a set of launches.

The biggest source of variation in a benchmark is between launches (mpirun invocations), not
between the repetitions of one launch: ReproMPI (paper 000 and the ReproMPI line of work behind
it) found it, and so did issue 12 here (five launches at 2 ranks spread by 7-16 % CV of their
medians while each launch's own 95 % CI was 4-5 %). So a result that promises reproducibility is
a *set* of launches, and its uncertainty is the one across launches.

Running a set (``isochron run``) and finding its files are in :mod:`isochron.launchset`.

Statistics per point (``launch_stats``): the launches' medians m_1..m_n. The headline value is
their median. The confidence interval is Student's t over the *logarithms* of the launch
medians, transformed back (launch medians are right-skewed: a disturbed launch is slower, never
faster, and the spread is proportional to the time): exp(mean(log m) +- t_{n-1} s/sqrt(n)). The
*rerun interval* is the t prediction interval for one new launch's median,
exp(mean(log m) +- t_{n-1} s sqrt(1 + 1/n)): the range a rerun will see. The variance of single
repetitions is split into a within-launch part (mean of the launches' repetition variances) and a
between-launch part (variance of the launch means less the within part over the repetitions per
launch, the one-way random-effects method-of-moments estimator, floored at 0).
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from .base import IsochronError, Record
from .launchset import MANIFEST, MAX_LAUNCHES, check_run_options, expand, read_config, read_manifest, run, schedule  # noqa: F401 (re-exported)
from .units import MISSING, fmt_bytes, fmt_pct, fmt_time, is_missing

if TYPE_CHECKING:                            # for the annotations only
    from matplotlib.figure import Figure

    from .dataset import Dataset
    from .table import Table

#: Between-launch spread (standard deviation of log launch medians, ~ CV) assumed when a
#: comparison has one launch per side and no data to estimate it. Measured here with
#: bench/reproducibility.sh at 2 ranks on the shared 2-core machine: median launch CV 24.6 %
#: (75th percentile 38 %; issue 12 saw 7-16 % on a quieter machine); comparing single launches
#: of A/A sets flagged 44 % of points with 0.12, 19 % with 0.20, 10 % with 0.25 and 5.8 % with
#: 0.30 (bench/results/reproducibility-*): launch medians have heavy tails, so the default is 0.30.
DEFAULT_LAUNCH_SPREAD = 0.30
#: the keys that define a point (as compare.MATCH_KEYS) plus the configuration of a launch set
POINT_KEYS = ["config", "op", "barrier", "bytes", "nprocs", "root", "dtype", "redop", "in_place",
              "scheme", "method"]


def launch_of(p: Record) -> tuple[Any, ...]:
    """The launch a point belongs to: its ``launch`` tag, else its run (one run = one launch)."""
    lid: Any = p.get("launch")
    if not is_missing(lid):
        return ("launch", p.get("config"), int(lid))
    return ("run", p.get("file"), p.get("run"))


def point_key(p: Record, keys: Sequence[str] = POINT_KEYS) -> tuple[str, ...]:
    return tuple(repr(None if is_missing(p.get(k)) else p.get(k)) for k in keys)



# ---------------------------------------------------------------------------------------------
# reading launch sets, and the options of the commands that run them
# ---------------------------------------------------------------------------------------------

def library_id(version: str) -> str:
    """MPI_Get_library_version up to its first comma or line end, tabs as spaces: "Open MPI v4.1.4",
    "MPICH Version: 4.0.2" (the rule of libisochron-tune.so's profile check, src/tune/profile.c)."""
    return version.split(",")[0].split("\n")[0].replace("\t", " ").strip()


def load_points(paths: Sequence[str], hosts: list[str] | None = None,
                contexts: list[Any] | None = None) -> tuple[list[Record], str]:
    """The points of the result sets and the MPI library (up to its first comma); HOSTS, when
    given, receives the sorted host set of the runs, CONTEXTS the runs' context records."""
    from .dataset import read
    pts: list[Record] = []
    mpi = ""
    seen: set[str] = set()
    for path in paths:
        ds = read(path)
        for w in ds.warnings:
            print(f"isochron: warning: {w}", file=sys.stderr)
        pts += ds.records.get("point", [])
        if contexts is not None:
            contexts += ds.contexts
        for ctx in ds.contexts:
            info = ctx.get("run", {}) if isinstance(ctx, dict) else {}
            if not mpi:
                mpi = library_id(str(info.get("mpi_library", "")))
            seen |= {str(h) for h in info.get("hosts", []) or []}
    if hosts is not None:
        hosts[:] = sorted(seen)
    return pts, mpi


#: isochron-bench's --validate 2: every repetition rewrites the send buffers (and checks what
#: arrived). The driver's default, 1, rewrites them only before repetitions 0, 1, 2, 4, 8, ..., so
#: between those a rank sends the unchanged memory it sent before, which a library may serve from
#: a cache a real program never warms: under Open MPI 4.1.4's CMA single copy "scan slower than
#: Exscan + op" at 2 ranks measured 0.34 with the default and 0.99-1.08 with fresh buffers
#: (bench/results/guidelines-fresh-buffers-*). A program computes its next contribution, so the
#: commands that decide from measurements (guidelines, tune) measure with fresh buffers.
FRESH_BUFFERS = ["--validate", "2"]


def fresh_buffer_args(extra: Sequence[str]) -> list[str]:
    """The driver's arguments EXTRA with ``--validate 2`` appended, unless EXTRA sets --validate."""
    if any(a == "--validate" or a.startswith("--validate=") for a in extra):
        return list(extra)
    return list(extra) + FRESH_BUFFERS


def buffer_policy(contexts: Sequence[Any]) -> str:
    """How the runs of CONTEXTS prepared their send buffers, from the driver's --validate
    (options.validate of each run): for a table's title."""
    names = {0: "buffers written once (--validate 0)",
             1: "buffers rewritten before repetitions 0,1,2,4,8,... only (--validate 1)",
             2: "fresh buffers every repetition (--validate 2)"}
    seen = sorted({int(c["options"]["validate"]) for c in contexts
                   if isinstance(c, dict) and isinstance(c.get("options"), dict)
                   and isinstance(c["options"].get("validate"), int)})
    if not seen:
        return "buffer policy not recorded"
    return "; ".join(names.get(v, f"--validate {v}") for v in seen) + (" (MIXED)" if len(seen) > 1 else "")


def add_run_arguments(parser: Any, prefix: str = "") -> None:
    """The options of a command that runs launch sets of isochron-bench (isochron guidelines,
    isochron tune): the driver, its arguments, the launcher, the seed and the timeout. PREFIX
    starts each help text (e.g. "--run: ")."""
    parser.add_argument("--bench", default="build/isochron-bench", help=f"{prefix}the driver")
    parser.add_argument("--bench-args", default="--budget 0.3", help=f"{prefix}more driver arguments"
                        " (default: --budget 0.3)")
    parser.add_argument("--launcher", default="tools/mpirun-local", help=f"{prefix}the launcher"
                        " command, -np N follows it (default: tools/mpirun-local)")
    parser.add_argument("--seed", type=int, help=f"{prefix}seed of the launch order")
    parser.add_argument("--timeout", type=float, help=f"{prefix}kill a launch running longer (s)")

# ---------------------------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------------------------

def _tq(level: float, df: float) -> float:
    from scipy.stats import t
    return float(t.ppf(0.5 + level / 2, df))


def _median(xs: Iterable[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def log_spread(medians: Sequence[float]) -> tuple[float, float | None]:
    """(mean, sample standard deviation) of the logs of launch medians (sd None when n < 2)."""
    logs = [math.log(m) for m in medians]
    n = len(logs)
    mean = sum(logs) / n
    if n < 2:
        return mean, None
    return mean, math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))


@dataclass
class PointStats:
    point: dict                      # the first launch's point (keys, op, bytes, ...)
    launches: list                   # launch ids, in order
    medians: list                    # the launch medians [s]
    center: float                    # median of the launch medians
    ci: tuple = (None, None)         # CI of the launch-level centre (t over log medians)
    rerun: tuple = (None, None)      # prediction interval of one new launch's median
    sd_log: float | None = None             # between-launch spread of log medians (~ CV)
    within_var: float | None = None         # repetition variance within launches [s^2]
    between_var: float | None = None        # variance between launch means [s^2] (>= 0)
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.medians)

    @property
    def between_share(self) -> float | None:
        if self.within_var is None or self.between_var is None:
            return None
        total = self.within_var + self.between_var
        return self.between_var / total if total > 0 else None


def variance_split(means: Sequence[float], sds: Sequence[float], counts: Sequence[int]) -> tuple[Any, Any]:
    """(within, between) variance of repetitions from per-launch means, standard deviations and
    valid counts: within = mean of s_i^2, between = var(means) - within / mean(n_i), >= 0."""
    k = len(means)
    if k < 2 or any(is_missing(x) for x in list(means) + list(sds) + list(counts)):
        return None, None
    within = sum(s * s for s in sds) / k
    mm = sum(means) / k
    var_means = sum((m - mm) ** 2 for m in means) / (k - 1)
    nbar = sum(counts) / k
    return within, max(0.0, var_means - within / nbar)


def launch_stats(points: Iterable[Record], level: float = 0.95, keys: Sequence[str] = POINT_KEYS) -> list[PointStats]:
    """One :class:`PointStats` per point (grouped on ``keys``) over the launches it was measured
    in; points without a median are skipped."""
    groups: dict[Any, Any] = {}
    for p in points:
        if is_missing(p.get("median_s")) or p["median_s"] <= 0:
            continue
        groups.setdefault(point_key(p, keys), {}).setdefault(launch_of(p), []).append(p)
    out = []
    for by_launch in groups.values():
        lids = list(by_launch)
        meds = [_median([q["median_s"] for q in by_launch[lid]]) for lid in lids]
        first = by_launch[lids[0]][0]
        st = PointStats(point=first, launches=lids, medians=meds, center=_median(meds))
        mean, sd = log_spread(meds)
        if sd is not None:
            n = len(meds)
            t = _tq(level, n - 1)
            st.sd_log = sd
            st.ci = (math.exp(mean - t * sd / math.sqrt(n)), math.exp(mean + t * sd / math.sqrt(n)))
            st.rerun = (math.exp(mean - t * sd * math.sqrt(1 + 1 / n)),
                        math.exp(mean + t * sd * math.sqrt(1 + 1 / n)))
            one = [by_launch[lid][0] for lid in lids]
            st.within_var, st.between_var = variance_split(
                [q.get("mean_s") for q in one], [q.get("stddev_s") for q in one],
                [q.get("valid") for q in one])
        out.append(st)
    return out


def has_launches(points: Iterable[Record]) -> bool:
    """True when some point was measured in more than one launch."""
    return any(s.n > 1 for s in launch_stats(points))


# ---------------------------------------------------------------------------------------------
# comparing on the launch level
# ---------------------------------------------------------------------------------------------

def paired_test(pairs: Sequence[tuple[float, float]], alpha: float = 0.05) -> Record:
    """Paired t-test over blocks: ``pairs`` = [(median A, median B)] of the launches of one
    block of an interleaved set (the same stretch of machine time), on the log ratios. The
    drift that hits both launches of a block cancels; that is what the interleaving is for."""
    d = [math.log(b) - math.log(a) for a, b in pairs]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    ratio = _median([b for _, b in pairs]) / _median([a for a, _ in pairs])
    out: Record = {"ratio": ratio, "d": mean, "na": n, "nb": n, "one_launch": False, "spread": sd,
                   "source": "pairs"}
    if sd == 0:
        out.update(limit=0.0, p=0.0 if mean != 0 else 1.0, significant=mean != 0)
        return out
    from scipy.stats import t
    se = sd / math.sqrt(n)
    out.update(limit=_tq(1 - alpha, n - 1) * se, p=float(2 * t.sf(abs(mean / se), n - 1)))
    out["significant"] = out["p"] < alpha
    return out


def block_pairs(pa: Sequence[Record], pb: Sequence[Record]) -> list[tuple[float, float]] | None:
    """[(median A, median B)] per block when A and B are two configurations of one interleaved
    launch set (same directory, one launch per block on each side, at least 3 blocks); else
    None."""
    def by_block(pts: Sequence[Record]) -> dict[tuple[str, int], Any] | None:
        out: dict[tuple[str, int], Any] = {}
        for p in pts:
            if is_missing(p.get("block")) or is_missing(p.get("median_s")) or p["median_s"] <= 0:
                return None
            key = (os.path.dirname(os.path.abspath(p.get("file", ""))), int(p["block"]))
            if key in out:
                return None
            out[key] = p["median_s"]
        return out
    a, b = by_block(pa), by_block(pb)
    if not a or not b or set(a) != set(b) or len(a) < 3:
        return None
    if {p.get("config") for p in pa} == {p.get("config") for p in pb}:
        return None                       # the same configuration on both sides: nothing to pair
    return [(a[k], b[k]) for k in sorted(a)]


def launch_test(med_a: Sequence[float], med_b: Sequence[float], alpha: float = 0.05,
                default_spread: float = DEFAULT_LAUNCH_SPREAD) -> Record:
    """Test B against A on launch medians. Returns a dict: ``ratio`` (of the medians of launch
    medians), ``d`` (difference of mean log medians), ``spread`` (between-launch sd of log
    medians used), ``source`` ('data' or 'default'), ``limit`` (|d| beyond which the difference
    is significant), ``p`` (pooled two-sample t-test on the logs; None with the default spread),
    ``significant`` and ``one_launch`` (one launch on each side)."""
    na, nb = len(med_a), len(med_b)
    ma, sa = log_spread(med_a)
    mb, sb = log_spread(med_b)
    d = mb - ma
    dof = (na - 1 if sa is not None else 0) + (nb - 1 if sb is not None else 0)
    se_f = math.sqrt(1 / na + 1 / nb)
    out: Record = {"ratio": _median(med_b) / _median(med_a), "d": d, "na": na, "nb": nb,
                   "one_launch": na == 1 and nb == 1}
    if dof > 0:
        pooled = math.sqrt(((na - 1) * (sa or 0) ** 2 + (nb - 1) * (sb or 0) ** 2) / dof)
        out.update(spread=pooled, source="data")
        if pooled == 0:
            out.update(limit=0.0, p=0.0 if d != 0 else 1.0, significant=d != 0)
            return out
        from scipy.stats import t
        tstat = d / (pooled * se_f)
        out.update(limit=_tq(1 - alpha, dof) * pooled * se_f,
                   p=float(2 * t.sf(abs(tstat), dof)))
        out["significant"] = out["p"] < alpha
    else:
        from scipy.stats import norm
        limit = float(norm.ppf(1 - alpha / 2)) * default_spread * se_f
        out.update(spread=default_spread, source="default", limit=limit, p=None,
                   significant=abs(d) > limit)
    return out


def power(spread: float, delta: float, n: int, alpha: float = 0.05, paired: bool = False) -> float | None:
    """The probability that the launch-level test flags a true difference of ``delta`` in log
    ratio (log 1.1 for 10 %) with ``n`` launches per side (pairs when ``paired``), given a
    between-launch spread ``spread`` (sd of log launch medians; for pairs, of their log ratios):
    the two-sided t-test's power from the noncentral t distribution (two-sample pooled t with
    2n - 2 degrees of freedom, or one-sample t over n - 1)."""
    from scipy.stats import nct, norm, t
    if n < 2 or spread is None or spread <= 0:
        return None
    dof, se = (n - 1, spread / math.sqrt(n)) if paired else (2 * n - 2, spread * math.sqrt(2 / n))
    nc, crit = abs(delta) / se, float(t.ppf(1 - alpha / 2, dof))
    p = float(nct.sf(crit, dof, nc) + nct.cdf(-crit, dof, nc))
    if math.isnan(p):                     # scipy's noncentral t fails far out: the normal limit
        p = float(norm.sf(crit - nc) + norm.cdf(-crit - nc))
    return p


def launches_needed(spread: float, delta: float, alpha: float = 0.05, target: float = 0.8, paired: bool = False,
                    most: int = 10000) -> int | None:
    """The fewest launches per side (pairs when ``paired``) with which a true difference of
    ``delta`` in log ratio is flagged with probability ``target`` (see :func:`power`); None
    beyond ``most``. Issue 12's question, answered from the data: at this machine's 20-25 %
    between-launch spread a 10 % difference needs about 70-110 launches per side, not 5."""
    if spread is None or spread <= 0 or delta == 0:
        return None
    if (power(spread, delta, most, alpha, paired) or 0.0) < target:
        return None
    lo, hi = 2, most
    while lo < hi:                        # the power grows with n: the first n that reaches target
        mid = (lo + hi) // 2
        if (power(spread, delta, mid, alpha, paired) or 0.0) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def detectable(spread: float, n: int, alpha: float = 0.05, target: float = 0.8, paired: bool = False) -> float | None:
    """The smallest difference (in log ratio) that ``n`` launches per side flag with
    probability ``target`` at this spread; None when n < 2."""
    if n < 2 or spread is None or spread <= 0:
        return None
    lo, hi = 0.0, 50 * spread
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if (power(spread, mid, n, alpha, paired) or 0.0) >= target:
            hi = mid
        else:
            lo = mid
    return hi


# ---------------------------------------------------------------------------------------------
# tables and the plot
# ---------------------------------------------------------------------------------------------

def _ci_cell(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return MISSING
    return f"{fmt_time(lo)} .. {fmt_time(hi)}"


def _needed_cell(spread: float | None) -> str:
    n = launches_needed(spread, math.log(1.1)) if spread else None
    return MISSING if n is None else (f"{n}" if n < 10000 else ">10000")


def launch_tables(points: Iterable[Record], level: float = 0.95) -> list[Table]:
    """Launch-level tables (one per operation) when some point has several launches."""
    from .table import Table
    if len({launch_of(p) for p in points}) < 2:     # one launch: nothing to tabulate (fast)
        return []
    stats = [s for s in launch_stats(points, level) if s.n > 1]
    if not stats:
        return []
    out = []
    for op in dict.fromkeys(s.point.get("op") for s in stats):
        group = [s for s in stats if s.point.get("op") == op]
        varying = [k for k in ("config", "scheme", "method", "barrier", "nprocs", "root")
                   if len({repr(s.point.get(k)) for s in group}) > 1]
        cols = varying + ["size", "launches", "median [µs]", f"CI(launches) {level * 100:g} % [µs]",
                          "rerun [µs]", "launch CV", "between share", "for ±10 %",
                          "launch medians [µs]"]
        rows = []
        for s in sorted(group, key=lambda s: tuple(str(s.point.get(k)) for k in varying)
                        + (s.point.get("bytes") or 0,)):
            rows.append([s.point.get(k) for k in varying] + [
                fmt_bytes(s.point.get("bytes")), s.n, fmt_time(s.center), _ci_cell(*s.ci),
                _ci_cell(*s.rerun), fmt_pct(s.sd_log), fmt_pct(s.between_share),
                _needed_cell(s.sd_log), " ".join(fmt_time(m, digits=3) for m in s.medians)])
        n = len(varying)
        notes = [f"median: of the launch medians; CI(launches): Student's t over the logs of the launch"
                 f" medians ({level * 100:g} %), the headline uncertainty: it is what reruns see,"
                 " unlike a single launch's CI over repetitions",
                 "rerun: where one new launch's median falls (t prediction interval);"
                 " launch CV: sd of the log launch medians",
                 "between share: the between-launch part of the variance of single repetitions"
                 " (method of moments over the launch means and repetition variances)",
                 "for ±10 %: launches per side that `isochron compare` needs to flag a true 10 %"
                 " change with 80 % power at this launch CV (two-sample t; launches_needed)"]
        out.append(Table(f"operation {op}: across launches", cols, rows,
                         right=set(range(n, n + 8)), notes=notes))
    return out


def launch_summary(ds: Dataset) -> list[str]:
    """One line per launch set in a dataset (launch counts per configuration)."""
    per: dict[Any, set[Any]] = {}
    for c in ds.contexts:
        if not is_missing(c.get("launch")):
            per.setdefault(c.get("config"), set()).add(c["launch"])
    if not per:
        return []
    return ["launches: " + ", ".join(f"{len(v)} of config {k}" for k, v in per.items())]


def plot_launches(ds: Dataset, **_: Any) -> Figure:
    """Per-launch medians of every point (a column per point, a dot per launch), with the
    median of the launch medians and the between-launch CI."""
    from .figures import _fig, _run_title
    points = ds.records.get("point", []) or ds.records.get("cost", [])
    stats = [s for s in launch_stats(points) if s.n > 0]
    if not stats:
        raise IsochronError("launches plot: no benchmark points")
    fig, axes = _fig(w=max(6.0, 0.55 * len(stats) + 2), h=4.6)
    ax = axes[0][0]
    labels = []
    for i, s in enumerate(stats):
        rel = [m / s.center for m in s.medians]
        ax.scatter([i] * len(rel), rel, s=14, color="tab:blue", alpha=0.7, zorder=3)
        ax.hlines(1.0, i - 0.3, i + 0.3, color="k", lw=1.5, zorder=4)
        if s.ci[0] is not None:
            ax.vlines(i + 0.18, s.ci[0] / s.center, s.ci[1] / s.center, color="tab:red", lw=2)
        p = s.point
        cfg = f"{p.get('config')} " if not is_missing(p.get("config")) else ""
        labels.append(f"{cfg}{p.get('op', p.get('barrier'))} {fmt_bytes(p.get('bytes'))}")
    ax.set_xticks(range(len(stats)), labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("launch median / median of launch medians")
    ax.grid(True, axis="y", alpha=0.3)
    nmax = max(s.n for s in stats)
    ax.set_title(f"Spread between launches (up to {nmax} per point): dots = launch medians,"
                 f" red = 95 % CI across launches\n{_run_title(ds, points)}", fontsize=10)
    return fig
