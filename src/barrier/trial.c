/*
 * One trial of the barrier experiments (paper 004, sec. 4; paper 000,
 * sec. V-B, Fig. 8). Every rank waits for a common start time on the global
 * clock (Round-Time style, paper 000 Alg. 5) plus its own delay, timestamps
 * its entry into the barrier and its exit, then optionally runs a ring shift
 * (send to the right neighbour while receiving from the left, Irecv/Isend/
 * Waitall) and timestamps its end. The timestamps are gathered on rank 0
 * afterwards, outside the timed region, on the trial's own communicator;
 * every wait outside the timed region yields on an oversubscribed node.
 */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "core/util.h"
#include "barrier/barrier_impl.h"

struct isochron_barrier_trial {
    MPI_Comm comm;
    int rank, size, oversubscribed;
    isochron_clock_t *clk;
    char *sbuf, *rbuf;
    long max_bytes;
};

int isochron_barrier_trial_create(MPI_Comm comm, isochron_clock_t *clk, long max_shift_bytes, isochron_barrier_trial_t **out)
{
    *out = NULL;
    if (max_shift_bytes < 0 || max_shift_bytes > (1L << 30))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier trial: shift size %ld not in 0..1 GiB", max_shift_bytes);
    isochron_barrier_trial_t *t = calloc(1, sizeof *t);
    if (!t) return isochron_set_error(ISOCHRON_ENOMEM, "barrier trial: out of memory");
    t->clk = clk;
    t->max_bytes = max_shift_bytes;
    t->sbuf = calloc(1, (size_t)max_shift_bytes + 1);
    t->rbuf = calloc(1, (size_t)max_shift_bytes + 1);
    if (!t->sbuf || !t->rbuf) {
        free(t->sbuf); free(t->rbuf); free(t);
        return isochron_set_error(ISOCHRON_ENOMEM, "barrier trial: cannot allocate 2 x %ld bytes for the shift", max_shift_bytes);
    }
    MPI_Comm_dup(comm, &t->comm);
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->size);
    t->oversubscribed = isochron_comm_oversubscribed(t->comm);
    *out = t;
    return ISOCHRON_OK;
}

void isochron_barrier_trial_destroy(isochron_barrier_trial_t *t)
{
    if (!t) return;
    MPI_Comm_free(&t->comm);
    free(t->sbuf);
    free(t->rbuf);
    free(t);
}

int isochron_barrier_trial_oversubscribed(const isochron_barrier_trial_t *t) { return t->oversubscribed; }
MPI_Comm isochron_bar_trial_comm(const isochron_barrier_trial_t *t) { return t->comm; }

/* Complete a protocol request: yield while waiting on an oversubscribed node
 * (a spinning rank starves the peers it waits for), else block in MPI_Wait.
 * Not the exponential-backoff polite wait: its naps of up to 1 ms would make
 * ranks miss a start time a millisecond away. */
static int finish(isochron_barrier_trial_t *t, MPI_Request *r)
{
    if (t->oversubscribed) return isochron_wait_yield(r);
    return MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "barrier trial: MPI_Wait failed");
}

/* Under SimGrid no rank is oversubscribed (core/util.c), so finish() is
 * MPI_Wait and the blocking collective is the same wait; SimGrid 3.32's
 * non-blocking collectives cost host time superlinear in the ranks. */
#ifdef SMPI_ISOCHRON
#define TRIAL_BLOCKING 1
#else
#define TRIAL_BLOCKING 0
#endif

static int blocking_done(int mpi_rc, const char *what)
{
    return mpi_rc == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "barrier trial: %s failed", what);
}

int isochron_barrier_trial_start_time(isochron_barrier_trial_t *t, double slack, double *t0)
{
    double v = t->rank == 0 ? isochron_clock_now(t->clk) + slack : 0;
    int rc;
    if (TRIAL_BLOCKING) {
        rc = blocking_done(MPI_Bcast(&v, 1, MPI_DOUBLE, 0, t->comm), "MPI_Bcast");
    } else {
        MPI_Request r;
        MPI_Ibcast(&v, 1, MPI_DOUBLE, 0, t->comm, &r);
        rc = finish(t, &r);
    }
    *t0 = v;
    return rc;
}

