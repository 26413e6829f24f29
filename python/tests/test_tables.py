"""`isochron show` and the tables behind it: grouping, units, and the numbers themselves."""
import re

import pytest
from conftest import fx

import isochron
from isochron.units import fmt_bytes, fmt_time, parse_bytes


@pytest.mark.parametrize("n, text", [(0, "0 B"), (8, "8 B"), (1023, "1023 B"), (1024, "1 KiB"),
                                     (1536, "1.5 KiB"), (65536, "64 KiB"), (1 << 20, "1 MiB"),
                                     (3 << 30, "3 GiB"), (None, "–")])
def test_fmt_bytes(n, text):
    assert fmt_bytes(n) == text


@pytest.mark.parametrize("text, n", [("8", 8), ("1K", 1024), ("64KiB", 65536), ("1m", 1 << 20),
                                     ("2G", 2 << 30)])
def test_parse_bytes(text, n):
    assert parse_bytes(text) == n


def test_parse_bytes_rejects_garbage():
    with pytest.raises(ValueError, match="not a message size"):
        parse_bytes("big")


def test_fmt_time_in_microseconds():
    assert fmt_time(1.0389e-05) == "10.39"
    assert fmt_time(None) == "–"
    assert fmt_time(0.000684) == "684"


def _section(out, title):
    """The lines of the table whose title line starts with ``title``."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines))
                if not lines[i].strip() or re.match(r"  [A-Za-z–]", lines[i])), len(lines))
    return lines[start:end]                           # without the notes (indented)


def test_show_bench_groups_by_op_with_units_ci_and_valid_counts(cli):
    rc, out, err = cli("show", fx("bench-roundtime.jsonl"))
    assert rc == 0 and err == ""
    titles = [line for line in out.splitlines() if line.startswith("operation ")]
    assert titles == ["operation allreduce (dtype int, redop sum)", "operation bcast (dtype byte)",
                      "operation bcast_linear (bcast family, dtype byte)"]
    df = isochron.load(fx("bench-roundtime.jsonl"))
    table = _section(out, "operation allreduce")
    assert "median [µs]" in table[1] and "CI(mean) [µs]" in table[1] and "valid/reps" in table[1]
    rows = table[2:5]
    for row, (_, p) in zip(rows, df[df["op"] == "allreduce"].sort_values("bytes").iterrows()):
        assert fmt_bytes(p["bytes"]) in row
        assert f"{p['valid']}/{p['reps']}" in row
        assert f"{p['median_s'] * 1e6:.4g}" in row
        assert f"{p['ci_lo_s'] * 1e6:.4g} .. {p['ci_hi_s'] * 1e6:.4g}" in row
    assert "4 ranks on 1 node (oversubscribed)" in out and "Open MPI v4.1.4" in out


def test_show_two_schemes_orders_rows_by_scheme_then_size(cli):
    rc, out, _ = cli("show", fx("bench-roundtime.jsonl"), fx("bench-barrier.jsonl"))
    assert rc == 0
    rows = _section(out, "operation bcast (")[2:]
    assert [r.split()[0] for r in rows] == ["roundtime"] * 3 + ["barrier"] * 3
    assert [re.search(r"(\d+ K?i?B)", r).group(1) for r in rows[:3]] == ["8 B", "1 KiB", "64 KiB"]
    assert "run 1:" in out and "run 2:" in out


def test_show_clock_summary_per_wait(cli):
    rc, out, _ = cli("show", fx("clock-skew.jsonl"))
    assert rc == 0
    table = _section(out, "clock synchronization")
    assert len(table) == 2 + 3                        # title, header, waits 0, 1, 2
    summary = isochron.load(fx("clock-skew.jsonl"), record="summary")
    for row, (_, s) in zip(table[2:], summary.iterrows()):
        assert f"{s['max_abs_true_offset_s'] * 1e6:.4g}" in row
    assert "skew injected (offset=10ms,drift=50,seed=1)" in out


def test_show_clock_runs(cli):
    rc, out, _ = cli("show", fx("clock-algs.jsonl"))
    table = _section(out, "clock synchronization")
    assert rc == 0 and len(table) == 2 + 12
    assert table[1].split()[0] == "run"


def test_show_barrier_tables(cli):
    rc, out, _ = cli("show", fx("barrier-4ranks.jsonl"))
    assert rc == 0
    for title in ("rds constants", "barrier exit skew", "barrier cost", "ring shift after each",
                  "message size from which synchronizing"):
        assert title in out
    skew = isochron.load(fx("barrier-4ranks.jsonl"), record="skew")
    rows = _section(out, "barrier exit skew")[2:]
    assert [r.split()[0] for r in rows] == list(skew["barrier"])
    assert len(_section(out, "ring shift")) == 2 + len(isochron.load(fx("barrier-4ranks.jsonl"),
                                                                       record="shift"))


def test_show_truncated_warns_on_stderr_and_shows_the_rest(cli):
    rc, out, err = cli("show", fx("bench-truncated.jsonl"))
    assert rc == 0
    assert "isochron: warning:" in err and "cut mid-record" in err
    assert "operation bcast_linear" in out            # 8 of 9 points: the last op is there
    assert len(_section(out, "operation bcast_linear")) == 2 + 2


def test_show_bench_reports_each_points_clock_error_and_flags_doubtful_points(cli):
    rc, out, err = cli("show", fx("bench-track.jsonl"))
    assert rc == 0 and err == ""
    pts = [p for p in map(__import__("json").loads, open(fx("bench-track.jsonl"))) if p["type"] == "point"]
    rows = _section(out, "operation allreduce")
    assert "clock ± [µs]" in rows[1] and "clock true [µs]" in rows[1]
    for p in (q for q in pts if q["op"] == "allreduce"):
        row = next(r for r in rows[2:] if r.split()[2:4] == fmt_bytes(p["bytes"]).split())
        assert fmt_time(p["clock_bound_s"]) in row and fmt_time(p["clock_true_s"]) in row
        doubtful = p["clock_bound_s"] > 0.05 * p["median_s"]
        assert (fmt_time(p["clock_bound_s"]) + " >5%" in row) == doubtful
    assert "tracked" in out.splitlines()[0]
    assert ">5% = bound above 5 % of the median" in out


def test_show_bench_without_clock_fields_has_no_clock_columns(cli):
    rc, out, _ = cli("show", fx("bench-noraw.jsonl"))
    assert rc == 0 and "clock ±" not in out


def test_show_clock_tracked_has_bound_and_tracking_cost(cli):
    rc, out, err = cli("show", fx("clock-track.jsonl"))
    assert rc == 0 and err == ""
    rows = _section(out, "clock synchronization")
    assert rows[1].split()[-2:] == ["bound", "[µs]"]
    summ = [r for r in map(__import__("json").loads, open(fx("clock-track.jsonl"))) if r["type"] == "summary"]
    for s, row in zip(summ, rows[2:]):
        assert row.split()[-1] == fmt_time(s["max_bound_s"])
    track = next(r for r in map(__import__("json").loads, open(fx("clock-track.jsonl"))) if r["type"] == "track")
    assert f"{track['refreshes']} refreshes" in out


def test_load_bench_points_carry_clock_error():
    df = isochron.load(fx("bench-track.jsonl"))
    assert {"clock_bound_s", "clock_true_s"} <= set(df.columns)
    assert (df["clock_bound_s"] > 0).all() and (df["clock_true_s"] >= 0).all()


def test_show_throughput_in_mbps_and_messages_per_second(cli):
    rc, out, err = cli("show", fx("bench-bw.jsonl"))
    assert rc == 0 and err == ""
    df = isochron.load(fx("bench-bw.jsonl"))
    table = _section(out, "operation bibw")
    assert "MB/s (median)" in table[1] and "msg/s (median)" in table[1] and "window" in table[1]
    for row, (_, p) in zip(table[2:4], df[df["op"] == "bibw"].sort_values("bytes").iterrows()):
        assert p["unit"] == "B/s" and p["msg_window"] == 16 and p["bytes_per_run"] == 2 * 16 * p["bytes"]
        mbps = p["bytes_per_run"] / p["median_s"] / 1e6
        assert f"{mbps:.4g}" in row and f"{p['msgs_per_run'] / p['median_s']:.4g}" in row
        lo, hi = p["bytes_per_run"] / p["median_ci_hi_s"] / 1e6, p["bytes_per_run"] / p["median_ci_lo_s"] / 1e6
        assert f"{lo:.4g} .. {hi:.4g}" in row                     # the median's interval, inverted
        assert f"{p['median_s'] * 1e6:.4g}" in row               # the time per window stays
    assert "MB/s" not in "\n".join(_section(out, "operation pingpong")[:2])   # latency: seconds only


def test_show_threads_of_threaded_points(cli):
    # bench-mt.jsonl: isochron-bench --ops latency_mt,bw_persistent,put_bibw_pscw --threads 3 --msg-window 8 (2 ranks)
    rc, out, err = cli("show", fx("bench-mt.jsonl"))
    assert rc == 0 and err == ""
    df = isochron.load(fx("bench-mt.jsonl"))
    assert (df[df["op"] == "latency_mt"]["threads"] == 3).all()
    table = _section(out, "operation latency_mt")
    assert "threads" in table[1].split() and re.search(r"\b3\b", table[2])
    assert "threads" not in _section(out, "operation bw_persistent")[1]     # only threaded points carry it
    assert "MB/s (median)" in _section(out, "operation put_bibw_pscw")[1]


def test_rate_is_none_for_latency_points():
    from isochron.units import fmt_mbps, rate
    assert rate({"unit": "s", "median_s": 1e-6}) is None
    med, lo, hi, msgs = rate({"unit": "B/s", "bytes_per_run": 1e6, "msgs_per_run": 10, "median_s": 0.5,
                              "median_ci_lo_s": 0.25, "median_ci_hi_s": 1.0})
    assert (med, lo, hi, msgs) == (2e6, 1e6, 4e6, 20)
    assert fmt_mbps(2.5e6) == "2.5" and fmt_mbps(None) == "–"
