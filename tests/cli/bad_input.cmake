# Bad input from issue 17's corpus of malformed command lines: each is refused
# with a message naming what is wrong (or, for pairwise operations on more
# ranks, the run says what the extra ranks do). Every list option rejects
# empty elements; sizes are decimal; per-rank skew must name existing ranks;
# a sync spec that would run for hours is refused with its estimate.
isochron_cli_test(bad_ops_empty_element 1 TOOL isochron-bench EXPECT nonzero MATCH "--ops: empty element in ','" "--list-ops" ARGS --ops ,)
isochron_cli_test(bad_ops_empty 1 TOOL isochron-bench EXPECT nonzero MATCH "--ops: empty list" ARGS --ops=)
isochron_cli_test(bad_ops_double_comma 1 TOOL isochron-bench EXPECT nonzero MATCH "empty element in 'allreduce,,bcast'" ARGS --ops allreduce,,bcast)
isochron_cli_test(bad_quantiles_empty 1 TOOL isochron-bench EXPECT nonzero MATCH "--quantiles '0.1,,0.2'" ARGS --quantiles 0.1,,0.2)
isochron_cli_test(bad_sizes_empty 1 TOOL isochron-bench EXPECT nonzero MATCH "empty element in '8,,16'" ARGS --sizes 8,,16)
isochron_cli_test(bad_sizes_hex 1 TOOL isochron-bench EXPECT nonzero MATCH "bad size '0x10'" "no hexadecimal or exponent" ARGS --sizes 0x10)
isochron_cli_test(bad_sizes_exponent 1 TOOL isochron-bench EXPECT nonzero MATCH "bad size '1e3'" ARGS --sizes 1e3)
isochron_cli_test(sizes_fraction_ok 1 TOOL isochron-bench EXPECT zero MATCH "1536 B" ARGS --ops bcast --sizes 1.5K --max-reps 10 --quiet)
isochron_cli_test(bad_skew_rank 2 TOOL isochron-bench EXPECT nonzero MATCH "--skew: rank 99 given but the job has 2 ranks" ARGS --skew r99:offset=1ms)
isochron_cli_test(barrier_bad_skew_rank 2 TOOL isochron-barrier EXPECT nonzero MATCH "--skew: rank 5 given but the job has 2 ranks" ARGS --skew r5:offset=1ms)
isochron_cli_test(clock_bad_skew_rank 2 EXPECT nonzero MATCH "--skew: rank 99 given but the job has 2 ranks" ARGS --skew r99:offset=1ms --wait 0)
isochron_cli_test(bad_wait_empty 1 EXPECT nonzero MATCH "--wait '0,,0'" ARGS --wait 0,,0)
isochron_cli_test(bad_barriers_empty 1 TOOL isochron-barrier EXPECT nonzero MATCH "--barriers: empty element" "valid: " ARGS --barriers mpi,)
isochron_cli_test(bad_experiments_empty 1 TOOL isochron-barrier EXPECT nonzero MATCH "--experiments: empty element" ARGS --experiments ,skew)
isochron_cli_test(pair_op_says_idle_ranks 3 TOOL isochron-bench EXPECT zero MATCH "pingpong: only ranks 0 and 1 take part; rank 2 sends nothing"
                  ARGS --ops pingpong --sizes 8 --max-reps 10 --quiet)
isochron_cli_test(sync_estimate_refused 2 EXPECT nonzero MATCH "estimated to take [0-9.e+]+ s at 2 ranks" "--sync-limit 600 s"
                  ARGS --sync hca3/1000000/skampi/1000000 --wait 0)
isochron_cli_test(bench_sync_estimate_refused 2 TOOL isochron-bench EXPECT nonzero MATCH "estimated to take" "--sync-limit"
                  ARGS --sync jk/1000000/skampi/1000000)
isochron_cli_test(bad_sync_limit 1 EXPECT nonzero MATCH "--sync-limit 'abc'" ARGS --sync-limit abc)
# the watchdog covers the sync phase (by default 3 x its estimate + 60 s; here 1 s against 20 M ping-pongs, 6 s or more
# seconds) and the accuracy check (here 8 s against a 60 s wait, naming the file that keeps wait 0; 8 s, as a sync at 2
# ranks took over 1 s on this machine under load, and the same --watchdog covers it)
isochron_cli_test(clock_sync_watchdog 2 EXPECT nonzero MATCH "watchdog: clock synchronization [(]hca3/4000/skampi/5000.*estimated" "did not finish within 1 s"
                  ARGS --sync hca3/4000/skampi/5000 --sync-limit 0 --watchdog 1 --wait 0)
isochron_cli_test(clock_check_watchdog 2 EXPECT nonzero MATCH "watchdog: the accuracy check did not finish within 8 s" "Completed results are in"
                  ARGS --watchdog 8 --wait 0,60 --jsonl clock_check_watchdog.jsonl)
isochron_cli_test(bad_clock_watchdog 1 EXPECT nonzero MATCH "--watchdog 'soon': expected seconds" ARGS --watchdog soon)

# Interrupted runs keep what they measured and say so (SIGTERM as mpirun forwards Ctrl-C); each run lasts
# seconds (a fresh-clone CI run of the default bench sweep finished its 306 points in 1.1 s, before the signal)
foreach(case "bench;isochron-bench;--sizes;8..1M;--rel-ci;0;--min-reps;300;--max-reps;300" "barrier;isochron-barrier;--calls;2000")
  list(GET case 0 name)
  list(GET case 1 tool)
  list(SUBLIST case 2 -1 args)
  add_test(NAME ${name}_interrupted
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_interrupted.sh ${ISOCHRON_MPIRUN_LOCAL} 2 ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/interrupted_${name}.jsonl $<TARGET_FILE:${tool}> ${args})
  set_tests_properties(${name}_interrupted PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE};PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src"
                       TIMEOUT 90 LABELS "cli" PASS_REGULAR_EXPRESSION "check_interrupted: PASS")
endforeach()
# the clock writes each wait's records as it is measured: interrupted during the 60 s wait, it keeps wait 0
add_test(NAME clock_interrupted
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_interrupted.sh ${ISOCHRON_MPIRUN_LOCAL} 2 ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/interrupted_clock.jsonl $<TARGET_FILE:isochron-clock> --wait 0,60)
set_tests_properties(clock_interrupted PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE};PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src;INTERRUPT_AFTER=\"type\":\"summary\""
                     TIMEOUT 90 LABELS "cli" PASS_REGULAR_EXPRESSION "check_interrupted: PASS")

# The drivers write what the published schema says (python/src/isochron/results-1.schema.json)
# (every record type of every driver, isochron-shmem's when it is built)
set(_schema_shmem "")
if(TARGET isochron-shmem)
  set(_schema_shmem $<TARGET_FILE:isochron-shmem>)
endif()
add_test(NAME drivers_satisfy_schema
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_schema.sh ${ISOCHRON_MPIRUN_LOCAL} ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}
                 $<TARGET_FILE:isochron-bench> $<TARGET_FILE:isochron-clock> $<TARGET_FILE:isochron-barrier> ${_schema_shmem})
set_tests_properties(drivers_satisfy_schema PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 180 LABELS "cli"
                     PASS_REGULAR_EXPRESSION "check_schema: PASS")
