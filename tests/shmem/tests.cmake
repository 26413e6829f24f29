# Tests of the OpenSHMEM measurements (isochron-shmem, libisochron_shmem). Only
# when an OpenSHMEM was found. tools/mpirun-local turns Open MPI's memory
# patcher off, without which shmem_finalize crashes.
set(_shm $<TARGET_FILE:isochron-shmem>)
set(_run ${ISOCHRON_MPIRUN_LOCAL})
set(_bin ${CMAKE_CURRENT_BINARY_DIR})

# every measurement at 2, 3, 4 PEs: results, validated data, broadcast methods positive and ordered
foreach(np 2 3 4)
  add_test(NAME shmem_all_np${np}
           COMMAND sh -c "${_run} -np 1 ${_shm} --list-ops > ${_bin}/shmem_ops.txt && ${_run} -np ${np} ${_shm} --ops all --sizes 8,4K --min-reps 3 --max-reps 5 --iters 20 --budget 0.2 --format none --quiet --jsonl ${_bin}/shmem_all_np${np}.jsonl 2> ${_bin}/shmem_all_np${np}.err; python3 ${CMAKE_CURRENT_SOURCE_DIR}/shmem/check_shmem.py ${_bin}/shmem_all_np${np}.jsonl ${_bin}/shmem_all_np${np}.err ${_bin}/shmem_ops.txt ${np} 2")
  set_tests_properties(shmem_all_np${np} PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120 LABELS "cli" PROCESSORS ${np}
                       PASS_REGULAR_EXPRESSION "check_shmem: PASS")
endforeach()

# validation can fail: a corrupted destination (test hook) is reported, with the PE and byte, and the run exits nonzero
foreach(op put get broadcast alltoall bcast_rounds)
  isochron_cli_test(shmem_corrupt_${op} 3 TOOL isochron-shmem EXPECT nonzero
                    MATCH "${op} at 8 B: validation failed, no result: .*PE [0-9]+ byte 0: expected"
                    ARGS --ops ${op} --sizes 8 --max-reps 3 --quiet --format none)
  set_property(TEST cli_shmem_corrupt_${op} APPEND PROPERTY ENVIRONMENT "ISOCHRON_TEST_CORRUPT=${op}")
endforeach()

# bad input fails clearly, naming the valid choices
isochron_cli_test(shmem_bad_op 2 TOOL isochron-shmem EXPECT nonzero MATCH "unknown OpenSHMEM measurement 'putt'; valid: get, put," ARGS --ops putt)
isochron_cli_test(shmem_bad_loop 2 TOOL isochron-shmem EXPECT nonzero MATCH "unknown loop timing 'middle'; valid: outside" ARGS --loop middle)
isochron_cli_test(shmem_bad_size 2 TOOL isochron-shmem EXPECT nonzero MATCH "broadcast moves 64-bit elements: size 12 B is not a multiple of 8" ARGS --ops broadcast --sizes 12)
isochron_cli_test(shmem_bad_transport 2 TOOL isochron-shmem EXPECT nonzero MATCH "unknown --transport 'tcp'; valid: shmem, mpi" ARGS --transport tcp)
isochron_cli_test(shmem_one_pe 1 TOOL isochron-shmem EXPECT nonzero MATCH "get needs at least 2 PEs \\(running on 1\\)" ARGS --ops get)
isochron_cli_test(shmem_list 1 TOOL isochron-shmem EXPECT zero MATCH "bcast_ack" "loop_subtract" "amo_cswap_miss_all" "lock_contended" ARGS --list-ops)

# the clock over the OpenSHMEM transport: the accuracy check at 4 PEs with injected offsets and drift
# keeps the bound of the MPI drivers' clock test (bench_clock_fields: 2.5 us)
add_test(NAME shmem_clock_check
         COMMAND sh -c "${_run} -np 4 ${_shm} --transport shmem --skew offset=1ms,drift=2,seed=9 --check 0,0.5 --ops barrier_all --max-reps 3 --format none --quiet --jsonl ${_bin}/shmem_check.jsonl && python3 -c \"import json,sys; c=json.loads(open('${_bin}/shmem_check.jsonl').readline()); k=c['clock_check']; o=c['options']; t=[x['max_abs_true_offset_s'] for x in k]; print('true offsets', t, 'transport', o['transport']); sys.exit(0 if o['transport']=='shmem' and len(t)==2 and all(v is not None and v < 2.5e-6 for v in t) else 1)\" && echo shmem_clock_check: PASS")
set_tests_properties(shmem_clock_check PROPERTIES ENVIRONMENT "MPIRUN=${MPIEXEC_EXECUTABLE}" TIMEOUT 120 LABELS "cli" PROCESSORS 4 PASS_REGULAR_EXPRESSION "shmem_clock_check: PASS")
