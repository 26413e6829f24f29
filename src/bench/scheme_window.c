/*
 * The "window" scheme (SKaMPI, NBCBench; paper 000 sec. II): repetitions
 * start at common times on the global clock, one window apart. A rank that
 * reaches its start time late marks the repetition invalid. The known fault
 * of the scheme is the cascade: one overrun makes every later window late (a
 * peer invalidated 122 in a row here). So after every repetition the ranks
 * agree (one small allreduce, outside the timed region) on whether anyone
 * was late and on the latest end time; after a miss the next window is
 * re-anchored to that end time, so one outlier costs one repetition.
 * The window is given (--window) or derived before the point from a measured
 * estimate: 2 x the 90th percentile of 15 barrier-synchronized run times of
 * the operation as the timing method runs it (root: with its confirmation) (max
 * over ranks) plus the agreement's latency and 20 µs of margin (a median
 * left half of the 64 KiB allreduce windows missed at 4 ranks on 2 cores).
 */
#include <math.h>
#include <stdlib.h>
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

static int window_begin(isochron_bench_t *b, point_state_t *ps)
{
    double w = b->o.window;
    if (w <= 0) { /* derive from an estimate */
        enum { N = 15 };
        double t[N], agree[N];
        for (int i = 0; i < N; i++) {
            MPI_Barrier(b->comm);
            double s = isochron_clock_now(b->clk), s0, e0, l0;
            int rc = ps->method->run(b, ps, &s0, &e0, &l0); /* the operation as the method runs it (root: with its confirmation) */
            double d = isochron_clock_now(b->clk) - s, dmax;
            if (rc) return rc;
            double a0 = isochron_clock_now(b->clk);
            MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, b->ctl);
            agree[i] = isochron_clock_now(b->clk) - a0;
            t[i] = dmax;
        }
        isochron_sort_doubles(t, N);
        isochron_sort_doubles(agree, N);
        double est = t[(int)(0.9 * (N - 1))], ag = agree[(int)(0.9 * (N - 1))], both[2] = {est, ag}, mx[2];
        MPI_Allreduce(both, mx, 2, MPI_DOUBLE, MPI_MAX, b->ctl);
        w = 2 * mx[0] + 2 * mx[1] + 20e-6;
    }
    ps->window = w;
    double first = isochron_clock_now(b->clk) + w + 100e-6;
    MPI_Bcast(&first, 1, MPI_DOUBLE, 0, b->ctl);
    ps->next_start = first;
    return ISOCHRON_OK;
}

static int window_before(isochron_bench_t *b, point_state_t *ps, int rep, int *late)
{
    (void)rep;
    *late = isochron_clock_now(b->clk) >= ps->next_start;
    if (!*late) isochron_bench_wait_until(b, ps->next_start);
    return ISOCHRON_OK;
}

static int window_after(isochron_bench_t *b, point_state_t *ps, int rep, double t_end, int *invalid, int *stop)
{
    (void)rep;
    /* in: {late (as 0/1 from before, passed via invalid), end} -> max over ranks */
    double in[3] = {(double)*invalid, t_end, ps->data_s}, out[3];
    int rc = isochron_bench_allreduce(b, in, out, 3, MPI_DOUBLE, MPI_MAX);
    if (rc) return rc;
    double planned = ps->next_start;
    *invalid = out[0] > 0;
    ps->next_start = planned + ps->window;
    if (*invalid || out[1] > planned + ps->window) /* a miss or an overrun: re-anchor, don't cascade */
        ps->next_start = out[1] + ps->window;
    /* the budget, from the latest end less the longest validation (the same on every rank) */
    *stop = b->o.budget > 0 && out[1] - ps->t0 - out[2] >= b->o.budget;
    return ISOCHRON_OK;
}

const scheme_t isochron_scheme_window = {"window", "common start times one window apart on the global clock; a miss re-anchors (no cascade)", 1, window_begin, window_before, window_after, NULL, 0};
