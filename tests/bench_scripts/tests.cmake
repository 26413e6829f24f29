# Every benchmark script runs clean with its own defaults in its quick mode (issue 40.6): bench/*.sh,
# bench/apps/apps.sh and bench/papers/paper*.sh with BENCH_QUICK=1, each once; skipped scripts name
# what they need. Its own label, outside the default CI selection of "mpi" tests:
#   ctest -L bench_scripts --output-on-failure
add_test(NAME bench_scripts_quick COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench_scripts/run_bench_scripts.sh ${PROJECT_BINARY_DIR})
set_tests_properties(bench_scripts_quick PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 3600
                     LABELS "bench_scripts" PROCESSORS 2 RUN_SERIAL TRUE
                     PASS_REGULAR_EXPRESSION "bench_scripts: PASS" FAIL_REGULAR_EXPRESSION "bench_scripts: FAIL")
