#!/usr/bin/env python3
"""check_times: never a negative time (issue 26), in the records and the table of one isochron-shmem run.

A point's times as the record states them (median, mean, minimum, the ends of the median's and of the
mean's interval) are latencies unless the point is flagged "below_resolution": a time below zero must
carry the flag, and so must, in a point from which a part measured apart is subtracted (correction_s > 0:
empty quiet, post, computation, barrier, acknowledgment), any of them below resolution_s (each repetition
of such a point is a subtraction's result). The raw values stay in the record. The table (stdout of the
run) shows no negative time, and every flagged point says "below resolution" there.

usage: check_times.py OUT.jsonl TABLE.txt   (a library's defects may leave points without a time: skipped)"""
import math, os, re, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import fail, read  # noqa: E402

TIMES = ("median_s", "mean_s", "min_s", "median_ci_lo_s", "median_ci_hi_s", "ci_lo_s", "ci_hi_s")


def unflagged(p):
    """The times of point p stated as latencies that cannot be: [(key, value)]; empty when none."""
    if p.get("valid", 0) < 1 or p.get("below_resolution") is True: return []
    r = p.get("resolution_s")
    sub = (p.get("correction_s") or 0) > 0
    bad = []
    for k in TIMES:
        v = p.get(k)
        if not isinstance(v, (int, float)) or not math.isfinite(v): continue
        if v < 0: bad.append((k, v))
        elif sub and isinstance(r, (int, float)) and k != "median_ci_hi_s" and k != "ci_hi_s" and k != "mean_s" and v < r: bad.append((k, v))
    if isinstance(r, (int, float)) and isinstance(p.get("median_s"), (int, float)) and p["median_s"] < r and ("median_s", p["median_s"]) not in bad:
        bad.append(("median_s", p["median_s"]))
    return bad


def main():
    if len(sys.argv) != 3: fail(__doc__.split("usage: ")[1])
    recs = read(sys.argv[1])
    table = open(sys.argv[2]).read()
    pts = [r for r in recs if r.get("type") == "point"]
    if not pts: fail("no point records")
    flagged, sub = 0, 0
    for p in pts:
        name = f"{p['op']} {p['bytes']} B"
        bad = unflagged(p)
        if bad: fail(f"{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in bad) + f" stated as a time (resolution_s {p.get('resolution_s')}, correction_s {p.get('correction_s')}) without below_resolution")
        if p.get("below_resolution") is True:
            flagged += 1
            # the table's line of this point (its name, then its size as the table writes it) says so
            b = p["bytes"]
            sz = next((f"{b >> s} {u}" for s, u in ((30, "GiB"), (20, "MiB"), (10, "KiB")) if b >= 1 << s and b % (1 << s) == 0), f"{b} B")
            line = next((l for l in table.splitlines() if re.match(re.escape(p["op"]) + " +" + re.escape(sz) + " ", l)), None)
            if line is None or "below resolution" not in line: fail(f"{name}: flagged below_resolution, its table line does not say so: {line!r}")
        if (p.get("correction_s") or 0) > 0: sub += 1
    neg = re.findall(r"(?<![\w.])-\d[\d.]*(?:e[-+]?\d+)? ?(?:ns|us|µs|ms|s)\b", table)
    if neg: fail(f"the table shows negative times: {neg[:5]}")
    print(f"check_times: PASS ({len(pts)} points, {sub} by subtraction, {flagged} flagged below resolution)")


if __name__ == "__main__":
    main()
