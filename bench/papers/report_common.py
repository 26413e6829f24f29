"""Helpers shared by the paper reports (bench/papers/paperNNN_report.py, run by paperNNN.sh): the
command line every report takes and the time format of their tables. Imported from the reports'
own directory (Python puts a script's directory first on sys.path).

usage of a report: paperNNN_report.py RESULTS.jsonl FIGURE.png TITLE
"""
import json
import math
import sys


def args():
    """(the records of RESULTS.jsonl, FIGURE.png, TITLE) from the command line; lines not starting
    with "{" (a run's context) are skipped"""
    with open(sys.argv[1]) as f:
        recs = [json.loads(line) for line in f if line.startswith("{")]
    return recs, sys.argv[2], sys.argv[3]


def fmt_time(x, ns=1, us=2, ms=3):
    """seconds as "-" (None or NaN), ns below 1 us, us below 1 ms, else ms; ns/us/ms: the decimals of each"""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    a = abs(x)
    return f"{x * 1e9:.{ns}f} ns" if a < 1e-6 else f"{x * 1e6:.{us}f} us" if a < 1e-3 else f"{x * 1e3:.{ms}f} ms"


def panels(rows=2, cols=3, size=(16, 9.5)):
    """(figure, axes) of the report's figure: rows x cols panels, drawn without a display"""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(rows, cols, figsize=size)


def save(fig, path, title):
    """the figure under its title, written to path"""
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def axes(ax, xlabel, ylabel, title, size=9, xlog=None, ylog=False, legend=None):
    """a panel's labels (None: none) and title (its font size), its scales (xlog: the base of a log x
    axis; ylog: a log y axis) and its legend (legend: ax.legend's options; None: no legend)"""
    if xlog:
        ax.set_xscale("log", base=xlog)
    if ylog:
        ax.set_yscale("log")
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=size)
    if legend is not None:
        ax.legend(**legend)
