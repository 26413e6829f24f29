#!/usr/bin/env bash
# Instructions the collective-clock layer adds per MPI call (issue 14's overhead, measured where
# launch-to-launch timing cannot resolve it: this machine's state changes 2-3x within seconds).
# One rank runs N x MPI_Bcast(4 B), N x MPI_Allreduce(4 B), N x (MPI_Ibcast + MPI_Wait) under
# valgrind's callgrind without the layer (none) and with libisochron-cc.so preloaded in each ISOCHRON_CC_MODE; the instructions
# of a run with N=0 are subtracted, so start-up cancels. Prints instructions per call and the
# layer's own functions (callgrind_annotate) for cc mode.
#   bash bench/cc_instr.sh        env: BUILD (build), N (20000)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ -z "${BENCH_QUICK:-}" ] || : "${N:=500}"   # BENCH_QUICK=1: a short smoke run
build=${BUILD:-$here/build}; N=${N:-20000}
lib=$build/libisochron-cc.so
[ -e "$lib" ] || { echo "cc_instr: $lib not built" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "cc_instr: valgrind not installed" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/loop.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 0, x = 1, y;
    MPI_Request r;
    for (int i = 0; i < n; i++) MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) { MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); }
    MPI_Finalize();
    return 0;
}
C
mpicc -O2 -o "$tmp/loop" "$tmp/loop.c"
ir() { pre=$lib; [ "$1" = none ] && pre=
       ISOCHRON_CC_MODE=${1/none/native} LD_PRELOAD=$pre valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1.$2" "$tmp/loop" "$2" 2>&1 \
       | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
echo "instructions per call (1 rank; 3 x $N calls: Bcast, Allreduce, Ibcast+Wait counted as one)"
declare -A per
for m in none native cc 2pc; do
  a=$(ir "$m" 0); b=$(ir "$m" "$N")
  per[$m]=$(python3 -c "print(f'{($b - $a) / (3 * $N):.0f}')")
  echo "  $m: ${per[$m]}"
done
echo "  over no layer (none): native $(( ${per[native]} - ${per[none]} )), cc $(( ${per[cc]} - ${per[none]} )), 2pc $(( ${per[2pc]} - ${per[none]} )) instructions per call"
echo "the layer's functions in cc mode (instructions over the whole run):"
callgrind_annotate "$tmp/cg.cc.$N" 2>/dev/null | grep -E "libisochron-cc.so\]" | head -12
