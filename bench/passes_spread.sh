#!/usr/bin/env bash
# Between-launch spread with and without --passes (issue 12), at the same repetitions and wall time:
# LAUNCHES interleaved launches of each variant (P1 = one pass, PN = --passes N), each point at
# REPS repetitions; prints per variant the median over points of the launch CV (sd of the logs of
# the launch medians) and the median wall time of a launch. Why it can help: the machine's state
# changes within a launch (here a 1 KiB bcast at 2 ranks alternates between ~0.7 and ~2.4 us in
# stretches of 0.1-1 s), and passes spread each point's repetitions over the whole launch.
#   bash bench/passes_spread.sh          env: NP (2), LAUNCHES (16), N (20), REPS (12000), OPS, SIZES, BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${LAUNCHES:=2}" "${N:=4}" "${REPS:=100}" "${OPS:=allreduce}" "${SIZES:=8}"   # BENCH_QUICK=1: a short smoke run
NP=${NP:-2}; LAUNCHES=${LAUNCHES:-16}; N=${N:-20}; REPS=${REPS:-12000}
OPS=${OPS:-allreduce,bcast,alltoall}; SIZES=${SIZES:-8,1K,64K}; BUILD=${BUILD:-build}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
echo "passes_spread: $NP ranks, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $LAUNCHES launches per variant, $REPS repetitions per point, --ops $OPS --sizes $SIZES"
for i in $(seq 1 "$LAUNCHES"); do
  for n in 1 "$N"; do
    tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" --ops "$OPS" --sizes "$SIZES" --quiet --format none \
      --min-reps "$REPS" --max-reps "$REPS" --budget 10 --passes "$n" --jsonl "$out/p$n-$i.jsonl"
  done
done
python3 - "$out" "$N" <<'PY'
import json, glob, statistics, math, collections, sys
out, N = sys.argv[1], sys.argv[2]
print("| variant | launches | median launch CV over points | per point (%) | launch wall (median) |")
print("|---|---|---|---|---|")
for n in ("1", N):
    med, walls = collections.defaultdict(list), []
    for f in sorted(glob.glob(f"{out}/p{n}-*.jsonl")):
        for line in open(f):
            x = json.loads(line)
            if x["type"] == "point" and x["valid"]: med[(x["op"], x["bytes"])].append(x["median_s"])
            if x["type"] == "end": walls.append(x["wall_s"])
    cvs = [statistics.stdev([math.log(v) for v in m]) for m in med.values() if len(m) > 1]
    print(f"| --passes {n} | {len(walls)} | {100 * statistics.median(cvs):.1f} % | {' '.join('%.0f' % (100 * c) for c in cvs)} | {statistics.median(walls):.2f} s |")
PY
