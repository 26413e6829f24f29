#!/usr/bin/env bash
# What reduces the spread between launches (issue 12)? One interleaved launch set (isochron
# run, seeded ABBA order, so a drift of the machine hits every variant alike) of the default
# points at NP ranks, LAUNCHES launches per variant:
#   base     the defaults (tools/mpirun-local: Open MPI binds each rank to a core when not
#            oversubscribed; the context's "binding" says what happened)
#   unbound  launcher-args: --bind-to none
#   warmup   --warmup 50 untimed repetitions before each point (default 2)
#   order    the points in reverse order (ops and sizes listed backwards)
#   resync   --resync 0.2: synchronize the clocks again between points after 0.2 s
#   untracked --track off: one long sync at the start, no refreshes between points
# Prints, per variant, the between-launch spread (sd of the log launch medians ~ CV) per point
# and its median over points, beside the median within-launch 95 % CI half-width.
# A benchmark, not a test. usage: bench/launch_spread.sh ; env NP (2), LAUNCHES (6), REPS
# (max-reps, 200), SEED (1), OPS, SIZES, BUILD, PY, KEEP (keep the set in this directory)
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick LAUNCHES=2 REPS=20 OPS=allreduce SIZES=8
bench_init NP=2 LAUNCHES=6 SEED=1 REPS=200 OPS=allreduce,bcast,alltoall SIZES=8,1K,64K
mkdir -p "$OUT/cfg"
common="--quiet --format none --max-reps $REPS"
rev() { echo "$1" | tr ',' '\n' | tac | paste -sd, -; }
echo "--ops $OPS --sizes $SIZES $common" > "$OUT/cfg/base.args"
{ echo "--ops $OPS --sizes $SIZES $common"; echo "launcher-args: --bind-to none"; } > "$OUT/cfg/unbound.args"
echo "--ops $OPS --sizes $SIZES $common --warmup 50" > "$OUT/cfg/warmup.args"
echo "--ops $(rev "$OPS") --sizes $(rev "$SIZES") $common" > "$OUT/cfg/order.args"
echo "--ops $OPS --sizes $SIZES $common --resync 0.2" > "$OUT/cfg/resync.args"
echo "--ops $OPS --sizes $SIZES $common --track off" > "$OUT/cfg/untracked.args"
echo "isochron launch spread: $NP ranks, $(bench_cores)," \
     "LAUNCHES=$LAUNCHES per variant, REPS=$REPS"
$PY -m isochron.cli run --launches "$LAUNCHES" --seed "$SEED" -o "$OUT/set" --configs "$OUT"/cfg/*.args \
    -- tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" 2>&1 | tail -1
$PY - "$OUT/set" <<'PY'
import statistics, sys
import isochron
from isochron import launches
from isochron.units import fmt_bytes
ds = isochron.read(sys.argv[1])
binding = {}
for c in ds.contexts:
    binding.setdefault(c["config"], set()).add(str(c["run"].get("binding")))
stats = launches.launch_stats(ds.records["point"])
configs = list(dict.fromkeys(s.point["config"] for s in stats))
points = sorted({(s.point["op"], s.point["bytes"]) for s in stats})
print(f"\nbetween-launch spread (sd of log launch medians) per point and variant, {stats[0].n} launches each")
print("op         size    " + "".join(f"{c:>10}" for c in configs))
cv = {(s.point["config"], s.point["op"], s.point["bytes"]): s.sd_log for s in stats}
for op, b in points:
    print(f"{op:<10} {fmt_bytes(b):>6}  " + "".join(
        f"{100 * cv[(c, op, b)]:9.1f}%" if cv.get((c, op, b)) is not None else f"{'-':>10}"
        for c in configs))
med = {c: statistics.median([v for (cc, _, _), v in cv.items() if cc == c and v is not None])
       for c in configs}
print("median          " + "".join(f"{100 * med[c]:9.1f}%" for c in configs))
ci = {}
for p in ds.records["point"]:
    if p.get("ci_hi_s") and p.get("mean_s"):
        ci.setdefault(p["config"], []).append((p["ci_hi_s"] - p["ci_lo_s"]) / 2 / p["mean_s"])
print("within CI ±     " + "".join(f"{100 * statistics.median(ci[c]):9.1f}%" for c in configs))
print("centre (median of launch medians) relative to base, median over points:")
ctr = {(s.point["config"], s.point["op"], s.point["bytes"]): s.center for s in stats}
print("                " + "".join(f"{statistics.median([ctr[(c, o, b)] / ctr[('base', o, b)] for o, b in points if (c, o, b) in ctr]):10.3f}" for c in configs))
print("binding (context): " + "; ".join(f"{c}: {' '.join(sorted(v))}" for c, v in binding.items()))
PY
echo "load at the end: $(bench_load)"
