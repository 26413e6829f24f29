# Tests of the models module (src/models, include/isochron/models.h) and of the
# all-pairs measurement that feeds it, included by tests/CMakeLists.txt.
#   test_models          Hockney/LogGP fits recover known parameters; round-robin schedule at p = 2..11
#   test_models_measure  isochron_models_measure and allpairs in both modes on real MPI (3 and 4 ranks)
isochron_serial_test(test_models models/test_models.c)
isochron_mpi_test(test_models_measure models/test_models_measure.c "3;4")
# isochron-bench --ops allpairs from the command line: bad input refused naming the choices;
# an odd process count measures all 3 pairs and prints the matrix
isochron_cli_test(allpairs_bad_mode 1 TOOL isochron-bench EXPECT nonzero MATCH "--p2p-mode: unknown point-to-point mode 'diagonal'; valid: parallel, sequential"
                  ARGS --ops allpairs --p2p-mode diagonal)
isochron_cli_test(allpairs_one_rank 1 TOOL isochron-bench EXPECT nonzero MATCH "allpairs needs at least 2 processes" ARGS --ops allpairs --sizes 8)
isochron_cli_test(allpairs_sequential_np3 3 TOOL isochron-bench EXPECT zero MATCH "allpairs:0-1" "allpairs:0-2" "allpairs:1-2"
                  "allpairs sequential, 8 B: median round trip" ARGS --ops allpairs --sizes 8 --p2p-mode sequential --max-reps 10 --quiet)
isochron_cli_test(p2t_two_ranks 2 TOOL isochron-bench EXPECT nonzero MATCH "p2t needs at least 3 processes \\(running on 2\\)" ARGS --ops p2t --sizes 8)
# --root rotate: a new root every repetition inside one point (engine option rotate_root)
isochron_mpi_test(test_root_rotate models/test_root_rotate.c "3;4")
isochron_cli_test(root_rotate_refused_by_root_method 2 TOOL isochron-bench EXPECT nonzero MATCH "--root rotate .* works with the global and max methods" "--root all"
                  ARGS --ops bcast --root rotate --method root)
