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
# a --skip name not in the table is refused with a clear error
add_test(NAME pmpi_gen_bad_skip COMMAND Python3::Interpreter ${ISOCHRON_PMPI_GEN} --table ${ISOCHRON_PMPI_TABLE}
         --prefix x --out ${CMAKE_CURRENT_BINARY_DIR}/x.c --skip MPI_Nonesuch)
set_tests_properties(pmpi_gen_bad_skip PROPERTIES WILL_FAIL ON LABELS "serial")
