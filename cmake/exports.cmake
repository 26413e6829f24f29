# Writes the linker version script of the shared library: every isochron_*
# function declared in a public header (include/) is exported, everything else
# (the modules' private isochron_* helpers declared under src/) stays local,
# so the ABI is the public headers and nothing more.
#   cmake -DHEADERS_DIR=include -DOUT=file -P exports.cmake
file(GLOB_RECURSE headers "${HEADERS_DIR}/*.h")
# Only libisochron.so's own headers: isochron/cc.h is the API of libisochron-cc.so (the PMPI layer),
# isochron/trace.h of libisochron-trace.so (cmake/trace.map), isochron/shmem.h of libisochron_shmem;
# naming their functions here would export names libisochron.so does not contain.
list(FILTER headers EXCLUDE REGEX "/isochron/(cc|trace|shmem|tune)\\.h$")
set(names)
foreach(h IN LISTS headers)
  file(READ "${h}" text)
  # drop comments, so names mentioned in prose are not taken for declarations
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX MATCHALL "isochron_[A-Za-z0-9_]+[ \t\n]*\\(" calls "${text}")
  foreach(c IN LISTS calls)
    string(REGEX REPLACE "[ \t\n]*\\($" "" n "${c}")
    list(APPEND names "${n}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
set(body "ISOCHRON_0 {\n  global:\n")
foreach(n IN LISTS names)
  string(APPEND body "    ${n};\n")
endforeach()
string(APPEND body "  local: *;\n};\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
