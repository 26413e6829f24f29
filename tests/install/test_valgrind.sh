#!/usr/bin/env bash
# A default run of each driver (shortened) is valgrind-clean in isochron's own
# code at 2 ranks: no invalid access, no use of uninitialised memory, no
# definite leak. tools/valgrind-mpi.supp suppresses only what the MPI runtime
# itself raises (its progress threads, MPI_Init/MPI_Finalize, components).
#   test_valgrind.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
V=(valgrind -q --error-exitcode=9 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite
   --suppressions="$src/tools/valgrind-mpi.supp")
run() {
  local name=$1; shift
  if out=$("$src/tools/mpirun-local" -np 2 "${V[@]}" "$@" --quiet --format none 2>&1); then
    echo "  $name: clean"
  else
    echo "$out" | grep -E "^==[0-9]+==" | head -40
    echo "test_valgrind: FAIL: $name"
    exit 1
  fi
}
run isochron-bench "$build/isochron-bench" --ops allreduce,bcast,alltoall,pingpong,put_fence --sizes 0,8,4K --max-reps 20
run isochron-bench-osu "$build/isochron-bench" --ops bw,mbw_mr,allreduce_persistent,allreduce_init,pingpong_persistent,neighbor_alltoallw_graph,ineighbor_allgather_cart,ialltoallw,bw_persistent,alltoallv_persistent,reduce_scatter_init,latency_mt --sizes 8,1K --max-reps 10 --msg-window 8 --threads 2
run isochron-clock "$build/isochron-clock" --wait 0,1
run isochron-barrier "$build/isochron-barrier" --calls 100 --trials 20 --payoff-trials 10 --payoff-sizes 0,4K --shift-sizes 4K --max-reps 30
echo "test_valgrind: PASS"
