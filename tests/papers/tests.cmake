# bench/papers (issue 28): the paper reproductions are benchmarks, run by hand (minutes to hours); CI
# only checks that each script parses, answers --help, and refuses a bad MODE with a one-line error
# naming it (a second each, no MPI launched).
foreach(paper paper000 paper001)
  set(_s ${PROJECT_SOURCE_DIR}/bench/papers/${paper}.sh)
  add_test(NAME papers_${paper}_help COMMAND sh -c "bash -n ${_s} && bash ${_s} --help")
  set_tests_properties(papers_${paper}_help PROPERTIES TIMEOUT 30 LABELS "cli" PASS_REGULAR_EXPRESSION "usage: bench/papers/${paper}.sh")
  add_test(NAME papers_${paper}_bad_mode COMMAND sh -c "MODE=bogus bash ${_s}; echo exit=$?")
  set_tests_properties(papers_${paper}_bad_mode PROPERTIES TIMEOUT 30 LABELS "cli"
                       PASS_REGULAR_EXPRESSION "MODE='bogus': choose quick .* or full.*exit=2")
endforeach()
