"""Points below their resolution, uncertain points and the clock bound's kind (issue 26 item 3,
CONTRACT.md): tables, comparisons, plots and the report show a point flagged
``below_resolution`` (and, in files written before the flag, a point with a negative median,
minimum or median-interval end) as "<= R", never a negative or sub-resolution number; plots
leave such values off their log axes and write no warning to the terminal; ``uncertain`` points
carry a visible mark; the clock ± column names its bound kind. Files without these fields read
as before (the other test files).

The records are real ones (fixtures/shmem-2pes.jsonl, written by isochron-shmem) with the
fields set as the drivers now write them, or as the subtraction methods wrote them before
(the report of `make run` showed put_nbi_quiet at -0.0037 µs, issue 26).
"""
import json
import os
import re
import subprocess
import sys
import warnings

import pytest
from conftest import fx

import isochron
from isochron.plots import plot

SRC = fx("shmem-2pes.jsonl")


def _write(tmp_path, edit, name="r.jsonl"):
    recs = [json.loads(line) for line in open(SRC)]
    for r in recs:
        if r["type"] == "point":
            edit(r)
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(p)


def _flag_put8(r, R=3.1e-8):
    """put at 8 B as a subtraction method below its resolution: negative raw statistics."""
    if r["op"] == "put" and r["bytes"] == 8:
        r.update(median_s=-3.7e-9, min_s=-1.3e-7, median_ci_lo_s=-9e-9, median_ci_hi_s=-1e-9,
                 mean_s=-2e-9, ci_lo_s=-8e-9, ci_hi_s=4e-9, below_resolution=True, resolution_s=R)


def _old_negative(r):
    """As files written before the flag: the negative statistics alone."""
    if r["op"] == "get" and r["bytes"] == 8:
        r.update(median_s=-4.5e-9, min_s=-1.3e-7, median_ci_lo_s=-9e-9, median_ci_hi_s=-2e-9)


def _row(text, op, size):
    """The table row of op at size from `isochron show` output."""
    block = text.split(f"operation {op}")[1].split("\n\n")[0]
    return next(line for line in block.splitlines()[2:] if f" {size} " in f" {line} ")


NEG = re.compile(r"(?<![\w.])-\d")           # a negative number in a table cell


def test_show_below_resolution_as_at_most_r(cli, tmp_path):
    path = _write(tmp_path, lambda r: (_flag_put8(r), _old_negative(r)))
    rc, out, err = cli("show", path)
    assert rc == 0, err
    put = _row(out, "put", "8 B")
    assert "<= 0.031" in put and not NEG.search(put), put             # R = 31 ns in µs
    get = _row(out, "get", "8 B")
    assert "below resolution" in get and not NEG.search(get), get     # no R in an old file
    assert "<= R: the value is below the point's resolution" in out
    assert not NEG.search(out.split("\n\n", 1)[1]), out               # no negative time anywhere
    # the other points keep their numbers
    assert "2.146" in _row(out, "put", "4 KiB")


def test_uncertain_points_are_marked(cli, tmp_path):
    path = _write(tmp_path, lambda r: r.update(uncertain=r["op"] == "get" and r["bytes"] == 4096))
    rc, out, _ = cli("show", path)
    assert rc == 0
    assert "2.431 !" in _row(out, "get", "4 KiB")
    assert " !" not in _row(out, "get", "8 B")
    assert "! = uncertain" in out


def test_clock_column_names_its_bound_kind(cli, tmp_path):
    def one_kind(r):
        r.update(clock_bound_s=2e-7, clock_bound_kind="statistical", clock_bound_stat_s=2e-7,
                 clock_bound_hard_s=9e-7)
    rc, out, _ = cli("show", _write(tmp_path, one_kind))
    assert rc == 0 and "clock ± statistical [µs]" in out and "statistical: the clock error" in out

    def two_kinds(r):
        one_kind(r)
        if r["op"] == "get" and r["bytes"] == 8:           # two kinds in the get table
            r.update(clock_bound_kind="hard", clock_bound_s=9e-7)
    rc, out, _ = cli("show", _write(tmp_path, two_kinds, "k2.jsonl"))
    assert rc == 0
    assert "(hard)" in _row(out, "get", "8 B") and "(statistical)" in _row(out, "get", "4 KiB")
    get = out.split("operation get")[1].split("\n\n")[0]
    assert "clock ± [µs]" in get and "hard: the clock error cannot exceed the bound" in get


