"""Comparing two sets of benchmark points: ratio of medians and whether the change is real.

Points of A and B are matched on what defines a measurement (operation, size, process count,
root, datatype, reduction, scheme, timing method, barrier algorithm). A key that has one value
in all of A and another single value in all of B is what the comparison is about (say, scheme
roundtime against barrier), so it is left out of the match and named in the output. For each
matched point the ratio B/A of the medians is tested: with raw repetitions on both sides, the
two-sided Mann-Whitney U test on the valid repetitions (no normality assumed, which run times
never are); otherwise whether the two confidence intervals overlap (conservative: intervals
that just overlap can still differ). A point is flagged ``REGRESSION`` (B slower) or
``improvement`` only when the difference is significant *and* the ratio is beyond the threshold.

Those repetition-level tests are ``level="repetition"``. The default, ``level="launch"``, tests
on launches instead (see ``launches.py``), because launches differ far more than repetitions:
the medians of each side's launches (a launch set, or the runs of the files) are compared by a
two-sample t-test on their logarithms with the between-launch spread pooled from the data; with
one launch per side there is no such data, and a difference is only significant beyond a
default between-launch spread (``launches.DEFAULT_LAUNCH_SPREAD``), otherwise the verdict is
"inconclusive: one launch per side".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from . import launches as _launches
from .base import Points, Record
from .dataset import IsochronError
from .table import Table, below_resolution, resolution_cell
from .units import MISSING, fmt_bytes, fmt_time, is_missing

MATCH_KEYS = ["config", "op", "barrier", "bytes", "nprocs", "root", "dtype", "redop", "in_place",
              "scheme", "method"]
MIN_RAW = 5   # fewer valid repetitions than this on a side: use the CI test instead


def parse_threshold(text: str) -> float:
    """'5%' -> 0.05, '0.05' -> 0.05."""
    s = str(text).strip()
    try:
        value = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise IsochronError(f"--threshold {text}: give a percentage like 5% or a fraction"
                            " like 0.05")
    return value


def _valid_raw(p: Record) -> list[Any] | None:
    times, valid = p.get("raw_time_s"), p.get("raw_valid")
    if not isinstance(times, list):
        return None
    if not isinstance(valid, list):
        valid = [1] * len(times)
    return [t for t, v in zip(times, valid) if v and t is not None]


@dataclass
class Comparison:
    rows: list                      # one dict per matched point
    keys: list                      # the keys points were matched on
    compared: dict                  # key -> (value in A, value in B): what differs
    only_a: int = 0
    only_b: int = 0
    warnings: list = field(default_factory=list)

    @property
    def regressions(self) -> list[Record]:
        return [r for r in self.rows if r["verdict"] == "REGRESSION"]

    @property
    def level(self) -> str:
        return self.rows[0].get("level", "repetition") if self.rows else "repetition"


def _test(pa: Record, pb: Record, alpha: float) -> tuple[str, float | None, bool]:
    """(test name, p-value or None, significant) for one matched pair of points."""
    ra, rb = _valid_raw(pa), _valid_raw(pb)
    if ra is not None and rb is not None and len(ra) >= MIN_RAW and len(rb) >= MIN_RAW:
        from scipy.stats import mannwhitneyu  # here: scipy takes a second to import
        p = float(mannwhitneyu(ra, rb, alternative="two-sided").pvalue)
        return "Mann-Whitney U", p, p < alpha
    ends: tuple[Any, ...] = (pa.get("ci_lo_s"), pa.get("ci_hi_s"), pb.get("ci_lo_s"), pb.get("ci_hi_s"))
    lo_a, hi_a, lo_b, hi_b = ends
    if any(is_missing(x) for x in ends):
        return "none", None, False
    overlap = lo_a <= hi_b and lo_b <= hi_a
    return "CI overlap: " + ("yes" if overlap else "no"), None, not overlap


def _index(points: Sequence[Record], keys: Sequence[str], side: str, warnings: list[str],
           level: str) -> dict[tuple[str, ...], list[Record]]:
    out: dict[tuple[str, ...], list[Record]] = {}
    for p in points:
        k = tuple(repr(p.get(key)) for key in keys)
        if k in out and level == "repetition":
            warnings.append(f"{side} has more than one point for {_label(p, keys)}: using the last")
        out.setdefault(k, []).append(p)
    return out


def _launch_medians(pts: Sequence[Record]) -> list[float]:
    by: dict[tuple[Any, ...], list[float]] = {}
    for p in pts:
        if not is_missing(p.get("median_s")) and p["median_s"] > 0:
            by.setdefault(_launches.launch_of(p), []).append(p["median_s"])
    return [_launches._median(v) for v in by.values()]


def _launch_row(row: Record, pa_list: Sequence[Record], pb_list: Sequence[Record], threshold: float, alpha: float,
                default_spread: float) -> None:
    ma, mb = _launch_medians(pa_list), _launch_medians(pb_list)
    if not ma or not mb:
        row.update(ratio=None, test="none", p=None, significant=False, verdict="no data",
                   na=len(ma), nb=len(mb))
        return
    pairs = _launches.block_pairs(pa_list, pb_list)
    if pairs:
        r = _launches.paired_test(pairs, alpha)
        test = f"paired launch t ({len(pairs)} blocks)"
    else:
        r = _launches.launch_test(ma, mb, alpha, default_spread)
        test = (f"launch t ({r['na']}/{r['nb']})" if r["source"] == "data"
                else f"launch spread {100 * r['spread']:.0f} % (default)")
    verdict = ""
    ratio = r["ratio"]
    if r["significant"] and ratio > 1 + threshold:
        verdict = "REGRESSION"
    elif r["significant"] and ratio < 1 - threshold:
        verdict = "improvement"
    elif r["one_launch"] or (r["source"] == "default"):
        verdict = "inconclusive: one launch per side"
    # power: what these launches can see at this spread, and how many would see the threshold
    # (a one-launch comparison is judged on the default spread: its figures are for 2+ launches)
    paired, n = bool(pairs), max(2, min(r["na"], r["nb"]))
    det = _launches.detectable(r["spread"], n, alpha, paired=paired)
    need = _launches.launches_needed(r["spread"], math.log(1 + threshold), alpha, paired=paired)
    row.update(a_median_s=_launches._median(ma), b_median_s=_launches._median(mb), ratio=ratio,
               test=test, p=r["p"], significant=r["significant"], verdict=verdict,
               na=r["na"], nb=r["nb"], spread=r["spread"], spread_source=r["source"],
               limit=math.exp(r["limit"]), detectable=None if det is None else math.exp(det),
               needed=need)


def _label(p: Record, keys: Sequence[str]) -> str:
    return " ".join(fmt_bytes(p.get(k)) if k == "bytes" else f"{k}={p.get(k)}" for k in keys)


def compare(a: Points, b: Points, threshold: float = 0.05, alpha: float = 0.05,
            match: Sequence[str] | None = None, level: str = "launch",
            default_spread: float = _launches.DEFAULT_LAUNCH_SPREAD) -> Comparison:
    """Compare points ``b`` against baseline ``a`` (lists of point dicts, or DataFrames).

    ``level``: "launch" (default) tests launch medians against the between-launch spread;
    "repetition" tests one launch's repetitions (only meaningful within one launch)."""
    if level not in ("launch", "repetition"):
        raise IsochronError(f"level {level!r}: choose launch or repetition")
    a = a.to_dict("records") if hasattr(a, "to_dict") else list(a)
    b = b.to_dict("records") if hasattr(b, "to_dict") else list(b)
    present = [k for k in MATCH_KEYS if any(k in p for p in a) or any(k in p for p in b)]
    compared = {}
    if match is None:
        for k in present:
            va, vb = {repr(p.get(k)) for p in a}, {repr(p.get(k)) for p in b}
            if len(va) == 1 and len(vb) == 1 and va != vb and k != "bytes":
                compared[k] = (a[0].get(k), b[0].get(k))
        keys = [k for k in present if k not in compared]
    else:
        unknown = [k for k in match if k not in MATCH_KEYS]
        if unknown:
            raise IsochronError(f"--match {','.join(unknown)}: not a point key"
                                f" (choose from {', '.join(MATCH_KEYS)})")
        keys = list(match)
    warnings: list[str] = []
    ia, ib = _index(a, keys, "A", warnings, level), _index(b, keys, "B", warnings, level)
    rows = []
    for ik, la in ia.items():
        lb = ib.get(ik)
        if lb is None:
            continue
        pa, pb = la[-1], lb[-1]
        ma: Any = pa.get("median_s")
        mb: Any = pb.get("median_s")
        row = {key: pa.get(key) for key in keys}
        row.update(a_median_s=ma, b_median_s=mb, a=pa, b=pb, level=level)
        if any(below_resolution(q) for q in la + lb):     # no ratio of sub-resolution values
            row.update(ratio=None, test="none", p=None, significant=False,
                       verdict="below resolution", na=len(la), nb=len(lb))
        elif level == "launch":
            _launch_row(row, la, lb, threshold, alpha, default_spread)
        elif is_missing(ma) or is_missing(mb) or ma <= 0:
            row.update(ratio=None, test="none", p=None, significant=False, verdict="no data")
        else:
            ratio = mb / ma
            test, p, sig = _test(pa, pb, alpha)
            verdict = ""
            if sig and ratio > 1 + threshold:
                verdict = "REGRESSION"
            elif sig and ratio < 1 - threshold:
                verdict = "improvement"
            row.update(ratio=ratio, test=test, p=p, significant=sig, verdict=verdict)
        rows.append(row)
    if not rows:
        raise IsochronError("no point of B matches a point of A on "
                            f"{', '.join(keys)} (use --match to choose the keys)")
    return Comparison(rows, keys, compared, only_a=len(set(ia) - set(ib)),
                      only_b=len(set(ib) - set(ia)), warnings=warnings)


