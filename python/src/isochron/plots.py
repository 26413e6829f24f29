"""Plots of isochron results, each a function that takes a Dataset and returns a Figure.

Every plot kind is one entry of ``KINDS`` (name -> function, the record type it needs, a one-line
description), so ``isochron plot --list-kinds``, the error for an unknown kind and the report
all come from one table. Figures are built with ``matplotlib.figure.Figure`` rather than pyplot:
no global state, no GUI backend, and the caller (a test) can inspect axes and lines. Each plot is
meant to be read without hunting through a legend: series are labelled at their end points,
titles say what was measured and how, axes carry units. The shapes follow the papers: latency
vs size on log-log axes with confidence intervals; sync duration vs accuracy with one point per
run (paper 000, Fig. 3); barrier exit-skew distributions per algorithm (Fig. 8); a Gantt chart
of every rank's start and end of repetitions on the global clock (Fig. 10).
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

import numpy as np

from .base import Record
from .dataset import IsochronError, record_error
from .figures import _fig, _run_title
from .stats import median_ci
from .table import below_resolution
from .units import fmt_bytes, is_missing, is_rate, parse_bytes, rate, short_spec

if TYPE_CHECKING:                            # for the annotations only
    from matplotlib.figure import Figure

    from .dataset import Dataset

FORMATS = ("png", "svg", "pdf")
US = 1e6


def _log(ax: Any, axis: str = "y") -> None:
    """A log axis with plain numbers (10, 20, 50, 100) instead of powers of ten.

    Call it after plotting: over more than three decades only the powers of ten are labelled.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    getattr(ax, f"set_{axis}scale")("log")
    a = ax.yaxis if axis == "y" else ax.xaxis
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    span = hi / lo if lo > 0 else 1e9
    subs = (1,) if span > 1e3 else (1, 2, 5) if span > 30 else (1, 1.5, 2, 3, 5, 7)
    a.set_major_locator(LogLocator(base=10, subs=subs))
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_formatter(NullFormatter())


def _widen_log(ax: Any, axis: str = "y", factor: float = 10) -> None:
    """On a log axis whose data span less than ``factor``, centre them in a span of ``factor``."""
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    if lo > 0 and hi / lo < factor:
        mid = math.sqrt(lo * hi)
        half = math.sqrt(factor)
        (ax.set_ylim if axis == "y" else ax.set_xlim)(mid / half, mid * half)


def _colors(n: int) -> list[Any]:
    """n distinct colours: tab10, tab20 up to 20 series, then samples of a continuous map."""
    import matplotlib
    if n <= 20:
        cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
        return [cmap(i) for i in range(n)]
    cmap = matplotlib.colormaps["viridis"]
    return [cmap(i / (n - 1)) for i in range(n)]


def _end_labels(ax: Any, items: Sequence[tuple[Any, Any, str, Any]], log: bool = True) -> None:
    """Label each line at its right end, nudging labels apart so none overlap.

    ``items`` are (x, y, text, color) in data coordinates; the x axis gets room on the right.
    """
    items = [it for it in items if _finite(it[0]) and _finite(it[1]) and (not log or it[1] > 0)]
    if not items:
        return
    f = math.log10 if log else (lambda v: v)
    inv = (lambda v: 10 ** v) if log else (lambda v: v)
    lo, hi = ax.get_ylim()
    gap = (f(hi) - f(lo)) * 0.055
    order = sorted(items, key=lambda it: f(it[1]))
    placed: list[float] = []
    for _x, y, _t, _c in order:
        pos = f(y)
        if placed and pos < placed[-1] + gap:
            pos = placed[-1] + gap
        placed.append(pos)
    shift = max(0.0, placed[-1] - (f(hi) - gap / 2))   # keep the top label inside
    for (x, _y, text, color), pos in zip(order, placed):
        ax.annotate(text, (x, inv(pos - shift)), xytext=(6, 0), textcoords="offset points",
                    va="center", ha="left", color=color, fontsize=8, annotation_clip=False)


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool) \
        and math.isfinite(x)


def _positive(x: Any) -> bool:
    """A value a log axis can show."""
    return _finite(x) and x > 0


