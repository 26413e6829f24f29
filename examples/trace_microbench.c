/*
 * trace_microbench: the per-call cost of a few MPI calls, for measuring the
 * overhead of libisochron-trace.so (bench/trace_overhead.sh runs it with and
 * without LD_PRELOAD). For each call, REPEATS blocks of N back-to-back calls
 * are timed with clock_gettime(CLOCK_MONOTONIC); the median block gives ns per
 * call. MPI_Test on MPI_REQUEST_NULL and MPI_Iprobe are nearly free in the
 * library, so the tracer's own cost (two timer reads and a buffer append)
 * shows up in full; MPI_Allreduce of 8 B and MPI_Barrier put it beside real
 * communication. Rank 0 prints "call ns_per_call" lines.
 *     trace_microbench [N (default 20000)] [REPEATS (default 7)]
 */
#define _POSIX_C_SOURCE 199309L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 20000, reps = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 1 || reps < 1 || reps > 100) {
        if (rank == 0) fprintf(stderr, "usage: trace_microbench [N >= 1] [REPEATS 1..100]\n");
        MPI_Finalize();
        return 2;
    }
    /* connect every pair first (the tracer's clock sync does, at MPI_Init): in Open MPI an established
     * shared-memory connection makes every later progress poll, hence MPI_Iprobe, dearer; without this
     * the untraced run would be measured with fewer connections than the traced one */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int d = 1; d < size; d++) {
        double a = rank, b;
        PMPI_Sendrecv(&a, 1, MPI_DOUBLE, (rank + d) % size, 0, &b, 1, MPI_DOUBLE, (rank - d + size) % size, 0,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    static const char *names[] = {"MPI_Test(null)", "MPI_Iprobe", "MPI_Allreduce(8B)", "MPI_Barrier"};
    for (int c = 0; c < 4; c++) {
        int calls = c >= 2 ? n / 10 : n; /* communicating calls: fewer */
        double t[100];
        for (int r = 0; r < reps; r++) {
            MPI_Request req = MPI_REQUEST_NULL;
            int flag;
            double x = 1, y;
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            for (int i = 0; i < calls; i++) {
                switch (c) {
                case 0: MPI_Test(&req, &flag, MPI_STATUS_IGNORE); break;
                case 1: MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); break;
                case 2: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
                default: MPI_Barrier(MPI_COMM_WORLD); break;
                }
            }
            t[r] = (now() - t0) / calls * 1e9;
        }
        qsort(t, (size_t)reps, sizeof t[0], cmp);
        if (rank == 0) printf("%s %.1f\n", names[c], t[reps / 2]);
    }
    MPI_Finalize();
    return 0;
}
