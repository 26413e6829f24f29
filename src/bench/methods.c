/*
 * Timing methods (MPIBlib, paper 001, sec. 2.1 and 3). Every method
 * timestamps each rank's start and end on the global clock; they differ in
 * how one run time is formed:
 *  - global: last end minus first start on the global clock (the natural
 *    definition of sec. 2; needs synchronized clocks, which isochron has);
 *  - max:    the largest local duration (end - start on one rank);
 *  - root:   the root's local time until every rank has confirmed completion
 *            with an empty message, minus the confirmation's own cost,
 *            measured before the point (median of 20; the paper notes it can
 *            overlap the operation, so tiny results may be under-estimated);
 *  - ack:    de Supinski & Karonis's individual-task method for broadcast and
 *            scatter (paper 001 ref. [7]): for each rank i the root times
 *            operation + acknowledgement from i alone, corrects by the
 *            one-way acknowledgement time to i (half the minimum 0-byte round
 *            trip), and the run time is the largest corrected task time. One
 *            repetition therefore runs the operation p-1 times, each started
 *            at a common instant of the global clock that the root announces
 *            (not after a barrier, whose exit skew would enter small results);
 *  - overlap: for non-blocking operations (the NBCBench idea, paper 000
 *            ref. [9]): t_comm = median post+wait time after a barrier;
 *            then each repetition posts, computes for t_comm (a calibrated
 *            busy loop on the local clock), and waits. The run time is the
 *            largest local post..wait time; overlap = 1 - (t_total -
 *            t_comp) / t_comm, the share of the communication that hid
 *            behind the computation (0: none, 1: all).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

static int run_op(isochron_bench_t *b, point_state_t *ps)
{
    const isochron_op_t *op = ps->op;
    if (!(b->o.inject_slowdown > 0)) return op->run(ps->ctx);
    /* the testing knob: stretch this rank's operation by a known factor */
    double t0 = isochron_clock_now(b->clk);
    int rc = op->run(ps->ctx);
    double until = t0 + (isochron_clock_now(b->clk) - t0) * (1 + b->o.inject_slowdown);
    while (isochron_clock_now(b->clk) < until) isochron_spin_pause();
    return rc;
}

/* loop_k calls back to back (the "loop" timing, paper 002's loop granularity): the operation's own
 * run_n when it has one (one lock_all epoch around k accesses, each completed by its flush), else k
 * runs. A repetition whose data is checked then writes the pattern again and runs once more, untimed:
 * k accumulates would leave k contributions in the target, and the check is of one call. */
static int loop_run(isochron_bench_t *b, point_state_t *ps)
{
    const isochron_op_t *op = ps->op;
    int rc = ISOCHRON_OK;
    if (op->run_n && !(b->o.inject_slowdown > 0)) rc = op->run_n(ps->ctx, ps->loop_k);
    else for (int i = 0; i < ps->loop_k && !rc; i++) rc = run_op(b, ps);
    return rc;
}

static int loop_check(isochron_bench_t *b, point_state_t *ps)
{
    (void)b;
    if (ps->loop_k <= 1 || !ps->validating || !ps->op->prepare) return ISOCHRON_OK;
    int rc = ps->op->prepare(ps->ctx);
    return rc ? rc : ps->op->run(ps->ctx);
}

static int plain_run(isochron_bench_t *b, point_state_t *ps, double *start, double *end, double *local)
{
    *start = isochron_clock_now(b->clk);
    int rc = ps->loop_k > 1 ? loop_run(b, ps) : run_op(b, ps);
    *end = isochron_clock_now(b->clk);
    *local = NAN;
    return rc ? rc : loop_check(b, ps);
}

