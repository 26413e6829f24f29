#!/usr/bin/env python3
"""check_output: the JSON Lines and CSV written by isochron-bench parse and carry
the schema's fields: a context record first (schema version, MPI library, ranks,
timer, clock sync with its measured accuracy, scheme, method, oversubscription,
command line, isochron version), one point record per point with statistics and
their method, and an end record saying the run completed. Exits nonzero with
the reason on the first problem."""
import csv, math, sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from records import fail, load  # noqa: E402

jsonl, csvf, npoints = sys.argv[1], sys.argv[2], int(sys.argv[3])
recs = load(jsonl)
ctx = recs[0]
for k in ("schema", "tool", "run", "nprocs", "oversubscribed", "timer", "clock_sync", "scheme", "method", "options"):
    if k not in ctx: fail(f"context lacks {k}")
for k in ("isochron", "mpi_library", "ranks", "command", "hosts"):
    if k not in ctx["run"]: fail(f"context.run lacks {k}")
for k in ("spec", "duration_s", "max_abs_measured_offset_s"):
    if k not in ctx["clock_sync"]: fail(f"context.clock_sync lacks {k}")
# the late-start cap the engine chose: 1.0 when ranks outnumber cores, else 0.5 (no --late-cap given)
want_cap = 1.0 if ctx["oversubscribed"] else 0.5
if ctx["options"].get("late_cap") != want_cap:
    fail(f"context.options.late_cap {ctx['options'].get('late_cap')}, expected {want_cap} (oversubscribed: {ctx['oversubscribed']})")
pts = [r for r in recs if r.get("type") == "point"]
if len(pts) != npoints: fail(f"{len(pts)} point records, expected {npoints}")
for p in pts:
    for k in ("schema", "op", "family", "bytes", "dtype", "nprocs", "scheme", "method", "reps", "valid", "invalid", "stop",
              "mean_s", "median_s", "min_s", "max_s", "stddev_s", "ci_level", "ci_lo_s", "ci_hi_s", "quantiles", "validated"):
        if k not in p: fail(f"point {p.get('op')} lacks {k}")
    if p["schema"] != ctx["schema"]: fail("schema versions differ")
    if p["valid"] > 0:
        if not (0 < p["min_s"] <= p["median_s"] <= p["max_s"]): fail(f"{p['op']} {p['bytes']}: min/median/max out of order")
        if p["valid"] >= 2 and not (p["ci_lo_s"] <= p["mean_s"] <= p["ci_hi_s"]): fail(f"{p['op']}: CI does not contain the mean")
    else:
        if p["median_s"] is not None: fail(f"{p['op']}: statistics over zero valid repetitions")
    if p["reps"] != p["valid"] + p["invalid"]: fail("reps != valid + invalid")
    if p["validated"] < 1 and p["family"] != "barrier": fail(f"{p['op']}: no repetition validated")
end = recs[-1]
if end.get("type") != "end" or end.get("complete") is not True or end.get("points") != npoints:
    fail(f"last record is not a complete end record: {end}")
rows = [r for r in csv.reader(l for l in open(csvf) if not l.startswith("#"))]
if rows[0][:3] != ["op", "family", "bytes"]: fail("CSV header missing")
if len(rows) - 1 != npoints: fail(f"CSV has {len(rows)-1} rows, expected {npoints}")
for r in rows[1:]:
    if len(r) != len(rows[0]): fail(f"CSV row has {len(r)} fields, header {len(rows[0])}")
print(f"check_output: PASS ({npoints} points, JSON Lines and CSV)")
