/*
 * The "roundtime" scheme (paper 000, Algorithm 5). Each point gets a time
 * slice (--budget). For every repetition rank 0 sets a start time
 * now + B x (Bcast latency) on the global clock and broadcasts it; a rank
 * that receives it after that time marks the repetition invalid, and so does
 * one that starts more than one Bcast latency after it (descheduled while
 * waiting: stricter than Alg. 5, which only checks before waiting); after the
 * operation every rank checks whether the slice is used up, and the two flags
 * (invalid, out_of_time) are allreduced so all ranks agree. Statistics never
 * include invalid repetitions, and a point with none says so.
 * The Bcast latency is measured once per engine on the global clock (the
 * 90th percentile over 30 broadcasts of the time from the root's send to the
 * last rank's receipt), because a median underestimates it on a busy node.
 * Waiting for the start sleeps until shortly before it when ranks outnumber
 * cores, so a waiting rank does not starve the one that is late: this is what
 * keeps repetitions valid at 4 ranks on 2 cores, where a peer keeps none.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
    ps->slack = b->o.slack;
    ps->tolerance = b->bcast_lat;
    ps->adapted = ps->n_reps = ps->n_late_first = ps->n_late_start = ps->seen = 0;
    return ISOCHRON_OK;
}

/* After a batch with over 10 % invalid repetitions, widen what was too tight
 * (what it measured, never the rule itself):
 *  - ranks that received the start time after it had passed (still finishing
 *    the previous repetition, its validation or the next one's data): the
 *    slack doubles, up to 64 x --slack;
 *  - ranks that started later than the tolerance after the start time
 *    (descheduled while waiting, as 4 ranks on 2 cores are): the tolerance
 *    becomes rel_ci x the median run time so far, if that is wider than the
 *    Bcast latency. A start that late moves a repetition's time by at most
 *    that much, which is the precision the CI target asks for anyway.
 * The point records both, and how often they were widened. */
static void rt_adapt(isochron_bench_t *b, point_state_t *ps, double median)
{
    int n = ps->n_reps - ps->seen;
    if (n <= 0) return;
    if (ps->n_late_first > 0.1 * n && ps->slack < 64 * b->o.slack) {
        ps->slack *= 2;
        ps->adapted++;
    }
    double tol = b->o.rel_ci * median;
    if (ps->n_late_start > 0.1 * n && isfinite(tol) && tol > ps->tolerance) {
        ps->tolerance = tol;
        ps->adapted++;
    }
    ps->seen = ps->n_reps;
    ps->n_late_first = ps->n_late_start = 0;
}

/* Test hook: ISOCHRON_TEST_LATE=R:K makes rank R start every K-th repetition
 * (0, K, 2K, ...) late on purpose, by 3 Bcast latencies plus 100 µs after
 * the start time, so a test can check that exactly those are invalid. */
static int test_late(const isochron_bench_t *b, int rep)
{
    static int parsed = 0, r = -1, k = 0;
    if (!parsed) {
        const char *e = getenv("ISOCHRON_TEST_LATE");
        if (e && sscanf(e, "%d:%d", &r, &k) != 2) r = -1;
        parsed = 1;
    }
    return r == b->rank && k > 0 && rep % k == 0;
}

static int rt_before(isochron_bench_t *b, point_state_t *ps, int rep, int *late)
{
    double start = 0;
    if (b->rank == 0) start = isochron_clock_now(b->clk) + ps->slack * b->bcast_lat;
    int rc = isochron_bench_bcast(b, &start, 1, MPI_DOUBLE, 0);
    if (rc) return isochron_set_error(rc, "roundtime: broadcasting the start time failed");
    *late = isochron_clock_now(b->clk) >= start; /* Alg. 5 line 14: late at the first check */
    if (!*late) isochron_bench_wait_until(b, start);
    if (test_late(b, rep)) isochron_bench_wait_until(b, start + 3 * b->bcast_lat + 100e-6);
    ps->start_at = start;
    return ISOCHRON_OK;
}

static int rt_after(isochron_bench_t *b, point_state_t *ps, int rep, double t_end, int *invalid, int *stop)
{
    (void)rep;
    /* Stricter than Alg. 5: a rank that was on time at its first check but
     * actually started more than the tolerance (one Bcast latency unless
     * widened, see rt_adapt) after the start time (it
     * was descheduled while waiting, as happens when ranks outnumber cores)
     * also makes the repetition invalid: its start was not simultaneous. */
    int late_start = !*invalid && ps->rep_start - ps->start_at > ps->tolerance;
    int in[3] = {*invalid, late_start, t_end - ps->t0 >= b->o.budget}, out[3];
    if (isochron_bench_allreduce(b, in, out, 3, MPI_INT, MPI_MAX)) return isochron_set_error(ISOCHRON_EMPI, "roundtime: MPI_Allreduce failed");
    *invalid = out[0] || out[1];
    *stop = out[2];
    ps->n_reps++;
    ps->n_late_first += out[0];
    ps->n_late_start += out[1] && !out[0];
    return ISOCHRON_OK;
}

const scheme_t isochron_scheme_roundtime = {"roundtime", "Round-Time (Alg. 5): start times broadcast with slack B x Bcast latency, invalid/out-of-time flags per repetition", 1, rt_begin, rt_before, rt_after, rt_adapt};
