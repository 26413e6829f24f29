# PMPI wrapper generation shared by isochron's interposition layers
# (libisochron-cc.so, libisochron-trace.so): one table, one generator.
#
#   isochron_pmpi_wrappers(PREFIX OUTVAR [HOOKS header.h] [SKIP MPI_f ...])
# generates ${CMAKE_CURRENT_BINARY_DIR}/pmpi/PREFIX_wrappers.c at build time from
# src/pmpi/mpi.tbl with tools/gen-pmpi.py and sets OUTVAR to its path; add it
# to the layer's sources together with target_include_directories(
# ${ISOCHRON_PMPI_INCLUDE_DIRS}) (src/pmpi/pmpi.h and the generated
# isochron_pmpi_ids.h). SKIP lists the functions the layer writes by hand. HOOKS names a
# header (as it is #include'd; on the layer's include path) that declares or inline-defines
# PREFIX_enter, PREFIX_leave and PREFIX_bypass (tools/gen-pmpi.py --hooks).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(ISOCHRON_PMPI_TABLE ${PROJECT_SOURCE_DIR}/src/pmpi/mpi.tbl)
set(ISOCHRON_PMPI_GEN ${PROJECT_SOURCE_DIR}/tools/gen-pmpi.py)
set(ISOCHRON_PMPI_GEN_DIR ${PROJECT_BINARY_DIR}/pmpi)
set(ISOCHRON_PMPI_INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/src/pmpi ${ISOCHRON_PMPI_GEN_DIR})
file(MAKE_DIRECTORY ${ISOCHRON_PMPI_GEN_DIR})
# The id header is written at configure time (re-run when the table or the
# generator changes), so every directory's targets can include it.
execute_process(COMMAND ${Python3_EXECUTABLE} ${ISOCHRON_PMPI_GEN} --table ${ISOCHRON_PMPI_TABLE}
                        --prefix ids --ids ${ISOCHRON_PMPI_GEN_DIR}/isochron_pmpi_ids.h
                RESULT_VARIABLE pmpi_rc ERROR_VARIABLE pmpi_err)
if(NOT pmpi_rc EQUAL 0)
  message(FATAL_ERROR "isochron: tools/gen-pmpi.py failed on src/pmpi/mpi.tbl: ${pmpi_err}")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ISOCHRON_PMPI_TABLE} ${ISOCHRON_PMPI_GEN})

function(isochron_pmpi_wrappers PREFIX OUTVAR)
  cmake_parse_arguments(PW "" "HOOKS" "SKIP" ${ARGN})
  set(out ${ISOCHRON_PMPI_GEN_DIR}/${PREFIX}_wrappers.c)
  set(skip "")
  if(PW_SKIP)
    string(REPLACE ";" "," s "${PW_SKIP}")
    set(skip --skip ${s})
  endif()
  if(PW_HOOKS)
    list(APPEND skip --hooks ${PW_HOOKS})
  endif()
  add_custom_command(OUTPUT ${out}
                     COMMAND Python3::Interpreter ${ISOCHRON_PMPI_GEN} --table ${ISOCHRON_PMPI_TABLE}
                             --prefix ${PREFIX} --out ${out} ${skip}
                     DEPENDS ${ISOCHRON_PMPI_TABLE} ${ISOCHRON_PMPI_GEN}
                     COMMENT "isochron: PMPI wrappers for layer ${PREFIX}")
  set(${OUTVAR} ${out} PARENT_SCOPE)
endfunction()