/* confirmation: every non-root sends an empty message to the root */
static int confirm(isochron_bench_t *b, int root)
{
    if (b->rank == root) {
        for (int i = 0; i < b->size; i++)
            if (i != root && MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, BTAG_CONFIRM, b->ctl, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return ISOCHRON_EMPI;
        return ISOCHRON_OK;
    }
    return MPI_Send(NULL, 0, MPI_BYTE, root, BTAG_CONFIRM, b->ctl) == MPI_SUCCESS ? ISOCHRON_OK : ISOCHRON_EMPI;
}

static int root_prepare(isochron_bench_t *b, point_state_t *ps)
{
    enum { N = 20 };
    double t[N];
    ps->root = (ps->op->flags & ISOCHRON_OP_ROOTED) ? ps->ctx->root : 0;
    for (int i = 0; i < N; i++) {
        MPI_Barrier(b->ctl);
        double s = isochron_clock_now(b->clk);
        if (confirm(b, ps->root)) return isochron_set_error(ISOCHRON_EMPI, "root method: confirmation failed");
        t[i] = isochron_clock_now(b->clk) - s;
    }
    double c = isochron_median(t, N);
    MPI_Bcast(&c, 1, MPI_DOUBLE, ps->root, b->ctl);
    ps->correction = c;
    return ISOCHRON_OK;
}

static int root_run(isochron_bench_t *b, point_state_t *ps, double *start, double *end, double *local)
{
    *start = isochron_clock_now(b->clk);
    int rc = run_op(b, ps);
    *end = isochron_clock_now(b->clk);
    if (!rc) rc = confirm(b, ps->root);
    *local = b->rank == ps->root ? isochron_clock_now(b->clk) - *start - ps->correction : NAN;
    return rc;
}

static int is_ack_family(const isochron_op_t *op)
{
    return op->family && (isochron_streq_ci(op->family, "bcast") || isochron_streq_ci(op->family, "scatter"));
}

static int ack_prepare(isochron_bench_t *b, point_state_t *ps)
{
    if (!is_ack_family(ps->op))
        return isochron_set_error(ISOCHRON_EINVAL, "the ack method applies to broadcast and scatter implementations only, not '%s'", ps->op->name);
    ps->root = ps->ctx->root;
    if (b->rank == ps->root) {
        ps->ack = calloc((size_t)b->size, sizeof(double));
        if (!ps->ack) return isochron_set_error(ISOCHRON_ENOMEM, "ack: out of memory");
    }
    double sum = 0;
    for (int i = 0; i < b->size; i++) {
        if (i == ps->root) continue;
        MPI_Barrier(b->ctl);
        double best = INFINITY;
        for (int k = 0; k < 20; k++) {
            if (b->rank == ps->root) {
                double s = isochron_clock_now(b->clk);
                MPI_Send(NULL, 0, MPI_BYTE, i, BTAG_ACK, b->ctl);
                MPI_Recv(NULL, 0, MPI_BYTE, i, BTAG_ACK, b->ctl, MPI_STATUS_IGNORE);
                double rtt = isochron_clock_now(b->clk) - s;
                if (rtt < best) best = rtt;
            } else if (b->rank == i) {
                MPI_Recv(NULL, 0, MPI_BYTE, ps->root, BTAG_ACK, b->ctl, MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, ps->root, BTAG_ACK, b->ctl);
            }
        }
        if (b->rank == ps->root) { ps->ack[i] = 0.5 * best; sum += ps->ack[i]; }
    }
    double mean = b->size > 1 ? sum / (b->size - 1) : 0;
    MPI_Bcast(&mean, 1, MPI_DOUBLE, ps->root, b->ctl);
    ps->correction = mean;
    /* tasks start at a common instant this far after the root announces it:
     * a broadcast of the start time (about log2 p one-way latencies) with a
     * margin of 4, and at least 50 µs (polite waits on a busy node) */
    ps->ack_margin = fmax(50e-6, 4 * ceil(log2((double)b->size)) * mean);
    return ISOCHRON_OK;
}

static int ack_run(isochron_bench_t *b, point_state_t *ps, double *start, double *end, double *local)
{
    double worst = -INFINITY;
    int rc = ISOCHRON_OK;
    *start = INFINITY;
    *end = -INFINITY;
    for (int i = 0; i < b->size && !rc; i++) {
        if (i == ps->root) continue;
        /* a common instant of the global clock, not a barrier: a barrier's
         * exit skew would enter the task's time (paper 000, sec. V-B) */
        double at = b->rank == ps->root ? isochron_clock_now(b->clk) + ps->ack_margin : 0;
        if ((rc = isochron_bench_bcast(b, &at, 1, MPI_DOUBLE, ps->root))) break;
        isochron_bench_wait_until(b, at);
        double s = isochron_clock_now(b->clk);
        rc = run_op(b, ps);
        double e = isochron_clock_now(b->clk);
        if (s < *start) *start = s;
        if (e > *end) *end = e;
        if (rc) break;
        if (b->rank == i && MPI_Send(NULL, 0, MPI_BYTE, ps->root, BTAG_ACK, b->ctl) != MPI_SUCCESS) rc = ISOCHRON_EMPI;
        if (b->rank == ps->root) {
            if (MPI_Recv(NULL, 0, MPI_BYTE, i, BTAG_ACK, b->ctl, MPI_STATUS_IGNORE) != MPI_SUCCESS) rc = ISOCHRON_EMPI;
            double t = isochron_clock_now(b->clk) - s - ps->ack[i];
            if (t > worst) worst = t;
        }
    }
    *local = b->rank == ps->root ? worst : NAN;
    return rc;
}

static void ack_finish(isochron_bench_t *b, point_state_t *ps)
{
    (void)b;
    free(ps->ack);
    ps->ack = NULL;
}

static int overlap_prepare(isochron_bench_t *b, point_state_t *ps)
{
    enum { N = 15 };
    double t[N], mx;
    if (!(ps->op->flags & ISOCHRON_OP_NONBLOCKING) || !ps->op->post || !ps->op->wait)
        return isochron_set_error(ISOCHRON_EINVAL, "the overlap method needs a non-blocking operation (e.g. iallreduce), not '%s'", ps->op->name);
    ps->root = 0;
    for (int i = 0; i < N; i++) {
        MPI_Barrier(b->comm);
        double s = isochron_clock_now(b->clk);
        int rc = ps->op->post(ps->ctx);
        if (!rc) rc = ps->op->wait(ps->ctx);
        if (rc) return rc;
        t[i] = isochron_clock_now(b->clk) - s;
    }
    double med = isochron_median(t, N);
    MPI_Allreduce(&med, &mx, 1, MPI_DOUBLE, MPI_MAX, b->ctl);
    ps->t_comm = mx;
    ps->t_comp = mx;
    return ISOCHRON_OK;
}

static int overlap_run(isochron_bench_t *b, point_state_t *ps, double *start, double *end, double *local)
{
    *start = isochron_clock_now(b->clk);
    int rc = ps->op->post(ps->ctx);
    double until = *start + ps->t_comp; /* busy computation on the local clock, no MPI calls */
    while (!rc && isochron_clock_now(b->clk) < until) isochron_spin_pause();
    if (!rc) rc = ps->op->wait(ps->ctx);
    *end = isochron_clock_now(b->clk);
    *local = NAN;
    return rc;
}

static int no_prepare(isochron_bench_t *b, point_state_t *ps) { (void)b; ps->root = 0; return ISOCHRON_OK; }

static double span_of(const isochron_rep_times_t *t) { return t->last_end - t->first_start; }
static double max_local(const isochron_rep_times_t *t) { return t->max_local; }
static double root_local(const isochron_rep_times_t *t) { return t->local; }

/* overlap = 1 - (t_total - t_comp) / t_comm, within [0, 1] */
static void overlap_summarize(const point_state_t *ps, isochron_point_t *res)
{
    if (res->valid > 0 && ps->t_comm > 0) {
        double ov = 1.0 - (res->s.median - ps->t_comp) / ps->t_comm;
        res->overlap = ov < 0 ? 0 : ov > 1 ? 1 : ov;
    }
}

const method_t isochron_method_global = {"global", "last end - first start on the global clock", no_prepare, plain_run, NULL, span_of, NULL, 1};
const method_t isochron_method_max = {"max", "largest local duration over the ranks", no_prepare, plain_run, NULL, max_local, NULL, 0};
const method_t isochron_method_root = {"root", "root's time until all confirmed, minus the confirmation time (MPIBlib)", root_prepare, root_run, NULL,
                                       root_local, NULL, 0};
const method_t isochron_method_overlap = {"overlap", "non-blocking ops: post, calibrated computation, wait; reports the fraction of communication hidden",
                                          overlap_prepare, overlap_run, NULL, max_local, overlap_summarize, 0};
const method_t isochron_method_ack = {"ack", "de Supinski-Karonis individual tasks root->i with acknowledgement (bcast, scatter)", ack_prepare, ack_run,
                                      ack_finish, root_local, NULL, 0};
/* The "origin" timing (--timing origin, and auto for one-sided operations): the operation's whole effect
 * is complete at its origin when access + completion (flush, unlock, fence) return there, so the time is
 * the origin's own clock difference, the largest over the ranks (every rank of the ring operations is an
 * origin; a rank that is no origin returns at once or waits for one). Not a --method: a timing choice. */
const method_t isochron_method_origin = {"origin", "each origin's local clock difference around access + completion, the largest over the origins",
                                         no_prepare, plain_run, NULL, max_local, NULL, 0};
