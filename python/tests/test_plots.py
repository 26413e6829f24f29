"""Every plot kind: the figure's axes, series and labels, and the written files as images."""
import json

import matplotlib.image
import pytest
from conftest import fx
from matplotlib.collections import PathCollection, PolyCollection

import isochron
from isochron import IsochronError
from isochron.plots import KINDS, available, plot, save


def _ds(*names):
    return isochron.read([fx(n) for n in names])


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_kinds_available_per_file():
    assert available(_ds("bench-roundtime.jsonl")) == ["latency", "gantt"]
    assert available(_ds("bench-noraw.jsonl")) == ["latency"]
    assert available(_ds("clock-hca3.jsonl")) == ["offset", "sync"]
    assert available(_ds("barrier-4ranks.jsonl")) == ["skew", "shift", "payoff"]


def _series(ax, label):
    """(x, y, lower bar end, upper bar end) of the errorbar series ``label``."""
    c = next(c for c in ax.containers if c.get_label() == label)
    line, _caps, (bars,) = c.lines
    segs = bars.get_segments()
    return (list(line.get_xdata()), list(line.get_ydata()), [s[0][1] for s in segs],
            [s[1][1] for s in segs])


def test_latency_one_line_per_op_log_log_with_ci_bars():
    ds = _ds("bench-roundtime.jsonl")
    fig = plot(ds, "latency")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert len(ax.containers) == 3                                # errorbar per series
    assert sorted(_texts(ax)) == ["allreduce", "bcast", "bcast_linear"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["8 B", "1 KiB", "64 KiB"]
    assert "µs" in ax.get_ylabel() and "median" in ax.get_ylabel()   # raw data: the median
    assert "roundtime" in ax.get_title()
    pts = ds.frame("point")
    bcast = pts[pts["op"] == "bcast"].sort_values("bytes")
    x, y, lo, hi = _series(ax, "bcast")
    assert x == [8, 1024, 65536]
    assert y == pytest.approx(list(bcast["median_s"] * 1e6))      # the driver's own medians
    for (_, p), yl, yh in zip(bcast.iterrows(), lo, hi):           # 95 % CI of the median by the C
        v = sorted(t * 1e6 for t, ok in zip(p["raw_time_s"], p["raw_valid"]) if ok)   # library's rule:
        # n = 30: ranks floor(15 - 1.96 sqrt(30)/2) = 9 and ceil(15 + 1.96 sqrt(30)/2) + 1 = 22, as
        # isochron_summarize writes median_ci_lo_s/hi_s (test_c_agreement.py checks the two agree)
        assert (len(v), yl, yh) == (30, pytest.approx(v[8]), pytest.approx(v[21]))  # x(9), x(22)


def test_latency_mean_with_students_t_interval():
    ds = _ds("bench-noraw.jsonl")
    (ax,) = plot(ds, "latency").axes                             # no raw data: the mean
    assert "mean" in ax.get_ylabel() and "Student" in ax.get_ylabel()
    p = ds.frame("point").query("op == 'allreduce'").sort_values("bytes")
    _x, y, lo, hi = _series(ax, "allreduce")
    assert y == pytest.approx(list(p["mean_s"] * 1e6))
    assert lo == pytest.approx(list(p["ci_lo_s"] * 1e6))
    assert hi == pytest.approx(list(p["ci_hi_s"] * 1e6))
    with pytest.raises(IsochronError, match="--stat median needs raw repetitions"):
        plot(ds, "latency", stat="median")


def test_latency_series_per_op_and_scheme():
    fig = plot(_ds("bench-roundtime.jsonl", "bench-barrier.jsonl"), "latency")
    (ax,) = fig.axes
    assert len(ax.containers) == 6
    assert "allreduce barrier" in _texts(ax) and "bcast_linear roundtime" in _texts(ax)


def test_gantt_bars_per_rank_and_repetition():
    ds = _ds("bench-roundtime.jsonl")
    fig = plot(ds, "gantt")
    (ax,) = fig.axes
    bars = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bars) == len(ax.collections) == 4 * 4             # 4 repetitions x 4 ranks
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"rank {r}" for r in range(4)]
    assert "allreduce 64 KiB" in ax.get_title()                    # default: first op, largest
    assert "µs" in ax.get_xlabel() and "global clock" in ax.get_xlabel()
    fig = plot(ds, "gantt", op="bcast", size="8", reps="2:3")
    (ax,) = fig.axes
    assert len(ax.collections) == 4 and "bcast 8 B" in ax.get_title()
    p = ds.frame("point").query("op == 'bcast' and bytes == 8").iloc[0]
    x0 = ax.collections[0].get_paths()[0].vertices[:, 0].min()      # rank 0 of repetition 2
    starts = p["raw_start_s"][2]
    assert x0 == pytest.approx((starts[0] - min(starts)) * 1e6, abs=1e-6)


