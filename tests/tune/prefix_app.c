/*
 * prefix_app: a collective-heavy program for bench/tune_prefix.sh (issue 38): the prefix-sum step
 * of a parallel stream compaction, ITERS times over N ints per rank: local update, MPI_Scan (sum),
 * local use of the prefix. Its own timer (MPI_Wtime around the loop, the slowest rank) and a
 * checksum of every prefix it computed, so a run under libisochron-tune.so can be compared with a
 * run without it: same checksum, time side by side. Not a test: a workload.
 *   prefix_app [N (default 16384 = 64 KiB)] [ITERS (default 2000)]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 16384, iters = argc > 2 ? atoi(argv[2]) : 2000;
    if (n < 1 || iters < 1) {
        if (rank == 0) fprintf(stderr, "prefix_app: N and ITERS must be positive\n");
        MPI_Finalize();
        return 2;
    }
    int *flag = malloc((size_t)n * sizeof *flag), *pos = malloc((size_t)n * sizeof *pos);
    unsigned long long sum = 0;
    for (int i = 0; i < n; i++) flag[i] = (i * 7 + rank) % 3 == 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < n; i++) flag[i] = (flag[i] + i + it + rank) % 5 < 2; /* which elements survive */
        MPI_Scan(flag, pos, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);               /* their positions */
        for (int i = 0; i < n; i += 97) sum = sum * 31 + (unsigned long long)pos[i];
    }
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    unsigned long long all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("loop %.6f s checksum %016llx (%d ints, %d scans)\n", tmax, all, n, iters);
    free(flag);
    free(pos);
    MPI_Finalize();
    return 0;
}
