"""`isochron guidelines` and `isochron tune` (issue 38) on launch sets the real isochron-bench wrote
(data/guidelines-2ranks, data/tune-2ranks; data/README.md): the ratios and intervals recomputed
from the launch medians, the verdict rule, the violation ranges, the profile of the tuning layer
and the Open MPI rules file's structure (that Open MPI applies it: tests/tune/rules_accept.sh)."""
import json
import math
import os

import pytest
from scipy.stats import t as student

from isochron import IsochronError
from isochron.guidelines import Result, analyse, load_points, profile_text, verdict, violation_ranges
from isochron.tune import Choice, choose, ompi_msg_size, rules_text

DATA = os.path.join(os.path.dirname(__file__), "data")
GL = os.path.join(DATA, "guidelines-2ranks", "set")
TU = os.path.join(DATA, "tune-2ranks")


def _pts(path):
    return load_points([path])


def test_guideline_ratio_and_interval_from_launch_medians():
    pts, mpi = _pts(GL)
    assert mpi.startswith("Open MPI")
    pairs = analyse(pts)
    assert {(p.coll, p.bytes) for p in pairs} == {(c, b) for c in ("allreduce", "scan") for b in (1024, 65536)}
    for p in pairs:
        med = {}
        for q in pts:
            if q["bytes"] == p.bytes and q["op"] in (p.coll, p.mock):
                med.setdefault(q["launch"], {})[q["op"]] = q["median_s"]
        logs = [math.log(m[p.mock] / m[p.coll]) for m in med.values()]
        n = len(logs)
        mean = sum(logs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
        half = student.ppf(0.975, n - 1) * sd / math.sqrt(n)
        assert p.n == n == 4
        assert p.ratio == pytest.approx(math.exp(mean))
        assert (p.lo, p.hi) == (pytest.approx(math.exp(mean - half)), pytest.approx(math.exp(mean + half)))
        assert p.lo <= p.ratio <= p.hi and p.noise == pytest.approx(sd)
        assert p.verdict == verdict(p.lo, p.hi, 0.05)


def test_verdict_rule():
    assert verdict(0.5, 0.99, 0.05) == "violated"
    assert verdict(1 / 1.05, 3.0, 0.05) == "holds"
    assert verdict(0.94, 1.5, 0.05) == "inconclusive"
    assert verdict(0.0, math.inf, 0.05) == "inconclusive"       # one launch: nothing decided


def test_violations_by_size_range_and_profile():
    pts, mpi = _pts(GL)
    res = Result(analyse(pts), mpi=mpi)
    viol = [p for p in res.pairs if p.verdict == "violated"]
    assert viol, "the stored set has the scan violation"
    ranges = violation_ranges(res.pairs)
    assert {r[0] for r in ranges} == {p.coll for p in viol}
    for coll, nprocs, a, b, k, _ in ranges:
        inside = [p for p in res.pairs if p.coll == coll and p.nprocs == nprocs and a <= p.bytes <= b]
        assert k == len(inside) and all(p.verdict == "violated" for p in inside)
    text = profile_text(res, 2, ["vm"])
    lines = [ln.split("#")[0].split() for ln in text.splitlines() if ln.split("#")[0].strip()]
    assert ["isochron_tune_profile", "1"] in lines and ["nprocs", "2"] in lines and ["hosts", "vm"] in lines
    assert any(ln[0] == "mpi_library" and " ".join(ln[1:]) == mpi for ln in lines)
    red = [ln for ln in lines if ln[0] == "redirect"]
    assert red and all(ln[1] in ("MPI_Scan", "MPI_Allreduce") and ln[2] == "2" for ln in red)
    for _, func, _, lo, hi in red:               # each range holds its violated sizes
        coll = {"MPI_Scan": "scan", "MPI_Allreduce": "allreduce"}[func]
        assert any(int(lo) <= p.bytes <= int(hi) for p in viol if p.coll == coll)
    with pytest.raises(IsochronError, match="hosts"):
        profile_text(res, 2, [])


def test_aa_needs_alias_points():
    pts, _ = _pts(GL)
    with pytest.raises(IsochronError, match="allreduce_alias"):
        analyse(pts, aa=True)


def test_cli_guidelines_json(cli, tmp_path):
    out = tmp_path / "g.json"
    rc, text, err = cli("guidelines", GL, "--json", out)
    assert rc == 0, err
    assert "scan <= Exscan + local op" in text and "violations" in text
    j = json.loads(out.read_text())
    assert len(j["pairs"]) == 4 and j["violations"]
    rc, _, err = cli("guidelines", "--run", tmp_path / "x", "--colls", "alltoall")
    assert rc == 2 and "no guideline for it" in err and "allreduce" in err


def _rules(text):
    """The integers of a rules file, comments dropped."""
    return [int(x) for ln in text.splitlines() for x in ln.split("#")[0].split()]


def test_rules_file_structure_and_boundaries():
    ch = [Choice(8, 4, 0, 1, 0, 1, 1, 1, None, None, 3), Choice(1024, 4, 3, 1, 3, 1, 1, 1, None, None, 3),
          Choice(65536, 4, 3, 1, 3, 1, 1, 1, None, None, 3), Choice(1 << 20, 4, 4, 1, 4, 1, 1, 1, None, None, 3)]
    v = _rules(rules_text("allreduce", ch))
    # 1 collective, id 2, 2 communicator sizes: 4 with 3 rules, 5 with the default only
    assert v[:5] == [1, 2, 2, 4, 3]
    # from 0 the default; from sqrt(8 x 1024) = 90.5 -> 91 algorithm 3 (1 KiB and 64 KiB: one rule);
    # from sqrt(64 KiB x 1 MiB) = 256 KiB algorithm 4
    assert v[5:17] == [0, 0, 0, 0, 91, 3, 0, 0, 262144, 4, 0, 0]
    assert v[17:] == [5, 1, 0, 0, 0, 0]


def test_msg_size_of_allgather_counts_every_block():
    assert ompi_msg_size("allgather", 1024, 4) == 4096 and ompi_msg_size("allreduce", 1024, 4) == 1024


def test_choose_keeps_the_default_unless_significant():
    pts, _ = _pts(TU)
    ch = choose(pts, "allreduce", min_launches=2)
    assert {c.bytes for c in ch} == {8, 65536}
    for c in ch:
        assert c.default_s == pytest.approx(c.times[0])
        assert c.best_s == min(c.times.values())
        if c.alg:
            assert c.p is not None and c.p < 0.05 and c.chosen_s < c.default_s
        else:
            assert c.ratio == 1.0
    text = rules_text("allreduce", ch)
    v = _rules(text)
    assert v[0] == 1 and v[1] == 2 and v[3] == 2
