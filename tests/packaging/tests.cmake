# Packaging (issue 17): the Spack recipe agrees with CMakeLists.txt; one version everywhere.
add_test(NAME packaging_spack_recipe
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/packaging/check_spack_recipe.py
                 ${PROJECT_SOURCE_DIR}/packaging/spack/packages/isochron/package.py ${PROJECT_SOURCE_DIR}/CMakeLists.txt)
set_tests_properties(packaging_spack_recipe PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "check_spack_recipe: PASS")
add_test(NAME packaging_versions
         COMMAND sh -c "python3 ${CMAKE_CURRENT_SOURCE_DIR}/packaging/check_versions.py ${PROJECT_SOURCE_DIR} \"isochron-bench=$(${ISOCHRON_MPIRUN_LOCAL} -np 1 $<TARGET_FILE:isochron-bench> --version)\" \"isochron-clock=$(${ISOCHRON_MPIRUN_LOCAL} -np 1 $<TARGET_FILE:isochron-clock> --version)\" \"isochron-barrier=$(${ISOCHRON_MPIRUN_LOCAL} -np 1 $<TARGET_FILE:isochron-barrier> --version)\"")
set_tests_properties(packaging_versions PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" LABELS "cli" PASS_REGULAR_EXPRESSION "check_versions: PASS")
# The optional parts' AUTO/ON/OFF options (cmake/optional.cmake): a bad value refused naming the valid
# ones; all OFF configures, looks for nothing, registers this build's tests less the parts' (one fresh
# configure, no build: about 10 s).
add_test(NAME packaging_cmake_options
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/packaging/check_options.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                 ${CMAKE_C_COMPILER} ${MPI_C_COMPILER})
set_tests_properties(packaging_cmake_options PROPERTIES LABELS "build" TIMEOUT 120 PASS_REGULAR_EXPRESSION "check_options: PASS")
