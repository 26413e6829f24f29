#!/usr/bin/env bash
# Is --timing auto's choice between one call and a loop of calls stable from launch to launch? (engine.c,
# choose_loop: auto loops one-sided operations under passive target only, whose calls back to back take
# under LOOP_BELOW timer reads; fence and PSCW epochs, whose target takes part, are timed one at a time as
# collectives are.) LAUNCHES launches of the same sweep; per point the timing each launch chose (origin, the
# method's name, or loop:k) and the range of its medians. A point whose choice changes between launches is
# marked FLIPS. BENCH names another isochron-bench binary (e.g. a build before a change) to compare.
#   bench/timing_choice.sh                      LAUNCHES=5 NP=2, the ops and sizes below
#   OPS=put_fence,put_lock SIZES=8 LAUNCHES=10 bench/timing_choice.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick LAUNCHES=2 SIZES=8 OPS=put_lock,allreduce
bench_init NP=2 LAUNCHES=5 SIZES=8,1K \
  OPS=put_fence,get_fence,put_pscw,put_lock,get_lock,put_lockall,get_lockall,pingpong,barrier,allreduce,bcast BENCH=
BENCH=${BENCH:-$BUILD/isochron-bench}
echo "# timing_choice: $BENCH, $NP ranks, $LAUNCHES launches; $(bench_cores)"
for i in $(seq 1 "$LAUNCHES"); do
  tools/mpirun-local -np "$NP" "$BENCH" --ops "$OPS" --sizes "$SIZES" --format none --quiet --jsonl "$OUT/run$i.jsonl" >/dev/null 2>&1 ||
    { echo "launch $i failed" >&2; exit 1; }
done
"$PY" - "$OUT" "$LAUNCHES" <<'PYEOF'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
pts = {}
order = []
for i in range(1, n + 1):
    for line in open(f"{out}/run{i}.jsonl"):
        d = json.loads(line)
        if d.get("type") != "point":
            continue
        key = (d["op"], d["bytes"])
        if key not in pts:
            pts[key] = []
            order.append(key)
        t = f"loop:{d['loop_k']}" if d["timing"] == "loop" else d["timing"]
        pts[key].append((t, d["median_s"]))
def us(x): return f"{x * 1e6:.2f}"
print(f"{'operation':<14} {'size':>5}  {'choice per launch':<44} {'median us (min-max)':>20}  stable")
flips = 0
for key in order:
    ch = pts[key]
    kinds = {c.split(':')[0] for c, _ in ch}
    meds = [m for _, m in ch]
    stable = "yes" if len(kinds) == 1 else "FLIPS"
    flips += len(kinds) > 1
    print(f"{key[0]:<14} {key[1]:>5}  {' '.join(c for c, _ in ch):<44} {us(min(meds)) + '-' + us(max(meds)):>20}  {stable}")
print(f"# {flips} of {len(order)} points changed timing between launches")
PYEOF
