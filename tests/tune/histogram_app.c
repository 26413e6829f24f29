/*
 * histogram_app: a collective-heavy program for bench/tune_prefix.sh APP=histogram (issue 38): the
 * counting step of a distributed histogram (or of a bucket sort's bucket sizes), ITERS times: every
 * rank draws K keys (a per-rank linear congruential stream), counts them into p x N int bins (the
 * local pass, which writes the array the collective sends), and MPI_Reduce_scatter_block (int sum)
 * gives each rank the global counts of the N bins it owns; it then reads its bins. The guideline
 * MPI_Reduce_scatter_block <= MPI_Reduce + MPI_Scatter was violated here at 256 KiB blocks
 * (docs/tuning.md), so this is where libisochron-tune.so has something to gain. A synthetic kernel,
 * not an application: the pattern of one. Its own timer (MPI_Wtime around the loop, the slowest
 * rank), a checksum of every count it received, and per rank the time of the pass and of the call.
 *   histogram_app [N bins per rank (default 65536 = 256 KiB)] [ITERS (default 300)] [PASS: write | none]
 *   (K = N keys per rank; PASS=none: counts once, then back-to-back calls)
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
    int n, iters, pass, bad = app_args(argc, argv, "histogram_app", 65536, 300, &n, &iters, &pass);
    if (bad) {
        MPI_Finalize();
        return bad;
    }
    size_t bins = (size_t)n * (size_t)size;
    int *count = calloc(bins, sizeof *count), *mine = malloc((size_t)n * sizeof *mine);
    unsigned long long sum = 0, x = 12345u + 977u * (unsigned)rank;
    double *t_pass = malloc((size_t)iters * sizeof *t_pass), *t_call = malloc((size_t)iters * sizeof *t_call);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        double a = MPI_Wtime();
        if (pass || it == 0) {
            memset(count, 0, bins * sizeof *count);
            for (int k = 0; k < n; k++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                count[(x >> 33) % bins]++;
            }
        }
        double b = MPI_Wtime();
        MPI_Reduce_scatter_block(count, mine, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t_call[it] = MPI_Wtime() - b;
        t_pass[it] = b - a;
        for (int i = 0; i < n; i += 61) sum = sum * 31 + (unsigned long long)mine[i];
    }
    app_report(MPI_Wtime() - t0, t_pass, t_call, iters, sum, "%d bins per rank, %d reduce_scatter_block", n, iters);
    free(count);
    free(mine);
    MPI_Finalize();
    return 0;
}