static int shift(isochron_barrier_trial_t *t, long bytes, int yield)
{
    int right = (t->rank + 1) % t->size, left = (t->rank - 1 + t->size) % t->size;
    MPI_Request r[2];
    if (MPI_Irecv(t->rbuf, (int)bytes, MPI_BYTE, left, 1, t->comm, &r[0]) != MPI_SUCCESS ||
        MPI_Isend(t->sbuf, (int)bytes, MPI_BYTE, right, 1, t->comm, &r[1]) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "ring shift: MPI_Irecv/Isend failed");
    MPI_Status stv[2];
    if (!yield)
        return MPI_Waitall(2, r, stv) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "ring shift: MPI_Waitall failed");
    int rc = isochron_wait_yield(&r[0]);
    int rc2 = isochron_wait_yield(&r[1]);
    return rc ? rc : rc2;
}

int isochron_barrier_trial_run(isochron_barrier_trial_t *t, isochron_barrier_t *bar, double t0, double delay, long shift_bytes,
                               isochron_barrier_stamp_t *stamps)
{
    if (shift_bytes > t->max_bytes)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier trial: shift of %ld bytes exceeds the %ld allocated", shift_bytes, t->max_bytes);
    if (delay < 0) delay = 0;
    int rc = ISOCHRON_OK;
    double mine[5];
    double first = isochron_clock_now(t->clk);
    mine[3] = first >= t0 + delay ? first - (t0 + delay) : 0; /* late at the first check, as Round-Time (Alg. 5) */
    isochron_clock_wait_until(t->clk, t0 + delay, t->oversubscribed);
    mine[0] = isochron_clock_now(t->clk);
    if (bar) rc = isochron_barrier_run(bar);
    mine[1] = isochron_clock_now(t->clk);
    mine[2] = NAN;
    mine[4] = t0 + delay;
    if (!rc && shift_bytes >= 0 && t->size > 1) {
        rc = shift(t, shift_bytes, bar ? isochron_barrier_yields(bar) : t->oversubscribed);
        mine[2] = isochron_clock_now(t->clk);
    } else if (shift_bytes >= 0) {
        mine[2] = mine[1];
    }
    /* agree on failure before gathering, so no rank waits for a failed one forever */
    int bad = rc != ISOCHRON_OK, anybad = 0;
    int rc2;
    if (TRIAL_BLOCKING) {
        rc2 = blocking_done(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, t->comm), "MPI_Allreduce");
    } else {
        MPI_Request ar;
        MPI_Iallreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, t->comm, &ar);
        rc2 = finish(t, &ar);
    }
    if (rc) return rc;
    if (rc2) return rc2;
    if (anybad) return isochron_set_error(ISOCHRON_EMPI, "barrier trial failed on another rank");
    double *all = t->rank == 0 ? malloc(sizeof(double) * 5 * (size_t)t->size) : NULL;
    if (t->rank == 0 && !all) return isochron_set_error(ISOCHRON_ENOMEM, "barrier trial: out of memory");
    if (TRIAL_BLOCKING) {
        rc = blocking_done(MPI_Gather(mine, 5, MPI_DOUBLE, all, 5, MPI_DOUBLE, 0, t->comm), "MPI_Gather");
    } else {
        MPI_Request req;
        MPI_Igather(mine, 5, MPI_DOUBLE, all, 5, MPI_DOUBLE, 0, t->comm, &req);
        rc = finish(t, &req);
    }
    if (t->rank == 0 && !rc)
        for (int i = 0; i < t->size; i++)
            stamps[i] = (isochron_barrier_stamp_t){all[5 * i], all[5 * i + 1], all[5 * i + 2], all[5 * i + 3], all[5 * i + 4]};
    free(all);
    return rc;
}
