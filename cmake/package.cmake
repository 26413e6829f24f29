# Installation, the parts every library shares (each directory installs what it builds, into the
# export set isochronTargets): the headers, the CMake package (find_package(isochron):
# isochron::isochron, isochron::isochron_static, isochron::isochron_cc, and when built
# isochron::isochron_trace, isochron::isochron_shmem) and one pkg-config file per library
# (isochron, isochron-cc, isochron-trace, isochron-shmem). tests/install builds examples/ against
# the result, in C and C++, through both. Included by the top-level CMakeLists.txt after src/ and apps/.
include(CMakePackageConfigHelpers)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT isochronTargets NAMESPACE isochron:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isochron)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/isochronConfig.cmake.in ${PROJECT_BINARY_DIR}/isochronConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isochron)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/isochronConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/isochronConfig.cmake ${PROJECT_BINARY_DIR}/isochronConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/isochron)

set(ISOCHRON_PC_FILES isochron isochron-cc)
set(ISOCHRON_PC_PRIVATE "")
if(ISOCHRON_HAVE_HWLOC)
  set(ISOCHRON_PC_PRIVATE "-lhwloc")
endif()
if(TARGET isochron-trace)
  list(APPEND ISOCHRON_PC_FILES isochron-trace)
endif()
if(TARGET isochron_shmem)
  list(APPEND ISOCHRON_PC_FILES isochron-shmem)
  set(ISOCHRON_PC_SHMEM_LIBS "${SHMEM_LIBRARY}")
  set(ISOCHRON_PC_SHMEM_CFLAGS "-I${SHMEM_INCLUDE_DIR}")
endif()
file(RELATIVE_PATH ISOCHRON_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" ISOCHRON_PC_TO_PREFIX "${ISOCHRON_PC_TO_PREFIX}")
foreach(pc IN LISTS ISOCHRON_PC_FILES)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
