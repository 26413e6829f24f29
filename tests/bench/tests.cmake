# Tests of the statistics, the engine and the isochron-bench driver.
isochron_serial_test(test_stats ${CMAKE_CURRENT_SOURCE_DIR}/bench/test_stats.c)
isochron_mpi_test(test_engine ${CMAKE_CURRENT_SOURCE_DIR}/bench/test_engine.c 2 3 4)
