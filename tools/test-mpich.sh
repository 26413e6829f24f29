#!/usr/bin/env bash
# Portability: build isochron against Debian's MPICH and run the MPI and CLI
# tests with mpirun.mpich (the default build and tests use Open MPI).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA_PKGS="mpich libmpich-dev" bash tools/install-deps.sh
BUILD=${BUILD_MPICH:-build-mpich}
cmake -S . -B "$BUILD" -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE="$(command -v mpirun.mpich)" -DISOCHRON_TEST_TRACK_SECONDS=10 >/dev/null
cmake --build "$BUILD" -j 2
# Not repeated here, to keep CI within its time (each runs under Open MPI in `make test`; MPICH
# busy-polls, so 3-4 ranks on 2 cores take 2-30x longer): the 4-rank operation run (2 and 3
# ranks run here), the 3-rank tracking run (2 and 4 here) and the barrier tool's output check
# (the barrier algorithms run here in test_barrier), and the 4-rank run-time models (its parallel
# all-pairs at 4 busy-polling ranks on 2 cores gave a pair a non-positive alpha or beta in a
# fresh-clone run; 3 ranks run here).
skip='^(test_ops_run_np4|test_track_np3|barrier_output|test_models_measure_np4)$'
cd "$BUILD"
rc=0
ctest --output-on-failure --timeout 300 -L error -j 4 || rc=1
ctest --output-on-failure --timeout 300 -L "mpi|cli" -LE error -E "$skip" || rc=1
exit $rc
