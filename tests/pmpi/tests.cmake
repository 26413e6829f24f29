# PMPI wrapper generator (src/pmpi/, tools/gen-pmpi.py): the wrappers of a test
# layer compiled into the program; coverage of every table entry and the call
# records real MPI calls produce.
isochron_pmpi_wrappers(tpmpi TPMPI_WRAPPERS)
add_executable(test_pmpi_wrappers ${CMAKE_CURRENT_SOURCE_DIR}/pmpi/test_pmpi_wrappers.c ${TPMPI_WRAPPERS})
target_include_directories(test_pmpi_wrappers PRIVATE ${ISOCHRON_PMPI_INCLUDE_DIRS})
target_link_libraries(test_pmpi_wrappers PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
set_target_properties(test_pmpi_wrappers PROPERTIES ENABLE_EXPORTS ON)
add_test(NAME pmpi_wrappers_np3 COMMAND ${ISOCHRON_MPIRUN_LOCAL} -np 3 $<TARGET_FILE:test_pmpi_wrappers>)
set_tests_properties(pmpi_wrappers_np3 PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}"
                     TIMEOUT ${ISOCHRON_TEST_TIMEOUT} LABELS "mpi" PROCESSORS 3
                     PASS_REGULAR_EXPRESSION "rank 0: 113 of 113 table entries wrapped \\(22 non-blocking collectives\\), PASS"
                     FAIL_REGULAR_EXPRESSION "FAIL")
# An unknown --skip name is refused by name with exit status 1: the message and the status are both
# checked (WILL_FAIL alone passed on any failure, a crash included).
add_test(NAME pmpi_gen_bad_skip COMMAND sh -c "\"$0\" \"$1\" --table \"$2\" --prefix x --out \"$3\" --skip MPI_Nonesuch 2>&1; echo \"gen-pmpi exit status $?\""
         $<TARGET_FILE:Python3::Interpreter> ${ISOCHRON_PMPI_GEN} ${ISOCHRON_PMPI_TABLE} ${CMAKE_CURRENT_BINARY_DIR}/x.c)
set_tests_properties(pmpi_gen_bad_skip PROPERTIES LABELS "serial" FAIL_REGULAR_EXPRESSION "Traceback"
                     PASS_REGULAR_EXPRESSION "gen-pmpi: --skip MPI_Nonesuch: not in [^\n]*mpi\\.tbl\ngen-pmpi exit status 1\n")
# Coverage of the built layer libraries: every mpi.tbl entry resolves, in the library, to its wrapper
# (libisochron-cc.so; libisochron-trace.so when built). No MPI job: the library is dlopen'ed.
add_executable(test_pmpi_layer_coverage ${CMAKE_CURRENT_SOURCE_DIR}/pmpi/test_pmpi_layer_coverage.c)
target_include_directories(test_pmpi_layer_coverage PRIVATE ${ISOCHRON_PMPI_INCLUDE_DIRS})
target_link_libraries(test_pmpi_layer_coverage PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
set(_pmpi_layers "cc:isochron_cc:icc")
if(ISOCHRON_HAVE_TRACE)
  list(APPEND _pmpi_layers "trace:isochron-trace:itr")
endif()
foreach(layer ${_pmpi_layers})
  string(REPLACE ":" ";" layer "${layer}")
  list(GET layer 0 tag)
  list(GET layer 1 target)
  list(GET layer 2 prefix)
  add_test(NAME pmpi_coverage_${tag} COMMAND test_pmpi_layer_coverage $<TARGET_FILE:${target}> ${prefix})
  set_tests_properties(pmpi_coverage_${tag} PROPERTIES LABELS "serial" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "pmpi_coverage ${prefix}: 113 of 113 table entries wrapped in .*, PASS"
                       FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
