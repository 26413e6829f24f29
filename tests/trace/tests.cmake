# Tests of libisochron-trace.so (issue 15): examples/trace_stencil run under
# LD_PRELOAD, its OTF2 and Perfetto JSON checked by check_trace.py (otf2-print
# reads the archive; one track per rank; every rank's events ordered; the
# MPI_Allreduce instances line up across ranks within the clock's error bound).
set(_tr_lib $<TARGET_FILE:isochron-trace>)
set(_tr_app $<TARGET_FILE:trace_stencil>)
set(_tr_check ${CMAKE_CURRENT_SOURCE_DIR}/trace/check_trace.py)
set(_tr_out ${CMAKE_CURRENT_BINARY_DIR}/trace_out)

# trace_TAG: SH with @RUN@ = trace_stencil ARGS at NP ranks under the tracer with the settings ENV,
# writing into a fresh ${_tr_out}/TAG, and @CHECK@ = check_trace.py on that trace (EXTRA: its options).
function(isochron_trace_test tag)
  cmake_parse_arguments(T "" "NP;ENV;ARGS;PASS;FAIL;EXTRA;APP;CHECKER" "SH;LABELS" ${ARGN})
  if(NOT T_APP)
    set(T_APP ${_tr_app})
  endif()
  if(NOT T_CHECKER)
    set(T_CHECKER ${_tr_check})
  endif()
  set(run "env ${T_ENV} ISOCHRON_TRACE_DIR=${_tr_out}/${tag} LD_PRELOAD=${_tr_lib} ${ISOCHRON_MPIRUN_LOCAL} -np ${T_NP} ${T_APP} ${T_ARGS}")
  set(check "python3 ${T_CHECKER} ${_tr_out}/${tag} isochron-trace ${T_NP} ${T_EXTRA}")
  string(REPLACE "@RUN@" "${run}" sh "rm -rf ${_tr_out}/${tag} && ${T_SH}")
  string(REPLACE "@CHECK@" "${check}" sh "${sh}")
  add_test(NAME trace_${tag} COMMAND sh -c "${sh}")
  set_tests_properties(trace_${tag} PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120
                       LABELS "${T_LABELS}" PROCESSORS ${T_NP} PASS_REGULAR_EXPRESSION "${T_PASS}")
  if(T_FAIL)
    set_tests_properties(trace_${tag} PROPERTIES FAIL_REGULAR_EXPRESSION "${T_FAIL}")
  endif()
endfunction()

# trace_np2, trace_np4: default sync (hierarchical) and tracking; trace_skew_np3: 50 ppm and 1 ms injected, corrected.
# trace_uncorrected_np3: the line-up check sees bad clocks: skew injected and no correction must fail it.
foreach(case "np2;2;150 5000;" "np4;4;150 5000;" "skew_np3;3;150 5000;ISOCHRON_TRACE_SKEW=offset=1ms,drift=50,seed=3"
             "uncorrected_np3;3;30 1000;ISOCHRON_TRACE_SYNC=none ISOCHRON_TRACE_SKEW=offset=1ms,seed=3;--expect-misaligned")
  list(GET case 0 tag)
  list(GET case 1 np)
  list(GET case 2 args)
  list(GET case 3 extra)
  set(opt "")
  list(LENGTH case n)
  if(n GREATER 4)
    list(GET case 4 opt)
  endif()
  isochron_trace_test(${tag} NP ${np} ENV "${extra}" ARGS "${args}" SH "@RUN@ && @CHECK@" EXTRA "${opt}"
                      LABELS mpi PASS "trace: PASS" FAIL "trace: FAIL")
endforeach()

# Bad configuration: a clear error naming the valid choices, nonzero exit.
foreach(case "bad_sync;ISOCHRON_TRACE_SYNC=nosuch;hca3" "bad_calls;ISOCHRON_TRACE_CALLS=MPI_Nosuch;MPI_Allreduce"
             "bad_format;ISOCHRON_TRACE_FORMATS=pdf;json, otf2")
  list(GET case 0 tag)
  list(GET case 1 setting)
  list(GET case 2 valid)
  isochron_trace_test(${tag} NP 2 ENV "${setting}" ARGS "5 100" SH "@RUN@ 2>&1; test $? -ne 0 && echo trace-refused"
                      LABELS "mpi;error" PASS "isochron-trace: .*${valid}.*trace-refused")
endforeach()

# A second run into the same directory replaces the first trace (OTF2 itself refuses to overwrite).
isochron_trace_test(rerun_np2 NP 2 ARGS "20 1000" SH "for i in 1 2; do @RUN@ 2>&1 || exit 1; done && @CHECK@"
                    LABELS mpi PASS "trace: PASS" FAIL "trace: FAIL|OTF2.*error|writing .* failed")

# What is recorded per call (bytes, peer, root, communicator and size, names; RMA included), and a
# selection by name and category: tests/trace/trace_calls.c checked by check_calls.py.
add_executable(trace_calls ${CMAKE_CURRENT_SOURCE_DIR}/trace/trace_calls.c)
target_link_libraries(trace_calls PRIVATE MPI::MPI_C)
set(_tr_calls ${CMAKE_CURRENT_SOURCE_DIR}/trace/check_calls.py)
isochron_trace_test(calls_np3 NP 3 APP $<TARGET_FILE:trace_calls> CHECKER ${_tr_calls} ENV "ISOCHRON_TRACE_FORMATS=json"
                    SH "@RUN@ && @CHECK@" LABELS mpi PASS "calls: .*PASS" FAIL "FAIL")
isochron_trace_test(calls_select_np3 NP 3 APP $<TARGET_FILE:trace_calls> CHECKER ${_tr_calls}
                    ENV "ISOCHRON_TRACE_FORMATS=json ISOCHRON_TRACE_SYNC=none ISOCHRON_TRACE_CALLS=rma,MPI_Scatter,commfree"
                    EXTRA "--only rma,MPI_Scatter,commfree" SH "@RUN@ && @CHECK@" LABELS mpi PASS "calls: .*PASS" FAIL "FAIL")

# Settings refused at MPI_Init, before the application runs, on every rank (issue 30): output
# directories and names, empty lists, a sync spec beyond ISOCHRON_TRACE_SYNC_LIMIT, numbers out of range,
# misspelt variables; and a trace lost at MPI_Finalize ends the job with a non-zero status.
add_executable(trace_lose ${CMAKE_CURRENT_SOURCE_DIR}/trace/trace_lose.c)
target_link_libraries(trace_lose PRIVATE MPI::MPI_C)
foreach(case dir_file dir_under_file dir_unwritable dir_long name_path name_up name_long name_json_dir calls_empty
             formats_empty formats_none_json sync_limit sync_limit_bad interval_nan track_bad misspelt differ lost)
  set(np 2)
  if(case STREQUAL "lost" OR case STREQUAL "dir_file")
    set(np 3)
  endif()
  add_test(NAME trace_settings_${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/trace/test_trace_settings.sh ${case} ${np} ${_tr_lib} ${_tr_app}
                   $<TARGET_FILE:trace_lose>)
  set_tests_properties(trace_settings_${case} PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120
                       LABELS "mpi;error" PROCESSORS ${np}
                       PASS_REGULAR_EXPRESSION "test_trace_settings ${case} np ${np}: PASS" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
