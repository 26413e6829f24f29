#!/usr/bin/env bash
# Barrier benchmark (issue: barrier algorithms and synchronization precision).
# Runs isochron-barrier (all 8 algorithms, all 4 experiments) three ways:
#   NP ranks with the default wait (spinning in MPI_Recv),
#   NP ranks with every barrier yielding while it waits (--wait yield),
#   as many ranks as cores (no oversubscription),
# and prints one table per run: each algorithm's median cost (engine,
# Round-Time), exit-skew median/p95 (calls from a common start on the global
# clock), ring-shift success rates at 4 KiB and 64 KiB, the RDS constants
# measured and the payoff (model vs measured).
# A benchmark, not a test. usage: bench/barrier_sync.sh ; env NP (4), BUILD, CALLS, TRIALS, KEEP=dir
set -euo pipefail
cd "$(dirname "$0")/.."
extra=(); [ -z "${BENCH_QUICK:-}" ] || { : "${NP:=2}" "${CALLS:=10}" "${TRIALS:=5}"; extra=(--barriers mpi,dissemination --payoff-trials 3 --payoff-sizes 0,4K --max-reps 20); }   # BENCH_QUICK=1: a short smoke run
NP=${NP:-4}
BUILD=${BUILD:-build}
CALLS=${CALLS:-1000}
TRIALS=${TRIALS:-300}
CORES=$(nproc)
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
[ -z "${KEEP:-}" ] && trap 'rm -rf "$out"' EXIT
run() { local tag=$1 np=$2; shift 2
  tools/mpirun-local -np "$np" "$BUILD/isochron-barrier" --calls "$CALLS" --trials "$TRIALS" --quiet --format none --jsonl "$out/$tag.jsonl" "${extra[@]}" "$@"; }
echo "isochron barrier benchmark: $(nproc) cores, $(mpirun --version 2>/dev/null | head -1), $CALLS skew calls, $TRIALS shift trials per size"
run "np${NP}-spin" "$NP"
run "np${NP}-yield" "$NP" --wait yield
[ "$CORES" -ge 2 ] && [ "$CORES" -ne "$NP" ] && run "np${CORES}-spin" "$CORES"
python3 - "$out" <<'PY'
import glob, json, os, sys
def us(x): return "-" if x is None else f"{x*1e6:.2f}"
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    recs = [json.loads(l) for l in open(f)]
    ctx = recs[0]
    by = lambda t: [r for r in recs if r["type"] == t]
    wait = ctx["options"]["wait"]
    print(f"\n== {ctx['nprocs']} ranks, {'oversubscribed' if ctx['oversubscribed'] else 'one core each'}, "
          f"--wait {wait}{' (barriers yield)' if ctx['barriers_yield'] else ' (barriers spin)'}; clock {ctx['clock_sync']['spec'].split(',')[0]}, "
          f"offset after sync {us(ctx['clock_sync']['max_abs_measured_offset_s'])} us ==")
    rc = by("rds_constants")[0]
    print(f"RDS constants (ranks 0-1, {rc['samples']} round trips): b_s = {us(rc['b_s_s'])} us, s = {us(rc['s_s'])} us, d = {rc['d']}, "
          f"busy waits up to {us(rc['max_wait_s'])} us")
    cost = {r["barrier"]: r for r in by("cost")}
    skew = {r["barrier"]: r for r in by("skew")}
    shift = {(r["barrier"], r["bytes"]): r for r in by("shift")}
    print(f"{'barrier':<14} {'cost median':>12} {'skew median':>12} {'skew p95':>10} {'valid':>10} {'shift 4K ok':>12} {'shift 64K ok':>13}")
    def rate(b, n):
        r = shift.get((b, n))
        return "-" if not r or r["success_rate"] is None else f"{100*r['success_rate']:.1f}%"
    for b in ["clock", "none"] + ctx["barriers"]:
        c, s = cost.get(b), skew.get(b)
        print(f"{b:<14} {us(c['median_s']) if c else '':>12} {us(s['exit_skew_s']['median']) if s else '':>12} "
              f"{us(s['exit_skew_s']['p95']) if s else '':>10} {str(s['valid'])+'/'+str(s['calls']) if s else '':>10} {rate(b, 4096):>12} {rate(b, 65536):>13}")
    sh = by("shift")
    print(f"(times in us; shift success: cost <= {1+sh[0]['threshold']:.2f} x the concurrent reference, "
          f"{us(shift[('clock',4096)]['reference_s'])} us at 4 KiB, {us(shift[('clock',65536)]['reference_s'])} us at 64 KiB; "
          f"arrivals spread over {us(sh[0]['spread_s'])} us; 'clock' = all start at one instant of the global clock, 'none' = no barrier)")
    p = by("payoff")[0]
    print("payoff: size " + " ".join(f"{s:>7}" for s in p["sizes"]))
    for k, lab in (("reference_s", "concurrent"), ("synced_s", "rds+shift"), ("unsynced_s", "shift only")):
        print(f"  {lab:<11}" + " ".join(f"{us(v):>7}" for v in p[k]))
    mm = p["model_min_bytes"]
    a_ns = "-" if p["a_s_per_byte"] is None else f"{p['a_s_per_byte'] * 1e9:.3f}"   # too few sends to fit a (quick mode)
    print(f"  model m >= (2 d b_s - b_l/2)/a with a = {a_ns} ns/B, b_l = {us(p['b_l_s'])} us: "
          f"{'none' if mm is None else str(int(mm)) + ' B'}; measured: {'never cheaper in this range' if p['measured_min_bytes'] is None else str(int(p['measured_min_bytes'])) + ' B'}")
PY
