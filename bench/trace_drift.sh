#!/usr/bin/env bash
# Global against local timestamps of a traced run, with and without injected drift (issue 15).
# Traces examples/trace_stencil at NP ranks (default 4, ITERS iterations, default 2000) under
# libisochron-trace.so in four configurations:
#   plain         no skew; default sync (hca3+hca3) and tracking
#   skew-none     1 ms offsets and 50 ppm drift injected (ISOCHRON_TRACE_SKEW), no correction (SYNC=none)
#   skew-once     the same skew, synchronized once at MPI_Init, no tracking
#   skew-tracked  the same skew, synchronized and tracked
# and prints, per configuration, the clock figures from the trace's metadata (check right after the
# sync, true error at finalize) and, for the first, middle and last MPI_Allreduce, "latest entry -
# earliest exit" across ranks on the global and on the local clocks: a collective cannot end on one
# rank before it started on all, so a positive value means the clocks are off by at least that much.
# Writes the Gantt charts of the middle instance (isochron gantt) when the Python package is importable.
# Usage: bench/trace_drift.sh [NP] [ITERS]; OUT=dir keeps the traces (default: a temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
NP=${1:-4}
ITERS=${2:-2000}
[ -z "${BENCH_QUICK:-}" ] || { NP=${1:-2}; ITERS=${2:-200}; }   # BENCH_QUICK=1: a short smoke run
OUT=${OUT:-$(mktemp -d)}
LIB=$(cd "$B" && pwd)/libisochron-trace.so   # BUILD relative to the repository or absolute
SKEW=offset=1ms,drift=50,seed=3
run() { local name=$1; shift; env "$@" ISOCHRON_TRACE_DIR="$OUT" ISOCHRON_TRACE_NAME="$name" LD_PRELOAD="$LIB" \
          tools/mpirun-local -np "$NP" "$B/trace_stencil" "$ITERS" 20000 > /dev/null; }
run plain
run skew-none ISOCHRON_TRACE_SYNC=none ISOCHRON_TRACE_SKEW=$SKEW
run skew-once ISOCHRON_TRACE_TRACK=off ISOCHRON_TRACE_SKEW=$SKEW
run skew-tracked ISOCHRON_TRACE_SKEW=$SKEW
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
print(f"{'trace':<13} {'correction':<28} {'check(us)':>9} {'true@end(us)':>12} {'refreshes':>9}  Allreduce #k at t: global | local  (latest entry - earliest exit, us)")
for name in ("plain", "skew-none", "skew-once", "skew-tracked"):
    d = json.load(open(f"{out}/{name}.json"))
    m = d["isochron"]
    ev = [e["args"] for e in d["traceEvents"] if e.get("ph") == "X" and e["args"]["call"] == "MPI_Allreduce"]
    n = max(a["instance"] for a in ev) + 1
    t0 = min(a["global_start_s"] for a in ev)
    cols = []
    for k in (0, n // 2, n - 1):
        per = [a for a in ev if a["instance"] == k]
        g = max(a["global_start_s"] for a in per) - min(a["global_end_s"] for a in per)
        l = max(a["local_start_s"] for a in per) - min(a["local_end_s"] for a in per)
        cols.append(f"#{k}@{per[0]['global_start_s'] - t0:.2f}s {g * 1e6:8.2f} | {l * 1e6:8.2f}")
    f = lambda k: float(m[k]) * 1e6
    print(f"{name:<13} {m['clock_correction'][:28]:<28} {f('check_max_abs_measured_offset_s'):>9.3f} {f('true_error_at_finalize_s'):>12.3f} {m['tracker_refreshes']:>9}  " + "   ".join(cols))
PY
if python3 -c "import isochron.trace" 2>/dev/null || [ -n "${PYTHONPATH:-}" ]; then
  for name in skew-none skew-tracked; do
    python3 -m isochron.cli gantt "$OUT/$name.json" --call MPI_Allreduce --instance $((ITERS / 2)) -o "$OUT/gantt-$name.png" > /dev/null && echo "gantt: $OUT/gantt-$name.png"
  done
fi
echo "traces: $OUT"
