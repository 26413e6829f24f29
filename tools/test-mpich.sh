#!/usr/bin/env bash
# Portability: build isochron against Debian's MPICH and run the MPI and CLI
# tests with mpirun.mpich (the default build and tests use Open MPI).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA_PKGS="mpich libmpich-dev" bash tools/install-deps.sh
BUILD=${BUILD_MPICH:-build-mpich}
cmake -S . -B "$BUILD" -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE="$(command -v mpirun.mpich)" -DISOCHRON_TEST_TRACK_SECONDS=10 >/dev/null
cmake --build "$BUILD" -j 2
cd "$BUILD" && ctest --output-on-failure --timeout 300 -L "mpi|cli"
