# Run one command and assert both its exit status and its output.
# CTest's PASS_REGULAR_EXPRESSION ignores the exit code, so a test that must
# fail *and* say something useful needs this wrapper.
#
#   cmake -DEXPECT=zero|nonzero [-DMATCH1=re] [-DMATCH2=re] [-DMATCH3=re]
#         [-DNOMATCH=re] [-DOUTFILE=path -DFILE_MATCH1=re -DFILE_MATCH2=re]
#         -P run_cli.cmake -- <command> <args...>
#
# MATCHn are CMake regular expressions that must all match stdout+stderr;
# NOMATCH must not match; FILE_MATCHn must match the contents of OUTFILE
# (removed before the run). Prints "run_cli: PASS" on success.

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
else()
  message(FATAL_ERROR "run_cli: EXPECT must be zero or nonzero")
endif()

set(all "${out}${err}")
foreach(v MATCH1 MATCH2 MATCH3)
  if(DEFINED ${v})
    if(NOT all MATCHES "${${v}}")
      list(APPEND failures "output does not match '${${v}}'")
    endif()
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
    foreach(v FILE_MATCH1 FILE_MATCH2)
      if(DEFINED ${v})
        if(NOT content MATCHES "${${v}}")
          list(APPEND failures "${OUTFILE} does not match '${${v}}'")
        endif()
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
message("run_cli: PASS")
