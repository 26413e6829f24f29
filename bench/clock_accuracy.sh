#!/usr/bin/env bash
# Clock synchronization accuracy benchmark (issue: foundation).
# For each algorithm, on NP local ranks: sync duration and the TRUE max error
# (against the host-wide CLOCK_MONOTONIC) right after sync and after WAIT s,
# (a) on plain mpi_wtime, (b) with injected offsets of ±10 ms and drifts of
# ±50 ppm. Each cell is the median of RUNS runs (separate mpiruns), with the
# worst run in brackets. This is a benchmark, not a test: it prints a table.
#   usage: bench/clock_accuracy.sh [RUNS] ; env NP, WAIT, ALGS, BUILD, MPIRUN, TRACK (on|off, default off:
#   the algorithms alone; note that their registry defaults are the short span made for tracking,
#   ALGS="hca3/100/skampi/50,span=0.12 ..." gives the long one)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${NP:=2}" "${WAIT:=0.5}" "${ALGS:=hca3}"   # BENCH_QUICK=1: a short smoke run
RUNS=${1:-3}
[ -z "${BENCH_QUICK:-}" ] || RUNS=${1:-1}
NP=${NP:-4}
WAIT=${WAIT:-10}
TRACK=${TRACK:-off}
BUILD=${BUILD:-build}
ALGS=${ALGS:-"skampi jk hca hca2 hca3 hca3+hca3"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "isochron clock benchmark: $NP ranks, $(nproc) cores, $(${MPIRUN:-mpirun} --version 2>/dev/null | head -1), $RUNS runs per cell, check at 0 s and $WAIT s"
for alg in $ALGS; do
  for case in plain skew; do
    for r in $(seq 1 "$RUNS"); do
      skew=()
      [ "$case" = skew ] && skew=(--skew "offset=10ms,drift=50,seed=$r")
      tools/mpirun-local -np "$NP" "$BUILD/isochron-clock" --sync "$alg" --track "$TRACK" --wait "0,$WAIT" "${skew[@]}" \
        --format none --quiet --jsonl "$out/$alg.$case.$r.jsonl" >/dev/null 2>"$out/err" || { echo "run failed: $alg $case"; cat "$out/err"; }
      echo -n "." >&2
    done
  done
done
echo >&2
python3 - "$out" "$WAIT" <<'PY'
import glob, json, os, statistics, sys
d, wait = sys.argv[1], float(sys.argv[2])
cells = {}
for f in sorted(glob.glob(os.path.join(d, "*.jsonl"))):
    alg, case, _ = os.path.basename(f)[:-6].rsplit(".", 2)
    recs = [json.loads(l) for l in open(f)]
    summ = {r["wait_s"]: r for r in recs if r["type"] == "summary"}
    spec = next(r["sync_spec"] for r in recs if r["type"] == "sync")
    c = cells.setdefault((alg, case), {"spec": spec, "dur": [], "e0": [], "ew": []})
    c["dur"].append(summ[0.0]["duration_s"])
    c["e0"].append(summ[0.0]["max_abs_true_offset_s"] * 1e6)
    c["ew"].append(summ[wait]["max_abs_true_offset_s"] * 1e6)
def cell(v, fmt):
    return (fmt % statistics.median(v)) + " [" + (fmt % max(v)) + "]"
print(f"\n{'algorithm':<11} {'case':<24} {'sync s':>15} {'true max err 0 s (us)':>22} {'after %g s (us)' % wait:>20}")
order = []
for (alg, case) in cells:
    if alg not in order: order.append(alg)
for alg in order:
    for case, label in (("plain", "mpi_wtime"), ("skew", "±10 ms, ±50 ppm injected")):
        c = cells.get((alg, case))
        if not c: continue
        print(f"{alg:<11} {label:<24} {cell(c['dur'], '%.3f'):>15} {cell(c['e0'], '%.3f'):>22} {cell(c['ew'], '%.3f'):>20}")
print("\nmedian [worst] over runs; specs as run:")
for alg in order:
    print(f"  {alg}: {cells[(alg, 'plain')]['spec']}")
for case in ("plain", "skew"):
    c = cells.get(("hca3", case))
    if c:
        ok = statistics.median(c["e0"]) <= 1 and statistics.median(c["ew"]) <= 3 and statistics.median(c["dur"]) <= 0.5
        print(f"hca3 targets ({case}): err@0 <= 1 us, err@{wait:g}s <= 3 us, sync <= 0.5 s (medians): {'met' if ok else 'NOT met'}")
PY
