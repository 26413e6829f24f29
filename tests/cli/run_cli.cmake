# Run one command and assert both its exit status and its output.
# CTest's PASS_REGULAR_EXPRESSION ignores the exit code, so a test that must
# fail *and* say something useful needs this wrapper.
#
#   cmake -DEXPECT=zero|nonzero|<status> [-DMATCH1=re -DMATCH2=re ...]
#         [-DNOMATCH=re] [-DOUTFILE=path -DFILE_MATCH1=re -DFILE_MATCH2=re ...]
#         -P run_cli.cmake -- <command> <args...>
#
# MATCH1, MATCH2, ... (numbered from 1 without gaps, any number of them) are
# CMake regular expressions that must all match stdout+stderr; NOMATCH must
# not match; FILE_MATCH1, FILE_MATCH2, ... must all match the contents of
# OUTFILE (removed before the run). A gap in the numbering is an error, so no
# pattern given by the caller can be skipped. Prints "run_cli: PASS" on
# success, with the number of patterns checked.

set(cmd "")
set(seen_dashdash FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  set(a "${CMAKE_ARGV${i}}")
  if(seen_dashdash)
    list(APPEND cmd "${a}")
  elseif(a STREQUAL "--")
    set(seen_dashdash TRUE)
  endif()
endforeach()
if(NOT cmd)
  message(FATAL_ERROR "run_cli: no command after --")
endif()
if(NOT DEFINED EXPECT)
  set(EXPECT zero)
endif()
if(DEFINED OUTFILE)
  file(REMOVE "${OUTFILE}")
endif()

string(REPLACE ";" " " shown "${cmd}")
message("run_cli: ${shown}")
execute_process(COMMAND ${cmd}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("---- stdout ----\n${out}---- stderr ----\n${err}---- exit: ${rc} ----")

set(failures "")
if(EXPECT STREQUAL "zero")
  if(NOT rc STREQUAL "0")
    list(APPEND failures "expected exit status 0, got ${rc}")
  endif()
elseif(EXPECT STREQUAL "nonzero")
  if(rc STREQUAL "0")
    list(APPEND failures "expected a nonzero exit status, got 0")
  elseif(NOT rc MATCHES "^[0-9]+$")
    list(APPEND failures "expected a nonzero exit status, got '${rc}' (crash or timeout?)")
  endif()
elseif(EXPECT MATCHES "^[0-9]+$")
  if(NOT rc STREQUAL "${EXPECT}")
    list(APPEND failures "expected exit status ${EXPECT}, got '${rc}'")
  endif()
else()
  message(FATAL_ERROR "run_cli: EXPECT must be zero, nonzero or an exit status")
endif()

# Every defined PREFIX<n>, n = 1, 2, ... until the first undefined one; a
# defined PREFIX<m> beyond that gap is a caller error, never silently skipped.
function(_numbered PREFIX OUTVAR)
  set(names "")
  set(i 1)
  while(DEFINED ${PREFIX}${i})
    list(APPEND names ${PREFIX}${i})
    math(EXPR i "${i} + 1")
  endwhile()
  foreach(j RANGE ${i} 99)
    if(DEFINED ${PREFIX}${j})
      message(FATAL_ERROR "run_cli: ${PREFIX}${j} is defined but ${PREFIX}${i} is not (numbering must have no gaps)")
    endif()
  endforeach()
  set(${OUTVAR} "${names}" PARENT_SCOPE)
endfunction()

set(all "${out}${err}")
set(nchecked 0)
_numbered(MATCH match_vars)
foreach(v IN LISTS match_vars)
  math(EXPR nchecked "${nchecked} + 1")
  if(NOT all MATCHES "${${v}}")
    list(APPEND failures "output does not match '${${v}}'")
  endif()
endforeach()
if(DEFINED NOMATCH)
  if(all MATCHES "${NOMATCH}")
    list(APPEND failures "output matches forbidden '${NOMATCH}'")
  endif()
endif()
if(DEFINED OUTFILE)
  if(NOT EXISTS "${OUTFILE}")
    list(APPEND failures "file ${OUTFILE} was not written")
  else()
    file(READ "${OUTFILE}" content)
    _numbered(FILE_MATCH file_vars)
    foreach(v IN LISTS file_vars)
      math(EXPR nchecked "${nchecked} + 1")
      if(NOT content MATCHES "${${v}}")
        list(APPEND failures "${OUTFILE} does not match '${${v}}'")
      endif()
    endforeach()
  endif()
endif()

if(failures)
  foreach(f IN LISTS failures)
    message("run_cli: FAIL: ${f}")
  endforeach()
  message(FATAL_ERROR "run_cli: FAILED")
endif()
message("run_cli: PASS (${nchecked} patterns)")
