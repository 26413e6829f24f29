"""One self-contained HTML page with every table and plot for a set of result files.

The page needs nothing beside itself: styles are inline and every figure is a PNG embedded as
base64, so it can be mailed, archived with the raw JSON Lines, or opened on a machine without
isochron. It is built from the same pieces as the command line: ``tables.tables`` for the
numbers (so the page and ``isochron show`` never disagree), ``plots.available`` for the plots
the data allows, and ``compare`` between benchmark runs that differ only in scheme or timing
method. Warnings about truncated input are shown at the top, not buried.
"""
from __future__ import annotations

import base64
import datetime
import html
import io
import os
from typing import TYPE_CHECKING, Sequence

from ._version import __version__
from .comparison import compare, comparison_table
from .dataset import IsochronError, read
from .launches import launch_summary, launch_tables
from .plots import KINDS, available, plot
from .table import describe_run, tables

if TYPE_CHECKING:                            # for the annotations only
    from matplotlib.figure import Figure

    from .dataset import Dataset
    from .table import Table
    from .trace import Trace

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 .2em;font-size:13px}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{padding:.2em .7em;border-bottom:1px solid #e4e4e4;white-space:nowrap}
th{background:#f3f3f3;text-align:left}td.r,th.r{text-align:right}
.note{color:#555;font-size:12px;margin:.1em 0 1em}.warn{background:#fff4e0;border:1px solid #f0b040;
padding:.6em 1em}figure{margin:1.2em 0}figcaption{color:#555;font-size:12px}
img{max-width:100%;border:1px solid #eee}code{background:#f3f3f3;padding:0 .3em}
.REGRESSION{color:#b00;font-weight:600}.improvement{color:#070;font-weight:600}
"""


def _e(x):
    return html.escape(str(x))


def table_html(t: Table) -> str:
    head = "".join(f'<th class="{"r" if i in t.right else ""}">{_e(c)}</th>'
                   for i, c in enumerate(t.columns))
    body = []
    for row in t.rows:
        cells = "".join(f'<td class="{"r" if i in t.right else ""} {_e(v)}">{_e(v)}</td>'
                        for i, v in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in t.notes)
    return (f"<table><caption>{_e(t.title)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{notes}")


def figure_html(fig: Figure, caption: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return (f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _gantt_figures(ds):
    """One Gantt chart per operation (largest size with raw data), at most four."""
    ops = list(dict.fromkeys(p["op"] for p in ds.records.get("point", [])
                             if isinstance(p.get("raw_start_s"), list) and p["raw_start_s"]))
    return [(plot(ds, "gantt", op=op), f"gantt ({op}): {KINDS['gantt'][2]}") for op in ops[:4]]


def _comparisons(ds):
    """Each benchmark run against the first one, when they measured the same points."""
    points = ds.records.get("point", [])
    runs = list(dict.fromkeys(p["run"] for p in points))
    out = []
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


def build_html(ds: Dataset, trace: tuple[Trace, str, int] | None = None) -> str:
    parts = [f"<h1>isochron report</h1><p class=note>isochron {__version__}, written "
             f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}</p>"]
    if ds.warnings:
        parts.append('<div class="warn"><b>Incomplete input</b><ul>'
                     + "".join(f"<li>{_e(w)}</li>" for w in ds.warnings) + "</ul></div>")
    parts.append("<h2>Runs</h2><ol>" + "".join(
        f"<li>{_e(describe_run(c))}<br><code>{_e(c.get('file'))}</code>"
        f"{'<br><code>' + _e(c.get('command') or c.get('run', {}).get('command')) + '</code>'}"
        "</li>" for c in ds.contexts) + "</ol>")
    lt = launch_tables(ds.records.get("point", []) or ds.records.get("cost", []))
    if lt:                       # several launches: their spread is the headline uncertainty
        parts.append("<h2>Across launches</h2>" + "".join(
            f"<p>{_e(line)}</p>" for line in launch_summary(ds))
            + "".join(table_html(t) for t in lt))
    parts.append(("<h2>Tables of each launch</h2>" if lt else "<h2>Tables</h2>")
                 + "".join(table_html(t) for t in tables(ds)))
    cmps = _comparisons(ds)
    if cmps:
        parts.append("<h2>Comparisons</h2>" + "".join(table_html(t) for t in cmps))
    parts.append("<h2>Plots</h2>")
    for kind in available(ds):
        if kind == "gantt":
            figs = _gantt_figures(ds)
        else:
            try:
                figs = [(plot(ds, kind), f"{kind}: {KINDS[kind][2]}")]
            except IsochronError as exc:  # records of the kind, none drawable: say so, keep the rest
                parts.append(f"<p class=note>{_e(kind)}: not drawn: {_e(str(exc))}</p>")
                continue
        parts += [figure_html(fig, cap) for fig, cap in figs]
    if trace:                    # (path, call, instance): a libisochron-trace.so trace's Gantt chart
        from .trace import Trace, gantt_figure, instance_table, load_trace
        tr = trace[0] if isinstance(trace[0], Trace) else load_trace(trace[0])
        parts.append(f"<h2>Trace</h2><p><code>{_e(tr.path)}</code></p><pre>"
                     + _e("\n".join(instance_table(tr, trace[1], trace[2]))) + "</pre>")
        parts.append(figure_html(gantt_figure(tr, trace[1], trace[2]),
                                 f"{trace[1]} instance {trace[2]} across ranks: global clock | local clocks"))
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
