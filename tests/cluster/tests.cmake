# The namespace cluster (tools/cluster, docs/cluster.md): MPI launched across 2 "hosts" with their own
# hostnames and CLOCK_MONOTONIC offsets, checked against the configured cluster. Label "cluster";
# skipped (exit 77) where namespaces cannot be made, e.g. not root.
add_executable(cluster_probe ${CMAKE_CURRENT_LIST_DIR}/probe.c)
target_link_libraries(cluster_probe PRIVATE MPI::MPI_C)
add_test(NAME cluster_launch
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh $<TARGET_FILE:cluster_probe> ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cluster_launch PROPERTIES LABELS "cluster" SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE)
# isochron's drivers and layers across the 2 nodes (issue 25): clock truth from the kernel, every stated
# bound covering it, prop refused with per-rank drift, bench, barrier, tracer and collective clocks.
add_test(NAME cluster_isochron
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_isochron.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} $<TARGET_FILE:cc_checkpoint>)
set_tests_properties(cluster_isochron PROPERTIES LABELS "cluster" SKIP_RETURN_CODE 77 TIMEOUT 400 RUN_SERIAL TRUE
                     PASS_REGULAR_EXPRESSION "check_isochron: PASS")
# the cluster run from a fresh copy of the repository under /tmp (issue 35): the nodes see the host's /tmp
add_test(NAME cluster_clone COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/clone.sh ${PROJECT_SOURCE_DIR} /tmp)
set_tests_properties(cluster_clone PROPERTIES LABELS "cluster" SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE
                     PASS_REGULAR_EXPRESSION "cluster_clone: 0 failure")
