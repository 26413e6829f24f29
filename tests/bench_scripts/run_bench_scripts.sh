#!/usr/bin/env bash
# Every benchmark script runs clean with its own defaults (issue 40.6), in its quick mode: each of
# bench/*.sh, bench/apps/apps.sh and bench/papers/paper*.sh is run once with BENCH_QUICK=1 (each
# script shrinks its own work: fewer launches, ranks, sizes, repetitions; its full mode is unchanged
# without it) and must exit 0 within TIMEOUT s. A script that needs what this machine lacks (peers,
# an MPICH build, the namespace cluster...) is skipped with the reason, never silently.
#   run_bench_scripts.sh BUILD_DIR [SCRIPT...]     (default: every script)
# Prints one line per script (ok with its time, SKIP with the reason, FAIL with the tail of its
# output), then "bench_scripts: N ok, M skipped, K failed in T s" and PASS or FAIL.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run_bench_scripts.sh BUILD_DIR [SCRIPT...]}" && pwd); shift
export BUILD=$build BENCH_QUICK=1
# the scripts that read results with the isochron package need its environment (make pydeps)
if [ -x "$root/.venv/bin/python" ] && "$root/.venv/bin/python" -c 'import pandas' 2>/dev/null; then
  export PY=$root/.venv/bin/python
  have_py=1
else
  have_py=
fi
timeout_s=${TIMEOUT:-150}
logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
# the reason a script cannot run here ("" when it can)
why_not() {
  case $1 in
    bench/common.sh|bench/papers/common.sh) echo "helpers, sourced by the scripts (not a benchmark)" ;;
    bench/large_count.sh) [ -x "$root/build-mpich/isochron-bench" ] || echo "needs an MPICH build in build-mpich/ (tools/test-mpich.sh) and GiB-sized buffers" ;;
    bench/cluster_truth.sh|bench/track_truth.sh) echo "brings up tools/cluster's namespace nodes (root, ip netns, minutes); run by hand" ;;
    bench/sim_scale.sh) command -v smpirun >/dev/null || echo "needs SimGrid's smpirun" ;;
    bench/shmem.sh) [ -x "$build/isochron-shmem" ] || echo "isochron-shmem not built (no OpenSHMEM)" ;;
    bench/cc_instr.sh) command -v valgrind >/dev/null || echo "needs valgrind" ;;
    bench/rma_small.sh) command -v mpicc >/dev/null || echo "needs mpicc" ;;
    bench/trace_drift.sh|bench/trace_overhead.sh) [ -e "$build/libisochron-trace.so" ] || echo "libisochron-trace.so not built (no OTF2)" ;;
    bench/python_load.sh|bench/launch_spread.sh|bench/reproducibility.sh)
      [ -n "$have_py" ] || echo "needs the Python package's environment (make pydeps: .venv)" ;;
    bench/apps/apps.sh) command -v lmp >/dev/null || echo "needs Debian's lammps (lmp)" ;;
    bench/papers/paper*.sh) echo "no BENCH_QUICK yet: its MODE=quick takes minutes and rewrites bench/results/papers/ (tests/papers checks --help and MODE)" ;;
  esac
}
# the arguments a script needs besides its defaults
args_of() {
  case $1 in
    bench/cc_stress.sh) echo "1 1" ;;          # seeds FIRST LAST: it has no default
    bench/apps/apps.sh) echo "lammps" ;;       # the application: no default (qe: pw.x, minutes)
  esac
}
if [ $# -gt 0 ]; then scripts=("$@"); else
  cd "$root" && scripts=(bench/*.sh bench/apps/apps.sh bench/papers/*.sh)
fi
cd "$root" || exit 2
ok=0 skipped=0 failed=0 t_all=$(date +%s.%N)
for s in "${scripts[@]}"; do
  reason=$(why_not "$s")
  if [ -n "$reason" ]; then
    printf '%-32s SKIP: %s\n' "$s" "$reason"; skipped=$((skipped + 1)); continue
  fi
  log=$logs/$(echo "$s" | tr / _).log
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  timeout -k 10 "$timeout_s" bash "$s" $(args_of "$s") > "$log" 2>&1
  rc=$?
  t=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")
  if [ "$rc" -eq 0 ]; then
    printf '%-32s ok %6s s\n' "$s" "$t"; ok=$((ok + 1))
  else
    printf '%-32s FAILED (exit %s%s) after %s s:\n' "$s" "$rc" "$([ "$rc" = 124 ] && echo ": over ${timeout_s} s")" "$t"
    tail -8 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
t=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.0f}')" "$t_all" "$(date +%s.%N)")
echo "bench_scripts: $ok ok, $skipped skipped, $failed failed in $t s (load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
if [ "$failed" -eq 0 ]; then echo "bench_scripts: PASS"; else echo "bench_scripts: FAIL"; exit 1; fi
