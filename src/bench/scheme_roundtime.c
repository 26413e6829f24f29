/*
 * The "roundtime" scheme (paper 000, Algorithm 5). Each point gets a time
 * slice (--budget). For every repetition rank 0 sets a start time
 * now + B x (Bcast latency) on the global clock and broadcasts it; a rank
 * that receives it after that time marks the repetition invalid, and so does
 * one that starts more than the late-start tolerance after it (descheduled
 * while waiting: stricter than Alg. 5, which only checks before waiting);
 * after the operation every rank checks whether the slice is used up, and
 * the flags (invalid, out_of_time) and the latest start are allreduced so
 * all ranks agree. Statistics never include invalid repetitions, and a point
 * with none says so.
 * The Bcast latency is measured once per engine on the global clock (the
 * 90th percentile over 30 broadcasts of the time from the root's send to the
 * last rank's receipt), because a median underestimates it on a busy node.
 * The tolerance starts at one Bcast latency; B and the tolerance adapt from
 * what the last repetitions measured (rt_adapt), the tolerance within
 * --late-cap x the run time (default 0.5, 1.0 when ranks outnumber cores:
 * engine.c says why). Waiting for the start sleeps until shortly
 * before it when ranks outnumber cores, so a waiting rank does not starve
 * the one that is late. ISOCHRON_RT_DEBUG=1 prints every repetition's
 * agreed lateness, run time and verdict on rank 0's stderr.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

static int measure_bcast(isochron_bench_t *b)
{
    enum { N = 30 };
    double lat[N];
    for (int i = 0; i < N; i++) {
        isochron_barrier_polite(b->ctl);
        double t = isochron_clock_now(b->clk) + 50e-6, tr, tmax;
        isochron_bench_bcast(b, &t, 1, MPI_DOUBLE, 0); /* warm the same path */
        double ts = b->rank == 0 ? isochron_clock_now(b->clk) : 0;
        isochron_bench_bcast(b, &ts, 1, MPI_DOUBLE, 0);
        tr = isochron_clock_now(b->clk) - ts;
        isochron_bench_allreduce(b, &tr, &tmax, 1, MPI_DOUBLE, MPI_MAX);
        lat[i] = tmax > 0 ? tmax : 0;
    }
    isochron_sort_doubles(lat, N);
    b->bcast_lat = lat[(int)(0.9 * (N - 1))];
    if (b->bcast_lat < 1e-6) b->bcast_lat = 1e-6;
    return ISOCHRON_OK;
}

static int rt_begin(isochron_bench_t *b, point_state_t *ps)
{
    if (b->bcast_lat <= 0) measure_bcast(b);
    ps->window = b->bcast_lat;
    ps->out_of_time = 0;
    /* every point starts at --slack: carrying the slack the last size ended
     * with let it ratchet up to 512 x the Bcast latency (ms of idle time per
     * repetition) and doubled the default sweep's time; the tolerance carries
     * over relative to the run time (rt_after) */
    int same = b->rt_op == ps->op;
    ps->slack = b->o.slack;
    ps->tolerance = ps->tol_max = b->bcast_lat;
    ps->carry = same ? (b->rt_frac < b->o.late_cap ? b->rt_frac : b->o.late_cap) : 0;
    ps->adapted = ps->hist_n = 0;
    return ISOCHRON_OK;
}

static double quantile(const double *x, int n, double q)
{
    double v[RT_HIST];
    memcpy(v, x, sizeof(double) * (size_t)n);
    isochron_sort_doubles(v, n);
    return v[(int)(q * (n - 1) + 0.5)];
}

