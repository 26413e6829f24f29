#define _DEFAULT_SOURCE
/* Checkpoint protocol of libisochron-cc.so (issue 14, paper 003 Algorithms
 * 2-3): an iterative program on MPI_COMM_WORLD, a split communicator and a
 * duplicate, with blocking and non-blocking collectives (an Iallreduce on the
 * split communicator stays pending across a world Allreduce), Sendrecv,
 * Isend/Irecv and a blocking Send/Recv pair, checkpointed on requests:
 *   test_ckpt api|signal|interval|stuck|none [KILL_AT]
 * api/signal: rank 1 (iteration 15) and rank size-1 (iteration 45) request
 * by isochron_cc_request() / raise(SIGUSR1); interval: ISOCHRON_CC_INTERVAL
 * set by the driver; stuck: rank 0 requests at iteration 10 and the last rank
 * sleeps there for 60 s (the watchdog must end the job). State that survives a restart is committed at the end of
 * each iteration, after its last MPI call, into the registered region (the
 * pattern of examples/cc_checkpoint.c). KILL_AT: rank 0 kills itself after
 * that iteration if a checkpoint is complete (a crash to restart from).
 * Prints "result <checksum> iters N ckpts C restarted R" on rank 0; the
 * driver (test_ckpt.sh) checks the state log and compares results. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "isochron/cc.h"

typedef struct { int iter, pad; double x[8]; double acc; } state_t;
static state_t st;
static int before, after, order_bad;

static void on_ckpt(int phase, void *arg)
{
    (void)arg;
    if (phase == ISOCHRON_CC_BEFORE_SAVE) { if (before != after) order_bad = 1; before++; }
    else { after++; if (after != before) order_bad = 1; }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "none";
    int kill_at = argc > 2 ? atoi(argv[2]) : -1;
    int iters = getenv("TEST_CKPT_ITERS") ? atoi(getenv("TEST_CKPT_ITERS")) : 70;
    double sleep_us = getenv("TEST_CKPT_SLEEP_US") ? atof(getenv("TEST_CKPT_SLEEP_US")) : 0;
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int restored = isochron_cc_register("state", &st, sizeof st);
    /* a refused region (isochron_cc_register named it on stderr) ends every rank together and
     * without MPI_Abort: an abort's teardown can drop lines still on their way (MPICH's hydra did) */
    int refused = restored < 0, anybad = 0;
    MPI_Allreduce(&refused, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        MPI_Finalize();
        return 1;
    }
    if (!restored)
        for (int i = 0; i < 8; i++) st.x[i] = rank + 0.5 * i;
    isochron_cc_on_checkpoint(on_ckpt, NULL);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    while (st.iter < iters) {
        state_t w = st;
        int it = w.iter;
        if (!isochron_cc_restarted() && ((it == 15 && rank == 1 % size) || (it == 45 && rank == size - 1))) {
            if (strcmp(mode, "api") == 0) isochron_cc_request();
            else if (strcmp(mode, "signal") == 0) raise(SIGUSR1);
        }
        if (strcmp(mode, "stuck") == 0 && it == 10) {   /* the watchdog case: one rank stops calling MPI */
            if (rank == 0) isochron_cc_request();
            if (rank == size - 1) sleep(60);
        }
        double in = 0, hs = 0, ws = 0, pin = 0, b = rank == 0 ? w.x[5] : 0;
        MPI_Sendrecv(&w.x[0], 1, MPI_DOUBLE, right, 7, &in, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request r[3];
        MPI_Irecv(&pin, 1, MPI_DOUBLE, left, 8, dup, &r[0]);
        MPI_Isend(&w.x[4], 1, MPI_DOUBLE, right, 8, dup, &r[1]);
        MPI_Iallreduce(&w.x[2], &hs, 1, MPI_DOUBLE, MPI_SUM, half, &r[2]);   /* pending across the next call */
        MPI_Allreduce(&w.x[3], &ws, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        MPI_Request rb;
        MPI_Ibcast(&b, 1, MPI_DOUBLE, 0, dup, &rb);
        int done = 0;
        while (!done) MPI_Test(&rb, &done, MPI_STATUS_IGNORE);
        if (size > 1) {   /* a blocking receive the protocol must reach */
            double v = w.x[6];
            if (rank == 0) MPI_Send(&v, 1, MPI_DOUBLE, size - 1, 9, MPI_COMM_WORLD);
            if (rank == size - 1) { MPI_Recv(&v, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); w.x[7] += 1e-3 * v; }
        }
        if (sleep_us > 0) { struct timespec ts = { 0, (long)(1000 * sleep_us) }; nanosleep(&ts, NULL); }
        for (int i = 0; i < 8; i++)
            w.x[i] = fmod(w.x[i] * 1.0001 + 1e-3 * hs + 1e-4 * ws + 1e-5 * (in + pin + b) + 0.01 * i, 1000.0);
        double cs = 0, tot = 0;
        for (int i = 0; i < 8; i++) cs += w.x[i];
        MPI_Allreduce(&cs, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);   /* the iteration's last MPI call */
        w.acc += 1e-6 * tot;
        w.iter++;
        st = w;                                                             /* commit */
        if (w.iter == kill_at && rank == 0 && isochron_cc_checkpoints() > 0 && !isochron_cc_restarted()) {
            printf("killing rank 0 after iteration %d, checkpoints %d\n", w.iter, isochron_cc_checkpoints());
            fflush(stdout);
            raise(SIGKILL);
        }
    }
    double res = 0;
    MPI_Allreduce(&st.acc, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int c = isochron_cc_checkpoints(), cmin = 0, cmax = 0;
    MPI_Allreduce(&c, &cmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&c, &cmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int c2 = isochron_cc_checkpoints();   /* one may have been taken in the reductions above */
    int bad = order_bad || before != after || before != c2 - isochron_cc_restarted() || cmin != cmax;
    if (bad) printf("FAIL rank %d: checkpoints %d (min %d max %d), callbacks before %d after %d order %s\n", rank, c,
                    cmin, cmax, before, after, order_bad ? "bad" : "ok");
    if (rank == 0) printf("result %.17g iters %d ckpts %d restarted %d\n", res, st.iter, c, isochron_cc_restarted());
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return bad;
}