def _need(ds: Dataset, rtype: str, kind: str, what: str) -> list[Record]:
    rows = ds.records.get(rtype, [])
    if not rows:
        have = ", ".join(available(ds)) or "none"
        raise IsochronError(f"plot kind {kind!r} needs {what}; {', '.join(ds.paths)} has none"
                            f" (kinds that fit: {have})")
    return rows


# ---- latency vs message size ------------------------------------------------------------
def _center_and_ci(p: Record, stat: str, level: float) -> tuple[float, float, float]:
    if stat == "median":
        times = p["raw_time_s"]
        flags: Any = p.get("raw_valid") if isinstance(p.get("raw_valid"), list) else [1] * len(times)
        ok = [t for t, v in zip(times, flags) if v and _finite(t)]
        if not ok:
            return math.nan, math.nan, math.nan
        return median_ci(ok, level)          # the C library's rule (stats.py): bars = table
    ci: tuple[Any, ...] = (p["mean_s"], p.get("ci_lo_s"), p.get("ci_hi_s"))
    mean, lo, hi = ci
    return mean, (mean if is_missing(lo) else lo), (mean if is_missing(hi) else hi)


def _stat_for(pts: Sequence[Record], stat: str | None, kind: str) -> str:
    has_raw = all(isinstance(p.get("raw_time_s"), list) for p in pts)
    stat = stat or ("median" if has_raw else "mean")
    if stat not in ("median", "mean"):
        raise IsochronError(f"--stat {stat}: choose median or mean")
    if stat == "median" and not has_raw:
        raise IsochronError(f"--stat median needs raw repetitions for its confidence interval"
                            f" (isochron-bench --raw); use --stat mean (plot kind {kind!r})")
    return stat


