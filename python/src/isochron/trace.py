"""Traces written by libisochron-trace.so (issue 15): loading, instances, the Gantt chart.

Paper 000, §V-C and Fig. 10: with every rank's calls timestamped on one
synchronized global clock, the N-th instance of a collective can be drawn
across ranks: who entered late, who left first. ``gantt_figure`` draws that
instance twice, side by side: on the global clock (as traced) and on each
rank's own local clock (the timestamps before the correction), each panel
relative to its earliest entry, so the effect of the clock correction (and of
injected drift) is visible. Reads the Perfetto Trace Event JSON
(``NAME.json``), whose events carry both clocks in their args.
"""
from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Any

from .base import Record
from .dataset import IsochronError

if TYPE_CHECKING:                            # for the annotations only
    from matplotlib.figure import Figure


US = 1e6


class Trace:
    """Calls per rank (each a dict of the JSON event's args plus ``rank``), and the metadata."""

    def __init__(self, path: str, meta: dict[str, Any], calls: dict[int, list[Record]], nranks: int,
                     ranks: list[int] | None = None) -> None:
        self.path, self.meta, self.calls, self.nranks = path, meta, calls, nranks
        self.ranks = sorted(calls) if ranks is None else ranks

    def instances(self, call: str) -> int:
        """Number of instances of ``call`` (the smallest count over the ranks that made it)."""
        counts = [sum(1 for c in self.calls[r] if c["call"] == call) for r in self.ranks]
        counts = [c for c in counts if c]
        return min(counts) if counts else 0

    def missing(self, call: str, n: int) -> list[int]:
        """The ranks that did not make the ``n``-th instance of ``call``."""
        return [r for r in self.ranks if sum(1 for c in self.calls[r] if c["call"] == call) <= n]

    def instance(self, call: str, n: int) -> list[Record]:
        """The ``n``-th (0-based) instance of ``call`` on every rank that made it: list of dicts."""
        names = sorted({c["call"] for r in self.ranks for c in self.calls[r]})
        if call not in names:
            raise IsochronError(f"{self.path}: no {call} in the trace (calls there: {', '.join(names) or 'none'})")
        total = self.instances(call)
        if not 0 <= n < total:
            raise IsochronError(f"{self.path}: --instance {n} out of range: {call} has instances 0..{total - 1}")
        out = []
        for r in self.ranks:
            mine = [c for c in self.calls[r] if c["call"] == call]
            if n < len(mine):
                out.append(mine[n])
        return out


#: the args every call event carries (libisochron-trace.so's JSON writer, src/trace/write_json.c)
TIMES = ("global_start_s", "global_end_s", "local_start_s", "local_end_s")


def _event_lines(text: str, n: int) -> list[int] | None:
    """Line number of each event when the file holds one event per line (as the tracer writes
    it), else None."""
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.lstrip().startswith('{"ph"')]
    return starts if len(starts) == n else None


