#!/usr/bin/env bash
# Paper 001 (MPIBlib) redone here, issue 16, in three parts; every number is
# printed as a table. The machine is shared: say so when quoting them.
#
# 1. Table 1 / Fig. 2: Scatter and Gather, 0..100 KB in 1 KB steps, 4 ranks,
#    timed with the global, max and root methods (same scheme, the same fixed
#    number of repetitions): wall time of each method's run (and of its points
#    alone, clock synchronization excluded), and per size how far the methods'
#    medians are apart ((largest - smallest) / smallest). MPIBlib found the
#    global method 35x slower for scatter with the same results.
# 2. All-pairs round trips, parallel (round-robin rounds) vs sequential (one
#    pair at a time), 100 reps of 4 KB, at 4 ranks and 8 (oversubscribed on a
#    small machine): wall time of the measurement and per-pair agreement
#    (paper: 0.5 s vs 3.5 s at 16 nodes).
# 3. Predictions: Hockney per pair from all-pairs round trips at 0..64 KB,
#    isochron's linear/binomial Bcast/Scatter/Gather predicted and measured
#    at 4 ranks (isochron models --predict).
#
#   bash bench/timing_methods.sh              # all three (about 10-15 min on 2 cores)
#   PARTS=2,3 REPS=10 STEP=4 bash bench/timing_methods.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${NP:=2}" "${REPS:=5}" "${STEP:=50}" "${PARTS:=1}"   # BENCH_QUICK=1: a short smoke run
BUILD=${BUILD:-build}
NP=${NP:-4}
REPS=${REPS:-50}          # repetitions per point, part 1 (fixed: min = max, no CI stop)
STEP=${STEP:-1}           # KB between sizes, part 1
SCHEME=${SCHEME:-barrier} # part 1: MPIBlib separates repetitions with a barrier
PARTS=${PARTS:-1,2,3}
OUT=${OUT:-$BUILD/timing_methods}
PY=${PY:-python3}
[ -x .venv/bin/python ] && PY=.venv/bin/python
mkdir -p "$OUT"
run() { tools/mpirun-local "$@"; }
BENCH=$BUILD/isochron-bench
export PYTHONPATH=$PWD/python/src${PYTHONPATH:+:$PYTHONPATH}

if [[ ,$PARTS, == *,1,* ]]; then
  sizes=$(seq -s, 0 "$STEP" 100 | sed 's/\([0-9]\+\)/\1K/g; s/\b0K/0/')
  for m in global max root; do
    /usr/bin/time -f "%e" -o "$OUT/tm-$m.time" \
      tools/mpirun-local -np "$NP" "$BENCH" --ops scatter,gather --sizes "$sizes" --method "$m" --scheme "$SCHEME" \
        --min-reps "$REPS" --max-reps "$REPS" --rel-ci 0 --warmup 2 --quiet --format none --jsonl "$OUT/tm-$m.jsonl"
  done
  # and isochron's default: the global method under Round-Time (no barrier between repetitions)
  /usr/bin/time -f "%e" -o "$OUT/tm-global-roundtime.time" \
    tools/mpirun-local -np "$NP" "$BENCH" --ops scatter,gather --sizes "$sizes" --method global --scheme roundtime \
      --min-reps "$REPS" --max-reps "$REPS" --rel-ci 0 --warmup 2 --quiet --format none --jsonl "$OUT/tm-global-roundtime.jsonl"
  "$PY" - "$OUT" "$NP" "$REPS" "$SCHEME" <<'PY'
import json, sys
out, np_, reps, scheme = sys.argv[1:5]
runs = {}
for m in ("global", "max", "root", "global-roundtime"):
    pts, wall = {}, None
    for line in open(f"{out}/tm-{m}.jsonl"):
        x = json.loads(line)
        if x["type"] == "point": pts[(x["op"], x["bytes"])] = x
        if x["type"] == "end": wall = x["wall_s"]
    launch = float(open(f"{out}/tm-{m}.time").read().split()[-1])
    runs[m] = (pts, wall, launch)
print(f"\n## Part 1: timing methods (paper 001, Table 1 / Fig. 2), {np_} ranks, scheme {scheme}, {reps} reps per point\n")
print("| method | points | launch wall (s) | run wall (s) | points only (s) | scatter points (s) | gather points (s) |")
print("|---|---|---|---|---|---|---|")
for m, (pts, wall, launch) in runs.items():
    m = m if m != "global-roundtime" else "global, roundtime scheme"
    el = lambda op: sum(p.get("elapsed_s") or 0 for (o, _), p in pts.items() if o == op)
    print(f"| {m} | {len(pts)} | {launch:.1f} | {wall:.1f} | {el('scatter') + el('gather'):.2f} | {el('scatter'):.2f} | {el('gather'):.2f} |")