def _median_cell(r: Record, side: str) -> str:
    p = r.get(side) or {}
    return resolution_cell(p) if below_resolution(p) else fmt_time(r[f"{side}_median_s"])


def comparison_table(cmp: Comparison, name_a: str = "A", name_b: str = "B", threshold: float = 0.05,
                     alpha: float = 0.05) -> Table:
    """The comparison as a :class:`Table` (same text in the terminal and the report)."""
    ops = {r.get("op") for r in cmp.rows}
    shown = [k for k in cmp.keys if k != "bytes" and any(
        len({repr(r[k]) for r in cmp.rows if r.get("op") == op}) > 1 for op in ops)]
    if "op" in cmp.keys and len(ops) > 1 and "op" not in shown:
        shown.insert(0, "op")
    launch = cmp.level == "launch"
    cols = shown + ["size", "A median [µs]", "B median [µs]", "B/A"] + (
        ["launches", "beyond", "sees", "needs"] if launch else []) + ["test", "p", "verdict"]
    rows = []
    for r in cmp.rows:
        lcells = []
        if launch:
            lim = r.get("limit")
            det, need = r.get("detectable"), r.get("needed")
            lcells = [f"{r.get('na', 0)}/{r.get('nb', 0)}",
                      MISSING if lim is None else f"{lim:.3g}x",
                      MISSING if det is None else f"{det:.3g}x",
                      MISSING if need is None else (f"{need}" if need < 10000 else ">10000")]
        rows.append([r[k] for k in shown] + [
            fmt_bytes(r.get("bytes")), _median_cell(r, "a"), _median_cell(r, "b"),
            MISSING if r["ratio"] is None else f"{r['ratio']:.3f}"] + lcells + [r["test"],
            MISSING if r["p"] is None else f"{r['p']:.3g}", r["verdict"]])
    n = len(shown)
    what = "; ".join(f"{k}: {va} (A) vs {vb} (B)" for k, (va, vb) in cmp.compared.items())
    notes = [f"A = {name_a}", f"B = {name_b}"]
    if what:
        notes.append(f"comparing {what}")
    if launch:
        spreads = sorted({(r.get("spread_source"), round(r.get("spread") or 0, 4))
                          for r in cmp.rows if r.get("spread_source") == "default"})
        notes.append("launch level: medians are the medians of each side's launch medians;"
                     " launch t = two-sample t-test on the logs of the launch medians with the"
                     " between-launch spread pooled from the data; paired launch t = t-test on"
                     " the log ratios of the launches of each block when A and B are two"
                     " configurations of one interleaved set; beyond = the factor B/A must exceed"
                     f" (or fall below its inverse) to be significant at alpha {alpha:g} given"
                     " that spread; sees = the factor these launches flag with 80 % power;"
                     f" needs = launches per side (blocks when paired) that flag a true ±{100 * threshold:g} %"
                     " with 80 % power at that spread (noncentral t)")
        if spreads:
            notes.append(f"one launch per side: no between-launch spread in the data; the default"
                         f" spread {100 * spreads[0][1]:g} % (sd of log launch medians, measured"
                         " with bench/reproducibility.sh) is used; give several launches per side"
                         " (isochron run --launches N) for a real test")
        notes.append(f"verdict: REGRESSION (B slower) / improvement when significant on the launch"
                     f" level and the ratio is beyond ±{100 * threshold:g} %")
    else:
        notes.append(f"verdict: REGRESSION (B slower) / improvement when significant (p < {alpha:g},"
                     f" or confidence intervals apart) and the ratio is beyond ±{100 * threshold:g} %")
    if cmp.only_a or cmp.only_b:
        notes.append(f"unmatched: {cmp.only_a} point(s) only in A, {cmp.only_b} only in B")
    notes += [f"warning: {w}" for w in cmp.warnings]
    title = f"comparison: ratio of medians B/A, {len(cmp.rows)} matched points," \
            f" {len(cmp.regressions)} regression(s)"
    return Table(title, cols, rows, right=set(range(n, n + (10 if launch else 6))), notes=notes)
