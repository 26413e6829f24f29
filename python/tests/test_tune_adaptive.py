"""`isochron tune`'s adaptive launches (issue 38): where the fastest algorithm is faster than the
default but not significant, more launches of just those two at just those sizes until significant
or --max-launches, the extra looks at alpha / rounds. Synthetic launch medians (the measuring step is
the same launch-set code as the first set's)."""
import itertools

import pytest

from isochron.launches import launch_test
from isochron.tune import ADAPT_STEP, adapt, choice_table, choose, undecided

_ids = itertools.count(1)


def _pts(size, medians):
    return [{"type": "point", "op": "allreduce", "config": f"alg{a}", "nprocs": 4, "bytes": size,
             "median_s": m * 1e-6, "launch": next(_ids)} for a, ms in medians.items() for m in ms]


# 32 KiB: alg1 ~1.5x faster on average but noisy: not significant at 4 launches
NOISY = {0: [10, 14, 9, 13], 1: [7, 11, 6, 12], 2: [11, 15, 10, 14]}
# 8 B: the default fastest (nothing to adapt)
DEFAULT_BEST = {0: [5, 5.1, 5.2, 5.1], 1: [6, 6.2, 6.1, 6.3], 2: [7, 7.1, 7.2, 7.3]}


def _first():
    return _pts(32768, NOISY) + _pts(8, DEFAULT_BEST)


def test_the_first_look_keeps_the_default_where_the_faster_candidate_is_not_significant():
    ch = {c.bytes: c for c in choose(_first(), "allreduce")}
    assert ch[32768].best_alg == 1 and ch[32768].alg == 0
    assert not launch_test([m * 1e-6 for m in NOISY[0]], [m * 1e-6 for m in NOISY[1]])["significant"]
    assert undecided(list(ch.values()), 12) == {(4, 32768): 1}
    t = launch_test([m * 1e-6 for m in NOISY[0]], [m * 1e-6 for m in NOISY[1]])
    assert ch[32768].best_p == pytest.approx(t["p"]) and ch[8].best_p is None
    assert f"({t['p']:.3f})" in choice_table("allreduce", list(ch.values()), 0.05)
    assert undecided(list(ch.values()), 4) == {}          # at the cap already


def test_more_launches_of_default_and_candidate_until_significant():
    calls = []

    def measure(r, cells):
        calls.append((r, dict(cells)))
        return _pts(32768, {0: [10, 12] * (ADAPT_STEP // 2), 1: [7, 7.5] * (ADAPT_STEP // 2)})

    pts = _first()
    ch, rounds = adapt(pts, "allreduce", 0.05, 3, 4, 12, measure)
    assert calls and all(c == {(4, 32768): 1} for _r, c in calls)       # only that size, only that candidate
    c = {c.bytes: c for c in ch}
    assert c[32768].alg == 1 and c[32768].p is not None and c[32768].p < c[32768].alpha
    assert c[32768].alpha == pytest.approx(0.05 / 4)                   # ceil((12 - 4) / 2) rounds
    assert c[32768].launches[0] == c[32768].launches[1] == 4 + ADAPT_STEP * len(calls)
    assert c[32768].launches[2] == 4                                    # the others not measured again
    assert c[8].alg == 0 and c[8].alpha == 0.05 and not c[8].adapted and c[32768].adapted
    assert len(calls) < 4                                               # stopped once decided
    assert "adaptive" in choice_table("allreduce", ch, 0.05)


def test_stops_at_the_cap_and_keeps_the_default_when_no_difference_appears():
    calls = []

    def measure(r, cells):
        calls.append(r)
        return _pts(32768, {0: [8, 12], 1: [12, 8]})                  # no difference at all

    ch, rounds = adapt(_first(), "allreduce", 0.05, 3, 4, 12, measure)
    assert calls == [1, 2, 3, 4]
    c = {c.bytes: c for c in ch}[32768]
    assert c.alg == 0 and c.launches[0] == c.launches[1] == 12


def test_one_round_at_the_full_alpha_is_still_labelled_adaptive():
    def measure(r, cells):
        return _pts(32768, {0: [8, 12], 1: [12, 8]})

    ch, rounds = adapt(_first(), "allreduce", 0.05, 3, 4, 6, measure)   # ceil((6 - 4) / 2) = 1 round: alpha / 1
    c = {c.bytes: c for c in ch}[32768]
    assert len(rounds) == 1 and c.adapted and c.alpha == 0.05
    row = [ln for ln in choice_table("allreduce", ch, 0.05).splitlines() if "32 KiB" in ln][0]
    assert "6/6 (adaptive, p < 0.05)" in row


def test_no_extra_round_when_decided_or_off():
    def measure(r, cells):
        raise AssertionError("no measurement expected")

    clear = _pts(32768, {0: [10, 10.2, 10.1, 10.3], 1: [5, 5.1, 5.2, 5.1]})
    ch, rounds = adapt(clear, "allreduce", 0.05, 3, 4, 12, measure)
    assert rounds == [] and ch[0].alg == 1 and ch[0].alpha == 0.05
    ch, rounds = adapt(_first(), "allreduce", 0.05, 3, 4, 4, measure)  # --max-launches = --launches: off
    assert rounds == []


def test_the_verification_reads_the_tuning_sets_adaptive_rounds(tmp_path):
    from isochron.tune import with_rounds
    base = tmp_path / "algs"
    for d in ("algs", "algs.more1", "algs.more2", "algs.more4"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "manifest.json").write_text("{}")
    (tmp_path / "algs.more3").mkdir()                                  # unfinished: no manifest; stops there
    assert with_rounds([str(base)]) == [str(base), f"{base}.more1", f"{base}.more2"]
