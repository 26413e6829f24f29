#!/usr/bin/env python3
"""check_output: the JSON Lines of isochron-barrier parse and hold together:
a context record first (tool, run, nprocs, clock_sync, barriers, experiments),
the RDS constants (positive b_s and s), one skew record and one cost record
per barrier with consistent statistics (median <= p95 <= max, as many samples
as valid calls), shift records for every barrier plus the "clock" and "none"
baselines at every size with 0 <= successes <= valid, the payoff record with
one value per size, and an end record saying the run completed. Exits
nonzero with the reason on the first problem."""
import math, sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import fail, load  # noqa: E402

path, nprocs = sys.argv[1], int(sys.argv[2])
recs = load(path)
ctx = recs[0]
for k in ("schema", "tool", "run", "nprocs", "nodes", "oversubscribed", "barriers_yield", "timer", "clock_sync", "barriers", "experiments", "options"):
    if k not in ctx: fail(f"context lacks {k}")
if ctx["tool"] != "isochron-barrier" or ctx["nprocs"] != nprocs: fail(f"context tool/nprocs wrong: {ctx['tool']}, {ctx['nprocs']}")
bars = ctx["barriers"]
if len(bars) != 8 or "rds" not in bars: fail(f"expected the 8 barriers, got {bars}")
by = lambda t: [r for r in recs if r.get("type") == t]
rc = by("rds_constants")
if len(rc) != 1 or not (rc[0]["b_s_s"] > 0 and rc[0]["s_s"] > 0): fail(f"rds constants missing or not positive: {rc}")
sk = by("skew")
if sorted(r["barrier"] for r in sk) != sorted(bars): fail("one skew record per barrier expected")
for r in sk:
    e = r["exit_skew_s"]
    if r["valid"] != len(r["samples_s"]) or r["valid"] > r["calls"]: fail(f"skew {r['barrier']}: valid/samples/calls inconsistent")
    if r["valid"] and not (0 <= e["median"] <= e["p95"] <= e["max"]): fail(f"skew {r['barrier']}: median <= p95 <= max violated: {e}")
    if r["valid"] and abs(max(r["samples_s"]) - e["max"]) > 1e-12 * max(1, e["max"]): fail(f"skew {r['barrier']}: max is not the largest sample")
co = by("cost")
if sorted(r["barrier"] for r in co) != sorted(bars): fail("one cost record per barrier expected")
for r in co:
    if r["op"] != "barrier:" + r["barrier"] or not (0 <= r["valid"] <= r["reps"]): fail(f"cost record inconsistent: {r}")
    if r["valid"] == 0:
        # only MPICH's busy-polling collectives on an oversubscribed node start ranks ms apart, so that
        # Round-Time may reject every repetition despite its adaptation; then no statistics
        if not (ctx["oversubscribed"] and "MPICH" in ctx["run"]["mpi_library"]) or r["median_s"] is not None:
            fail(f"cost record without valid repetitions: {r}")
    elif not (r["min_s"] <= r["median_s"] <= r["max_s"]): fail(f"cost record inconsistent: {r}")
sh = by("shift")
sizes = sorted({r["bytes"] for r in sh})
if sizes != [4096, 65536]: fail(f"shift sizes {sizes}, expected the default 4K,64K")
for s in sizes:
    names = sorted(r["barrier"] for r in sh if r["bytes"] == s)
    if names != sorted(bars + ["clock", "none"]): fail(f"shift at {s} B: barriers {names}")
judged = 0
for r in sh:
    if not (0 <= r["successes"] <= r["valid"] <= r["trials"]) or len(r["samples_s"]) != r["valid"]: fail(f"shift record inconsistent: {r['barrier']} {r['bytes']}")
    ref = [q for q in sh if q["bytes"] == r["bytes"] and q["barrier"] == "clock"][0]
    if r["reference_s"] is None:
        # the concurrent reference had no valid trial (a rank late in every one, as on an
        # oversubscribed node): then nothing can be judged, and the record must say so
        if ref["valid"] != 0 or r["success_rate"] is not None or r["successes"] != 0: fail(f"shift {r['barrier']} {r['bytes']}: no reference but {ref['valid']} valid reference trials, rate {r['success_rate']}")
        continue
    judged += 1
    if r["valid"] and not (r["reference_s"] > 0 and abs(r["success_rate"] - r["successes"] / r["valid"]) < 1e-9): fail(f"shift rate wrong: {r['barrier']}")
    ok = sum(1 for x in r["samples_s"] if x <= (1 + r["threshold"]) * r["reference_s"])
    if ok != r["successes"]: fail(f"shift {r['barrier']} {r['bytes']}: successes {r['successes']} but {ok} samples within the threshold")
# A record without a reference is consistent but says nothing of its barrier: a run in which no
# size had a valid reference trial checked no barrier's shift at all. That is not a pass: the test
# says so and exits 77, which CTest shows as skipped (a machine so loaded that a rank was late in
# every trial), after every other record has been checked.
no_shift_judged = judged == 0
po = by("payoff")
if len(po) != 1: fail("one payoff record expected")
p = po[0]
n = len(p["sizes"])
if p["sizes"] != [0, 4096, 65536] or any(len(p[k]) != n for k in ("reference_s", "synced_s", "unsynced_s")): fail(f"payoff arrays wrong: {p}")
if p["d"] != math.ceil(math.log2(nprocs)): fail(f"payoff d = {p['d']}, expected ceil(log2 {nprocs})")
end = recs[-1]
if end.get("type") != "end" or end.get("complete") is not True: fail("last record is not a complete end record")
if no_shift_judged:
    print(f"check_output: SKIP: every other record holds, but no shift record could be judged: the concurrent"
          f" reference had no valid trial at any size ({sizes})")
    sys.exit(77)
print(f"check_output: PASS ({len(recs)} records, {judged} of {len(sh)} shift records judged)")
