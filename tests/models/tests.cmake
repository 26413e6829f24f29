# Tests of the models module (src/models, include/isochron/models.h) and of the
# all-pairs measurement that feeds it, included by tests/CMakeLists.txt.
#   test_models          Hockney/LogGP fits recover known parameters; round-robin schedule at p = 2..11
#   test_models_measure  isochron_models_measure and allpairs in both modes on real MPI (3 and 4 ranks)
isochron_serial_test(test_models models/test_models.c)
isochron_mpi_test(test_models_measure models/test_models_measure.c "3;4")
