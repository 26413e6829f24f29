# What the optional parts need, looked for once here (included by the top-level CMakeLists.txt, so
# its results are seen by src/, apps/ and tests/). Only looked for: configuring and building never
# install anything (tools/install-deps.sh does; `make deps`, `make run`, `make test` and CI call it).
# Sets ISOCHRON_HAVE_HWLOC, ISOCHRON_HAVE_TRACE, ISOCHRON_HAVE_SHMEM, ISOCHRON_HAVE_SIMGRID (0 or 1)
# and prints one summary line per option (cmake/optional.cmake).

# hwloc: the socket level of hierarchical sync (an ON/OFF option: used when found)
set(ISOCHRON_HAVE_HWLOC 0)
if(ISOCHRON_WITH_HWLOC)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(HWLOC QUIET IMPORTED_TARGET hwloc)
    if(HWLOC_FOUND)
      set(ISOCHRON_HAVE_HWLOC 1)
    endif()
  endif()
endif()
message(STATUS "isochron: hwloc socket level: ${ISOCHRON_HAVE_HWLOC}")

# OTF2 (src/trace: libisochron-trace.so): libotf2 (Debian libotf2-trace-dev) and python3
set(ISOCHRON_HAVE_TRACE 0)
if(NOT ISOCHRON_WITH_OTF2_MODE STREQUAL "OFF")
  find_path(OTF2_INCLUDE_DIR otf2/otf2.h)
  find_library(OTF2_LIBRARY otf2)
  find_package(Python3 COMPONENTS Interpreter)
  if(OTF2_INCLUDE_DIR AND OTF2_LIBRARY AND Python3_Interpreter_FOUND)
    set(ISOCHRON_HAVE_TRACE 1)
  endif()
  isochron_optional_result(ISOCHRON_WITH_OTF2 "${ISOCHRON_HAVE_TRACE}"
    "libotf2 (otf2/otf2.h: '${OTF2_INCLUDE_DIR}', libotf2: '${OTF2_LIBRARY}') or python3 was not found (Debian: libotf2-trace-dev)")
endif()
isochron_optional_summary(ISOCHRON_WITH_OTF2 "${ISOCHRON_HAVE_TRACE}" "${OTF2_LIBRARY}"
  "building libisochron-trace.so, trace_stencil, trace_microbench; its tests registered"
  "libisochron-trace.so is not built, its tests (tests/trace, pmpi_coverage_trace) are not registered"
  "libotf2 or python3; Debian: libotf2-trace-dev")

# OpenSHMEM (src/shmem: libisochron_shmem.a, isochron-shmem): the one the MPI in use ships (Open MPI's
# oshmem: shmem.h beside mpi.h, liboshmem beside libmpi), 1.4 at least. MPICH builds have none.
set(ISOCHRON_HAVE_SHMEM 0)
set(_shmem_missing "no shmem.h and liboshmem beside this MPI; Open MPI ships them, MPICH does not")
if(NOT ISOCHRON_WITH_SHMEM_MODE STREQUAL "OFF")
  set(_mpi_libdirs)
  foreach(l IN LISTS MPI_C_LIBRARIES)
    get_filename_component(d "${l}" DIRECTORY)
    list(APPEND _mpi_libdirs "${d}")
  endforeach()
  find_path(SHMEM_INCLUDE_DIR shmem.h HINTS ${MPI_C_INCLUDE_DIRS} NO_DEFAULT_PATH)
  find_library(SHMEM_LIBRARY oshmem HINTS ${_mpi_libdirs} NO_DEFAULT_PATH)
  if(SHMEM_INCLUDE_DIR AND SHMEM_LIBRARY)
    # OpenSHMEM 1.4 at least: the transport's wait (shmem_long_test) and the *_atomic_* names
    include(CheckSymbolExists)
    set(CMAKE_REQUIRED_INCLUDES ${SHMEM_INCLUDE_DIR} ${MPI_C_INCLUDE_DIRS})
    set(CMAKE_REQUIRED_LIBRARIES ${SHMEM_LIBRARY} ${MPI_C_LIBRARIES})
    check_symbol_exists(shmem_long_test shmem.h ISOCHRON_SHMEM_HAS_TEST)
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_LIBRARIES)
    if(ISOCHRON_SHMEM_HAS_TEST)
      set(ISOCHRON_HAVE_SHMEM 1)
    else()
      set(_shmem_missing "the OpenSHMEM found (${SHMEM_INCLUDE_DIR}) is older than 1.4 (no shmem_long_test)")
    endif()
  endif()
  isochron_optional_result(ISOCHRON_WITH_SHMEM "${ISOCHRON_HAVE_SHMEM}"
    "no OpenSHMEM 1.4 or later was found beside this MPI (shmem.h in ${MPI_C_INCLUDE_DIRS}, liboshmem beside ${MPI_C_LIBRARIES})")
endif()
isochron_optional_summary(ISOCHRON_WITH_SHMEM "${ISOCHRON_HAVE_SHMEM}" "${SHMEM_LIBRARY}"
  "building libisochron_shmem.a, isochron-shmem; its tests registered"
  "isochron-shmem is not built, its tests (tests/shmem) are not registered" "${_shmem_missing}")
unset(_shmem_missing)

# SimGrid SMPI: the sim_hca3_64 test (tests/sim) builds the drivers with smpicc itself; AUTO registers
# it and it skips (exit 77, with a message) when smpicc is missing, ON requires it now, OFF leaves the
# test out.
set(ISOCHRON_HAVE_SIMGRID 0)
if(NOT ISOCHRON_WITH_SIMGRID_MODE STREQUAL "OFF")
  find_program(ISOCHRON_SMPICC smpicc)
  find_program(ISOCHRON_SMPIRUN smpirun)
  if(ISOCHRON_SMPICC AND ISOCHRON_SMPIRUN)
    set(ISOCHRON_HAVE_SIMGRID 1)
  endif()
  isochron_optional_result(ISOCHRON_WITH_SIMGRID "${ISOCHRON_HAVE_SIMGRID}"
    "smpicc or smpirun (SimGrid SMPI) was not found (Debian: libsimgrid-dev)")
endif()
set(_sim_left_out "the test sim_hca3_64 is not registered")
if(ISOCHRON_WITH_SIMGRID_MODE STREQUAL "AUTO")
  set(_sim_left_out "the test sim_hca3_64 is registered and skips (exit 77)")
endif()
isochron_optional_summary(ISOCHRON_WITH_SIMGRID "${ISOCHRON_HAVE_SIMGRID}" "${ISOCHRON_SMPICC}"
  "the test sim_hca3_64 runs the drivers on a simulated cluster" "${_sim_left_out}"
  "smpicc, smpirun; Debian: libsimgrid-dev")
unset(_sim_left_out)
