# Documentation (issue 27): the links of README.md and docs/ resolve; docs/output.md is what the
# JSON Schema gives (tools/schema-doc.py); the man pages are those the drivers' --help gives.
add_test(NAME docs_links COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_links.py ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_links PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "check_links: PASS")
add_test(NAME docs_output_current COMMAND python3 ${PROJECT_SOURCE_DIR}/tools/schema-doc.py --check
                                          ${PROJECT_SOURCE_DIR}/python/src/isochron/results-1.schema.json ${PROJECT_SOURCE_DIR}/docs/output.md)
set_tests_properties(docs_output_current PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "schema-doc: PASS")
# Style (issue 27): the .editorconfig rules on every source file (tests/style/check_style.py).
add_test(NAME style_editorconfig COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/style/check_style.py ${PROJECT_SOURCE_DIR})
set_tests_properties(style_editorconfig PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "check_style: PASS")
# Man pages (docs/man/*.1): what tools/gen-man.py writes from each driver's --help and --version (which the
# drivers print from their option tables). After changing a driver's options:
#   python3 tools/gen-man.py docs/man build/isochron-bench build/isochron-clock build/isochron-barrier [build/isochron-shmem]
set(_man_drivers $<TARGET_FILE:isochron-bench> $<TARGET_FILE:isochron-clock> $<TARGET_FILE:isochron-barrier>)
if(TARGET isochron-shmem)
  list(APPEND _man_drivers $<TARGET_FILE:isochron-shmem>)
endif()
add_test(NAME docs_man_current COMMAND python3 ${PROJECT_SOURCE_DIR}/tools/gen-man.py --check ${PROJECT_SOURCE_DIR}/docs/man ${_man_drivers})
set_tests_properties(docs_man_current PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "gen-man: PASS")
# The commands of the front page run as shown (tests/docs/run_commands.py; about 15 s at 2 ranks).
add_test(NAME docs_commands COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/docs/run_commands.py ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(docs_commands PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 300 LABELS "cli" PROCESSORS 2
                     PASS_REGULAR_EXPRESSION "run_commands: PASS")
# Issue 36: every option of a driver's --help is in its guide and the guide names no other; the
# quick start's C and C++ programs (taken from docs/quickstart.md) compile and run at 2 ranks.
add_test(NAME docs_options COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_options.py ${PROJECT_SOURCE_DIR} ${_man_drivers})
set_tests_properties(docs_options PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "check_options: PASS")
add_test(NAME docs_quickstart COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/docs/quickstart.py ${PROJECT_SOURCE_DIR} $<TARGET_FILE_DIR:isochron_shared>)
set_tests_properties(docs_quickstart PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE};MPICC=${MPI_C_COMPILER};MPICXX=${MPI_CXX_COMPILER}"
                     TIMEOUT 300 LABELS "cli" PROCESSORS 2 PASS_REGULAR_EXPRESSION "quickstart: PASS")
# Issue 36: docs/ and bench/results/ name no absolute path of the development machine (tests/docs/check_paths.py).
add_test(NAME docs_paths COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_paths.py ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_paths PROPERTIES LABELS "serial" PASS_REGULAR_EXPRESSION "check_paths: PASS")
