"""One self-contained HTML page with every table and plot for a set of result files.

The page needs nothing beside itself: styles are inline and every figure is a PNG embedded as
base64, so it can be mailed, archived with the raw JSON Lines, or opened on a machine without
isochron. It is built from the same pieces as the command line: ``tables.tables`` for the
numbers (so the page and ``isochron show`` never disagree), ``plots.available`` for the plots
the data allows, and ``compare`` between benchmark runs that differ only in scheme or timing
method. It leads with the answer (issue 36): a summary (what ran where, the headline numbers,
every warning once) and a table of contents; then each table with its plot beside it, and each
section's footnotes once, numbered, where the tables refer to them.
"""
from __future__ import annotations

import base64
import datetime
import html
import io
import os
from typing import TYPE_CHECKING, Any, Sequence

from ._version import __version__
from .comparison import compare, comparison_table
from .dataset import IsochronError, read
from .launches import launch_summary, launch_tables
from .plots import KINDS, available, plot
from .table import below_resolution, describe_run, tables
from .units import fmt_bytes, fmt_time, is_missing

if TYPE_CHECKING:                            # for the annotations only
    from matplotlib.figure import Figure

    from .dataset import Dataset
    from .table import Table
    from .trace import Trace

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1900px;color:#222;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
h3{margin:1.2em 0 .3em;font-size:1.05em}
table{border-collapse:collapse;margin:.4em 0 .2em;font-size:13px}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{padding:.2em .6em;border-bottom:1px solid #e4e4e4;white-space:nowrap}
th{background:#f3f3f3;text-align:left;white-space:normal;vertical-align:bottom;min-width:3em}td.r,th.r{text-align:right}
.note{color:#555;font-size:12px;margin:.1em 0 .6em}.warn{background:#fff4e0;border:1px solid #f0b040;
padding:.4em 1em;margin:.6em 0}figure{margin:.4em 0}figcaption{color:#555;font-size:12px;max-width:560px}
img{max-width:100%;border:1px solid #eee}code{background:#f3f3f3;padding:0 .3em}
.REGRESSION{color:#b00;font-weight:600}.improvement{color:#070;font-weight:600}
.pair{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start}.pair>div{overflow-x:auto;max-width:100%}
.pair>div+div{flex:1 1 360px;min-width:360px;max-width:640px;overflow:visible}
.pair figure img{width:100%;box-sizing:border-box}.summary{background:#f6f8fa;border:1px solid #dde3ea;padding:.5em 1.2em .8em}
.summary li{margin:.15em 0}nav ol{columns:2;margin:.3em 0}sup a{text-decoration:none}
ol.notes{font-size:12px;color:#444;padding-left:1.6em}
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


class _Notes:
    """The footnotes of one section: each distinct note once, numbered; tables refer to them."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.index: dict[str, int] = {}

    def refs(self, notes: Sequence[str]) -> str:
        nums = []
        for n in notes:
            nums.append(self.index.setdefault(n, len(self.index) + 1))
        return "".join(f'<sup><a href="#{self.prefix}-n{k}">[{k}]</a></sup>' for k in sorted(set(nums)))

    def html(self) -> str:
        if not self.index:
            return ""
        return ('<ol class="notes">' + "".join(f'<li id="{self.prefix}-n{k}">{_e(n)}</li>'
                                            for n, k in self.index.items()) + "</ol>")


def table_html(t: Table, notes: _Notes | None = None) -> str:
    """A table; its notes below it, or, with ``notes``, as references to the section's footnotes."""
    head = "".join(f'<th class="{"r" if i in t.right else ""}">{_e(c)}</th>'
                   for i, c in enumerate(t.columns))
    body = []
    for row in t.rows:
        cells = "".join(f'<td class="{"r" if i in t.right else ""} {_e(v)}">{_e(v)}</td>'
                        for i, v in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    if notes is None:
        below = "".join(f'<p class="note">{_e(n)}</p>' for n in t.notes)
        cap = _e(t.title)
    else:
        refs = notes.refs(t.notes)
        below, cap = (f'<p class="note">notes {refs}</p>' if refs else ""), _e(t.title)
    return (f"<table><caption>{cap}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{below}")


def figure_html(fig: Figure, caption: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return (f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _gantt_figures(ds: Dataset) -> dict[str, tuple[Figure, str]]:
    """One Gantt chart per operation (largest size with raw data), at most four: {op: (fig, caption)}."""
    ops = list(dict.fromkeys(p["op"] for p in ds.records.get("point", [])
                             if isinstance(p.get("raw_start_s"), list) and p["raw_start_s"]))
    return {op: (plot(ds, "gantt", op=op), f"gantt ({op}): {KINDS['gantt'][2]}") for op in ops[:4]}


def _comparisons(ds: Dataset) -> list[Table]:
    """Each benchmark run against the first one, when they measured the same points."""
    points = ds.records.get("point", [])
    runs = list(dict.fromkeys(p["run"] for p in points))
    out: list[Table] = []
    if any(p.get("launch") is not None for p in points):   # a launch set: config vs the first
        configs = list(dict.fromkeys(p.get("config") for p in points))
        for cfg in configs[1:]:
            try:
                cmp = compare([p for p in points if p.get("config") == configs[0]],
                              [p for p in points if p.get("config") == cfg])
            except IsochronError:
                continue
            out.append(comparison_table(cmp, f"config {configs[0]}", f"config {cfg}"))
        return out
    for run in runs[1:]:
        a = [p for p in points if p["run"] == runs[0]]
        b = [p for p in points if p["run"] == run]
        try:
            cmp = compare(a, b)
        except IsochronError:
            continue                      # nothing in common: no comparison to show
        out.append(comparison_table(cmp, f"run {runs[0] + 1}", f"run {run + 1}"))
    return out


# Which plot stands beside which table: a table's title prefix -> the plot kinds drawn from its records.
_PLOT_OF = (("clock synchronization", ("offset", "sync")), ("barrier exit skew", ("skew",)),
            ("ring shift", ("shift",)), ("message size from which", ("payoff",)))
_SECTION_OF = (("operation ", "bench"), ("clock synchronization", "clock"), ("rds constants", "barrier"),
               ("barrier", "barrier"), ("ring shift", "barrier"), ("message size from which", "barrier"))
_SECTIONS = {"bench": "Benchmark points", "clock": "Clock synchronization", "barrier": "Barriers"}


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not is_missing(x)


def _headlines(ds: Dataset) -> list[str]:
    """The answer in a few lines: each operation's median over its sizes, the clock's largest
    error, the barriers' exit skew, where synchronizing pays off."""
    out = []
    points = ds.records.get("point", [])
    for op in dict.fromkeys(p.get("op") for p in points):
        group = sorted((p for p in points if p.get("op") == op and _num(p.get("median_s"))
                        and not below_resolution(p)), key=lambda p: p.get("bytes") or 0)
        if not group:
            continue
        ends = [group[0]] + ([group[-1]] if len(group) > 1 else [])
        text = " … ".join(f"{fmt_time(p['median_s'], digits=3)} µs at {fmt_bytes(p.get('bytes'))}"
                          + (" !" if p.get("uncertain") is True else "") for p in ends)
        out.append(f"{op}: median {text}")
    summ = [r for r in ds.records.get("summary", []) if _num(r.get("max_abs_measured_offset_s"))]
    if summ:
        worst = max(summ, key=lambda r: r.get("max_abs_true_offset_s") if _num(r.get("max_abs_true_offset_s"))
                    else r["max_abs_measured_offset_s"])
        true = worst.get("max_abs_true_offset_s")
        out.append(f"clock: largest offset to rank 0 {fmt_time(true if _num(true) else worst['max_abs_measured_offset_s'], digits=3)} µs "
                   f"{'true' if _num(true) else 'measured'} (at {worst.get('wait_s'):g} s after sync), stated bound "
                   f"{fmt_time(worst.get('max_bound_s'), digits=3)} µs {worst.get('bound_kind') or ''}".rstrip())
    skew = [r for r in ds.records.get("skew", []) if _num((r.get("exit_skew_s") or {}).get("median"))]
    if skew:
        out.append("barrier exit skew (median): " + ", ".join(
            f"{r.get('barrier')} {fmt_time(r['exit_skew_s']['median'], digits=3)} µs"
            for r in sorted(skew, key=lambda r: r["exit_skew_s"]["median"])))
    for r in ds.records.get("payoff", []):
        def at(b: Any) -> str:
            return f"from {fmt_bytes(b)}" if _num(b) else "at no size measured"
        out.append(f"synchronizing before a shift pays off {at(r.get('measured_min_bytes'))} (measured),"
                   f" {at(r.get('model_min_bytes'))} (model)")
    return out


def _median_table(ds: Dataset) -> Table:
    """Every operation's median at every size in one table: the numbers the latency plot draws."""
    from .table import Table, time_cell
    points = ds.records.get("point", [])
    sizes = sorted({p.get("bytes") for p in points if _num(p.get("bytes"))})
    rows = []
    for op in dict.fromkeys(p.get("op") for p in points):
        cells = []
        for b in sizes:
            ps = [p for p in points if p.get("op") == op and p.get("bytes") == b]
            cells.append(" / ".join(time_cell(p, "median_s") + (" !" if p.get("uncertain") is True else "")
                                    for p in ps) or "")
        rows.append([op] + cells)
    return Table("median [µs] of every operation at every size", ["operation"] + [fmt_bytes(b) for b in sizes],
                 rows, right=set(range(1, len(sizes) + 1)),
                 notes=["! = uncertain: the median's CI half-width plus the clock bound exceed 10 % of the median",
                        "several values in a cell: one per scheme, method or run, in the order of the tables below"])


def _warnings(ds: Dataset, not_drawn: list[str]) -> list[str]:
    """Every warning once: the input's, then what the points and plots say."""
    out = list(dict.fromkeys(ds.warnings))
    points = ds.records.get("point", []) + ds.records.get("cost", [])
    n = len(points)
    unc = [p for p in points if p.get("uncertain") is True]
    if unc:
        out.append(f"{len(unc)} of {n} points are uncertain (!): the median's CI half-width plus the clock bound"
                   f" exceed 10 % of the median ({', '.join(dict.fromkeys(str(p.get('op') or p.get('barrier')) for p in unc))})")
    below = [p for p in points if below_resolution(p)]
    if below:
        out.append(f"{len(below)} of {n} points are below their resolution: their median is stated as '<= R' only")
    low = [p for p in points if _num(p.get("reps")) and p["reps"] > 0 and _num(p.get("valid"))
           and p["valid"] / p["reps"] < 0.5]
    if low:
        out.append(f"{len(low)} of {n} points kept fewer than half of their repetitions (valid share < 50 %):"
                   " the machine was busy or the start schedule too tight")
    over = [c for c in ds.contexts if c.get("oversubscribed")]
    if over:
        out.append(f"{len(over)} of {len(ds.contexts)} runs had more ranks than cores on a node (oversubscribed)")
    return out + not_drawn


def _figures(ds: Dataset) -> tuple[dict[str, Any], list[str]]:
    """{kind: [(figure html, caption)]} and the notes of plots that could not be drawn."""
    figs: dict[str, Any] = {}
    not_drawn: list[str] = []
    for kind in available(ds):
        try:
            if kind == "gantt":
                figs["gantt"] = {op: figure_html(f, cap) for op, (f, cap) in _gantt_figures(ds).items()}
            else:
                figs[kind] = figure_html(plot(ds, kind), f"{kind}: {KINDS[kind][2]}")
        except IsochronError as exc:  # records of the kind, none drawable: say so, keep the rest
            not_drawn.append(f"{kind}: not drawn: {exc}")
    return figs, not_drawn


def _pair(left: str, right: str) -> str:
    return f'<div class="pair"><div>{left}</div><div>{right}</div></div>' if right else left


def build_html(ds: Dataset, trace: tuple[Trace, str, int] | None = None) -> str:
    """The page: a summary (what ran where, headline numbers, every warning once) and a table of
    contents first; then one section per kind of result, each table with its plot beside it and
    the section's footnotes once at its end."""
    figs, not_drawn = _figures(ds)
    sections = []                              # (anchor, title, html)
    lt = launch_tables(ds.records.get("point", []) or ds.records.get("cost", []))
    if lt:                       # several launches: their spread is the headline uncertainty
        notes = _Notes("launch")
        sections.append(("launches", "Across launches", "".join(
            f"<p>{_e(line)}</p>" for line in launch_summary(ds)) + "".join(table_html(t, notes) for t in lt)
            + notes.html()))
    grouped: dict[str, list[Table]] = {}
    for t in tables(ds):
        sec = next((k for pre, k in _SECTION_OF if t.title.startswith(pre)), "other")
        grouped.setdefault(sec, []).append(t)
    for sec, ts in grouped.items():
        notes = _Notes(sec)
        body = []
        if sec == "bench" and "latency" in figs:
            body.append(_pair(table_html(_median_table(ds), notes), figs.pop("latency")))
        for t in ts:
            right = ""
            if t.title.startswith("operation "):
                op = t.title[len("operation "):].split(" ", 1)[0]
                right = figs.get("gantt", {}).pop(op, "")
            for pre, kinds in _PLOT_OF:
                if t.title.startswith(pre):
                    right = "".join(figs.pop(k, "") for k in kinds)
            body.append(_pair(table_html(t, notes), right))
        title = _SECTIONS.get(sec, "Other tables")
        sections.append((sec, ("Tables of each launch: " if lt else "") + title, "".join(body) + notes.html()))
    cmps = _comparisons(ds)
    if cmps:
        notes = _Notes("cmp")
        sections.append(("comparisons", "Comparisons", "".join(table_html(t, notes) for t in cmps) + notes.html()))
    rest = [f for k, f in figs.items() if k != "gantt"] + list(figs.get("gantt", {}).values())
    if rest:                     # plots whose table is not on the page
        sections.append(("plots", "Other plots", "".join(rest)))
    if trace:                    # (path, call, instance): a libisochron-trace.so trace's Gantt chart
        from .trace import Trace, gantt_figure, instance_table, load_trace
        tr = trace[0] if isinstance(trace[0], Trace) else load_trace(trace[0])
        sections.append(("trace", "Trace", f"<p><code>{_e(tr.path)}</code></p><pre>"
                         + _e("\n".join(instance_table(tr, trace[1], trace[2]))) + "</pre>"
                         + figure_html(gantt_figure(tr, trace[1], trace[2]),
                                       f"{trace[1]} instance {trace[2]} across ranks: global clock | local clocks")))
    sections.append(("runs", "Runs", "<ol>" + "".join(
        f"<li>{_e(describe_run(c))}<br><code>{_e(c.get('file'))}</code>"
        f"{'<br><code>' + _e(c.get('command') or c.get('run', {}).get('command')) + '</code>'}"
        "</li>" for c in ds.contexts) + "</ol>"))

    warns = _warnings(ds, not_drawn)
    summary = ['<div class="summary" id="summary"><h2>Summary</h2>',
               "<p><b>What ran where</b></p><ul>" + "".join(f"<li>{_e(describe_run(c))}</li>" for c in ds.contexts) + "</ul>"]
    heads = _headlines(ds)
    nops = len([h for h in heads if not h.startswith(("clock:", "barrier exit", "synchronizing"))])
    if nops > 8:                 # the rest is one click away
        ops = [h for h in heads if not h.startswith(("clock:", "barrier exit", "synchronizing"))]
        heads = ops[:8] + [f"… and {nops - 8} more operations: see Benchmark points"] + heads[nops:]
    if heads:
        summary.append("<p><b>Headline numbers</b> (medians; every column is defined in isochron's docs/output.md,"
                       " \u201cThe tables, column by column\u201d)</p><ul>" + "".join(f"<li>{_e(h)}</li>" for h in heads) + "</ul>")
    if warns:
        title = "Incomplete input and warnings" if ds.warnings else "Warnings"
        summary.append(f'<div class="warn"><b>{title}</b><ul>' + "".join(f"<li>{_e(w)}</li>" for w in warns) + "</ul></div>")
    else:
        summary.append("<p>No warning.</p>")
    summary.append("</div>")
    toc = ('<nav><b>Contents</b><ol><li><a href="#summary">Summary</a></li>'
           + "".join(f'<li><a href="#{a}">{_e(t)}</a></li>' for a, t, _ in sections) + "</ol></nav>")
    parts = [f"<h1>isochron report</h1><p class=note>isochron {__version__}, written "
             f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}</p>", "".join(summary), toc]
    parts += [f'<h2 id="{a}">{_e(t)}</h2>{h}' for a, t, h in sections]
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>isochron report</title>"
            f"<style>{_CSS}</style></head><body>{''.join(parts)}</body></html>\n")


def write_report(paths: str | Sequence[str], outdir: str,
                 trace: tuple[str, str, int] | None = None) -> tuple[str, Dataset]:
    """Read the result files and write ``outdir/index.html``; returns its path.
    ``trace``: (path, call, instance) of a libisochron-trace.so trace to show too."""
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise IsochronError(f"{outdir}: cannot write the report: it exists and is not a directory"
                            " (-o names the report's directory)")
    ds = read(paths)
    if trace:                    # checked before the tables and plots are drawn
        from .trace import load_trace
        tr = load_trace(trace[0])
        tr.instance(trace[1], trace[2])
    page = build_html(ds, (tr, trace[1], trace[2]) if trace else None)
    try:
        os.makedirs(outdir, exist_ok=True)
        path = os.path.join(outdir, "index.html")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as exc:
        raise IsochronError(f"{outdir}: cannot write the report ({exc.strerror})") from None
    return path, ds
