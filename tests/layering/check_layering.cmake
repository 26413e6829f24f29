# The layering rule of isochron, checked on the sources (cmake -P, no build):
#
#   modules, lowest first: core timer clock sync stats ops models barrier bench report shmem trace cc tune
#   - src/<m>/ includes "isochron/<x>.h" only for x at or below m, and private
#     headers "<y>/..." only of its own module, of core, or of pmpi (the PMPI
#     call record shared by the interposition layers);
#   - src/core includes no module header at all (only isochron.h);
#   - include/isochron/<m>.h includes only public headers of lower modules;
#   - the drivers (apps/) and examples/ include only public headers
#     (isochron.h, isochron/*.h) and apps' own common.h;
#   - every directory and file the README's Layout section names exists.
# Prints "layering: PASS" or one "layering: FAIL: ..." line per violation.
#
#   cmake -DROOT=<source dir> -P check_layering.cmake

if(NOT DEFINED ROOT)
  message(FATAL_ERROR "layering: -DROOT=<source dir> is required")
endif()
set(MODULES core timer clock sync stats ops models barrier bench report shmem trace cc tune)
set(failures "")

function(_includes FILE OUTVAR)
  file(STRINGS "${FILE}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  set(out "")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" inc "${l}")
    list(APPEND out "${inc}")
  endforeach()
  set(${OUTVAR} "${out}" PARENT_SCOPE)
endfunction()

# src/<module>/
foreach(m IN LISTS MODULES)
  list(FIND MODULES ${m} mi)
  file(GLOB files "${ROOT}/src/${m}/*.c" "${ROOT}/src/${m}/*.h")
  foreach(f IN LISTS files)
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    _includes("${f}" incs)
    foreach(inc IN LISTS incs)
      if(inc STREQUAL "isochron.h")
        continue()
      elseif(inc MATCHES "^isochron/([a-z_]+)\\.h$")
        set(x "${CMAKE_MATCH_1}")
        list(FIND MODULES ${x} xi)
        if(xi LESS 0)
          list(APPEND failures "${rel} includes ${inc}, which is no module's public header")
        elseif(m STREQUAL "core")
          list(APPEND failures "${rel} includes ${inc}: core must not know any higher module")
        elseif(xi GREATER mi)
          list(APPEND failures "${rel} includes ${inc}: module ${m} must not know the higher module ${x}")
        endif()
      elseif(inc MATCHES "^([a-z_]+)/")
        set(y "${CMAKE_MATCH_1}")
        if(NOT y STREQUAL m AND NOT y STREQUAL "core" AND NOT y STREQUAL "pmpi")
          list(APPEND failures "${rel} includes ${inc}: the private headers of ${y} belong to ${y}")
        endif()
      else()
        list(APPEND failures "${rel} includes \"${inc}\": use \"${m}/...\" or a public header")
      endif()
    endforeach()
  endforeach()
endforeach()

# public headers
file(GLOB pub "${ROOT}/include/isochron/*.h")
foreach(f IN LISTS pub)
  get_filename_component(m "${f}" NAME_WE)
  list(FIND MODULES ${m} mi)
  if(mi LESS 0)
    list(APPEND failures "include/isochron/${m}.h is no module's header (modules: ${MODULES})")
    continue()
  endif()
  _includes("${f}" incs)
  foreach(inc IN LISTS incs)
    if(inc MATCHES "^isochron/([a-z_]+)\\.h$")
      list(FIND MODULES ${CMAKE_MATCH_1} xi)
      if(NOT xi LESS mi)
        list(APPEND failures "include/isochron/${m}.h includes ${inc}: a public header includes only lower modules")
      endif()
    elseif(NOT inc STREQUAL "isochron.h")
      list(APPEND failures "include/isochron/${m}.h includes private \"${inc}\"")
    endif()
  endforeach()
endforeach()

# drivers and examples
file(GLOB users "${ROOT}/apps/*.c" "${ROOT}/apps/*.h" "${ROOT}/examples/*.c")
foreach(f IN LISTS users)
  file(RELATIVE_PATH rel "${ROOT}" "${f}")
  _includes("${f}" incs)
  foreach(inc IN LISTS incs)
    if(NOT inc STREQUAL "isochron.h" AND NOT inc MATCHES "^isochron/[a-z_]+\\.h$"
       AND NOT (rel MATCHES "^apps/" AND inc STREQUAL "common.h"))
      list(APPEND failures "${rel} includes \"${inc}\": drivers and examples use public headers only")
    endif()
  endforeach()
endforeach()

# README Layout: every path it names exists
file(READ "${ROOT}/README.md" readme)
string(FIND "${readme}" "## Layout" at)
if(at LESS 0)
  list(APPEND failures "README.md has no '## Layout' section")
else()
  string(SUBSTRING "${readme}" ${at} -1 layout)
  string(FIND "${layout}" "```\n" open)
  math(EXPR open "${open} + 4")
  string(SUBSTRING "${layout}" ${open} -1 layout)
  string(FIND "${layout}" "\n```" close)
  string(SUBSTRING "${layout}" 0 ${close} block)
  string(REPLACE "\n" ";" blines "${block}")
  foreach(l IN LISTS blines)
    if(l MATCHES "^([A-Za-z_./-]+[A-Za-z_/])[ \t]")
      set(p "${CMAKE_MATCH_1}")
      if(NOT p MATCHES "<" AND NOT EXISTS "${ROOT}/${p}")
        list(APPEND failures "README Layout names ${p}, which does not exist")
      endif()
    endif()
  endforeach()
  # and every public header is in the Layout
  foreach(f IN LISTS pub)
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    string(FIND "${block}" "${rel}" hit)
    if(hit LESS 0)
      list(APPEND failures "README Layout does not name ${rel}")
    endif()
  endforeach()
endif()

if(failures)
  foreach(f IN LISTS failures)
    message("layering: FAIL: ${f}")
  endforeach()
  message(FATAL_ERROR "layering: FAILED")
endif()
message("layering: PASS")
