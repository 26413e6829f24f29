# Tests of the tuning work (issue 38), included by tests/CMakeLists.txt (paths relative to tests/).
#   test_mockup   the guideline mock-ups and A/A aliases deliver their collective's result; a changed
#                 element fails validation
isochron_mpi_test(test_mockup tune/test_mockup.c "2;3;4")
#   tune_layer    libisochron-tune.so under mpirun: redirected results equal the library's, a profile
#                 of another run refused in one line (pass-through), isochron-bench validated under it
add_executable(test_tune_layer tune/test_tune_layer.c)
target_link_libraries(test_tune_layer PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
foreach(np 2 3 4)
  add_test(NAME tune_layer_np${np}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/tune_layer.sh ${np} $<TARGET_FILE:test_tune_layer>
                   $<TARGET_FILE:isochron_tune> $<TARGET_FILE:isochron-bench>)
  set_tests_properties(tune_layer_np${np} PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" LABELS mpi
                       PROCESSORS ${np} TIMEOUT 300)
endforeach()
#   tune_rules_accept  Open MPI applies the dynamic rules file isochron tune writes, by message size
add_executable(test_rules_order tune/test_rules_order.c)
target_link_libraries(test_rules_order PRIVATE MPI::MPI_C)
add_test(NAME tune_rules_accept
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/rules_accept.sh $<TARGET_FILE:test_rules_order> ${PROJECT_SOURCE_DIR})
set_tests_properties(tune_rules_accept PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" LABELS mpi PROCESSORS 4
                     SKIP_RETURN_CODE 77 TIMEOUT 120)
# prefix_app: the collective-heavy workload of bench/tune_prefix.sh (no test)
add_executable(tune_prefix_app tune/prefix_app.c)
target_link_libraries(tune_prefix_app PRIVATE MPI::MPI_C)
# histogram_app: the same for MPI_Reduce_scatter_block (bench/tune_prefix.sh APP=histogram)
add_executable(tune_histogram_app tune/histogram_app.c)
target_link_libraries(tune_histogram_app PRIVATE MPI::MPI_C)
#   tune_mpich_json_accept  MPICH applies the JSON selection files isochron tune --mpi mpich writes,
#                 by message size (messages counted at UCX by ucp_sends.so); registered where the
#                 build's MPI is MPICH (tools/test-mpich.sh runs the mpi label), 7 s there
if(MPIEXEC_EXECUTABLE MATCHES "mpich")
  add_executable(test_allgather_once tune/test_allgather_once.c)
  target_link_libraries(test_allgather_once PRIVATE MPI::MPI_C)
  add_executable(test_op_calls tune/test_op_calls.c)
  target_link_libraries(test_op_calls PRIVATE MPI::MPI_C)
  add_library(ucp_sends MODULE tune/ucp_sends.c)
  target_link_libraries(ucp_sends PRIVATE ${CMAKE_DL_LIBS})
  add_test(NAME tune_mpich_json_accept
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tune/mpich_json_accept.sh $<TARGET_FILE:test_allgather_once>
                   $<TARGET_FILE:test_op_calls> $<TARGET_FILE:ucp_sends> ${PROJECT_SOURCE_DIR})
  set_tests_properties(tune_mpich_json_accept PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" LABELS mpi
                       PROCESSORS 4 SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()