/* After every repetition, on every rank, from the last RT_HIST repetitions
 * (identical on all ranks: they come from the flags' allreduce):
 * once 8 are known, or as soon as 3 all broke the same rule:
 *  - more than 10 % got the start time after it had passed (still finishing
 *    the previous repetition): the slack B doubles, or grows at once by
 *    1.25 x the 90th percentile of their lateness if that is more, up to 1000;
 *  - more than 10 % were invalid because a rank started later than the
 *    tolerance (descheduled while waiting: at 4 ranks on 2 cores half the
 *    ranks wait for a core at every start, longer the larger the
 *    operation): the tolerance widens to 1.25 x the 90th percentile of the
 *    measured lateness, but never beyond --late-cap x the median run time of
 *    those repetitions (lateness excluded, so a widening cannot feed itself;
 *    a tolerance above that cap comes down to it as the run time does: the
 *    first repetitions of a point are slow) nor below one Bcast latency. A start later than that cap stays invalid
 *    however often it happens: the rule adapts what it measured, never its
 *    bound, and each point records the widest tolerance it used.
 * A widening needs fresh evidence: the history of its rule is cleared. */
static void rt_adapt(isochron_bench_t *b, point_state_t *ps)
{
    int n = ps->hist_n < RT_HIST ? ps->hist_n : RT_HIST, recv = 0, slow = 0;
    if (n < 3) return;
    for (int i = 0; i < n; i++) { recv += ps->hist_recv[i]; slow += ps->hist_slow[i]; }
    /* 8 repetitions of evidence, or 3 that all broke the same rule: a point
     * of 10 ms repetitions (bw at 1 MiB: 64 MiB a window) gets only a few in
     * its time slice and ended without a valid one, 7-50 µs late each time
     * against a 1 µs tolerance and a 5 ms cap */
    if (n < 8 && !(slow == n || recv == n)) return;
    if (10 * recv > n && ps->slack < 1000) {
        /* double it, or at once as far as the lateness measured asks (a
         * repetition that is still finishing the last one's validation of
         * 64 MiB is hundreds of µs late: doubling from 4 would take the
         * whole slice) */
        double need = ceil(ps->slack + 1.25 * quantile(ps->hist_late, n, 0.9) / b->bcast_lat);
        double next = need > ps->slack * 2 ? need : ps->slack * 2;
        ps->slack = next < 1000 ? next : 1000;
        ps->adapted++;
        memset(ps->hist_recv, 0, sizeof ps->hist_recv);
    }
    double cap = b->o.late_cap * quantile(ps->hist_dur, n, 0.5);
    if (ps->tolerance > cap) /* the run time came down (the first repetitions of a point are slow) */
        ps->tolerance = cap > b->bcast_lat ? cap : b->bcast_lat;
    if (10 * slow > n) {
        double want = 1.25 * quantile(ps->hist_late, n, 0.9);
        if (want > cap) want = cap;
        if (want > 1.01 * ps->tolerance) {
            ps->tolerance = want;
            if (want > ps->tol_max) ps->tol_max = want;
            ps->adapted++;
            memset(ps->hist_slow, 0, sizeof ps->hist_slow);
        }
    }
}

/* Test hook: ISOCHRON_TEST_LATE=R:K[:D] makes rank R start every K-th
 * repetition (0, K, 2K, ...) late on purpose, by D seconds after the start
 * time (default: 3 Bcast latencies plus 100 µs), so a test can check that
 * exactly those are invalid, or that a tolerance widens to a lateness within
 * the cap. Returns the delay, or 0. */
static double test_late(const isochron_bench_t *b, int rep)
{
    static int parsed = 0, r = -1, k = 0;
    static double d = 0;
    if (!parsed) {
        const char *e = getenv("ISOCHRON_TEST_LATE");
        int n = e ? sscanf(e, "%d:%d:%lf", &r, &k, &d) : 0;
        if (n < 2) r = -1;
        if (n < 3) d = 0;
        parsed = 1;
    }
    if (r != b->rank || k <= 0 || rep % k) return 0;
    return d > 0 ? d : 3 * b->bcast_lat + 100e-6;
}

