/* The arguments and the report of the workloads of bench/tune_prefix.sh (prefix_app.c, histogram_app.c): the loop
 * time of the slowest rank, the XOR of the ranks' checksums, and per rank the median time of the
 * local pass and of the collective call over the iterations (PASS and CALL: one time per iteration,
 * sorted here), so that a difference between runs can be placed; medians, because on a loaded
 * machine a few descheduled iterations dominate a mean. Collective over MPI_COMM_WORLD; rank 0
 * prints. FMT... describes the run ("%d ints, %d scans", ...). Frees PASS and CALL. */
#ifndef TUNE_APP_REPORT_H
#define TUNE_APP_REPORT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The workloads' arguments: [N] [ITERS] [PASS: write | none]. 0, or 2 after rank 0 printed why
 * (the caller then finalizes and exits with it). *PASS: 1 for write. */
static int app_args(int argc, char **argv, const char *name, int n0, int iters0, int *n, int *iters, int *pass)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    *n = argc > 1 ? atoi(argv[1]) : n0;
    *iters = argc > 2 ? atoi(argv[2]) : iters0;
    const char *mode = argc > 3 ? argv[3] : "write";
    *pass = !strcmp(mode, "write");
    if (*n >= 1 && *iters >= 1 && (*pass || !strcmp(mode, "none"))) return 0;
    if (rank == 0) fprintf(stderr, "%s: N and ITERS must be positive, PASS write or none (got %s)\n", name, mode);
    return 2;
}

static int app_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void app_report(double t, double *pass, double *call, int iters, unsigned long long sum, const char *fmt, ...)
{
    char desc[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    qsort(pass, (size_t)iters, sizeof *pass, app_cmp);
    qsort(call, (size_t)iters, sizeof *call, app_cmp);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double tmax = 0, me[2] = { pass[iters / 2] * 1e6, call[iters / 2] * 1e6 }, *all = malloc(2 * (size_t)size * sizeof *all);
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Gather(me, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    unsigned long long xall = 0;
    MPI_Reduce(&sum, &xall, 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("loop %.6f s checksum %016llx (%s)\nper iteration, median (us):", tmax, xall, desc);
        for (int r = 0; r < size; r++) printf(" rank %d pass %.1f call %.1f%s", r, all[2 * r], all[2 * r + 1], r + 1 < size ? ";" : "\n");
    }
    free(all);
    free(pass);
    free(call);
}

#endif
