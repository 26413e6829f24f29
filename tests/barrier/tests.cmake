# Tests of the barrier module and the isochron-barrier driver.
isochron_mpi_test(test_barrier ${CMAKE_CURRENT_SOURCE_DIR}/barrier/test_barrier.c 1 2 3 4 5 8)

# isochron-barrier: every experiment writes its records; the JSON Lines parse and hold together
add_test(NAME barrier_output
         COMMAND sh -c "${ISOCHRON_MPIRUN_LOCAL} -np 3 $<TARGET_FILE:isochron-barrier> --calls 40 --trials 20 --payoff-trials 10 --payoff-sizes 0,4K,64K --max-reps 50 --format none --quiet --jsonl ${CMAKE_CURRENT_BINARY_DIR}/barrier_out.jsonl && python3 ${CMAKE_CURRENT_SOURCE_DIR}/barrier/check_output.py ${CMAKE_CURRENT_BINARY_DIR}/barrier_out.jsonl 3")
set_tests_properties(barrier_output PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120 LABELS "cli" PASS_REGULAR_EXPRESSION "check_output: PASS"
                     SKIP_RETURN_CODE 77)

isochron_cli_test(barrier_table 4 TOOL isochron-barrier EXPECT zero MATCH "RDS constants: b_s = " "exit skew" "sync0" "ring shift" "64 KiB" "model [(]paper 004"
                  ARGS --calls 20 --trials 10 --payoff-trials 5 --max-reps 20 --quiet)
isochron_cli_test(barrier_help 1 TOOL isochron-barrier EXPECT zero MATCH "--barriers" "--experiments" "--spread" "payoff" ARGS --help)
isochron_cli_test(barrier_list 1 TOOL isochron-barrier EXPECT zero MATCH "mpi" "linear" "tree" "butterfly" "sync0" "dissemination" "double_ring" "rds" ARGS --list-barriers)
isochron_cli_test(barrier_list_exp 1 TOOL isochron-barrier EXPECT zero MATCH "skew" "cost" "shift" "payoff" ARGS --list-experiments)
isochron_cli_test(barrier_unknown 2 TOOL isochron-barrier EXPECT nonzero MATCH "unknown barrier 'nosuch'" "rds" ARGS --barriers mpi,nosuch)
isochron_cli_test(barrier_unknown_exp 2 TOOL isochron-barrier EXPECT nonzero MATCH "unknown experiment 'nosuch'" "payoff" ARGS --experiments nosuch)
isochron_cli_test(barrier_rds_half 2 TOOL isochron-barrier EXPECT nonzero MATCH "go together" ARGS --rds-bs 2us)
isochron_cli_test(barrier_bad_wait 2 TOOL isochron-barrier EXPECT nonzero MATCH "spin, yield, auto" ARGS --wait sometimes)
isochron_cli_test(barrier_shift_alone 1 TOOL isochron-barrier EXPECT nonzero MATCH "at least 2 processes" ARGS --experiments shift)
isochron_cli_test(barrier_huge_shift 2 TOOL isochron-barrier EXPECT nonzero MATCH "more than 1 GiB" ARGS --shift-sizes 4G)
isochron_cli_test(barrier_unknown_flag 1 TOOL isochron-barrier EXPECT nonzero MATCH "--help" ARGS --bogus)

# the engine's barrier scheme takes every algorithm by name
isochron_cli_test(bench_barrier_rds 4 TOOL isochron-bench EXPECT zero MATCH "allreduce" "8 B"
                  ARGS --ops allreduce --sizes 8 --scheme barrier --barrier rds --max-reps 30 --quiet)
isochron_cli_test(bench_list_barriers 1 TOOL isochron-bench EXPECT zero MATCH "double_ring" "rds" ARGS --list-barriers)
isochron_cli_test(bench_unknown_barrier 2 TOOL isochron-bench EXPECT nonzero MATCH "unknown barrier" "dissemination" ARGS --scheme barrier --barrier nosuch)
isochron_cli_test(barrier_bad_skew_spread 2 TOOL isochron-barrier EXPECT nonzero MATCH "--skew-spread 'soon'" ARGS --skew-spread soon)
isochron_cli_test(barrier_node_size 4 TOOL isochron-barrier EXPECT zero MATCH "4 ranks, 2 node[(]s[)]" "exit skew"
                  ARGS --experiments skew --calls 20 --sync hca3+hca3 --node-size 2 --quiet)
isochron_cli_test(barrier_bad_node_size 1 TOOL isochron-barrier EXPECT nonzero MATCH "--node-size '1.5'" ARGS --experiments skew --node-size 1.5)
