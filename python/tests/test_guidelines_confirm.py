"""A violation counts only where a second, independent set finds it too (isochron guidelines
--confirm / --repeat): the verdicts, the violation ranges and the profile of the tuning layer follow
the confirmed violations only; the A/A line states both rates; the command refuses the first set
given again as its own confirmation and a second set of another MPI library."""
import copy

import pytest

from isochron.guidelines import Pair, Result, confirm, profile_text, table, violation_ranges


def _pair(coll, size, lo, hi, verdict):
    r = (lo * hi) ** 0.5
    return Pair(coll, 4, size, 10, 1e-5, r * 1e-5, r, lo, hi, 0.05, 0.05, verdict, "mock")


FIRST = [_pair("reduce_scatter_block", 8, 0.84, 0.92, "violated"),
         _pair("reduce_scatter_block", 32768, 0.99, 1.06, "holds"),
         _pair("reduce_scatter_block", 262144, 0.51, 0.54, "violated"),
         _pair("scan", 32768, 0.92, 0.97, "violated"),
         _pair("allreduce", 32768, 0.80, 0.86, "violated"),
         _pair("allreduce", 262144, 0.92, 0.98, "violated")]
SECOND = [_pair("reduce_scatter_block", 8, 0.80, 1.20, "inconclusive"),
          _pair("reduce_scatter_block", 32768, 0.97, 1.05, "holds"),
          _pair("reduce_scatter_block", 262144, 0.50, 0.54, "violated"),
          _pair("allreduce", 32768, 0.80, 0.91, "violated"),
          _pair("allreduce", 262144, 0.92, 0.96, "violated")]   # scan 32 KiB not measured


def test_only_reproduced_violations_stand():
    res = Result(copy.deepcopy(FIRST), mpi="Open MPI v4.1.4")
    confirm(res, SECOND)
    v = {(p.coll, p.bytes): p.verdict for p in res.pairs}
    assert v[("reduce_scatter_block", 8)] == "unconfirmed"          # the second set: inconclusive
    assert v[("scan", 32768)] == "unconfirmed"                       # the second set: not measured
    assert v[("reduce_scatter_block", 262144)] == v[("allreduce", 32768)] == "violated"
    assert res.single_violations == 5 and res.confirmed
    assert [p.second for p in res.pairs if p.coll == "scan"] == ["not measured"]
    ranges = violation_ranges(res.pairs)
    assert [(c, a, b) for c, _, a, b, _, _ in ranges] == [("allreduce", 32768, 262144),
                                                          ("reduce_scatter_block", 262144, 262144)]
    text = profile_text(res, 4, ["vm"])
    red = [ln.split("#")[0].split() for ln in text.splitlines() if ln.startswith("redirect")]
    assert [r[1] for r in red] == ["MPI_Allreduce", "MPI_Reduce_scatter_block"]
    assert red[1][3:] == ["92682", "262144"]     # from the geometric mean with 32 KiB, which held
    out = table(res)
    assert "second set" in out and "unconfirmed" in out and "2 unconfirmed" in out


def test_without_a_second_set_nothing_changes():
    res = Result(copy.deepcopy(FIRST))
    assert "second set" not in table(res) and "unconfirmed" not in table(res)
    assert len(violation_ranges(res.pairs)) == 4    # rsb 8 B, rsb 256 KiB, scan, allreduce


def test_aa_line_states_both_rates():
    first = [_pair("scan", 8, 0.95, 0.99, "violated"), _pair("scan", 1024, 0.97, 1.04, "holds")]
    res = Result(first, aa=True)
    confirm(res, [_pair("scan", 8, 0.97, 1.05, "holds"), _pair("scan", 1024, 0.97, 1.04, "holds")])
    assert "A/A false violations: 1 of 2 pairs in the first set alone (50.0 %), 0 confirmed by the second set" in table(res)


@pytest.mark.parametrize("args, msg", [
    (["--repeat", "SET"], "--repeat measures a second set with --run DIR"),
    (["SET", "--confirm", "SET"], "another, independent set"),
])
def test_cli_refuses(cli, args, msg, tmp_path):
    import os
    gl = os.path.join(os.path.dirname(__file__), "data", "guidelines-2ranks", "set")
    rc, _, err = cli("guidelines", *[gl if a == "SET" else a for a in args])
    assert rc == 2 and msg in err
