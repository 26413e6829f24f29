/*
 * cc_checkpoint: an iterative MPI program checkpointed and restarted with
 * libisochron-cc.so (issue 14, collective clocks of paper 003). 1-D Jacobi
 * relaxation of u'' = 0 with fixed ends, the domain split in blocks over the
 * ranks: each iteration exchanges halos (MPI_Sendrecv), reduces the residual
 * over the even/odd half of the ranks (MPI_Iallreduce on a split
 * communicator, left pending across the next call) and over all ranks
 * (MPI_Allreduce on MPI_COMM_WORLD).
 *
 * The restart pattern. A checkpoint is taken inside some MPI call of some
 * iteration, at the same "collective clock" on every rank, so every rank is
 * in the same iteration. The program keeps what a restart needs in one
 * registered region, `committed`, and writes it only at the end of an
 * iteration, after the iteration's last MPI call: whatever call the checkpoint
 * is taken in, the region holds the state at the start of the current
 * iteration, and a restarted run simply redoes that iteration. The region is
 * filled by isochron_cc_register() when the program runs with
 * ISOCHRON_CC_RESTART=DIR, so the loop starts where the checkpoint was.
 *
 *   mpicc cc_checkpoint.c -lisochron-cc -o cc_checkpoint  (or build/ in this repo)
 *   ISOCHRON_CC_DIR=ck ISOCHRON_CC_INTERVAL=1 mpirun -np 4 ./cc_checkpoint 3000 2000
 *   (kill it, or send SIGUSR1 to any rank for a checkpoint now)
 *   ISOCHRON_CC_RESTART=ck ISOCHRON_CC_DIR=ck mpirun -np 4 ./cc_checkpoint 3000 2000
 * A third argument K makes rank 0 request a checkpoint itself, with
 * isochron_cc_request(), when it starts iteration K.
 * Prints "residual R after N iterations" on rank 0: the same with or without
 * checkpoints and restarts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "isochron/cc.h"

#define NMAX 100000

static struct {
    int iter;             /* iterations done */
    int n;                /* points of this rank's block */
    double res;           /* global residual of the last iteration */
    double u[NMAX + 2];   /* the block with its two halo cells */
} committed;

static int rank;

static void report(int phase, void *arg)
{
    (void)arg;
    if (phase == ISOCHRON_CC_AFTER_SAVE && rank == 0)
        printf("checkpoint %d written at iteration %d\n", isochron_cc_checkpoints(), committed.iter);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 3000, n = argc > 2 ? atoi(argv[2]) : 2000;
    int request_at = argc > 3 ? atoi(argv[3]) : -1;
    if (n < 1 || n > NMAX || iters < 0) {
        if (rank == 0) fprintf(stderr, "usage: cc_checkpoint [ITERS >= 0] [N in 1..%d] [REQUEST_AT]\n", NMAX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);

    int restored = isochron_cc_register("committed", &committed, sizeof committed);
    if (restored < 0) MPI_Abort(MPI_COMM_WORLD, 1);
    if (restored && committed.n != n) {
        if (rank == 0) fprintf(stderr, "cc_checkpoint: the checkpoint has N=%d, not %d\n", committed.n, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!restored) {   /* u = 0 inside, 1 at the global right end */
        committed.n = n;
        memset(committed.u, 0, sizeof committed.u);
        if (rank == size - 1) committed.u[n + 1] = 1.0;
    }
    if (restored && rank == 0) printf("restarted from checkpoint %d at iteration %d\n", isochron_cc_restarted(), committed.iter);
    isochron_cc_on_checkpoint(report, NULL);

    static double u[NMAX + 2], v[NMAX + 2];
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double res = 0, t0 = MPI_Wtime();
    while (committed.iter < iters) {
        if (rank == 0 && committed.iter == request_at) isochron_cc_request();
        memcpy(u, committed.u, (size_t)(n + 2) * sizeof *u);            /* work on a copy */
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0, hres = 0;
        for (int i = 1; i <= n; i++) {
            v[i] = 0.5 * (u[i - 1] + u[i + 1]);
            local += (v[i] - u[i]) * (v[i] - u[i]);
        }
        MPI_Request r;
        MPI_Iallreduce(&local, &hres, 1, MPI_DOUBLE, MPI_SUM, half, &r);
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);                                /* the iteration's last MPI call */
        memcpy(&committed.u[1], &v[1], (size_t)n * sizeof *v);           /* commit */
        committed.res = res;
        committed.iter++;
    }
    /* from the region: a checkpoint may be taken after the last iteration */
    if (rank == 0) {
        printf("residual %.17g after %d iterations\n", sqrt(committed.res), committed.iter);
        printf("loop time %.3f s\n", MPI_Wtime() - t0);
    }
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
