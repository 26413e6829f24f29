/*
 * trace_stencil: a small MPI program to trace with libisochron-trace.so
 * (issue 15). 1-D Jacobi relaxation of u'' = 0 with fixed ends, the domain
 * split in blocks over the ranks: every iteration exchanges halos with the
 * neighbours (MPI_Sendrecv), and every iteration computes the global residual
 * (MPI_Allreduce on MPI_COMM_WORLD); every 10th iteration a rank-dependent
 * extra sweep makes the load uneven, so the Allreduce's instances show late
 * arrivals on a Gantt chart (paper 000 Fig. 10). Plain MPI: it knows nothing
 * of isochron; run it as
 *     ISOCHRON_TRACE_DIR=out LD_PRELOAD=libisochron-trace.so mpirun -np 4 trace_stencil [iters] [n]
 * Prints the final residual on rank 0 (the same with or without the tracer).
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double sweep(double *u, double *v, int n)
{
    double r = 0;
    for (int i = 1; i <= n; i++) {
        v[i] = 0.5 * (u[i - 1] + u[i + 1]);
        r += (v[i] - u[i]) * (v[i] - u[i]);
    }
    for (int i = 1; i <= n; i++) u[i] = v[i];
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int n = argc > 2 ? atoi(argv[2]) : 20000;
    if (iters < 1 || n < 1) {
        if (rank == 0) fprintf(stderr, "usage: trace_stencil [iterations >= 1] [points per rank >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    if (rank == size - 1) u[n + 1] = 1.0; /* boundary condition at the right end */
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double res = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == size - 1) u[n + 1] = 1.0;
        if (rank == 0) u[0] = 0.0;
        double r = sweep(u, v, n);
        if (it % 10 == 0)
            for (int k = 0; k < rank; k++) sweep(u, v, n); /* uneven load */
        MPI_Allreduce(&r, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("trace_stencil: %d ranks, %d iterations, %d points per rank, residual %.6e\n", size, iters, n, sqrt(res));
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