def _vs_size(ds: Dataset, pts: Sequence[Record], values: Callable[[Record], tuple[float, ...]], ylabel: str, title: str,
             label: str, scale: float | None = US) -> Figure:
    """A line per series (op x scheme x method ... that vary) of values(point) = (y, lo, hi) vs size."""
    keys = ["op", "scheme", "method", "nprocs", "root", "dtype", "redop", "run"]
    ops = {p["op"] for p in pts}        # dtype and redop follow the op unless they vary within one
    varying = [k for k in keys if any(len({repr(p.get(k)) for p in pts if p["op"] == op}) > 1
                                      for op in ops) or (k == "op" and len(ops) > 1)]
    # 'run' only tells series apart when the same (op, scheme, method) is in several runs
    if "run" in varying and len({(p["op"], p["scheme"], p["method"]) for p in pts}) == \
            len({(p["op"], p["scheme"], p["method"], p["run"]) for p in pts}):
        varying.remove("run")
    series: dict[tuple[Any, ...], list[Record]] = {}
    for p in pts:
        series.setdefault(tuple(p.get(k) for k in varying) or ("",), []).append(p)
    fig, axes = _fig()
    ax = axes[0][0]
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    labels = []
    below_shown = skipped = 0
    for (key, group), color in zip(series.items(), _colors(len(series))):
        group.sort(key=lambda p: p["bytes"])
        text = " ".join(f"run {v + 1}" if k == "run" else str(v) for k, v in zip(varying, key))
        drawn, below = [], []
        for p in group:
            if below_resolution(p):               # '<= R': a downward triangle at R, no bar
                r: Any = p.get("resolution_s")
                if _positive(r) and scale is not None:
                    below.append((p["bytes"], r * scale))
                else:
                    skipped += 1
                continue
            y, lo, hi = values(p)
            if not _positive(y):                   # a log axis shows no zero or negative time
                skipped += 1
                continue
            lo = lo if _positive(lo) and lo <= y else y
            hi = hi if _finite(hi) and hi >= y else y
            drawn.append((p["bytes"], y, lo, hi))
        if drawn:
            x, y, lo, hi = (np.array(v, float) for v in zip(*drawn))
            ax.errorbar(x, y, yerr=[y - lo, hi - y], color=color, marker="o", ms=4, capsize=3,
                        label=text or label)
            labels.append((x[-1], y[-1], text, color))
        if below:
            bx, by = zip(*below)
            ax.scatter(bx, by, marker="v", s=30, facecolors="none", edgecolors=color, zorder=3)
            below_shown += len(below)
    if not labels and not below_shown:
        raise IsochronError(f"{title}: no point with a positive value to draw on a log axis"
                            f" ({skipped} skipped)")
    sizes = sorted({p["bytes"] for p in pts})
    ax.set_xticks(sizes, [fmt_bytes(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlim(sizes[0] / 1.5, sizes[-1] * (1.5 if len(sizes) == 1 else 4))
    ax.set_xlabel("message size")
    _log(ax)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    fixed = [f"{k} {pts[0].get(k)}" for k in ("scheme", "method") if k not in varying]
    notes = ([f"▽ = below resolution (<= R), {below_shown} point(s)"] if below_shown else []) \
        + ([f"{skipped} point(s) without a positive value not drawn"] if skipped else [])
    ax.set_title(title + (f" ({', '.join(fixed)})" if fixed else "") + f"\n{_run_title(ds, pts)}"
                 + (f"; {'; '.join(notes)}" if notes else ""), fontsize=10)
    _end_labels(ax, labels)
    return fig


def _sized_points(ds: Dataset, rates: bool) -> list[Record]:
    """Points with a valid repetition and a size > 0: the throughput ones (rates) or the others."""
    return [p for p in ds.records.get("point", [])
            if not is_missing(p.get("mean_s")) and p.get("bytes") and is_rate(p) == rates]


def _plot_points(ds: Dataset, kind: str, rates: bool, none_msg: str, stat: str | None) -> tuple[list[Record], str]:
    _need(ds, "point", kind, "isochron-bench points")
    pts = _sized_points(ds, rates)
    if not pts:
        raise IsochronError(f"plot kind {kind!r}: {none_msg}")
    return pts, _stat_for(pts, stat, kind)


def _ci_label(pts: Sequence[Record], stat: str) -> tuple[float, str]:
    level: Any = pts[0].get("ci_level")
    level = level if _finite(level) and 0 < level < 1 else 0.95
    how = "order statistics" if stat == "median" else "Student's t"
    return level, f"{stat}, bars {100 * level:g} % CI ({how})"


def plot_latency(ds: Dataset, stat: str | None = None, **_: Any) -> Figure:
    pts, stat = _plot_points(ds, "latency", False, "no latency-type point has a valid repetition and a size > 0"
                             " (throughput points: plot kind 'bandwidth')", stat)
    level, what = _ci_label(pts, stat)
    return _vs_size(ds, pts, lambda p: tuple(v * US for v in _center_and_ci(p, stat, level)),
                    f"latency [µs]: {what}", "Latency vs message size", "latency")


def plot_bandwidth(ds: Dataset, **_: Any) -> Figure:
    """MB/s against size: bytes one run moves / the driver's median run time, bars the median's
    interval in time inverted (its ends swap). Always the median: a rate of the mean time would
    be neither the mean rate nor robust, and the mean's interval may reach below zero."""
    _need(ds, "point", "bandwidth", "isochron-bench points")
    pts = _sized_points(ds, True)
    if not pts:
        raise IsochronError("plot kind 'bandwidth': no throughput point (bw, bibw, mbw_mr, bw_fan_in/out)"
                            " with a valid repetition and a size > 0")

    def values(p: Record) -> tuple[float, ...]:
        med, lo, hi, _msgs = cast("tuple[float, float, float, float]", rate(p))   # pts are rate points
        return tuple(med / 1e6 if is_missing(v) else v / 1e6 for v in (med, lo, hi))
    _level, what = _ci_label(pts, "median")
    return _vs_size(ds, pts, values, f"bandwidth [MB/s]: {what}",
                    "Bandwidth vs message size", "bandwidth", scale=None)


# ---- clock offset vs time after synchronization -----------------------------------------
def plot_offset(ds: Dataset, **_: Any) -> Figure:
    rows = _need(ds, "accuracy", "offset", "isochron-clock accuracy records")
    runs = list(dict.fromkeys(r["run"] for r in rows))[:6]
    ncols = min(3, len(runs))
    nrows = math.ceil(len(runs) / ncols)
    fig, axes = _fig(4.2 * ncols + 1, 3.6 * nrows + 0.6, nrows, ncols)
    for i, run in enumerate(runs):
        ax = axes[i // ncols][i % ncols]
        rr = [r for r in rows if r["run"] == run and r["rank"] != 0
              and _finite(r.get("wait_s")) and _finite(r.get("measured_offset_s"))]
        if not rr:
            axes[i // ncols][i % ncols].set_visible(False)
            continue
        ranks = sorted({r["rank"] for r in rr})
        labels = []
        for rank, color in zip(ranks, _colors(len(ranks))):
            pts = sorted((r for r in rr if r["rank"] == rank), key=lambda r: r["wait_s"])
            t = [r["wait_s"] for r in pts]
            meas = [r["measured_offset_s"] * US for r in pts]
            ax.plot(t, meas, "-o", color=color, ms=4, label=f"rank {rank} measured")
            true: list[Any] = [r.get("true_offset_s") for r in pts]
            if all(_finite(v) for v in true):
                ax.plot(t, [v * US for v in true], "--x", color=color, ms=5, alpha=0.8,
                        label=f"rank {rank} true")
            labels.append((t[-1], meas[-1], f"rank {rank}", color))
        if len(labels) > 16:        # many ranks: name only the three farthest out on each side
            labels.sort(key=lambda it: it[1])
            labels = labels[:3] + labels[-3:]
        ax.axhline(0, color="0.5", lw=0.8)
        ctx = ds.contexts[run]
        skew = ctx.get("skew")
        sub = short_spec(ctx.get("sync_spec")) if isinstance(ctx.get("sync_spec"), str) else "?"
        if isinstance(skew, dict):
            sub += f"\nskew {skew.get('spec')}"
        ax.set_title(sub, fontsize=9)
        ax.set_xlabel("time after synchronization [s]")
        ax.set_ylabel("offset to rank 0 [µs]")
        ax.grid(True, alpha=0.3)
        waits = sorted({r["wait_s"] for r in rr})
        ax.set_xlim(waits[0] - 0.05 * (waits[-1] - waits[0] + 1), waits[-1] * 1.25 + 0.3)
        _end_labels(ax, labels, log=False)
    for j in range(len(runs), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fig.suptitle("Clock offset of each rank to rank 0 after synchronization"
                 "\nsolid o: measured by ping-pong (Alg. 6), dashed x: true offset", fontsize=10)
    return fig


# ---- synchronization duration vs accuracy (paper 000, Fig. 3) ---------------------------
def plot_sync(ds: Dataset, **_: Any) -> Figure:
    rows = _need(ds, "summary", "sync", "isochron-clock summary records")
    use_true = all(not is_missing(r.get("max_abs_true_offset_s")) for r in rows)
    col = "max_abs_true_offset_s" if use_true else "max_abs_measured_offset_s"
    every = len(rows)                 # log axes: only positive durations and offsets are drawn
    rows = [r for r in rows if _positive(r.get("duration_s")) and _positive(r.get(col))
            and _finite(r.get("wait_s")) and isinstance(r.get("sync_spec"), str)]
    if not rows:
        raise IsochronError(f"plot kind 'sync': no summary record with a positive sync duration"
                            f" and offset ({every} records)")
    waits = sorted({r["wait_s"] for r in rows})
    algs = list(dict.fromkeys(short_spec(r["sync_spec"]) for r in rows))
    fig, axes = _fig(4.2 * len(waits) + 1, 4.4, 1, len(waits), sharey=True)
    ys = [r[col] * US for r in rows if r[col]]
    if ys:                          # the shared y range first: the labels are placed against it
        lo, hi = min(ys) / 1.5, max(ys) * 1.5
        if hi / lo < 10:
            mid = math.sqrt(lo * hi)
            lo, hi = mid / math.sqrt(10), mid * math.sqrt(10)
        axes[0][0].set_yscale("log")
        axes[0][0].set_ylim(lo, hi)
    for ax, wait in zip(axes[0], waits):
        labels = []
        for alg, color in zip(algs, _colors(len(algs))):
            sel = [r for r in rows if r["wait_s"] == wait and short_spec(r["sync_spec"]) == alg]
            if not sel:
                continue
            x = np.array([r["duration_s"] for r in sel])
            y = np.array([r[col] for r in sel]) * US
            ax.scatter(x, y, color=color, s=28, zorder=3, label=alg)
            xm = math.exp(np.mean(np.log(x)))
            ax.hlines(y.mean(), xm / 1.6, xm * 1.6, color=color, lw=2)   # mean over runs
            labels.append((xm * 1.6, y.mean(), alg, color))
        ax.set_xscale("log")
        _widen_log(ax, "x")
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * 15)
        _log(ax, "x")
        _log(ax, "y")
        ax.set_ylim(axes[0][0].get_ylim())
        ax.set_title(f"{wait:g} s after synchronization", fontsize=9)
        ax.set_xlabel("synchronization duration [s]")
        ax.grid(True, alpha=0.25)
        _end_labels(ax, labels)
    axes[0][0].set_ylabel(f"max |offset| to rank 0 [µs] ({'true' if use_true else 'measured'})")
    nruns = len({r["run"] for r in rows})
    gone = every - len(rows)
    fig.suptitle(f"Sync duration vs accuracy: one point per run ({nruns} run{'s' * (nruns != 1)}),"
                 " bar = mean;"
                 f" lower left is better\n{_run_title(ds, rows)}"
                 + (f"; {gone} record(s) without a positive duration or offset not drawn" if gone else ""),
                 fontsize=10)
    return fig


# ---- barrier exit skew per algorithm (paper 000, Fig. 8) --------------------------------
def plot_skew(ds: Dataset, **_: Any) -> Figure:
    rows = [r for r in _need(ds, "skew", "skew", "isochron-barrier skew records")
            if isinstance(r.get("samples_s"), list)
            and any(_positive(v) for v in r["samples_s"])]      # a log axis: positive skews
    if not rows:
        raise IsochronError("plot kind 'skew': the skew records carry no positive samples")
    names = [r["barrier"] for r in rows]
    data = [np.array([v for v in r["samples_s"] if _positive(v)], float) * US for r in rows]
    fig, axes = _fig(max(6.0, 0.85 * len(rows) + 2), 4.6)
    ax = axes[0][0]
    ax.violinplot(data, showextrema=False, widths=0.8)
    ax.boxplot(data, widths=0.25, showfliers=False, medianprops={"color": "black"})
    rng = np.random.default_rng(0)
    for i, d in enumerate(data, start=1):
        ax.scatter(i + rng.uniform(-0.12, 0.12, len(d)), d, s=3, color="0.3", alpha=0.35, zorder=3)
        med = np.median(d)
        ax.annotate(f"{med:.3g}", (i, med), xytext=(14, 0), textcoords="offset points",
                    fontsize=7, va="center")
    ax.set_xticks(range(1, len(names) + 1), names, rotation=20)
    _log(ax)
    ax.set_ylabel("exit skew: last exit − first exit [µs]")
    ax.set_xlabel("barrier algorithm")
    ax.grid(True, axis="y", alpha=0.25)
    calls = {len(d) for d in data}
    ax.set_title(f"Barrier exit skew per algorithm, calls started together on the global clock\n"
                 f"{_run_title(ds, rows)}, {'/'.join(str(c) for c in sorted(calls))} calls each"
                 " (box: quartiles, number: median)", fontsize=10)
    return fig


# ---- Gantt chart of raw repetitions on the global clock (paper 000, Fig. 10) -------------
def _pick_point(pts: Sequence[Record], op: str | None = None, size: int | str | None = None) -> Record:
    raw = [p for p in pts if isinstance(p.get("raw_start_s"), list) and p["raw_start_s"]]
    if not raw:
        raise IsochronError("plot kind 'gantt' needs raw repetitions: run isochron-bench"
                            " with --raw")
    if op is not None:
        ops = sorted({p["op"] for p in raw})
        raw = [p for p in raw if p["op"] == op]
        if not raw:
            raise IsochronError(f"--op {op}: no point with raw repetitions (ops: {', '.join(ops)})")
    if size is not None:
        want = parse_bytes(size)
        sizes = sorted({p["bytes"] for p in raw})
        raw = [p for p in raw if p["bytes"] == want]
        if not raw:
            raise IsochronError(f"--size {size}: no such size (sizes: "
                                f"{', '.join(fmt_bytes(s) for s in sizes)})")
    else:
        big = max(p["bytes"] for p in raw if p["op"] == raw[0]["op"])
        raw = [p for p in raw if p["op"] == raw[0]["op"] and p["bytes"] == big]
    return raw[0]


def _parse_reps(reps: int | str | None, n: int) -> tuple[int, int]:
    if reps is None:
        return 0, min(n, 4)
    try:
        a, _, b = str(reps).partition(":")
        first, last = int(a), (int(b) if b else int(a) + 1)
    except ValueError:
        raise IsochronError(f"--reps {reps}: give FIRST:END, e.g. 0:4") from None
    if not 0 <= first < last <= n:
        raise IsochronError(f"--reps {reps}: the point has repetitions 0..{n - 1}")
    return first, last


def plot_gantt(ds: Dataset, op: str | None = None, size: int | str | None = None, reps: int | None = None,
               **_: Any) -> Figure:
    p = _pick_point(_need(ds, "point", "gantt", "isochron-bench points with --raw"), op, size)
    starts, ends = p["raw_start_s"], p.get("raw_end_s")
    valid: Any = p.get("raw_valid") if isinstance(p.get("raw_valid"), list) else [1] * len(starts)
    if not isinstance(ends, list) or len(ends) != len(starts) or len(valid) != len(starts):
        raise record_error(p, "point", "raw.end_s", f"{len(ends) if isinstance(ends, list) else 'no'}"
                           f" end rows and {len(valid)} valid flags for {len(starts)} start rows")
    nr = len(starts[0])
    for i, (a, b) in enumerate(zip(starts, ends)):
        if len(a) != nr or len(b) != nr or nr == 0:
            raise record_error(p, "point", "raw.start_s", f"repetition {i}: {len(a)} starts and"
                               f" {len(b)} ends; every repetition has one per rank ({nr})")
        for rank in range(nr):
            if not (_finite(a[rank]) and _finite(b[rank])):
                raise record_error(p, "point", "raw.start_s", f"repetition {i}, rank {rank}:"
                                   f" start {a[rank]!r}, end {b[rank]!r}: not finite times")
    first, last = _parse_reps(reps, len(starts))
    t0 = min(min(starts[i]) for i in range(first, last))
    nranks = len(starts[first])
    fig, axes = _fig(8, min(12.0, 1.2 + 0.45 * nranks))
    ax = axes[0][0]
    for i, color in zip(range(first, last), _colors(last - first)):
        for rank in range(nranks):
            s = (starts[i][rank] - t0) * US
            e = (ends[i][rank] - t0) * US
            # the edge keeps a bar of a few µs visible on an axis of milliseconds
            ax.broken_barh([(s, e - s)], (rank - 0.35, 0.7), facecolors=color, edgecolors=color,
                           linewidth=1, hatch=None if valid[i] else "//",
                           alpha=0.9 if valid[i] else 0.4)
        mid = (min(starts[i]) - t0) * US
        ax.annotate(f"rep {i}" + ("" if valid[i] else " (invalid)"), (mid, -0.5), fontsize=8,
                    color=color, va="bottom")
    step = math.ceil(nranks / 24)                  # at most 24 rank labels
    ax.set_yticks(range(0, nranks, step), [f"rank {r}" for r in range(0, nranks, step)])
    ax.set_ylim(nranks - 0.5, -0.8)
    ax.set_xlabel("time on the global clock since the first start [µs]")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(f"{p['op']} {fmt_bytes(p['bytes'])}: start and end of repetitions {first}–"
                 f"{last - 1} on each rank\n{p.get('scheme')} scheme, {p.get('method')} method,"
                 f" {_run_title(ds, [p])}", fontsize=10)
    return fig


# ---- barrier driver: shift success and the payoff of synchronizing -----------------------
def plot_shift(ds: Dataset, **_: Any) -> Figure:
    rows = _need(ds, "shift", "shift", "isochron-barrier shift records")
    names = list(dict.fromkeys(r["barrier"] for r in rows))
    sizes = sorted({r["bytes"] for r in rows})
    fig, axes = _fig(max(6.0, 0.7 * len(names) * len(sizes) / 1.5 + 2), 4.4)
    ax = axes[0][0]
    width = 0.8 / len(sizes)
    for j, (size, color) in enumerate(zip(sizes, _colors(len(sizes)))):
        for i, name in enumerate(names):
            r = next((r for r in rows if r["barrier"] == name and r["bytes"] == size), None)
            if r is None or not _finite(r.get("success_rate")):
                continue
            x = i + (j - (len(sizes) - 1) / 2) * width
            rate = 100 * r["success_rate"]
            ax.bar(x, rate, width * 0.92, color=color)
            inside = rate > 30      # the size written on the bar itself: no legend to look up
            ax.annotate(fmt_bytes(size), (x, 2 if inside else rate + 2), rotation=90, ha="center",
                        va="bottom", fontsize=7, color="white" if inside else color)
    ax.set_xticks(range(len(names)), names, rotation=20)
    ax.set_ylim(0, 105)
    ax.set_ylabel("success rate [%]")
    ax.set_xlabel("synchronization before the ring shift")
    thr = rows[0].get("threshold")
    thr = f"{thr:g}" if _finite(thr) else "?"
    ax.set_title("Ring shift after each barrier: share of trials within "
                 f"(1 + {thr}) x the concurrent reference\n{_run_title(ds, rows)};"
                 " message size written on each bar", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def _size_index(sizes: Sequence[float], v: float) -> float:
    """Position of size ``v`` on an axis that puts ``sizes`` at 0, 1, 2, ... (log between)."""
    for i in range(len(sizes) - 1):
        a, b = sizes[i], sizes[i + 1]
        if a <= v <= b:
            if a <= 0 or v <= a:
                return float(i if v <= a else i + 1)
            return i + math.log(v / a) / math.log(b / a)
    return float(len(sizes) - 1 if v > sizes[-1] else 0)


def plot_payoff(ds: Dataset, **_: Any) -> Figure:
    p = _need(ds, "payoff", "payoff", "an isochron-barrier payoff record")[0]
    sizes = p.get("sizes")
    if not isinstance(sizes, list) or not sizes or not all(
            isinstance(b, int) and not isinstance(b, bool) and b >= 0 for b in sizes):
        raise record_error(p, "payoff", "sizes", f"{sizes!r} is not a list of message sizes")
    x = np.arange(len(sizes))
    fig, axes = _fig(7.5, 4.6)
    ax = axes[0][0]
    curves = [("reference_s", "concurrent start (reference)", "0.45"),
              ("synced_s", f"{p.get('barrier', 'rds')} + shift", "tab:blue"),
              ("unsynced_s", "shift alone", "tab:orange")]
    labels = []
    for key, text, color in curves:
        if isinstance(p.get(key), list):
            if len(p[key]) != len(sizes):
                raise record_error(p, "payoff", key, f"{len(p[key])} values for {len(sizes)} sizes")
            keep = [(xi, v * US) for xi, v in zip(x, p[key]) if _positive(v)]   # log axis
            if not keep:
                continue
            xs, y = zip(*keep)
            ax.plot(xs, y, "-o", color=color, ms=4)
            labels.append((xs[-1], y[-1], text, color))
    _log(ax)
    for key, text, style in (("measured_min_bytes", "measured", "-"),
                             ("model_min_bytes", "model", ":")):
        v: Any = p.get(key)
        if not _finite(v):
            ax.annotate(f"{text}: " + ("synchronizing first was never cheaper in this range"
                                       if text == "measured" else "no size where it pays off"),
                        (0.02, 0.02 if text == "measured" else 0.08), xycoords="axes fraction",
                        fontsize=8, color="tab:green")
        else:
            xi = _size_index(sizes, v)
            ax.axvline(xi, color="tab:green", ls=style, lw=1.2)
            ax.annotate(f"{text}: pays off from {fmt_bytes(v)}", (xi, 0.97), xytext=(3, 0),
                        textcoords="offset points", xycoords=("data", "axes fraction"),
                        va="top", fontsize=8, color="tab:green", rotation=90,
                        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1})
    ax.set_xticks(x, [fmt_bytes(s) for s in sizes])
    ax.set_xlim(-0.3, len(sizes) + 0.8)
    ax.set_xlabel("message size")
    ax.set_ylabel("shift time from the first arrival [µs] (median)")
    ax.grid(True, alpha=0.3)
    ax.set_title(f"When does synchronizing before a ring shift pay off? (d = {p.get('d')})\n"
                 f"{_run_title(ds, [p])}, median of {p.get('trials', '?')} trials", fontsize=10)
    _end_labels(ax, labels)
    return fig


def _plot_launches(ds: Dataset, **opts: Any) -> Figure:
    from .launches import plot_launches  # launches.py holds the launch-level statistics
    return plot_launches(ds, **opts)


KINDS = {
    "latency": (plot_latency, "point",
                "latency vs message size, log-log, median (or mean) with CI bars,"
                " a line per op x scheme x method"),
    "bandwidth": (plot_bandwidth, "point",
                  "bandwidth (MB/s) vs message size of the throughput operations, median with its CI as bars"),
    "gantt": (plot_gantt, "point",
              "per-rank start/end of raw repetitions on the global clock (--op, --size, --reps)"),
    "offset": (plot_offset, "accuracy", "clock offset to rank 0 vs time after sync, per rank"),
    "sync": (plot_sync, "summary",
             "sync duration vs max clock offset, a point per run, a panel per wait"),
    "skew": (plot_skew, "skew", "barrier exit-skew distribution per algorithm (violin + box)"),
    "shift": (plot_shift, "shift", "ring-shift success rate after each barrier, per size"),
    "payoff": (plot_payoff, "payoff", "shift time with and without synchronizing first, vs size"),
    "launches": (_plot_launches, "point",
                 "per-launch medians of every point with the CI across launches (launch sets)"),
}


def available(ds: Dataset) -> list[str]:
    """The plot kinds this dataset has data for, in KINDS order."""
    out = []
    for name, (_fn, rtype, _doc) in KINDS.items():
        rows = ds.records.get(rtype, [])
        if name == "gantt":
            rows = [p for p in rows if isinstance(p.get("raw_start_s"), list) and p["raw_start_s"]]
        if name == "launches":
            from .launches import has_launches
            rows = rows if has_launches(rows) else []
        if name == "latency":
            rows = _sized_points(ds, False)
        if name == "bandwidth":
            rows = _sized_points(ds, True)
        if rows:
            out.append(name)
    return out


def plot(ds: Dataset, kind: str, **opts: Any) -> Figure:
    """The Figure of one plot kind (see ``KINDS``) for a Dataset."""
    if kind not in KINDS:
        raise IsochronError(f"unknown plot kind {kind!r} (valid kinds: {', '.join(KINDS)})")
    return KINDS[kind][0](ds, **opts)


def save(fig: Figure, path: str) -> str:
    """Write a Figure; the format comes from the extension (png, svg or pdf)."""
    check_output(path)
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    try:
        fig.savefig(path, format=ext, dpi=130)
    except OSError as exc:
        raise IsochronError(f"{path}: cannot write the image ({exc.strerror or exc})") from None
    return path


def check_output(path: str, formats: Sequence[str] | None = FORMATS) -> None:
    """Refuse, before any work, an output file that cannot be written: an unknown image format
    (``formats``; None: any), a directory that does not exist, is not a directory or is not
    writable, or a path that is a directory."""
    path = os.fspath(path)
    if not path or path.endswith(os.sep) or os.path.isdir(path):
        raise IsochronError(f"{path}: is a directory; give a file name")
    if formats is not None:
        ext = os.path.splitext(path)[1].lstrip(".").lower()
        if ext not in formats:
            raise IsochronError(f"{path}: unknown image format {ext!r} (use "
                                + ", ".join("." + f for f in formats[:-1]) + f" or .{formats[-1]})")
    d = os.path.dirname(path) or "."
    if not os.path.isdir(d):
        what = "is not a directory" if os.path.exists(d) else "does not exist"
        raise IsochronError(f"{path}: cannot write: the directory {d} {what}")
    if not os.access(d, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise IsochronError(f"{path}: cannot write: permission denied")
