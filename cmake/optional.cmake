# The optional parts of isochron (the tracer's OTF2, OpenSHMEM, SimGrid) are each selected by a cache
# string, declared in the top-level CMakeLists.txt and looked for in cmake/dependencies.cmake:
#   AUTO  built when what it needs is found (the default; the summary line says when it is not)
#   ON    required: configuring fails, naming what is missing, when it is not found
#   OFF   not built, not looked for; the tests that need it are not registered
#
#   isochron_optional(VAR DOC)                declares VAR, checks its value, sets VAR_MODE (AUTO|ON|OFF)
#   isochron_optional_result(VAR FOUND WHAT)  applies ON to the result of the search (FOUND true or
#                                             false; WHAT names what was missing)
#   isochron_optional_summary(VAR FOUND WHAT_FOUND WHAT_BUILT WHAT_LEFT_OUT WHY_NOT)
#       one configure line per option: "isochron: VAR=MODE: found (WHAT_FOUND): WHAT_BUILT", or
#       "isochron: VAR=AUTO: not found (WHY_NOT): WHAT_LEFT_OUT", or "isochron: VAR=OFF: off: WHAT_LEFT_OUT"

function(isochron_optional var doc)
  get_property(type CACHE ${var} PROPERTY TYPE)
  if(type STREQUAL "BOOL" AND ${var})  # a build directory from when ISOCHRON_WITH_SHMEM was ON = "when found"
    set(${var} AUTO CACHE STRING "" FORCE)
  endif()
  set(${var} AUTO CACHE STRING "${doc}: AUTO (when found), ON (required) or OFF")
  set_property(CACHE ${var} PROPERTY TYPE STRING)
  set_property(CACHE ${var} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${var}}" v)
  if(v MATCHES "^(1|YES|TRUE|Y)$")
    set(v ON)
  elseif(v MATCHES "^(0|NO|FALSE|N)$")
    set(v OFF)
  endif()
  if(NOT v MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "isochron: ${var}=${${var}} is not valid; valid values: AUTO, ON, OFF")
  endif()
  set(${var}_MODE ${v} PARENT_SCOPE)
endfunction()

function(isochron_optional_result var found what)
  if(${var}_MODE STREQUAL "ON" AND NOT found)
    message(FATAL_ERROR "isochron: ${var}=ON but ${what}")
  endif()
endfunction()

function(isochron_optional_summary var found what_found what_built what_left_out why_not)
  if(${var}_MODE STREQUAL "OFF")
    message(STATUS "isochron: ${var}=OFF: off: ${what_left_out}")
  elseif(found)
    message(STATUS "isochron: ${var}=${${var}_MODE}: found (${what_found}): ${what_built}")
  else()
    message(STATUS "isochron: ${var}=${${var}_MODE}: not found (${why_not}): ${what_left_out}")
  endif()
endfunction()
