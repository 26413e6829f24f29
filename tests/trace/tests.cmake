# Tests of libisochron-trace.so (issue 15): examples/trace_stencil run under
# LD_PRELOAD, its OTF2 and Perfetto JSON checked by check_trace.py (otf2-print
# reads the archive; one track per rank; every rank's events ordered; the
# MPI_Allreduce instances line up across ranks within the clock's error bound).
set(_tr_lib $<TARGET_FILE:isochron-trace>)
set(_tr_app $<TARGET_FILE:trace_stencil>)
set(_tr_check ${CMAKE_CURRENT_SOURCE_DIR}/trace/check_trace.py)
set(_tr_out ${CMAKE_CURRENT_BINARY_DIR}/trace_out)

# trace_np2, trace_np4: default sync (hierarchical) and tracking; trace_skew_np3: 50 ppm and 1 ms injected, corrected
foreach(case "np2;2;" "np4;4;" "skew_np3;3;ISOCHRON_TRACE_SKEW=offset=1ms,drift=50,seed=3")
  list(GET case 0 tag)
  list(GET case 1 np)
  list(GET case 2 extra)
  add_test(NAME trace_${tag}
           COMMAND sh -c "rm -rf ${_tr_out}/${tag} && env ${extra} ISOCHRON_TRACE_DIR=${_tr_out}/${tag} LD_PRELOAD=${_tr_lib} ${ISOCHRON_MPIRUN_LOCAL} -np ${np} ${_tr_app} 150 5000 && python3 ${_tr_check} ${_tr_out}/${tag} isochron-trace ${np}")
  set_tests_properties(trace_${tag} PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120 LABELS "mpi"
                       PROCESSORS ${np} PASS_REGULAR_EXPRESSION "trace: PASS" FAIL_REGULAR_EXPRESSION "trace: FAIL")
endforeach()

# The line-up check sees bad clocks: skew injected and no correction must fail it.
add_test(NAME trace_uncorrected_np3
         COMMAND sh -c "rm -rf ${_tr_out}/unc && ISOCHRON_TRACE_SYNC=none ISOCHRON_TRACE_SKEW=offset=1ms,seed=3 ISOCHRON_TRACE_FORMATS=json,otf2 ISOCHRON_TRACE_DIR=${_tr_out}/unc LD_PRELOAD=${_tr_lib} ${ISOCHRON_MPIRUN_LOCAL} -np 3 ${_tr_app} 30 1000 && python3 ${_tr_check} ${_tr_out}/unc isochron-trace 3 --expect-misaligned")
set_tests_properties(trace_uncorrected_np3 PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120 LABELS "mpi"
                     PROCESSORS 3 PASS_REGULAR_EXPRESSION "trace: PASS" FAIL_REGULAR_EXPRESSION "trace: FAIL")

# Bad configuration: a clear error naming the valid choices, nonzero exit.
foreach(case "bad_sync;ISOCHRON_TRACE_SYNC=nosuch;hca3" "bad_calls;ISOCHRON_TRACE_CALLS=MPI_Nosuch;MPI_Allreduce" "bad_format;ISOCHRON_TRACE_FORMATS=pdf;json, otf2")
  list(GET case 0 tag)
  list(GET case 1 setting)
  list(GET case 2 valid)
  add_test(NAME trace_${tag}
           COMMAND sh -c "env ${setting} ISOCHRON_TRACE_DIR=${_tr_out}/${tag} LD_PRELOAD=${_tr_lib} ${ISOCHRON_MPIRUN_LOCAL} -np 2 ${_tr_app} 5 100 2>&1; test $? -ne 0 && echo trace-refused")
  set_tests_properties(trace_${tag} PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 60 LABELS "mpi;error"
                       PROCESSORS 2 PASS_REGULAR_EXPRESSION "isochron-trace: .*${valid}.*trace-refused")
endforeach()

# A second run into the same directory replaces the first trace (OTF2 itself refuses to overwrite).
add_test(NAME trace_rerun_np2
         COMMAND sh -c "rm -rf ${_tr_out}/rerun && for i in 1 2; do ISOCHRON_TRACE_DIR=${_tr_out}/rerun LD_PRELOAD=${_tr_lib} ${ISOCHRON_MPIRUN_LOCAL} -np 2 ${_tr_app} 20 1000 2>&1 || exit 1; done && python3 ${_tr_check} ${_tr_out}/rerun isochron-trace 2")
set_tests_properties(trace_rerun_np2 PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120 LABELS "mpi"
                     PROCESSORS 2 PASS_REGULAR_EXPRESSION "trace: PASS" FAIL_REGULAR_EXPRESSION "trace: FAIL|OTF2.*error|writing .* failed")
