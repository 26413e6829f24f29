# Tests of the tuning work (issue 38), included by tests/CMakeLists.txt (paths relative to tests/).
#   test_mockup   the guideline mock-ups and A/A aliases deliver their collective's result; a changed
#                 element fails validation
isochron_mpi_test(test_mockup tune/test_mockup.c "2;3;4")