def test_timing_method_is_shown(cli, tmp_path):
    def timed(r):
        r.update(timing="loop", loop_k=64, timing_choice="auto") if r["op"] == "put" else \
            r.update(timing="origin", loop_k=1, timing_choice="user")
    rc, out, _ = cli("show", _write(tmp_path, timed))
    assert rc == 0
    assert "loop k=64" in _row(out, "put", "8 B") and "origin (user)" in _row(out, "get", "8 B")


def test_compare_gives_no_ratio_below_resolution(cli, tmp_path):
    a = _write(tmp_path, lambda r: None, "a.jsonl")
    b = _write(tmp_path, _flag_put8, "b.jsonl")
    rc, out, err = cli("compare", a, b)
    assert rc == 0, err
    row = next(line for line in out.splitlines() if "below resolution" in line)
    assert "<= 0.031" in row and not NEG.search(row)


def test_plots_skip_non_positive_values_without_warnings(tmp_path):
    """The latency plot draws a flagged point as a triangle at R, leaves an old negative one off
    the log axis (said in the title) and raises no warning (they reach the user's terminal)."""
    ds = isochron.read(_write(tmp_path, lambda r: (_flag_put8(r), _old_negative(r))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot(ds, "latency", stat="mean")
        import io
        fig.savefig(io.BytesIO(), format="png", dpi=40)
    ax = fig.axes[0]
    title = ax.get_title()
    assert "below resolution (<= R), 1 point" in title and "1 point(s) without a positive value" in title
    for line in ax.get_lines():
        assert all(y > 0 for y in line.get_ydata())
    tri = [c for c in ax.collections if len(c.get_offsets()) and c.get_offsets()[0][1] == pytest.approx(3.1e-2)]
    assert tri, "the flagged point is drawn at R (µs)"


def test_report_and_terminal_stay_clean(tmp_path):
    """`isochron report` as a user runs it: stderr is empty (no RuntimeWarning from log10), and
    the page shows '<= R' and the uncertain mark, never a negative time in a table."""
    def edit(r):
        _flag_put8(r)
        _old_negative(r)
        if r["op"] == "put_nbi_overlap":
            r["uncertain"] = True
    path = _write(tmp_path, edit)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(isochron.__file__)))
    proc = subprocess.run([sys.executable, "-m", "isochron.cli", "report", path, "-o", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr
    page = open(tmp_path / "r" / "index.html", encoding="utf-8").read()
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page)
    assert "&lt;= 0.031" in cells and "below resolution" in cells
    assert any(c.endswith(" !") for c in cells)
    assert not [c for c in cells if NEG.search(c)]


def _flag_min_only(r, R=3.1e-8):
    """put at 4 KiB as the drivers now flag a subtraction whose minimum alone came out negative:
    the median (2.146 µs) stands, the minimum shows as '<= R'."""
    if r["op"] == "put" and r["bytes"] == 4096:
        r.update(min_s=-6.7e-7, below_resolution=True, resolution_s=R)


def test_flag_on_minimum_alone_keeps_the_median(cli, tmp_path):
    path = _write(tmp_path, _flag_min_only)
    rc, out, err = cli("show", path)
    assert rc == 0, err
    put = _row(out, "put", "4 KiB")
    assert "2.146" in put and "<= 0.031" in put and not NEG.search(put), put
    # compare gives the ratio of the median, which is stated
    rc, out, err = cli("compare", _write(tmp_path, lambda r: None, "a.jsonl"), path)
    assert rc == 0, err
    row = next(line for line in out.splitlines() if " put " in f" {line} " and "4 KiB" in line)
    assert "below resolution" not in row and "<=" not in row, row