@pytest.mark.parametrize("opts, msg", [({"op": "scatter"}, "--op scatter: no point"),
                                       ({"size": "2K"}, "--size 2K: no such size"),
                                       ({"reps": "0:99"}, "--reps 0:99"),
                                       ({"reps": "x"}, "--reps x")])
def test_gantt_bad_choices(opts, msg):
    with pytest.raises(IsochronError, match=msg):
        plot(_ds("bench-roundtime.jsonl"), "gantt", **opts)


def test_gantt_needs_raw():
    with pytest.raises(IsochronError, match="needs raw repetitions.*--raw"):
        plot(_ds("bench-noraw.jsonl"), "gantt")


def test_offset_per_rank_measured_and_true():
    fig = plot(_ds("clock-skew.jsonl"), "offset")
    (ax,) = fig.axes
    series = [l for l in ax.lines if l.get_label().startswith("rank")]
    assert sorted(l.get_label() for l in series) == sorted(
        f"rank {r} {k}" for r in (1, 2, 3) for k in ("measured", "true"))
    assert all(list(l.get_xdata()) == [0, 1, 2] for l in series)
    assert "µs" in ax.get_ylabel() and "[s]" in ax.get_xlabel()
    assert sorted(_texts(ax)) == ["rank 1", "rank 2", "rank 3"]
    acc = isochron.load(fx("clock-skew.jsonl"))
    r2 = acc[acc["rank"] == 2].sort_values("wait_s")
    line = next(l for l in series if l.get_label() == "rank 2 true")
    assert list(line.get_ydata()) == pytest.approx(list(r2["true_offset_s"] * 1e6))


def test_offset_one_panel_per_run():
    fig = plot(_ds("clock-algs.jsonl"), "offset")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 6
    assert [ax.get_title().split("\n")[0] for ax in panels][:3] == [
        "hca3/100/skampi/50", "jk/100/skampi/50", "skampi/1/skampi/100"]


def test_offset_and_gantt_at_twelve_ranks():
    fig = plot(_ds("clock-12ranks.jsonl"), "offset")
    (ax,) = fig.axes
    assert sorted(_texts(ax)) == sorted(f"rank {r}" for r in range(1, 12))
    measured = [l for l in ax.lines if l.get_label().endswith("measured")]
    assert len(measured) == 11 and len({l.get_color() for l in measured}) == 11   # no repeats
    (ax,) = plot(_ds("bench-12ranks.jsonl"), "gantt").axes
    assert len(ax.collections) == 4 * 12
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "rank 11"


def test_sync_duration_vs_accuracy_a_point_per_run_a_panel_per_wait():
    fig = plot(_ds("clock-algs.jsonl"), "sync")
    assert len(fig.axes) == 2
    for ax, wait in zip(fig.axes, (0, 1)):
        assert ax.get_title() == f"{wait} s after synchronization"
        dots = [c for c in ax.collections if isinstance(c, PathCollection)]
        assert sorted(c.get_label() for c in dots) == ["hca3/100/skampi/50", "jk/100/skampi/50",
                                                       "skampi/1/skampi/100"]
        assert all(len(c.get_offsets()) == 2 for c in dots)       # two runs per algorithm
        assert ax.get_xscale() == "log" and "[s]" in ax.get_xlabel()
    assert "true" in fig.axes[0].get_ylabel()


def test_skew_distribution_per_barrier():
    ds = _ds("barrier-4ranks.jsonl")
    fig = plot(ds, "skew")
    (ax,) = fig.axes
    names = list(ds.frame("skew")["barrier"])
    assert [t.get_text() for t in ax.get_xticklabels()] == names
    assert ax.get_yscale() == "log" and "µs" in ax.get_ylabel()
    dots = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert [len(c.get_offsets()) for c in dots] == list(ds.frame("skew")["valid"])


def test_shift_and_payoff():
    ds = _ds("barrier-4ranks.jsonl")
    (ax,) = plot(ds, "shift").axes
    assert len(ax.patches) == len(ds.frame("shift"))
    assert {t.get_text() for t in ax.texts} == {"4 KiB", "64 KiB"}
    (ax,) = plot(ds, "payoff").axes
    p = ds.frame("payoff").iloc[0]
    expect = {"concurrent start (reference)", "rds + shift", "shift alone"}
    expect |= {f"{name}: pays off from {isochron.units.fmt_bytes(p[key])}"
               for name, key in (("model", "model_min_bytes"), ("measured", "measured_min_bytes"))
               if p[key] is not None and p[key] == p[key]}
    if p["measured_min_bytes"] is None or p["measured_min_bytes"] != p["measured_min_bytes"]:
        expect.add("measured: synchronizing first was never cheaper in this range")
    assert set(_texts(ax)) == expect
    assert len([l for l in ax.lines if len(l.get_xdata()) > 2]) == 3


def test_unknown_kind_lists_the_valid_ones():
    with pytest.raises(IsochronError, match="unknown plot kind 'pie'.*" + ", ".join(KINDS)):
        plot(_ds("bench-max.jsonl"), "pie")


