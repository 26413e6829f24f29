#!/usr/bin/env bash
# Large counts (issue 29): the MPI-4 _c operations at 1 GiB (beside the plain call, which still takes
# it) and beyond 2 GiB (which only the _c calls can express in bytes), at 2 ranks on one node, under
# an MPI library that has them (MPICH 4: tools/test-mpich.sh builds build-mpich). Prints a table:
# operation, size, median round trip / run, its 95 % CI, the bandwidth it implies, repetitions.
# Validation on repetitions 0, 1, 2 (each checks every element: seconds at these sizes), 3
# repetitions started by a barrier (a 2.5 GiB ping-pong moves 5 GiB and took seconds here: Round-Time's
# late-start rule discarded most of them and the default 120 s watchdog ended the point). Then the refusal of a size no node here can hold.
#   BUILD=build-mpich MPIRUN=mpirun.mpich SIZES=1G,2560M bash bench/large_count.sh
# Needs about 4 x the largest size free (two ranks, a send and a receive buffer each);
# isochron-bench refuses the point before allocating otherwise, and the script says so.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -z "${BENCH_QUICK:-}" ] || : "${SIZES:=1M}" "${OPS:=pingpong_c}"   # BENCH_QUICK=1: a short smoke run
BUILD=${BUILD:-build-mpich}
export MPIRUN=${MPIRUN:-$(command -v mpirun.mpich)}
SIZES=${SIZES:-1G,2560M}
OPS=${OPS:-pingpong,pingpong_c,bcast_c}
bench=$BUILD/isochron-bench
[ -x "$bench" ] || { echo "large_count: no $bench (build against MPICH first: bash tools/test-mpich.sh, or cmake -B $BUILD -DMPI_C_COMPILER=mpicc.mpich)"; exit 1; }
out=${OUT:-$BUILD/large_count}
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) $(uname -n), $("$bench" --version), MemAvailable $(awk '/MemAvailable/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
printf "%-12s %12s %12s %24s %12s %8s\n" operation bytes median "95% CI (median)" GB/s valid
IFS=, read -r -a ops <<<"$OPS"
IFS=, read -r -a sizes <<<"$SIZES"
for op in "${ops[@]}"; do
  for sz in "${sizes[@]}"; do
    j=$out/$op-$sz.jsonl
    rm -f "$j"
    if ! msg=$(tools/mpirun-local -np 2 "$bench" --ops "$op" --sizes "$sz" --min-reps 3 --max-reps 3 --warmup 1 --validate 1 \
               --scheme barrier --retries 0 --budget 600 --watchdog 900 --format none --quiet --jsonl "$j" 2>&1); then
      printf "%-12s %12s  refused: %s\n" "$op" "$sz" "$(grep -m1 isochron-bench: <<<"$msg" | cut -c1-160)"
      continue
    fi
    python3 - "$j" "$op" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") != "point": continue
    med, lo, hi = r["median_s"], r.get("median_ci_lo_s"), r.get("median_ci_hi_s")
    moved = r["bytes"] * (2 if "pingpong" in sys.argv[2] else 1)  # a round trip moves the message twice
    ci = f"[{lo*1e3:.1f}, {hi*1e3:.1f}] ms" if lo is not None and hi is not None else "-"
    print(f"{sys.argv[2]:<12} {r['bytes']:>12} {med*1e3:>9.1f} ms {ci:>24} {moved/med/1e9:>12.2f} {r['valid']:>4}/{r['reps']}")
PY
  done
done
msg=$(tools/mpirun-local -np 2 "$bench" --ops pingpong_c --sizes 64G --format none --quiet 2>&1)
echo "pingpong_c   at 64 GiB: exit $?: $(grep -m1 isochron-bench: <<<"$msg")"