def _is_time(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def load_trace(path: str) -> Trace:
    """Read NAME.json, or the one isochron trace JSON in a directory; every event the Gantt
    chart uses is checked (an error names the file, the event and its line, and the field)."""
    if os.path.isdir(path):
        try:
            cands = sorted(f for f in os.listdir(path) if f.endswith(".json"))
        except OSError as exc:
            raise IsochronError(f"{path}: cannot list the directory ({exc.strerror})") from None
        if len(cands) != 1:
            raise IsochronError(f"{path}: expected one trace .json in the directory, found {len(cands)}"
                                f" ({', '.join(cands) or 'none'}); give the file")
        path = os.path.join(path, cands[0])
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        data = json.loads(text)
    except OSError as exc:
        raise IsochronError(f"{path}: cannot read the trace ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise IsochronError(f"{path}: not a text file (expected a trace of libisochron-trace.so,"
                            " NAME.json)") from None
    except json.JSONDecodeError as exc:
        raise IsochronError(f"{path}: not a JSON trace ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise IsochronError(f"{path}: not a trace of libisochron-trace.so (JSON nested too deep)") from None
    if not isinstance(data, dict) or "isochron" not in data or "traceEvents" not in data:
        raise IsochronError(f"{path}: not a trace of libisochron-trace.so (no 'isochron' metadata"
                            " and 'traceEvents')")
    meta, events = data["isochron"], data["traceEvents"]
    if not isinstance(meta, dict):
        raise IsochronError(f"{path}: field 'isochron' is {type(meta).__name__}, not the"
                            " metadata object libisochron-trace.so writes")
    if not isinstance(events, list):
        raise IsochronError(f"{path}: field 'traceEvents' is {type(events).__name__}, not a list"
                            " of events")
    lines = _event_lines(text, len(events))

    def bad(k: int, what: str) -> IsochronError:
        where = f"{path}:{lines[k]}" if lines else path
        return IsochronError(f"{where}: event {k} (traceEvents[{k}]): {what}")

    named: set[Any] = set()
    calls: dict[Any, list[Any]] = {}
    for k, e in enumerate(events):
        if not isinstance(e, dict):
            raise bad(k, f"is {type(e).__name__}, not an event object")
        ph = e.get("ph")
        if ph not in ("M", "X"):
            continue                       # other Trace Event kinds: not drawn
        if "tid" not in e and (ph == "X" or e.get("name") == "thread_name"):
            raise bad(k, "field 'tid' (the rank) is missing")
        tid = e.get("tid")
        if ph == "M":
            if e.get("name") == "thread_name":
                if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
                    raise bad(k, f"field 'tid' is {tid!r}, not a rank (an integer >= 0)")
                named.add(tid)
            continue
        if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
            raise bad(k, f"field 'tid' is {tid!r}, not a rank (an integer >= 0)")
        a = e.get("args")
        if not isinstance(a, dict):
            raise bad(k, "field 'args' is missing" if a is None and "args" not in e
                      else f"field 'args' is {type(a).__name__}, not an object")
        if not isinstance(a.get("call"), str) or not a.get("call"):
            raise bad(k, f"field 'args.call' is {a.get('call')!r}, not the name of an MPI call")
        for key in TIMES:
            if key not in a:
                raise bad(k, f"field 'args.{key}' is missing")
            if not _is_time(a[key]):
                raise bad(k, f"field 'args.{key}' is {a[key]!r}, not a finite time in seconds")
        for lo, hi in (("global_start_s", "global_end_s"), ("local_start_s", "local_end_s")):
            if a[hi] < a[lo]:
                raise bad(k, f"field 'args.{hi}' ({a[hi]!r}) is before 'args.{lo}' ({a[lo]!r}):"
                          " a call cannot end before it starts")
        a = dict(a)
        a["rank"] = tid
        calls.setdefault(tid, []).append(a)
    ranks = sorted(named | set(calls))
    for r in ranks:
        calls.setdefault(r, [])
    return Trace(path, meta, calls, len(ranks), ranks)


def _meta_us(tr: Trace, key: str) -> str:
    """A metadata time (seconds, a string or a number) as text in µs: "0.123 us"; what is not a time
    is named, never printed as nan: "not recorded" (absent), "not measured" (nan, as the tracer
    writes a figure it has no data for), or the key and its value."""
    v = tr.meta.get(key)
    if v is None:
        return f"not recorded ({key} absent)"
    try:
        x = float(v)
    except (TypeError, ValueError):
        return f"unknown ({key} is {v!r}, not a number)"
    if math.isnan(x):
        return f"not measured ({key} is {v!r})"
    if math.isinf(x):
        return f"unknown ({key} is {v!r}, not a finite number)"
    return f"{x * US:.3f} us"


def instance_table(tr: Trace, call: str, n: int) -> list[str]:
    """Text lines: per rank, entry and exit of the instance on both clocks (µs from the earliest entry)."""
    inst = tr.instance(call, n)
    g0 = min(c["global_start_s"] for c in inst)
    l0 = min(c["local_start_s"] for c in inst)
    lines = [f"{call} #{n} across {len(inst)} ranks ({tr.meta.get('clock_correction')}; sync {tr.meta.get('sync_spec')};"
             f" check {_meta_us(tr, 'check_max_abs_measured_offset_s')})",
             f"{'rank':>4} {'global enter':>13} {'global exit':>12} {'local enter':>12} {'local exit':>11}  (us)"]
    for c in inst:
        lines.append(f"{c['rank']:>4} {(c['global_start_s'] - g0) * US:>13.3f} {(c['global_end_s'] - g0) * US:>12.3f}"
                     f" {(c['local_start_s'] - l0) * US:>12.3f} {(c['local_end_s'] - l0) * US:>11.3f}")
    gap = max(c["global_start_s"] for c in inst) - min(c["global_end_s"] for c in inst)
    lines.append(f"latest entry - earliest exit on the global clock: {gap * US:.3f} us"
                 + (" (a rank left before another entered: clocks off?)" if gap > 0 else ""))
    gone = tr.missing(call, n)
    if gone:                                # said, never dropped silently
        lines.append(f"ranks without {call} #{n} (not drawn): {', '.join(str(r) for r in gone)}")
    return lines


def gantt_figure(tr: Trace, call: str, n: int) -> Figure:
    """Fig. 10 of paper 000: the n-th instance of call across ranks, global clock | local clocks."""
    from matplotlib.figure import Figure
    inst = tr.instance(call, n)
    fig = Figure(figsize=(10, 0.5 * len(inst) + 2), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (s, e, title) in zip(axes, (("global_start_s", "global_end_s", "global clock (as traced)"),
                                        ("local_start_s", "local_end_s", "local clocks (uncorrected)"))):
        t0 = min(c[s] for c in inst)
        for c in inst:
            ax.barh(c["rank"], (c[e] - c[s]) * US, left=(c[s] - t0) * US, height=0.6, color="tab:blue")
            ax.plot([(c[s] - t0) * US, (c[e] - t0) * US], [c["rank"]] * 2, ls="", marker="|", ms=14,
                    color="tab:red")           # entry and exit stay visible when the bar is thin
        ax.set_xlabel("µs from the earliest entry")
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_ylabel("rank")
    axes[0].set_yticks([c["rank"] for c in inst])
    axes[0].invert_yaxis()
    gone = tr.missing(call, n)
    fig.suptitle(f"{call} instance {n}, {len(inst)} ranks; correction: {tr.meta.get('clock_correction')}"
                 + (f"\nranks without this instance: {', '.join(str(r) for r in gone)}" if gone else ""),
                 fontsize=11)
    return fig
