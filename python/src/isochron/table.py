"""Summary tables of a result file, the same for the terminal (``isochron show``) and the report.

A :class:`Table` is a title, column headers and rows of already formatted strings, so that the
text and HTML renderers print exactly the same numbers. ``tables(ds)`` picks the tables a
dataset calls for: benchmark points grouped by operation, then scheme and timing method (sizes
in binary units, times in µs, the confidence interval and valid/total repetitions beside every
statistic); clock accuracy per run and wait; the barrier driver's skew, cost, shift and payoff
tables. Columns that would repeat one value on every row (root, datatype, process count, run)
are left out and said once in the header lines instead.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .base import Record
from .units import MISSING, fmt_bytes, fmt_mbps, fmt_pct, fmt_time, is_missing, is_rate, rate, short_spec

if TYPE_CHECKING:                            # for the annotations only
    from .dataset import Dataset


@dataclass
class Table:
    title: str
    columns: list
    rows: list
    right: set = field(default_factory=set)   # indexes of right-aligned columns
    notes: list = field(default_factory=list)

    def text(self) -> str:
        ncol = len(self.columns)
        rows = [[str(v) for v in r[:ncol]] for r in self.rows]
        cols = list(zip(*rows)) if rows else [()] * ncol
        widths = [max(len(c), max(map(len, col), default=0)) for c, col in zip(self.columns, cols)]
        just = [str.rjust if i in self.right else str.ljust for i in range(ncol)]

        def line(cells: Sequence[str]) -> str:
            return "  ".join([j(v, w) for j, v, w in zip(just, cells, widths)]).rstrip()

        body = [self.title, line(self.columns)] + [line(r) for r in rows]
        return "\n".join(body + [f"  {n}" for n in self.notes])


def _varies(rows: Sequence[Record], key: str) -> bool:
    return len({repr(r.get(key)) for r in rows}) > 1


def describe_run(ctx: Mapping[str, Any]) -> str:
    """One line naming what a run measured on: tool, hosts, ranks, MPI, timer, clock sync."""
    run = ctx.get("run", ctx)           # bench/barrier nest these under "run"; clock is flat
    ranks = ctx.get("nprocs", run.get("ranks"))
    nodes = ctx.get("nodes")
    where = f"{ranks} ranks" + (f" on {nodes} node{'s' if nodes != 1 else ''}" if nodes else "")
    if ctx.get("oversubscribed"):
        where += " (oversubscribed)"
    mpi = (run.get("mpi_library") or "MPI ?").split(",")[0]
    parts = [ctx.get("tool", "?"), f"host {run.get('host', '?')}", where, mpi,
             f"timer {ctx.get('timer', '?')}"]
    cs = ctx.get("clock_sync")
    if isinstance(cs, dict):
        kind = "true" if not is_missing(cs.get("max_abs_true_offset_s")) else "measured"
        acc = fmt_time(cs.get(f"max_abs_{kind}_offset_s"), digits=2)
        took = fmt_time(cs.get("duration_s"), "s", 2)
        tracked = {True: ", tracked", False: ", not tracked", None: ""}.get(cs.get("tracking"), "")
        parts.append(f"clock {short_spec(cs.get('spec'))} ({took} s, max offset {acc} µs {kind}{tracked})")
    elif ctx.get("sync_spec"):
        parts.append(f"clock {short_spec(ctx['sync_spec'])}")
        skew = ctx.get("skew")
        if isinstance(skew, dict):
            parts.append(f"skew injected ({skew.get('spec')})")
    if ctx.get("scheme"):
        parts.append(f"scheme {ctx['scheme']}, method {ctx.get('method', '?')}")
    return ", ".join(parts)


def header_lines(ds: Dataset) -> list[str]:
    lines = []
    for i, ctx in enumerate(ds.contexts):
        lines.append(f"run {i + 1}: {describe_run(ctx)}  [{ctx.get('file')}]")
    return lines


# Column names mean what they mean in the drivers' tables (docs/output.md, "The tables, column by
# column"): the mean's Student-t interval is "CI(mean)", never plain "CI"; "!" marks an uncertain
# point (the median's CI half-width plus the clock bound above 10 % of the median), as the drivers do.
_STAT_COLS = ["valid/reps", "median [µs]", "mean [µs]", "CI(mean) [µs]", "min [µs]", "max [µs]"]
_TIME_KEYS = ("median_s", "mean_s", "ci_lo_s", "ci_hi_s", "min_s", "max_s", "median_ci_lo_s",
              "median_ci_hi_s")
UNCERTAIN_MARK = " !"
CLOCK_MARK = " >5%"   # the clock cell of a point whose bound is above CLOCK_WARN of its median


def resolution_cell(p: Mapping[str, Any]) -> str:
    """'<= R' (R = the point's resolution_s in µs), or 'below resolution' when it is unknown."""
    r = p.get("resolution_s")
    if isinstance(r, (int, float)) and not isinstance(r, bool) and not is_missing(r) and r > 0:
        return f"<= {fmt_time(r)}"
    return "below resolution"


#: times that are values of repetitions (the median's interval is two order statistics): one
#: below zero is a subtraction's result below resolution, never a time. (The mean's Student-t
#: interval may reach below zero on skewed repetitions: its cell says so, the point stays.)
_SAMPLE_KEYS = ("median_s", "min_s", "median_ci_lo_s", "median_ci_hi_s")


def _resolution(p: Mapping[str, Any]) -> float | None:
    r = p.get("resolution_s")
    if isinstance(r, (int, float)) and not isinstance(r, bool) and not is_missing(r) and r > 0:
        return float(r)
    return None


def below_resolution(p: Mapping[str, Any]) -> bool:
    """The point's median cannot be stated: flagged by the driver (below_resolution) with its
    median below its resolution R (the drivers also flag a point whose minimum or a CI end alone
    is below R or negative: its median at or above R stands, those values show as '<= R'), or a
    negative median, minimum or median-interval end (a subtraction method's result in files
    written before the flag existed)."""
    if p.get("below_resolution") is True:
        r, m = _resolution(p), p.get("median_s")
        if r is not None and isinstance(m, (int, float)) and not isinstance(m, bool) and not is_missing(m) and m >= r:
            return False
        return True
    for k in _SAMPLE_KEYS:
        v = p.get(k)
        if (v.__class__ is float or v.__class__ is int) and v < 0:
            return True
    return False


def time_cell(p: Mapping[str, Any], key: str, below: bool | None = None) -> str:
    """One time of a point in µs; never a negative number, nor, for a point below its
    resolution, a number below that resolution: '<= R' instead."""
    v = p.get(key)
    if is_missing(v):
        return MISSING
    below = below_resolution(p) if below is None else below
    flagged = p.get("below_resolution") is True
    if not below and not flagged and (v.__class__ is float or v.__class__ is int) and v >= 0:
        return fmt_time(v)                     # the common case, first
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        r = _resolution(p)
        if v < 0 or ((below or flagged) and (r is None or v <= r)):
            return resolution_cell(p)
    return fmt_time(v)


def _stat_cells(p: Record) -> list[str]:
    below = below_resolution(p)
    ci = MISSING
    if not is_missing(p.get("ci_lo_s")) and not is_missing(p.get("ci_hi_s")):
        ci = f"{time_cell(p, 'ci_lo_s', below)} .. {time_cell(p, 'ci_hi_s', below)}"
    med = time_cell(p, "median_s", below)
    if p.get("uncertain") is True:
        med += UNCERTAIN_MARK
    return [f"{p.get('valid', 0)}/{p.get('reps', 0)}", med, time_cell(p, "mean_s", below), ci,
            time_cell(p, "min_s", below), time_cell(p, "max_s", below)]


def _rate_cells(p: Record) -> list[str]:
    r = rate(p)
    if r is None:
        return [MISSING] * 4
    med, lo, hi, msgs = r
    ci = MISSING if is_missing(lo) or is_missing(hi) else f"{fmt_mbps(lo)} .. {fmt_mbps(hi)}"
    return [fmt_mbps(med), ci, MISSING if is_missing(msgs) else f"{msgs:.4g}", str(p.get("msg_window", MISSING))]


def _ci_note(points: Sequence[Record]) -> str:
    levels: set[Any] = {p.get("ci_level") for p in points if not is_missing(p.get("ci_level"))}
    level = ", ".join(f"{100 * lv:g} %" for lv in sorted(levels)) or "?"
    return f"CI(mean): {level} confidence interval of the mean (Student's t), over valid repetitions"


CLOCK_WARN = 0.05   # a clock error bound above this share of the median makes a point doubtful


def _clock_cells(p: Record, with_true: bool, kinds: Sequence[str] = ()) -> list[str]:
    """The clock's error at the end of the point: estimated bound (flagged when it is more than
    5 % of the median), and the true error when all ranks shared a host. With several bound
    kinds in one table, each cell says its own."""
    b, med = p.get("clock_bound_s"), p.get("median_s")
    cell = fmt_time(b)
    if not is_missing(b) and not is_missing(med) and med and b > CLOCK_WARN * abs(med):
        cell += CLOCK_MARK
    if len(kinds) > 1 and isinstance(p.get("clock_bound_kind"), str) and not is_missing(b):
        cell += f" ({p['clock_bound_kind']})"
    return [cell] + ([fmt_time(p.get("clock_true_s"))] if with_true else [])


def _clock_kinds(group: Sequence[Record]) -> list[str]:
    return sorted({p["clock_bound_kind"] for p in group if isinstance(p.get("clock_bound_kind"), str)
                   and not is_missing(p.get("clock_bound_s"))})


_KIND_NOTE = {"statistical": "statistical: the clock error is within the bound with high probability"
                             " (estimated from the synchronization's residuals)",
              "hard": "hard: the clock error cannot exceed the bound (from round-trip limits)"}


def _timing_cell(p: Record) -> str:
    t = p.get("timing")
    if not isinstance(t, str):
        return MISSING
    k = p.get("loop_k")
    cell = t + (f" k={k}" if isinstance(k, int) and not isinstance(k, bool) and k > 1 else "")
    return cell + (" (user)" if p.get("timing_choice") == "user" else "")


def _point_table(title: str, group: Sequence[Record], lead: list[str], right_from: set[int]) -> Table:
    """Rows of points: the ``lead`` columns, then columns that vary, size and statistics."""
    optional = [k for k in ("run", "nprocs", "root", "dtype", "redop", "in_place")
                if _varies(group, k)]
    if any(not is_missing(p.get("threads")) for p in group):   # threaded operations (latency_mt): threads per rank
        optional.append("threads")
    if any(isinstance(p.get("timing"), str) for p in group):    # how one repetition was timed
        optional.append("timing")
    with_clock = any(not is_missing(p.get("clock_bound_s")) for p in group)
    with_true = with_clock and any(not is_missing(p.get("clock_true_s")) for p in group)
    kinds = _clock_kinds(group) if with_clock else []
    clock_head = f"clock ± {kinds[0]} [µs]" if len(kinds) == 1 else "clock ± [µs]"
    clock_cols = ([clock_head] + (["clock true [µs]"] if with_true else [])) if with_clock else []
    with_rate = any(is_rate(p) for p in group)
    rate_cols = ["MB/s (median)", "CI MB/s (median)", "msg/s (median)", "window"] if with_rate else []
    cols = lead + optional + ["size"] + _STAT_COLS + rate_cols + clock_cols + ["stop"]
    rows = []
    for p in group:
        extra = [p["run"] + 1 if k == "run" else _timing_cell(p) if k == "timing" else p.get(k)
                 for k in optional]
        rows.append([p.get(k) for k in lead] + extra + [fmt_bytes(p.get("bytes"))]
                    + _stat_cells(p) + (_rate_cells(p) if with_rate else [])
                    + (_clock_cells(p, with_true, kinds) if with_clock else [])
                    + [p.get("stop", "")])
    first = len(lead) + len(optional)
    notes = [_ci_note(group)]
    if any(below_resolution(p) for p in group):
        notes.append("<= R: the value is below the point's resolution R (timer granularity and read"
                     " cost, plus the clock bound where the method uses the global clock) or its"
                     " subtraction came out negative; the raw statistics stay in the JSON")
    if any(p.get("uncertain") is True for p in group):
        notes.append(f"{UNCERTAIN_MARK.strip()} = uncertain: the median's CI half-width plus the clock"
                     " bound exceed 10 % of the median")
    if "timing" in optional:
        notes.append("timing: how one repetition was timed (origin: at the origin only; global:"
                     " start/end on the global clock; loop k=K: K back-to-back calls, times per"
                     " call); (user): chosen by the user, else automatic")
    if with_clock:
        notes.append("clock ±: the tracked clock's estimated error bound at the end of the point"
                     + ("; true: against the host-wide clock or the injected skew" if with_true else "")
                     + f";{CLOCK_MARK} = bound above {100 * CLOCK_WARN:g} % of the median"
                     + "".join(f"; {_KIND_NOTE.get(k, k)}" for k in kinds))
    if with_rate:
        notes.append("MB/s = 10^6 bytes/s: bytes one run moves (a window of every sender) / median time of a run;"
                     " its interval is the median's interval in time, inverted; msg/s likewise")
    return Table(title, cols, rows,
                 right=set(range(first, first + 7 + len(rate_cols) + len(clock_cols))) | right_from, notes=notes)


def point_tables(points: Sequence[Record]) -> list[Table]:
    """Benchmark points: one table per operation, rows by scheme, method, (root...), size."""
    out = []
    for name in dict.fromkeys(p.get("op") for p in points):
        group = [p for p in points if p.get("op") == name]
        group.sort(key=lambda p: (p.get("run", 0), str(p.get("scheme")), str(p.get("method")),
                                  str(p.get("root")), p.get("bytes") or 0))
        p0 = group[0]
        fixed = [f"{p0['family']} family"] if p0.get("family") not in (None, name) else []
        fixed += [f"{k} {p0[k]}" for k in ("dtype", "redop")
                  if not _varies(group, k) and p0.get(k) not in (None, "-", "")]
        title = f"operation {name}" + (f" ({', '.join(fixed)})" if fixed else "")
        out.append(_point_table(title, group, ["scheme", "method"], set()))
    return out


def clock_table(ds: Dataset) -> list[Table]:
    summ = ds.records.get("summary", [])
    if not summ:
        return []
    syncs = {s["run"]: s for s in ds.records.get("sync", [])}
    tracks = {t["run"]: t for t in ds.records.get("track", [])}
    with_bound = any(not is_missing(s.get("max_bound_s")) for s in summ)
    with_kind = any(s.get("bound_kind") for s in summ)   # files since both bounds are recorded
    cols = (["run", "sync spec", "sync [s]", "rounds", "wait [s]", "max |measured| [µs]", "max |true| [µs]"]
            + (["bound [µs]"] if with_bound else []) + (["bound kind", "hard bound [µs]"] if with_kind else []))
    rows = [[s["run"] + 1, short_spec(s.get("sync_spec")), fmt_time(s.get("duration_s"), "s", 3),
             syncs.get(s["run"], {}).get("rounds", MISSING), f"{s.get('wait_s'):g}",
             fmt_time(s.get("max_abs_measured_offset_s")), fmt_time(s.get("max_abs_true_offset_s"))]
            + ([fmt_time(s.get("max_bound_s"))] if with_bound else [])
            + ([s.get("bound_kind") or MISSING, fmt_time(s.get("max_bound_hard_s"))] if with_kind else [])
            for s in summ]
    right = set(range(len(cols))) - {1}
    if len(syncs) <= 1:                      # one run: the run column says nothing
        cols, rows, right = cols[1:], [r[1:] for r in rows], {i - 1 for i in right if i}
    notes = ["measured: ping-pong (Algorithm 6); true: against the kernel's clock shared by every rank on one kernel"
             " (namespaces and containers included) or the injected skew (– when the ranks run on several kernels)"]
    if with_kind:
        notes.append("bound: the one stated: statistical (4 sigma of the tracking filter; assumes both directions of a path"
                     " take equal time) unless its premises failed or the hard one (from ping-pong intervals alone) is smaller")
    for run, s in syncs.items():
        t = tracks.get(run)
        if s.get("tracking") is False:
            notes.append(f"run {run + 1}: clock synchronized once, not tracked")
        elif t:
            each = t["cost_s"] / t["refreshes"] if t.get("refreshes") else None
            notes.append(f"run {run + 1}: clock tracked between the checks: {t.get('refreshes')} refreshes,"
                         f" {fmt_time(t.get('cost_s'), 's', 3)} s in all ({fmt_time(each, 's', 4)} s each)"
                         + ("" if with_kind else "; bound: the tracker's estimate (4 sigma)"))
    return [Table("clock synchronization: largest offset of any rank to rank 0, after each wait",
                  cols, rows, right=right, notes=notes)]


def barrier_tables(ds: Dataset) -> list[Table]:
    out = []
    rds = ds.records.get("rds_constants", [])
    if rds:
        out.append(Table("rds constants (measured)",
                         ["run", "b_s [µs]", "s [µs]", "samples", "pair"],
                         [[r["run"] + 1, fmt_time(r.get("b_s_s")), fmt_time(r.get("s_s")),
                           r.get("samples"), r.get("pair")] for r in rds], right={0, 1, 2, 3}))
    skew = ds.records.get("skew", [])
    if skew:
        rows = []
        for s in skew:
            e, c = s.get("exit_skew_s") or {}, s.get("cost_s") or {}
            rows.append([s.get("barrier"), f"{s.get('valid')}/{s.get('calls')}",
                         fmt_time(e.get("median")), fmt_time(e.get("p95")), fmt_time(e.get("max")),
                         fmt_time(e.get("mean")), fmt_time(c.get("median")),
                         fmt_time(c.get("p95"))])
        out.append(Table("barrier exit skew (last minus first exit, global clock)",
                         ["barrier", "valid/calls", "skew median [µs]", "p95 [µs]", "max [µs]",
                          "mean [µs]", "cost median [µs]", "cost p95 [µs]"],
                         rows, right=set(range(1, 8))))
    cost = ds.records.get("cost", [])
    if cost:
        c0 = cost[0]
        out.append(_point_table(f"barrier cost ({c0.get('scheme')} scheme, {c0.get('method')}"
                                " method)", cost, ["barrier"], set()))
    shift = ds.records.get("shift", [])
    if shift:
        rows = []
        for s in shift:
            cost = s.get("shift_cost_s") or {}
            rows.append([s.get("barrier"), fmt_bytes(s.get("bytes")), s.get("trials"),
                         s.get("successes"), fmt_pct(s.get("success_rate")),
                         fmt_time(cost.get("median")), fmt_time(cost.get("p95"))])
        out.append(Table("ring shift after each barrier: concurrent starts",
                         ["barrier", "size", "trials", "successes", "success rate",
                          "shift median [µs]", "p95 [µs]"], rows, right=set(range(1, 7))))
    for p in ds.records.get("payoff", []):
        rows = [["model (Hockney, d = %s)" % p.get("d"), fmt_bytes(p.get("model_min_bytes"))],
                ["measured", fmt_bytes(p.get("measured_min_bytes"))]]
        out.append(Table("message size from which synchronizing before a shift pays off",
                         ["source", "min size"], rows, right={1},
                         notes=["– : no size in the measured range"]))
    return out


def tables(ds: Dataset) -> list[Table]:
    """Every table a dataset calls for, in reading order."""
    return (point_tables(ds.records.get("point", [])) + clock_table(ds) + barrier_tables(ds))


def render_text(ds: Dataset) -> str:
    from .dataset import no_cyclic_gc
    parts = ["\n".join(header_lines(ds))]
    with no_cyclic_gc():                     # many rows of cells, no cycles among them
        parts += [t.text() for t in tables(ds)]
    if ds.warnings:
        parts.append("\n".join(f"warning: {w}" for w in ds.warnings))
    return "\n\n".join(parts) + "\n"
