#!/usr/bin/env bash
# Clock truth across "hosts" (issue 25): isochron-clock and isochron-bench run on the namespace
# cluster of tools/cluster (own network stack, hostname and CLOCK_MONOTONIC per node: kernel
# offsets of 0 and 7 s) and in SimGrid on platforms whose routes differ by direction; truth is the
# kernel's (CLOCK_MONOTONIC less each process's time-namespace offset, one boot_id) or the
# simulated time, independent of isochron's measurements. One table row per condition:
#   sync time, the largest true error over the ranks at each check, both bounds, which bound was
#   stated, and the share of (rank, check) samples each bound covers; then the bench points'
#   clock_true_s against their stated clock_bound_s.
# Conditions: healthy network (Open MPI --mca mpi_yield_when_idle 1 --bind-to none, 1 rank per node:
# Open MPI binds each node's rank to "its" core 0, which in this cluster is one core for both nodes,
# so every exchange waited for a context switch; real nodes have cores of their own) with drift
# injected per node at 0.5, 2 and 5 ppm, and 1 ppm changing by up to 0.05 ppm/s; starved (2 ranks per node polling, both nodes on CPU 0, no yield);
# a CPU hog on node 1; bursts of delay (a hog on node 1 busy 50 ms of every 500 ms: exchanges that
# meet a burst wait for the scheduler); SimGrid asym-2 (1 us one way, 11 us back) and asym-star-4.
# Usage (root): bench/cluster_truth.sh [BUILD_DIR]   env: WAITS (default 0,10,30,60), SEED (default
# 9100; tests use other seeds), CONDITIONS (default all: healthy starved hog burst sim), CPUS (node 0's
# and node 1's CPU, e.g. 0,1: the nodes' CPU groups (tools/cluster up --cpus) and each rank of the
# 1-rank-per-node rows under taskset; default: tools/cluster's own, node K on CPU K mod the CPU count;
# the starved rows bring the cluster up again with both nodes on CPU 0, which is what starves them)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(readlink -f "${1:-$here/build}")
[ -z "${BENCH_QUICK:-}" ] || : "${WAITS:=0,1}" "${CONDITIONS:=healthy}"   # BENCH_QUICK=1: a short smoke run
waits=${WAITS:-0,10,30,60} seed=${SEED:-9100} conds=${CONDITIONS:-healthy starved hog burst sim} cpus=${CPUS:-}
[ -z "$cpus" ] || [[ $cpus =~ ^[0-9]+,[0-9]+$ ]] || { echo "cluster_truth: CPUS '$cpus': expected node 0's and node 1's CPU, e.g. 0,1"; exit 2; }
# each rank on its node's CPU (CPUS), read in the rank's own UTS namespace: host "<cluster>-nodeK"
# tools/cluster holds node K on its own CPU (K mod the CPU count) unless CPUS names them: up --cpus
pin=() upcpus=()
[ -z "$cpus" ] || upcpus=(--cpus "$cpus")
[ -z "$cpus" ] || pin=(env CT_CPUS="$cpus" bash -c 'IFS=, read -ra c <<< "$CT_CPUS"; h=$(hostname); exec taskset -c "${c[${h##*node}]}" "$@"' pin)
export ISOCHRON_CLUSTER=${ISOCHRON_CLUSTER:-bench}
cl=$here/tools/cluster
out=$build/cluster_truth
mkdir -p "$out"
rm -f "$out"/*.jsonl
clock=$build/isochron-clock bench=$build/isochron-bench
run_clock() { # name np launcher-args... -- skew
  local name=$1 np=$2 skew=$3; shift 3
  local t0=$SECONDS p=()
  [ "$np" != 2 ] || p=("${pin[@]}")
  "$cl" mpirun-ompi -np "$np" --map-by node "$@" "${p[@]}" "$clock" --timer monotonic --wait "$waits" --skew "$skew" --quiet \
    --jsonl "$out/$name.clock.jsonl" > "$out/$name.clock.txt" 2> "$out/$name.clock.err" || echo "($name: isochron-clock exited $?)"
  echo "$name: clock run took $((SECONDS - t0)) s" >&2
}
run_bench() {
  local name=$1 np=$2 skew=$3; shift 3
  local p=()
  [ "$np" != 2 ] || p=("${pin[@]}")
  "$cl" mpirun-ompi -np "$np" --map-by node "$@" "${p[@]}" "$bench" --ops allreduce,bcast,pingpong --sizes 8,1K,64K \
    --skew "$skew" --quiet --jsonl "$out/$name.bench.jsonl" > "$out/$name.bench.txt" 2> "$out/$name.bench.err" || echo "($name: isochron-bench exited $?)"
}
if [[ " $conds " == *" healthy "* || " $conds " == *" starved "* || " $conds " == *" hog "* || " $conds " == *" burst "* ]]; then
  "$cl" check >/dev/null || { echo "cluster_truth: namespaces cannot be made here: $("$cl" check 2>&1)"; exit 77; }
  "$cl" up 2 "${upcpus[@]}" >/dev/null
  trap '"$cl" down >/dev/null 2>&1 || true' EXIT
  s=$seed
  if [[ " $conds " == *" healthy "* ]]; then
    for d in 0.5 2 5; do
      run_clock "healthy-drift$d" 2 "drift=$d,seed=$s,by=host" --mca mpi_yield_when_idle 1 --bind-to none
      s=$((s + 1))
    done
    # a drift that changes (temperature): 1 ppm changing by up to 0.05 ppm/s
    run_clock healthy-ddrift0.05 2 "drift=1,ddrift=0.05,seed=$s,by=host" --mca mpi_yield_when_idle 1 --bind-to none; s=$((s + 1))
    run_bench healthy 2 "drift=2,seed=$s,by=host" --mca mpi_yield_when_idle 1 --bind-to none; s=$((s + 1))
  fi
  if [[ " $conds " == *" starved "* ]]; then
    # starving needs nodes that share a CPU (tools/cluster gives each node its own): both on CPU 0
    "$cl" down >/dev/null; "$cl" up 2 --cpus 0,0 >/dev/null
    run_clock starved-drift2 4 "drift=2,seed=$s,by=host"; s=$((s + 1))
    run_bench starved 4 "drift=2,seed=$s,by=host"; s=$((s + 1))
    "$cl" down >/dev/null; "$cl" up 2 "${upcpus[@]}" >/dev/null
  fi
  if [[ " $conds " == *" hog "* ]]; then
    "$cl" hog 1 >/dev/null
    run_clock hog-drift2 2 "drift=2,seed=$s,by=host" --mca mpi_yield_when_idle 1; s=$((s + 1))
    "$cl" unhog >/dev/null
  fi
  if [[ " $conds " == *" burst "* ]]; then
    "$cl" hog 1 --burst 50/500 >/dev/null
    run_clock burst-drift2 2 "drift=2,seed=$s,by=host" --mca mpi_yield_when_idle 1 --bind-to none; s=$((s + 1))
    run_bench burst 2 "drift=2,seed=$s,by=host" --mca mpi_yield_when_idle 1 --bind-to none; s=$((s + 1))
    "$cl" unhog >/dev/null
  fi
fi
if [[ " $conds " == *" sim "* ]] && command -v smpirun >/dev/null; then
  for p in asym-2:2 asym-star-4:4; do
    plat=${p%%:*} np=${p##*:}
    bash "$here/sim/run.sh" -p "$here/sim/platforms/$plat.xml" "$np" isochron-clock --wait "$waits" --skew "drift=2,seed=$((seed + 50)),by=host" \
      --quiet --jsonl "$out/sim-$plat.clock.jsonl" > "$out/sim-$plat.clock.txt" 2>&1 || echo "(sim $plat exited $?)"
  done
fi
python3 - "$out" "$waits" "${cpus:-unbound}" <<'PY'
import glob, json, math, os, sys
out, waits, cpus = sys.argv[1], [float(w) for w in sys.argv[2].split(",")], sys.argv[3]
def us(x): return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x*1e6:.3f}"
print(f"clock truth across hosts (isochron-clock, timer monotonic; truth: kernel CLOCK_MONOTONIC less namespace offsets, or simulated time)")
print(f"1-rank-per-node rows: CPUs {cpus} (node 0's, node 1's); load average {open('/proc/loadavg').read().split()[0]} at the end, {os.cpu_count()} CPUs")
print(f"{'condition':22} {'sync s':>7}  " + "  ".join(f"{'true@'+format(w,'g'):>9} {'stat':>8} {'hard':>8} {'kind':>4}" for w in waits)
      + f"  {'stat cov':>8} {'hard cov':>8} {'stated cov':>10}")
for f in sorted(glob.glob(os.path.join(out, "*.clock.jsonl"))):
    name = os.path.basename(f)[:-len(".clock.jsonl")]
    recs = [json.loads(l) for l in open(f) if l.strip()]
    sync = next((r for r in recs if r["type"] == "sync"), {})
    acc = [r for r in recs if r["type"] == "accuracy" and r["rank"] > 0]
    cells, n, cs, ch, cst = [], 0, 0, 0, 0
    for w in waits:
        a = [r for r in acc if r["wait_s"] == w]
        if not a: cells.append(f"{'-':>9} {'-':>8} {'-':>8} {'-':>4}"); continue
        t = max(abs(r["true_offset_s"]) for r in a if r.get("true_offset_s") is not None)
        st = max(r.get("bound_stat_s") or 0 for r in a); hd = max(r.get("bound_hard_s") or 0 for r in a)
        kind = a[0].get("bound_kind", "?")[:4]
        cells.append(f"{us(t):>9} {us(st):>8} {us(hd):>8} {kind:>4}")
        for r in a:
            tt = abs(r["true_offset_s"]); n += 1
            cs += tt <= (r.get("bound_stat_s") or 0); ch += tt <= (r.get("bound_hard_s") or 0); cst += tt <= (r.get("bound_s") or 0)
    pc = lambda c: f"{100*c/n:.0f}% ({c}/{n})" if n else "-"
    print(f"{name:22} {sync.get('duration_s', float('nan')):7.3f}  " + "  ".join(cells) + f"  {pc(cs):>8} {pc(ch):>8} {pc(cst):>10}")
print("\nbench points (isochron-bench allreduce,bcast,pingpong at 8 B, 1 KiB, 64 KiB): stated clock bound against the true error")
print(f"{'condition':12} {'points':>6} {'kind':>18} {'max true us':>11} {'max bound us':>12} {'covered':>8}")
for f in sorted(glob.glob(os.path.join(out, "*.bench.jsonl"))):
    name = os.path.basename(f)[:-len(".bench.jsonl")]
    pts = [json.loads(l) for l in open(f) if l.strip()]
    pts = [p for p in pts if p.get("type") == "point" and p.get("clock_true_s") is not None and p.get("clock_bound_s") is not None]
    kinds = sorted({p.get("clock_bound_kind", "?") for p in pts})
    cov = sum(abs(p["clock_true_s"]) <= p["clock_bound_s"] for p in pts)
    print(f"{name:12} {len(pts):6} {','.join(kinds):>18} {max((p['clock_true_s'] for p in pts), default=float('nan'))*1e6:11.3f} "
          f"{max((p['clock_bound_s'] for p in pts), default=float('nan'))*1e6:12.3f} {cov:4}/{len(pts)}")
PY