static int rt_before(isochron_bench_t *b, point_state_t *ps, int rep, int *late)
{
    double start = 0;
    if (b->rank == 0) start = isochron_clock_now(b->clk) + ps->slack * b->bcast_lat;
    int rc = isochron_bench_bcast(b, &start, 1, MPI_DOUBLE, 0);
    if (rc) return isochron_set_error(rc, "roundtime: broadcasting the start time failed");
    ps->recv_at = isochron_clock_now(b->clk);
    *late = ps->recv_at >= start; /* Alg. 5 line 14: late at the first check */
    if (!*late) isochron_bench_wait_until(b, start);
    double hook = test_late(b, rep);
    if (hook > 0) isochron_bench_wait_until(b, start + hook);
    ps->start_at = start;
    return ISOCHRON_OK;
}

static int rt_after(isochron_bench_t *b, point_state_t *ps, int rep, double t_end, int *invalid, int *stop)
{
    (void)rep;
    /* Stricter than Alg. 5: a rank that was on time at its first check but
     * actually started more than the tolerance after the start time (it was
     * descheduled while waiting, as happens when ranks outnumber cores) also
     * makes the repetition invalid: its start was not simultaneous.
     * Agreed by all ranks (max): {got the start late, start lateness, end
     * after the start time, out of time}. */
    double in[5] = {(double)*invalid, ps->rep_start - ps->start_at, t_end - ps->start_at, t_end - ps->t0, ps->data_s}, out[5];
    if (isochron_bench_allreduce(b, in, out, 5, MPI_DOUBLE, MPI_MAX)) return isochron_set_error(ISOCHRON_EMPI, "roundtime: MPI_Allreduce failed");
    /* the slice: the latest end, less the longest validation (a receiver checking 64 MiB) */
    out[3] = b->o.budget > 0 && out[3] - out[4] >= b->o.budget;
    int h = ps->hist_n % RT_HIST;
    ps->hist_late[h] = out[1] > 0 ? out[1] : 0;
    ps->hist_dur[h] = out[2] - ps->hist_late[h];
    if (ps->hist_n < 8 && ps->carry > 0) {
        /* until this point has its own evidence, the tolerance is the one the
         * previous point of the operation ended with, relative to the run time */
        double want = ps->carry * quantile(ps->hist_dur, ps->hist_n + 1, 0.5);
        if (want > ps->tolerance) {
            ps->tolerance = want;
            if (want > ps->tol_max) ps->tol_max = want;
        }
    }
    int recv = out[0] > 0, slow = !recv && out[1] > ps->tolerance;
    *invalid = recv || slow;
    *stop = out[3] > 0;
    if (getenv("ISOCHRON_RT_DEBUG") && b->rank == 0)
        fprintf(stderr, "rt %s %zu rep %d: late %.1f us dur %.1f us recv %d slow %d tol %.1f us slack %g (elapsed %.3f s, validation %.3f s)\n", ps->op->name, ps->ctx->bytes, rep,
                out[1] * 1e6, ps->hist_dur[h] * 1e6, recv, slow, ps->tolerance * 1e6, ps->slack, t_end - ps->t0, out[4]);
    ps->hist_n++;
    ps->hist_recv[h] = (char)recv;
    ps->hist_slow[h] = (char)slow;
    rt_adapt(b, ps);
    return ISOCHRON_OK;
}

static void rt_finish(isochron_bench_t *b, const point_state_t *ps, isochron_point_t *res)
{
    res->slack = ps->slack;
    res->late_tolerance = ps->tol_max;
    res->adapted = ps->adapted;
    b->rt_op = ps->op;
    b->rt_slack = ps->slack;
    int n = ps->hist_n < RT_HIST ? ps->hist_n : RT_HIST;
    double dur = n ? quantile(ps->hist_dur, n, 0.5) : 0;
    b->rt_frac = dur > 0 && ps->tolerance > b->bcast_lat ? ps->tolerance / dur : 0;
}

const scheme_t isochron_scheme_roundtime = {"roundtime", "Round-Time (Alg. 5): start times broadcast with slack B x Bcast latency; a late receipt or a start later than the tolerance (widened from measured lateness, bounded by --late-cap) invalidates", 1, rt_begin, rt_before, rt_after, rt_finish, 0};
