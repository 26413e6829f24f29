# Simulation (issue 15): one 64-rank case under SimGrid SMPI, skipped (with a message) without smpicc.
# Left out with -DISOCHRON_WITH_SIMGRID=OFF (ON makes configuring fail without smpicc: CMakeLists.txt).
if(ISOCHRON_WITH_SIMGRID_MODE STREQUAL "OFF")
  return()
endif()
add_test(NAME sim_hca3_64 COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/sim/check_sim.sh ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/sim)
set_tests_properties(sim_hca3_64 PROPERTIES TIMEOUT 120 LABELS "sim" SKIP_RETURN_CODE 77)