def test_kind_without_data_says_which_kinds_fit():
    with pytest.raises(IsochronError, match=r"needs isochron-barrier skew.*fit: latency"):
        plot(_ds("bench-max.jsonl"), "skew")


@pytest.mark.parametrize("ext, magic", [("png", b"\x89PNG\r\n\x1a\n"), ("svg", b"<?xml"),
                                        ("pdf", b"%PDF")])
def test_saved_files_are_images(tmp_path, ext, magic):
    fig = plot(_ds("clock-hca3.jsonl"), "offset")
    path = save(fig, str(tmp_path / f"offset.{ext}"))
    data = open(path, "rb").read()
    assert data.startswith(magic)
    if ext == "png":
        img = matplotlib.image.imread(path)
        assert img.shape[0] > 300 and img.shape[1] > 400
    if ext == "svg":
        assert b"<svg" in data


def test_save_refuses_unknown_format(tmp_path):
    with pytest.raises(IsochronError, match="unknown image format 'gif'"):
        save(plot(_ds("clock-hca3.jsonl"), "sync"), str(tmp_path / "x.gif"))


def test_cli_plot(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("plot", fx("bench-roundtime.jsonl"))          # default kind, name, format
    assert rc == 0 and out.strip() == "bench-roundtime-latency.png"
    assert (tmp_path / "bench-roundtime-latency.png").read_bytes().startswith(b"\x89PNG")
    rc, out, _ = cli("plot", fx("clock-algs.jsonl"), "--kind", "sync", "-o", "s.svg")
    assert rc == 0 and (tmp_path / "s.svg").exists()
    rc, out, _ = cli("plot", fx("bench-roundtime.jsonl"), "--kind", "gantt", "--format", "pdf",
                     "--op", "bcast", "--reps", "0:2")
    assert rc == 0 and out.strip() == "bench-roundtime-gantt.pdf"
    rc, _, err = cli("plot", fx("bench-roundtime.jsonl"), "--kind", "violin")
    assert rc == 2 and "unknown plot kind 'violin' (valid kinds: latency, bandwidth, gantt" in err
    rc, out, _ = cli("plot", "--list-kinds")
    assert rc == 0 and all(k in out for k in KINDS)
    rc, out, _ = cli("plot", fx("clock-hca3.jsonl"), "--kind", "help")
    assert rc == 0 and " *offset" in out and " *sync" in out and " *latency" not in out
    rc, _, err = cli("plot")
    assert rc == 2 and "give a result FILE" in err


def test_bandwidth_mbps_vs_size_with_inverted_ci():
    ds = _ds("bench-bw.jsonl")
    assert available(ds) == ["latency", "bandwidth", "gantt"]
    (ax,) = plot(ds, "bandwidth").axes
    assert "MB/s" in ax.get_ylabel() and "median" in ax.get_ylabel()
    assert sorted(_texts(ax)) == ["bibw", "bw"]                   # pingpong is not a throughput point
    pts = ds.frame("point")
    for op in ("bw", "bibw"):
        p = pts[pts["op"] == op].sort_values("bytes")
        x, y, lo, hi = _series(ax, op)
        assert x == [1024, 65536]
        assert y == pytest.approx(list(p["bytes_per_run"] / p["median_s"] / 1e6))
        assert y == pytest.approx(list(p["bw_median_Bps"] / 1e6))  # the driver's own rates
        for (_, q), yl, yh in zip(p.iterrows(), lo, hi):          # the median's CI inverted: ends swap
            f = q["bytes_per_run"] / 1e6
            assert (yl, yh) == (pytest.approx(f / q["median_ci_hi_s"]), pytest.approx(f / q["median_ci_lo_s"]))
            assert yl <= f / q["median_s"] <= yh
    (lat,) = plot(ds, "latency").axes                              # latency keeps seconds, without bw
    assert len(lat.containers) == 1                                # one series: pingpong alone
    pp = pts[pts["op"] == "pingpong"].sort_values("bytes")
    assert _series(lat, "latency")[1] == pytest.approx(list(pp["median_s"] * 1e6))


def test_bandwidth_without_raw_data_uses_the_drivers_median_interval(tmp_path):
    lines = [json.loads(line) for line in open(fx("bench-bw.jsonl"))]
    for r in lines:
        r.pop("raw", None)
        for k in [k for k in r if k.startswith("raw_")]:
            r.pop(k)
    (tmp_path / "noraw.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    ds = isochron.read([str(tmp_path / "noraw.jsonl")])
    (ax,) = plot(ds, "bandwidth").axes
    _x, y, lo, hi = _series(ax, "bw")
    assert all(a <= b <= c for a, b, c in zip(lo, y, hi)) and "median" in ax.get_ylabel()


def test_bandwidth_needs_throughput_points():
    with pytest.raises(IsochronError, match="no throughput point"):
        plot(_ds("bench-roundtime.jsonl"), "bandwidth")
