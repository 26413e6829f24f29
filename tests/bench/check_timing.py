#!/usr/bin/env python3
"""check_timing: every point of an isochron-bench run states how it was timed and what that can resolve
(issue 26, CONTRACT.md): "timing" and "timing_choice" (auto unless --timing named one), "loop_k" >= 1 with
every time per call (the raw time of a repetition is its span / loop_k: the largest local span for the origin
timing, last end - first start for the global one), "resolution_s" > 0, "below_resolution" and "uncertain"
as their definitions say, and no negative median, minimum or CI end.
usage: check_timing.py FILE.jsonl CHOICE [TIMING_OF_RMA TIMING_OF_OTHERS [LOOP_K]]
TIMING_*: a timing name, or "any". LOOP_K: the k every point must have ("any": >= 1)."""
import math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import fail, load  # noqa: E402

path, choice = sys.argv[1], sys.argv[2]
want_rma = sys.argv[3] if len(sys.argv) > 3 else "any"
want_other = sys.argv[4] if len(sys.argv) > 4 else "any"
want_k = sys.argv[5] if len(sys.argv) > 5 else "any"
recs = load(path)
ctx = recs[0]
if "timing" not in ctx or (choice == "auto") != (ctx["timing"] == "auto"):
    fail(f"context timing {ctx.get('timing')!r} with points chosen by {choice!r}")
RMA = ("put_", "get_", "accumulate_", "get_accumulate_", "fetch_and_op_", "compare_and_swap_")
pts = [r for r in recs if r.get("type") == "point"]
if not pts: fail("no point records")
for p in pts:
    name = f"{p['op']} {p['bytes']} B"
    for k in ("timing", "timing_choice", "loop_k", "resolution_s", "below_resolution", "uncertain"):
        if k not in p: fail(f"{name}: lacks {k}")
    if p["timing_choice"] != choice: fail(f"{name}: timing_choice {p['timing_choice']!r}, expected {choice!r}")
    k = p["loop_k"]
    if not (isinstance(k, int) and k >= 1): fail(f"{name}: loop_k {k!r} is not an integer >= 1")
    if want_k != "any" and k != int(want_k): fail(f"{name}: loop_k {k}, expected {want_k}")
    rma = p["op"].startswith(RMA)
    want = want_rma if rma else want_other
    if want != "any" and p["timing"] != want: fail(f"{name}: timing {p['timing']!r}, expected {want!r}")
    if (k > 1) != (p["timing"] == "loop"): fail(f"{name}: timing {p['timing']!r} with loop_k {k}")
    base = p.get("loop_of") if k > 1 else p["timing"]
    if k > 1 and base not in ("origin", "global", "max"): fail(f"{name}: loop_of {base!r}")
    if rma and base != "origin": fail(f"{name}: a one-sided operation timed by {base!r}, not at the origin")
    # active target (fence, PSCW): the target takes part in every epoch, so auto times one epoch, never a loop
    # (engine.c, choose_loop; it flipped between the two from launch to launch at the threshold)
    if choice == "auto" and p["op"].endswith(("_fence", "_pscw")) and k != 1: fail(f"{name}: auto looped an active-target epoch (loop_k {k})")
    if p["valid"] == 0: continue
    r = p["resolution_s"]
    if not (isinstance(r, (int, float)) and r > 0): fail(f"{name}: resolution_s {r!r}")
    med = p["median_s"]
    if p["below_resolution"] != (med < r): fail(f"{name}: below_resolution {p['below_resolution']} with median {med} and resolution {r}")
    lo, hi = p.get("median_ci_lo_s"), p.get("median_ci_hi_s")
    used = (p["clock_bound_s"] / k) if base == "global" and p.get("clock_bound_s") is not None else 0.0
    unc = True if lo is None or hi is None or not med > 0 else (0.5 * (hi - lo) + used > 0.1 * med)
    if p["uncertain"] != unc: fail(f"{name}: uncertain {p['uncertain']}, expected {unc} (median {med}, CI [{lo}, {hi}], clock {used})")
    # a loop's resolution is per call: the timer's part divided by k
    if base == "global" and p.get("clock_bound_s") is not None and not (r >= used): fail(f"{name}: resolution {r} below the clock bound used {used}")
    for f in ("median_s", "min_s", "ci_lo_s", "median_ci_lo_s"):
        if p.get(f) is not None and p[f] < 0: fail(f"{name}: negative {f} {p[f]}")
    raw = p.get("raw")
    if raw and raw.get("start_s"):
        for i, (t, st, en) in enumerate(zip(raw["time_s"], raw["start_s"], raw["end_s"])):
            span = (max(en) - min(st)) if base == "global" else max(e - s for s, e in zip(st, en))
            if not math.isclose(t, span / k, rel_tol=1e-9, abs_tol=1e-12):
                fail(f"{name}: repetition {i} time {t} is not its span {span} / loop_k {k}")
print(f"check_timing: PASS ({len(pts)} points, timings {sorted(set(p['timing'] for p in pts))}, loop_k {sorted(set(p['loop_k'] for p in pts))})")
