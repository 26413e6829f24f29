#!/usr/bin/env bash
# The C tests under AddressSanitizer + UndefinedBehaviorSanitizer: isochron
# built with ISOCHRON_SANITIZE=address,undefined into build-san, then the
# serial, MPI and CLI tests that exercise the library's code paths (the long
# clock-tracking runs are left out: instrumented, they measure nothing new).
# Open MPI's own leaks are not isochron's: leak detection is off
# (ASAN_OPTIONS), valgrind_drivers checks leaks with suppressions instead.
#   bash tools/test-sanitizers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_SAN:-build-san}
cmake -S . -B "$BUILD" -DISOCHRON_SANITIZE=address,undefined >/dev/null
cmake --build "$BUILD" -j 2 >/dev/null
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$BUILD" && ctest --output-on-failure --timeout 300 -L "serial|mpi|cli" -E "test_track|test_recover|bench_clock_fields|install_out_of_tree|interrupted|valgrind|sweep"
