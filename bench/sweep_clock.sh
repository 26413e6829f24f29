#!/usr/bin/env bash
# The default sweep on a drifting clock (issue 10): the 16 blocking collectives,
# 8 B..1 MiB at 4 ranks, once under injected skew (default offset=1ms,drift=2,seed=9,
# tracking on) and RUNS times without skew. Prints every point's clock error
# (true and bound) under skew, and whether its median lies within the
# run-to-run spread (min..max of the medians, widened by their CIs) of the
# runs without skew.
#   bash bench/sweep_clock.sh                 # ~4 min
#   SKEW=offset=1ms,drift=5,seed=3 RUNS=2 bash bench/sweep_clock.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick NP=2 RUNS=1 ARGS="--ops allreduce --sizes 8"   # BENCH_QUICK=1: a short smoke run
KEEP=${KEEP:-${OUT:-${BUILD:-build}/sweep_clock}}   # the JSON Lines are kept: in OUT (or KEEP), else here
bench_init NP=4 RUNS=3 SKEW=offset=1ms,drift=2,seed=9 ARGS=
tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" --quiet --format none $ARGS --skew "$SKEW" --jsonl "$OUT/skew.jsonl"
for i in $(seq 1 "$RUNS"); do
  tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" --quiet --format none $ARGS --jsonl "$OUT/plain-$i.jsonl"
done
python3 - "$OUT" "$RUNS" "$SKEW" <<'EOF'
import json, statistics, sys
out, runs, skew = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def points(f):
    d, wall = {}, None
    for line in open(f):
        x = json.loads(line)
        if x["type"] == "point": d[(x["op"], x["bytes"])] = x
        if x["type"] == "end": wall = x["wall_s"]
    return d, wall
sk, wall_sk = points(f"{out}/skew.jsonl")
plain = [points(f"{out}/plain-{i}.jsonl") for i in range(1, runs + 1)]
true = [p["clock_true_s"] for p in sk.values() if p["clock_true_s"] is not None]
bound = [p["clock_bound_s"] for p in sk.values() if p["clock_bound_s"] is not None]
inside, outside = 0, []
for k, p in sk.items():
    meds = [r[0][k] for r in plain if k in r[0] and r[0][k]["median_s"] is not None]
    if p["median_s"] is None or not meds: continue
    lo = min(m["ci_lo_s"] if m["ci_lo_s"] is not None else m["median_s"] for m in meds)
    hi = max(m["ci_hi_s"] if m["ci_hi_s"] is not None else m["median_s"] for m in meds)
    lo, hi = min(lo, min(m["median_s"] for m in meds)), max(hi, max(m["median_s"] for m in meds))
    if lo <= p["median_s"] <= hi: inside += 1
    else: outside.append((k, p["median_s"], lo, hi))
print(f"Default sweep, {len(sk)} points; under --skew {skew} (tracking on), {wall_sk:.1f} s:")
print(f"| | median | p95 | worst | points > 0.5 µs |")
print(f"|---|---|---|---|---|")
for name, v in (("true clock error", true), ("estimated bound", bound)):
    v = sorted(v)
    print(f"| {name} | {statistics.median(v) * 1e6:.3f} µs | {v[int(0.95 * (len(v) - 1))] * 1e6:.3f} µs | {v[-1] * 1e6:.3f} µs | {sum(x > 0.5e-6 for x in v)} |")
print(f"\nMedians under skew within the spread of {runs} runs without skew (min..max of their 95 % CIs and medians): {inside} of {inside + len(outside)}")
for (op, b), m, lo, hi in sorted(outside, key=lambda t: -abs(t[1] - (t[2] + t[3]) / 2) / ((t[3] - t[2]) or 1))[:10]:
    print(f"  outside: {op} {b} B: {m * 1e6:.2f} µs vs {lo * 1e6:.2f}..{hi * 1e6:.2f} µs")
print("wall times without skew: " + ", ".join(f"{w:.1f} s" for _, w in plain))
EOF
