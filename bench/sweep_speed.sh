#!/usr/bin/env bash
# The default sweep (16 blocking collectives, 8 B..1 MiB, 4 ranks): wall time,
# how many points met the CI target, and the share of valid repetitions.
#   bash bench/sweep_speed.sh            # 3 runs
#   RUNS=1 ARGS="--ci-of mean" bash bench/sweep_speed.sh
#   IMB=/path/to/IMB-MPI1 bash bench/sweep_speed.sh   # also IMB's 14 collectives, 8 B..1 MiB,
#       at the same ranks, interleaved run by run (IMB is not part of isochron: build it outside
#       the repository). IMB's figure is a wall time for its own default repetitions (1000 down
#       to its 10 s / size cap), with no CI and no validity check: a speed reference, not a peer
#       in accuracy.
set -euo pipefail
. "$(dirname "$0")/common.sh"
bench_quick NP=2 RUNS=1 ARGS="--ops allreduce --sizes 8"   # BENCH_QUICK=1: a short smoke run
KEEP=${KEEP:-${OUT:-${BUILD:-build}/sweep_speed}}   # the JSON Lines are kept: in OUT (or KEEP), else here
bench_init NP=4 RUNS=3 ARGS=
IMB_COLL="Bcast Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv Reduce Reduce_scatter Reduce_scatter_block Allreduce Barrier"
echo "load $(bench_load), $(nproc) cores, $NP ranks"
for i in $(seq 1 "$RUNS"); do
  tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" --quiet --format none $ARGS --jsonl "$OUT/run-$i.jsonl"
  if [ -n "${IMB:-}" ]; then
    t0=$(date +%s%N)
    tools/mpirun-local -np "$NP" "$IMB" $IMB_COLL -npmin "$NP" -msglog 3:20 > "$OUT/imb-$i.txt"
    echo "$(( ($(date +%s%N) - t0) / 1000000 ))e-3" > "$OUT/imb-$i.wall"
  fi
done
python3 - "$OUT" "$RUNS" "$ARGS" <<'EOF'
import os
import json, statistics, sys
out, runs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f"Default sweep, {runs} runs{', ' + args if args else ''}:")
print("| run | wall | points | stop ci | no statistics | valid share min | median | points < 90 % valid | refreshes (cost) |")
print("|---|---|---|---|---|---|---|---|---|")
for i in range(1, runs + 1):
    pts, wall, trk = [], None, None
    for line in open(f"{out}/run-{i}.jsonl"):
        x = json.loads(line)
        if x["type"] == "point": pts.append(x)
        if x["type"] == "end": wall = x["wall_s"]
        if x["type"] == "track": trk = x
    share = [p["valid"] / p["reps"] if p["reps"] else 0 for p in pts]
    ci = sum(p["stop"] == "ci" for p in pts)
    none = sum(p["valid"] == 0 for p in pts)
    low = [f"{p['op']} {p['bytes']}" for p, s in zip(pts, share) if s < 0.9]
    tc = f"{trk['refreshes']} ({trk['cost_s'] * 1e3:.0f} ms)" if trk else "-"
    print(f"| {i} | {wall:.1f} s | {len(pts)} | {ci} | {none} | {100 * min(share):.0f} % | {100 * statistics.median(share):.0f} % | {len(low)} | {tc} |")
    if low: print(f"  below 90 % valid: {', '.join(low[:12])}{' ...' if len(low) > 12 else ''}")
    imb = f"{out}/imb-{i}.wall"
    if os.path.exists(imb): print(f"  IMB-MPI1, 14 collectives 8 B..1 MiB, same ranks, right after: {float(open(imb).read()):.1f} s wall")
EOF
