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
    ps->adapted = 0;
    return ISOCHRON_OK;
}

/* Too many invalid repetitions in a batch (over 10 %): the start time came
 * too soon for some rank (still finishing the previous repetition, its
 * validation or the next one's data, as 64 KiB operations do at 4 ranks on
 * 2 cores), so double the slack, up to 64 x --slack. The rule that makes a
 * late repetition invalid stays as it is; only the start comes later. */
static void rt_adapt(isochron_bench_t *b, point_state_t *ps, double invalid_share)
{
    if (invalid_share > 0.1 && ps->slack < 64 * b->o.slack) {
        ps->slack *= 2;
        ps->adapted++;
    }
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
     * actually started more than one Bcast latency after the start time (it
     * was descheduled while waiting, as happens when ranks outnumber cores)
     * also makes the repetition invalid: its start was not simultaneous. */
    if (ps->rep_start - ps->start_at > b->bcast_lat) *invalid = 1;
    int in[2] = {*invalid, t_end - ps->t0 >= b->o.budget}, out[2];
    if (isochron_bench_allreduce(b, in, out, 2, MPI_INT, MPI_MAX)) return isochron_set_error(ISOCHRON_EMPI, "roundtime: MPI_Allreduce failed");
    *invalid = out[0];
    *stop = out[1];
    return ISOCHRON_OK;
}

const scheme_t isochron_scheme_roundtime = {"roundtime", "Round-Time (Alg. 5): start times broadcast with slack B x Bcast latency, invalid/out-of-time flags per repetition", 1, rt_begin, rt_before, rt_after, rt_adapt};
