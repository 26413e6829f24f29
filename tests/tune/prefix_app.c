/*
 * prefix_app: a collective-heavy program for bench/tune_prefix.sh (issue 38): the prefix-sum step
 * of a parallel stream compaction, ITERS times over N ints per rank: local update, MPI_Scan (sum),
 * local use of the prefix. Its own timer (MPI_Wtime around the loop, the slowest rank) and a
 * checksum of every prefix it computed, so a run under libisochron-tune.so can be compared with a
 * run without it: same checksum, time side by side. Not a test: a workload.
 * Beside the loop it times, per rank, the local pass (which writes the array MPI_Scan sends) and
 * the call, so a slowdown can be placed: bench/tune_prefix.sh found that under the layer rank 0's
 * pass, not the call, became slower (docs/tuning.md). PASS=none drops the pass (back-to-back calls).
 *   prefix_app [N (default 16384 = 64 KiB)] [ITERS (default 2000)] [PASS: write (default) | none]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app_report.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n, iters, pass, bad = app_args(argc, argv, "prefix_app", 16384, 2000, &n, &iters, &pass);
    if (bad) {
        MPI_Finalize();
        return bad;
    }
    int *flag = malloc((size_t)n * sizeof *flag), *pos = malloc((size_t)n * sizeof *pos);
    unsigned long long sum = 0;
    double *t_pass = malloc((size_t)iters * sizeof *t_pass), *t_call = malloc((size_t)iters * sizeof *t_call);
    for (int i = 0; i < n; i++) flag[i] = (i * 7 + rank) % 3 == 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        double a = MPI_Wtime();
        if (pass)
            for (int i = 0; i < n; i++) flag[i] = (flag[i] + i + it + rank) % 5 < 2; /* which elements survive */
        double b = MPI_Wtime();
        MPI_Scan(flag, pos, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* their positions */
        t_call[it] = MPI_Wtime() - b;
        t_pass[it] = b - a;
        for (int i = 0; i < n; i += 97) sum = sum * 31 + (unsigned long long)pos[i];
    }
    app_report(MPI_Wtime() - t0, t_pass, t_call, iters, sum, "%d ints, %d scans", n, iters);
    free(flag);
    free(pos);
    MPI_Finalize();
    return 0;
}
