"""`isochron compare`: matching, the ratio, both significance tests, verdicts and exit status."""
import pytest
from conftest import fx
from scipy.stats import mannwhitneyu

import isochron
from isochron import IsochronError
from isochron.compare import compare, parse_threshold


def _points(name):
    return isochron.read(fx(name)).records["point"]


def test_schemes_compared_with_mann_whitney_on_raw_repetitions():
    a, b = _points("bench-roundtime.jsonl"), _points("bench-barrier.jsonl")
    cmp = compare(a, b, level="repetition")
    assert cmp.compared == {"scheme": ("roundtime", "barrier")}
    assert "scheme" not in cmp.keys and {"op", "bytes", "method"} <= set(cmp.keys)
    assert len(cmp.rows) == 9 and cmp.only_a == cmp.only_b == 0
    for row in cmp.rows:
        pa, pb = row["a"], row["b"]
        assert (pa["op"], pa["bytes"]) == (pb["op"], pb["bytes"])
        assert row["ratio"] == pytest.approx(pb["median_s"] / pa["median_s"])
        va = [t for t, v in zip(pa["raw_time_s"], pa["raw_valid"]) if v]
        vb = [t for t, v in zip(pb["raw_time_s"], pb["raw_valid"]) if v]
        assert row["test"] == "Mann-Whitney U"
        assert row["p"] == pytest.approx(mannwhitneyu(va, vb, alternative="two-sided").pvalue)


def test_verdicts_follow_significance_and_threshold():
    cmp = compare(_points("bench-barrier.jsonl"), _points("bench-roundtime.jsonl"),
                  level="repetition")
    for row in cmp.rows:
        expect = ""
        if row["significant"] and row["ratio"] > 1.05:
            expect = "REGRESSION"
        elif row["significant"] and row["ratio"] < 0.95:
            expect = "improvement"
        assert row["verdict"] == expect
    assert cmp.regressions                         # bcast_linear 8 B is slower under roundtime
    assert compare(_points("bench-barrier.jsonl"), _points("bench-roundtime.jsonl"),
                   threshold=0.5, level="repetition").regressions == []


def test_a_file_against_itself_is_unchanged():
    pts = _points("bench-roundtime.jsonl")
    cmp = compare(pts, pts, level="repetition")
    assert all(r["ratio"] == 1 and r["p"] == pytest.approx(1.0) and r["verdict"] == ""
               for r in cmp.rows)
    cmp = compare(pts, pts)                    # launch level, one launch per side
    assert all(r["ratio"] == 1 and r["verdict"] == "inconclusive: one launch per side"
               for r in cmp.rows)


def test_without_raw_the_confidence_intervals_decide():
    cmp = compare(_points("bench-noraw.jsonl"), _points("bench-roundtime.jsonl"),
                  level="repetition")
    assert len(cmp.rows) == 6 and cmp.only_b == 3      # bcast_linear is only in B
    for row in cmp.rows:
        pa, pb = row["a"], row["b"]
        overlap = pa["ci_lo_s"] <= pb["ci_hi_s"] and pb["ci_lo_s"] <= pa["ci_hi_s"]
        assert row["test"] == f"CI overlap: {'yes' if overlap else 'no'}"
        assert row["significant"] is (not overlap) and row["p"] is None


def test_methods_compared():
    cmp = compare(_points("bench-noraw.jsonl"), _points("bench-max.jsonl"))
    assert cmp.compared == {"method": ("global", "max")}


def test_match_keys_chosen_and_checked():
    a, b = _points("bench-roundtime.jsonl"), _points("bench-barrier.jsonl")
    with pytest.raises(IsochronError, match="no point of B matches"):
        compare(a, b, match=["op", "bytes", "scheme"])
    with pytest.raises(IsochronError, match="--match colour: not a point key"):
        compare(a, b, match=["colour"])


@pytest.mark.parametrize("text, value", [("5%", 0.05), ("0.1", 0.1), ("12.5%", 0.125)])
def test_threshold(text, value):
    assert parse_threshold(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["5", "abc", "-1%", "100%"])
def test_bad_threshold(text):
    with pytest.raises(IsochronError, match="--threshold"):
        parse_threshold(text)


def test_cli_compare_table_and_exit_status(cli):
    a, b = fx("bench-barrier.jsonl"), fx("bench-roundtime.jsonl")
    rc, out, err = cli("compare", a, b, "--level", "repetition")
    assert rc == 0 and err == ""
    assert "comparing scheme: barrier (A) vs roundtime (B)" in out
    assert "B/A" in out and "Mann-Whitney U" in out
    flagged = [line for line in out.splitlines() if line.endswith("REGRESSION")]
    ratios = [float(ln.split()[ln.split().index("Mann-Whitney") - 1]) for ln in flagged]
    assert flagged and all(r > 1.05 for r in ratios)
    rc, _, err = cli("compare", a, b, "--fail-on-regression", "--level", "repetition")
    assert rc == 2 and "fails only on launch-level evidence" in err
    rc, out, _ = cli("compare", b, a, "--level", "repetition")
    assert rc == 0 and "improvement" in out
    # launch level, one launch per side: only a change beyond the default spread is flagged
    rc, out, _ = cli("compare", a, b, "--fail-on-regression")
    flagged = [ln for ln in out.splitlines() if ln.endswith("REGRESSION")]
    assert rc == (1 if flagged else 0)
    assert all(float(ln.split()[ln.split().index("1/1") - 1]) > 2.29 for ln in flagged)


def test_cli_compare_bad_input(cli):
    rc, _, err = cli("compare", fx("clock-hca3.jsonl"), fx("bench-max.jsonl"))
    assert rc == 2 and "no benchmark points to compare" in err
    rc, _, err = cli("compare", fx("bench-max.jsonl"), "missing.jsonl")
    assert rc == 2 and err.strip() == "isochron: error: missing.jsonl: no such file"
    rc, _, err = cli("compare", fx("bench-max.jsonl"), fx("bench-max.jsonl"), "--threshold", "x")
    assert rc == 2 and "--threshold x" in err


def test_barrier_cost_points_compare():
    pts = isochron.read(fx("barrier-4ranks.jsonl")).records["cost"]
    cmp = compare(pts, pts)
    assert len(cmp.rows) == len(pts) and "barrier" in cmp.keys


def test_public_api_takes_dataframes():
    a, b = isochron.load(fx("bench-roundtime.jsonl")), isochron.load(fx("bench-barrier.jsonl"))
    from_frames = compare(a, b, level="repetition")
    from_records = compare(_points("bench-roundtime.jsonl"), _points("bench-barrier.jsonl"),
                           level="repetition")
    assert [(r["op"], r["bytes"], r["p"]) for r in from_frames.rows] == \
        [(r["op"], r["bytes"], r["p"]) for r in from_records.rows]
    mixed = compare(isochron.load(fx("bench-noraw.jsonl")), b, level="repetition")  # NaN raw: CI
    assert {r["test"].split(":")[0] for r in mixed.rows} == {"CI overlap"}
