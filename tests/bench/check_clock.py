#!/usr/bin/env python3
"""check_clock: every point of an isochron-bench run records its clock error,
consistently with the truth.

  check_clock.py TRACKED.jsonl UNTRACKED.jsonl BOUND_S

TRACKED was run with injected drift and tracking on: every point must carry
clock_bound_s > 0 and clock_true_s (ranks share this host, so the truth is
known) within BOUND_S, the context must say tracking is on, and the bound may
not be wildly optimistic (true error <= bound + BOUND_S / 2 on at least 90 %
of the points). UNTRACKED is the same run with --track off: its points carry
no clock fields (null), its context says tracking is off. Prints
"check_clock: PASS" or the first problem."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import records  # noqa: E402
from records import fail  # noqa: E402


def load(path):
    recs = records.load(path)
    return recs[0], records.of_type(recs, "point")


tracked, untracked, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
ctx, pts = load(tracked)
if ctx["clock_sync"].get("tracking") is not True: fail(f"{tracked}: context does not say tracking is on: {ctx['clock_sync']}")
if not pts: fail(f"{tracked}: no points")
optimistic = 0
for p in pts:
    name = f"{p['op']} {p['bytes']} B"
    b, t = p.get("clock_bound_s"), p.get("clock_true_s")
    if not (isinstance(b, (int, float)) and b > 0): fail(f"{name}: clock_bound_s {b!r} is not a positive number")
    if not isinstance(t, (int, float)): fail(f"{name}: clock_true_s {t!r} missing although all ranks share a host")
    if not 0 <= t <= bound: fail(f"{name}: true clock error {t * 1e6:.3f} µs beyond {bound * 1e6:.3f} µs")
    if t > b + bound / 2: optimistic += 1
    print(f"  {name}: bound {b * 1e6:.3f} µs, true {t * 1e6:.3f} µs")
if optimistic > 0.1 * len(pts): fail(f"the bound was below the true error by more than {bound / 2 * 1e6:.2f} µs on {optimistic} of {len(pts)} points")
ctx, pts = load(untracked)
if ctx["clock_sync"].get("tracking") is not False: fail(f"{untracked}: context does not say tracking is off")
for p in pts:
    if p.get("clock_bound_s") is not None or p.get("clock_true_s") is not None:
        fail(f"{untracked}: {p['op']} {p['bytes']} B has clock fields without tracking")
print("check_clock: PASS")
