# Installation and out-of-tree use (issue 17): see install/test_install.sh.
set(_mpicc ${MPI_C_COMPILER})
if(NOT _mpicc)
  set(_mpicc mpicc)
endif()
add_test(NAME install_out_of_tree
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/test_install.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${_mpicc})
set_tests_properties(install_out_of_tree PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 180 LABELS "cli"
                     PASS_REGULAR_EXPRESSION "test_install: PASS")

# valgrind: each driver's run is clean in isochron's own code (label "valgrind"; in CI under Open MPI;
# under MPICH with MPICH_VALGRIND=1 bash tools/test-mpich.sh)
find_program(ISOCHRON_VALGRIND valgrind)
if(ISOCHRON_VALGRIND AND NOT ISOCHRON_SANITIZE)
  add_test(NAME valgrind_drivers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/test_valgrind.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(valgrind_drivers PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 300 LABELS "valgrind"
                       PASS_REGULAR_EXPRESSION "test_valgrind: PASS")
endif()
