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
import os

from .load import IsochronError

US = 1e6


class Trace:
    """Calls per rank (each a dict of the JSON event's args plus ``rank``), and the metadata."""

    def __init__(self, path, meta, calls, nranks):
        self.path, self.meta, self.calls, self.nranks = path, meta, calls, nranks

    def instances(self, call):
        """Number of instances of ``call`` (the smallest count over the ranks that made it)."""
        counts = [sum(1 for c in self.calls[r] if c["call"] == call) for r in range(self.nranks)]
        counts = [c for c in counts if c]
        return min(counts) if counts else 0

    def instance(self, call, n):
        """The ``n``-th (0-based) instance of ``call`` on every rank that made it: list of dicts."""
        names = sorted({c["call"] for r in range(self.nranks) for c in self.calls[r]})
        if call not in names:
            raise IsochronError(f"{self.path}: no {call} in the trace (calls there: {', '.join(names) or 'none'})")
        total = self.instances(call)
        if not 0 <= n < total:
            raise IsochronError(f"{self.path}: --instance {n} out of range: {call} has instances 0..{total - 1}")
        out = []
        for r in range(self.nranks):
            mine = [c for c in self.calls[r] if c["call"] == call]
            if n < len(mine):
                out.append(mine[n])
        return out


def load_trace(path):
    """Read NAME.json, or the one isochron trace JSON in a directory."""
    if os.path.isdir(path):
        cands = sorted(f for f in os.listdir(path) if f.endswith(".json"))
        if len(cands) != 1:
            raise IsochronError(f"{path}: expected one trace .json in the directory, found {len(cands)}"
                                f" ({', '.join(cands) or 'none'}); give the file")
        path = os.path.join(path, cands[0])
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise IsochronError(f"{path}: cannot read the trace ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise IsochronError(f"{path}: not a JSON trace ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or "isochron" not in data or "traceEvents" not in data:
        raise IsochronError(f"{path}: not a trace of libisochron-trace.so (no 'isochron' metadata"
                            " and 'traceEvents')")
    ranks = sorted({e["tid"] for e in data["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name"})
    nranks = len(ranks)
    calls = {r: [] for r in range(nranks)}
    for e in data["traceEvents"]:
        if e.get("ph") == "X" and e.get("tid") in calls:
            a = dict(e["args"])
            a["rank"] = e["tid"]
            calls[e["tid"]].append(a)
    return Trace(path, data["isochron"], calls, nranks)


def instance_table(tr, call, n):
    """Text lines: per rank, entry and exit of the instance on both clocks (µs from the earliest entry)."""
    inst = tr.instance(call, n)
    g0 = min(c["global_start_s"] for c in inst)
    l0 = min(c["local_start_s"] for c in inst)
    lines = [f"{call} #{n} across {len(inst)} ranks ({tr.meta.get('clock_correction')}; sync {tr.meta.get('sync_spec')};"
             f" check {float(tr.meta.get('check_max_abs_measured_offset_s', 'nan')) * US:.3f} us)",
             f"{'rank':>4} {'global enter':>13} {'global exit':>12} {'local enter':>12} {'local exit':>11}  (us)"]
    for c in inst:
        lines.append(f"{c['rank']:>4} {(c['global_start_s'] - g0) * US:>13.3f} {(c['global_end_s'] - g0) * US:>12.3f}"
                     f" {(c['local_start_s'] - l0) * US:>12.3f} {(c['local_end_s'] - l0) * US:>11.3f}")
    gap = max(c["global_start_s"] for c in inst) - min(c["global_end_s"] for c in inst)
    lines.append(f"latest entry - earliest exit on the global clock: {gap * US:.3f} us"
                 + (" (a rank left before another entered: clocks off?)" if gap > 0 else ""))
    return lines


def gantt_figure(tr, call, n):
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
    fig.suptitle(f"{call} instance {n}, {len(inst)} ranks; correction: {tr.meta.get('clock_correction')}",
                 fontsize=11)
    return fig
