#!/usr/bin/env bash
# Engine benchmark (issue: the benchmark engine). On NP local ranks:
#  1. Allreduce and Bcast at 8 B, 1 KiB, 64 KiB with every scheme x timing
#     method: median, 95% CI of the mean, valid/taken repetitions;
#  2. OSU's methodology through isochron itself: barrier before every
#     repetition, each rank's mean local latency, averaged over ranks
#     (computed from isochron's raw per-rank timestamps);
#  3. the wall time of the default sweep (all blocking collectives,
#     8 B..1 MiB) and how many points met the CI target.
# A benchmark, not a test: it prints tables. usage: bench/engine_schemes.sh ; env NP, BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
schemes="roundtime window barrier none" methods="global max root" quick=() sweep=()
[ -z "${BENCH_QUICK:-}" ] || { : "${NP:=2}"; schemes=roundtime methods=global quick=(--min-reps 10 --max-reps 20) sweep=(--ops allreduce --sizes 8); }   # BENCH_QUICK=1: a short smoke run
NP=${NP:-4}
BUILD=${BUILD:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { tools/mpirun-local -np "$NP" "$BUILD/isochron-bench" --quiet --format none "$@" "${quick[@]}"; }
echo "isochron engine benchmark: $NP ranks, $(nproc) cores, $(mpirun --version 2>/dev/null | head -1)"
for scheme in $schemes; do
  for method in $methods; do
    run --ops allreduce,bcast --sizes 8,1K,64K --scheme "$scheme" --method "$method" --jsonl "$out/$scheme.$method.jsonl"
  done
done
run --ops bcast --sizes 8,1K,64K --scheme barrier --method ack --jsonl "$out/barrier.ack.jsonl"
run --ops allreduce,bcast --sizes 8,1K,64K --scheme barrier --method max --raw --min-reps 100 --max-reps 100 --rel-ci 0 --jsonl "$out/osu.jsonl"
start=$(date +%s.%N)
run "${sweep[@]}" --jsonl "$out/sweep.jsonl"
end=$(date +%s.%N)
python3 - "$out" "$start" "$end" <<'PY'
import glob, json, os, sys
d, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def load(f): return [json.loads(l) for l in open(f)]
def us(x): return "-" if x is None else f"{x*1e6:.2f}"
print(f"\n{'op':<10} {'size':>6} {'scheme':<10} {'method':<7} {'median us':>10} {'95% CI of mean (us)':>22} {'valid/reps':>11}")
rows = []
for f in sorted(glob.glob(os.path.join(d, "*.*.jsonl"))):
    for r in load(f):
        if r["type"] == "point": rows.append(r)
key = lambda r: (r["op"], r["bytes"], ["roundtime","window","barrier","none"].index(r["scheme"]), ["global","max","root","ack"].index(r["method"]))
for r in sorted(rows, key=key):
    ci = f"[{us(r['ci_lo_s'])}, {us(r['ci_hi_s'])}]" if r["ci_lo_s"] is not None else "-"
    print(f"{r['op']:<10} {r['bytes']:>6} {r['scheme']:<10} {r['method']:<7} {us(r['median_s']):>10} {ci:>22} {r['valid']:>5}/{r['reps']:<5}")
print("\nOSU methodology through isochron (barrier before each repetition, mean over ranks of each rank's mean local latency, 100 reps)")
print(f"{'op':<10} {'size':>6} {'OSU-style mean us':>18} {'isochron roundtime/global median us':>36}")
rt = {(r["op"], r["bytes"]): r for r in rows if r["scheme"] == "roundtime" and r["method"] == "global"}
for r in load(os.path.join(d, "osu.jsonl")):
    if r["type"] != "point": continue
    st, en = r["raw"]["start_s"], r["raw"]["end_s"]
    nr = len(st[0])
    per_rank = [sum(en[i][p] - st[i][p] for i in range(len(st))) / len(st) for p in range(nr)]
    osu = sum(per_rank) / nr
    g = rt.get((r["op"], r["bytes"]))
    print(f"{r['op']:<10} {r['bytes']:>6} {osu*1e6:>18.2f} {us(g['median_s']) if g else '-':>36}")
sw = [r for r in load(os.path.join(d, "sweep.jsonl"))]
pts = [r for r in sw if r["type"] == "point"]
ctx = sw[0]
met = sum(1 for r in pts if r["stop"] == "ci")
print(f"\ndefault sweep ({len(pts)} points: all blocking collectives, 8 B..1 MiB, scheme {ctx['scheme']}, method {ctx['method']}, "
      f"CI target {ctx['options']['rel_ci']} at {ctx['options']['ci_level']}): wall time {t1-t0:.1f} s including start-up and clock sync; "
      f"{met} points stopped on the CI target, {sum(1 for r in pts if r['stop']=='budget')} on the time budget, "
      f"{sum(1 for r in pts if r['stop']=='max_reps')} on max-reps; valid repetitions {sum(r['valid'] for r in pts)}/{sum(r['reps'] for r in pts)}")
PY
