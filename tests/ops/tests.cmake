# Tests of the operations module (src/ops, include/isochron/ops.h), included
# by tests/CMakeLists.txt (paths relative to tests/). ctest -R ops runs them.
#   test_ops_run       every built-in op x sizes x roots x in_place x dtypes x reduction ops
#   test_ops_validate  validate() catches corrupted, stale and missing data; 16 B allreduce
#                      for every dtype x op; odd sizes; points above 1 MiB
#   test_ops_errors    bad names, sizes, roots, 1 TiB, byte reductions, in_place, MIN2 at np 1
#   test_ops_user      registering an application's operation; set-up agreement across ranks
#   test_ops_allpairs  MPIBlib's parallel all-pairs round trips
#   test_ops_threads   latency_mt under MPI_THREAD_MULTIPLE: threads 1/2/4, validation, bad thread counts, round trips overlap
isochron_mpi_test(test_ops_run ops/test_ops_run.c "2;3;4")
isochron_mpi_test(test_ops_validate ops/test_ops_validate.c "2;3;4")
isochron_mpi_test(test_ops_errors ops/test_ops_errors.c "1;2")
isochron_mpi_test(test_ops_user ops/test_ops_user.c "2;3")
isochron_mpi_test(test_ops_allpairs ops/test_ops_allpairs.c "3;4")
isochron_mpi_test(test_ops_threads ops/test_ops_threads.c "2;3")