g = runs["global"][0]
for op in ("scatter", "gather"):
    diffs, rows = [], []
    for key in sorted(k for k in g if k[0] == op):
        meds = {m: runs[m][0][key]["median_s"] for m in ("global", "max", "root") if key in runs[m][0] and runs[m][0][key]["median_s"]}
        if len(meds) < 3: continue
        d = (max(meds.values()) - min(meds.values())) / min(meds.values())
        diffs.append(d); rows.append((key[1], meds, d))
    diffs_sorted = sorted(diffs)
    q = lambda f: diffs_sorted[min(len(diffs_sorted) - 1, int(f * len(diffs_sorted)))] * 100
    print(f"\n{op}: (largest - smallest median) / smallest over the 3 methods, {len(diffs)} sizes:"
          f" median {q(0.5):.1f} %, 90th percentile {q(0.9):.1f} %, largest {max(diffs) * 100:.1f} %")
    print("| size | global (us) | max (us) | root (us) | spread | global, roundtime (us) |")
    print("|---|---|---|---|---|---|")
    pick = [r for r in rows if r[0] in (0, 1024, 10240, 25600, 51200, 76800, 102400)]
    for b, meds, d in pick:
        rt = runs["global-roundtime"][0].get((op, b), {}).get("median_s")
        rts = f"{rt * 1e6:.1f}" if rt else "-"
        print(f"| {b // 1024} KB | {meds['global'] * 1e6:.1f} | {meds['max'] * 1e6:.1f} | {meds['root'] * 1e6:.1f} | {d * 100:.1f} % | {rts} |")
PY
fi

if [[ ,$PARTS, == *,2,* ]]; then
  for np_ in 4 8; do
    for mode in parallel sequential; do
      run -np "$np_" "$BENCH" --ops allpairs --p2p-mode "$mode" --sizes 4K --max-reps 100 --quiet --format none \
        --jsonl "$OUT/ap-$np_-$mode.jsonl"
    done
  done
  "$PY" - "$OUT" <<'PY'
import json, sys, statistics
out = sys.argv[1]
print("\n## Part 2: all-pairs round trips, parallel vs sequential, 100 reps of 4 KB (paper: 0.5 s vs 3.5 s at 16 nodes)\n")
print("| ranks | pairs | oversubscribed | parallel wall (s) | sequential wall (s) | seq / par | par/seq per pair: min | median | max |")
print("|---|---|---|---|---|---|---|---|---|")
for np_ in (4, 8):
    res = {}
    for mode in ("parallel", "sequential"):
        pairs, wall, over = {}, None, None
        for line in open(f"{out}/ap-{np_}-{mode}.jsonl"):
            x = json.loads(line)
            if x["type"] == "context": over = x.get("oversubscribed")
            if x["type"] == "pair": pairs[(x["i"], x["j"])] = x["median_s"]
            if x["type"] == "matrix": wall = x["wall_s"]
        res[mode] = (pairs, wall, over)
    p, s = res["parallel"], res["sequential"]
    d = sorted(p[0][k] / s[0][k] for k in p[0])
    print(f"| {np_} | {len(p[0])} | {p[2]} | {p[1]:.4f} | {s[1]:.4f} | {s[1] / p[1]:.1f} | {d[0]:.2f} | {statistics.median(d):.2f} | {d[-1]:.2f} |")
PY
fi

if [[ ,$PARTS, == *,3,* ]]; then
  run -np "$NP" "$BENCH" --ops allpairs --sizes 0,1K,4K,16K,64K --max-reps 300 --quiet --format none --jsonl "$OUT/models-ap.jsonl"
  run -np "$NP" "$BENCH" --ops bcast_linear,bcast_binomial,scatter_linear,scatter_binomial,gather_linear,gather_binomial \
    --sizes 0,1K,4K,16K,64K --max-reps 200 --quiet --format none --jsonl "$OUT/models-coll.jsonl"
  echo
  echo "## Part 3: Hockney per pair and predictions at $NP ranks"
  echo
  "$PY" -m isochron.cli models "$OUT/models-ap.jsonl" --json "$OUT/models.json" --predict "$OUT/models-coll.jsonl" \
    --plot "$OUT/predictions.png" --heatmap "$OUT/heatmap.png"
fi
