/**
 * \file isochron/tune.h
 * \brief The tuning layer libisochron-tune.so: a PMPI library that redirects a collective to its
 *        mock-up where a profile isochron wrote says the mock-up was measured faster.
 *
 * Sources: the self-consistent performance guidelines (key traff-guidelines in docs/references.md)
 * and PGMPITuneLib (key pgmpitunelib), which replaces a collective by its mock-up where a guideline
 * is violated, driven by a profile measured beforehand.
 *
 * Use: `ISOCHRON_TUNE_PROFILE=FILE LD_PRELOAD=libisochron-tune.so mpirun ... app`. FILE is written
 * by `isochron tune --profile` from an `isochron guidelines` result: text, one setting a line,
 * `#` comments:
 *
 *     isochron_tune_profile 1
 *     mpi_library Open MPI v4.1.4        (MPI_Get_library_version up to its first comma or line end,
 *                                         tabs as spaces: "MPICH Version: 4.0.2")
 *     nprocs 4                           (MPI_COMM_WORLD's size it was measured at)
 *     hosts vm                           (the sorted set of MPI_Get_processor_name, comma-separated)
 *     redirect MPI_Allreduce 4 0 4096    (function, communicator size, smallest and largest message
 *                                         size in bytes: count x type size, per block for allgather)
 *
 * At MPI_Init every rank reads the profile; where the library, process count or host set of the
 * run differs from the profile's (or the file cannot be read), rank 0 prints one line on stderr
 * naming the difference and the layer passes every call through. The redirected functions:
 *   MPI_Allreduce  -> MPI_Reduce to rank 0 + MPI_Bcast, only where the result is exact in any order
 *                     (MPI_MAX, MPI_MIN and the logical/bitwise ops; MPI_SUM/MPI_PROD on integer types)
 *   MPI_Allgather  -> MPI_Gather to rank 0 + MPI_Bcast of all blocks
 *   MPI_Bcast      -> MPI_Scatterv in communicator-size pieces + MPI_Allgatherv
 *   MPI_Scan       -> MPI_Exscan + MPI_Reduce_local of the own contribution (exact ops as for
 *                     MPI_Allreduce; in place passes through)
 *   MPI_Reduce_scatter_block -> MPI_Reduce of the p blocks to rank 0 + MPI_Scatter (exact ops as for
 *                     MPI_Allreduce; message size = one block, recvcount x type size)
 * on intracommunicators of the profile's size; every other call goes to the library unchanged. The
 * data delivered is the library's (tests/tune checks every redirected call against PMPI's result).
 * ISOCHRON_TUNE_VERBOSE=1: rank 0 prints at MPI_Finalize how many calls it redirected.
 */
#ifndef ISOCHRON_TUNE_H
#define ISOCHRON_TUNE_H

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when the profile matched this run and redirection is on, else 0 (libisochron-tune.so only). */
int isochron_tune_active(void);

/** Calls of FUNCTION ("MPI_Allreduce", "MPI_Allgather", "MPI_Bcast", "MPI_Scan",
 *  "MPI_Reduce_scatter_block"; NULL: all) this process has
 *  redirected so far; -1 for a function the layer never redirects. */
long long isochron_tune_redirected(const char *function);

#ifdef __cplusplus
}
#endif

#endif
