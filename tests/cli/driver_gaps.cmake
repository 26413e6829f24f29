# The drivers' remaining gaps (issue 30 item 6): every option checked whatever the mode (--startup),
# --passes refused naming --passes, output files named with the OS error (open and write), and an
# interrupted run's file valid JSON Lines whose end record names the signal received.
isochron_cli_test(startup_bad_ops 2 TOOL isochron-bench EXPECT 2 MATCH "--ops: unknown operation 'nosuchop'" ARGS --startup --ops nosuchop)
isochron_cli_test(startup_bad_sizes 2 TOOL isochron-bench EXPECT 2 MATCH "--sizes: bad size '-8'" ARGS --startup --sizes -8)
isochron_cli_test(startup_bad_format 2 TOOL isochron-bench EXPECT 2 MATCH "unknown --format 'xml'; valid: table, jsonl, csv, none" ARGS --startup --format xml)
isochron_cli_test(startup_bad_jsonl 2 TOOL isochron-bench EXPECT 2 MATCH "--jsonl '/nonexistent-isochron/s.jsonl': cannot write: No such file or directory"
                  ARGS --startup --jsonl /nonexistent-isochron/s.jsonl)
isochron_cli_test(startup_formats 2 TOOL isochron-bench EXPECT zero MATCH "\"type\":\"startup\",\"tool\":\"isochron-bench\",\"ranks\":2"
                  OUTFILE ${CMAKE_CURRENT_BINARY_DIR}/startup.csv FILE_MATCH "what,ranks,min_s,mean_s,max_s\nMPI_Init,2,"
                  ARGS --startup --format jsonl --csv ${CMAKE_CURRENT_BINARY_DIR}/startup.csv)
isochron_cli_test(passes_ci_target 1 TOOL isochron-bench EXPECT 2 MATCH "--passes 400: each pass stops at a CI of sqrt.400. x --rel-ci 0.05" "use at most 399 passes"
                  ARGS --passes 400 --ops bcast)
isochron_cli_test(passes_max_reps 1 TOOL isochron-bench EXPECT 2 MATCH "--passes 50 with --max-reps 20: every pass measures at least 2 repetitions, 100 in all"
                  ARGS --passes 50 --max-reps 20 --ops bcast)
foreach(case "bench;isochron-bench;--jsonl" "bench_csv;isochron-bench;--csv" "barrier;isochron-barrier;--jsonl" "clock;isochron-clock;--jsonl")
  list(GET case 0 name)
  list(GET case 1 tool)
  list(GET case 2 opt)
  isochron_cli_test(${name}_output_missing_dir 2 TOOL ${tool} EXPECT 2 MATCH "${tool}: ${opt} '/nonexistent-isochron/out': cannot write: No such file or directory"
                    ARGS ${opt} /nonexistent-isochron/out)
  isochron_cli_test(${name}_output_directory 2 TOOL ${tool} EXPECT 2 MATCH "${tool}: ${opt} '/': cannot write: Is a directory" ARGS ${opt} /)
endforeach()
# records lost while writing (a full disk) end the run nonzero, naming the file
isochron_cli_test(bench_output_full 2 TOOL isochron-bench EXPECT 1 MATCH "isochron-bench: --jsonl '/dev/full': writing failed, records are missing from it"
                  ARGS --ops bcast --sizes 8 --max-reps 10 --quiet --format none --jsonl /dev/full)
isochron_cli_test(clock_output_full 2 EXPECT 1 MATCH "isochron-clock: --jsonl '/dev/full': writing failed" ARGS --wait 0 --format none --jsonl /dev/full)

# Ctrl-C on a program run directly: SIGINT named, exit 130, every line a record (a run of seconds at 1 rank:
# 32 MiB written between repetitions, 200 of them a point, so the signal comes before the end)
add_test(NAME bench_interrupted_sigint
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_interrupted.sh direct 1 ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/interrupted_sigint.jsonl $<TARGET_FILE:isochron-bench> --ops bcast --sizes 8..1M --cache-clear 32M --rel-ci 0 --max-reps 200)
set_tests_properties(bench_interrupted_sigint PROPERTIES ENVIRONMENT "INTERRUPT_SIGNAL=INT;PYTHONPATH=${PROJECT_SOURCE_DIR}/python/src"
                     TIMEOUT 90 LABELS "cli" PASS_REGULAR_EXPRESSION "check_interrupted: PASS")
