/*
 * Barrier algorithms are barriers: no process leaves before every process
 * has entered (paper 004's algorithms and Open MPI's, include/isochron/
 * barrier.h). The check cannot pass by accident: every rank increments a
 * counter in node-shared memory (MPI_Win_allocate_shared, C11-style atomics)
 * just before it enters barrier k, and reads it just after it leaves; it
 * must read at least p(k+1) (everyone entered k) and at most p(k+1) + p - 1
 * (nobody can have left k+1 yet). In every iteration one rank, rotating,
 * sleeps 1 ms before entering and the others sleep random short times, so a
 * rank that leaves early reads a short count. A no-op "barrier" must fail
 * the same check (the negative control), and each algorithm is checked with
 * both wait modes (spin and yield). Also: RDS's busy waits match paper 004's
 * formula w_i = (d - |i|_1)(b_s - s) for p = 2^d and the documented
 * generalization otherwise; unknown names fail listing the valid ones; the
 * trial timestamps are ordered.
 */
#include <stdint.h>
#include <stdlib.h>
#include <mpi.h>
#include "check.h"
#include "isochron/barrier.h"
#include "isochron/timer.h"

enum { ITERS = 24 };

static int rank, size;
static long *counter; /* node-shared */

static int noop_barrier(void *arg) { (void)arg; return ISOCHRON_OK; }
static int real_barrier(void *arg) { return isochron_barrier_run(arg); }

/* Returns the number of violations seen by this rank. */
static int count_violations(int (*bar)(void *), void *arg, unsigned seed)
{
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) __atomic_store_n(counter, 0, __ATOMIC_SEQ_CST);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < ITERS; k++) {
        seed = seed * 1103515245u + 12345u + (unsigned)rank;
        if (k % size == rank) isochron_sleep(1e-3);
        else isochron_sleep(((seed >> 16) % 100) * 1e-6);
        __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
        if (bar(arg) != ISOCHRON_OK) return ITERS;
        long c = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
        if (c < (long)size * (k + 1) || c > (long)size * (k + 1) + size - 1) bad++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return bad;
}

static int all_sum(int v)
{
    int s;
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize;
    MPI_Comm_size(node, &nsize);
    CHECK(nsize == size, "all %d ranks share one node (the check uses node-shared memory)", size);
    MPI_Win win;
    MPI_Aint wsz;
    int disp;
    long *base;
    MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(long) : 0, sizeof(long), MPI_INFO_NULL, node, &base, &win);
    MPI_Win_shared_query(win, 0, &wsz, &disp, &counter);

    /* negative control: the check catches a barrier that does not wait */
    if (size > 1) {
        int v = all_sum(count_violations(noop_barrier, NULL, 7));
        CHECK(v > 0, "a no-op barrier fails the check (%d violations in %d iterations x %d ranks)", v, ITERS, size);
    }

    const int modes[2] = {ISOCHRON_BARRIER_WAIT_SPIN, ISOCHRON_BARRIER_WAIT_YIELD};
    for (int i = 0; i < isochron_barrier_count(); i++) {
        const char *name = isochron_barrier_info(i)->name;
        for (int m = 0; m < 2; m++) {
            isochron_barrier_opts_t o;
            isochron_barrier_opts_default(&o);
            o.wait = modes[m];
            o.rds_samples = 200;
            isochron_barrier_t *b = NULL;
            CHECK_RC(isochron_barrier_create(name, MPI_COMM_WORLD, &o, &b), ISOCHRON_OK, "create %s (%s)", name, m ? "yield" : "spin");
            if (!b) continue;
            CHECK(isochron_barrier_yields(b) == m, "%s: wait mode as asked", name);
            int v = all_sum(count_violations(real_barrier, b, 11u + (unsigned)i));
            CHECK(v == 0, "%s (%s) at %d ranks: nobody leaves before everyone entered (%d violations)", name, m ? "yield" : "spin", size, v);
            isochron_barrier_destroy(b);
        }
    }

    /* RDS busy waits (paper 004, sec. 3.3) with given constants */
    {
        isochron_barrier_opts_t o;
        isochron_barrier_opts_default(&o);
        o.rds_b_s = 10e-6;
        o.rds_s = 4e-6;
        isochron_barrier_t *b = NULL;
        CHECK_RC(isochron_barrier_create("rds", MPI_COMM_WORLD, &o, &b), ISOCHRON_OK, "create rds with b_s = 10 us, s = 4 us");
        isochron_rds_info_t ri;
        CHECK_RC(isochron_barrier_rds_info(b, &ri), ISOCHRON_OK, "rds info");
        int d = 0;
        while ((1 << d) < size) d++;
        CHECK(ri.d == d && ri.samples == 0 && ri.b_s == 10e-6 && ri.s == 4e-6, "rds: d = %d, constants as given", ri.d);
        double expect;
        if ((size & (size - 1)) == 0) {
            expect = (d - __builtin_popcount((unsigned)rank)) * 6e-6; /* (d - |i|_1)(b_s - s) */
        } else if (size == 3) {
            const double w3[3] = {6e-6, 4e-6, 0}; /* F = 8, 10, 14 us (see src/barrier/rds.c) */
            expect = w3[rank];
        } else {
            expect = ri.wait; /* other sizes: only the checks below */
        }
        CHECK(fabs(ri.wait - expect) < 1e-12, "rds: rank %d waits %.3f us, expected %.3f us", rank, ri.wait * 1e6, expect * 1e6);
        CHECK(ri.wait >= 0 && ri.wait <= ri.max_wait, "rds: 0 <= w_i <= max w");
        int v = all_sum(count_violations(real_barrier, b, 5));
        CHECK(v == 0, "rds with given constants is a barrier (%d violations)", v);
        isochron_barrier_t *m = NULL;
        CHECK_RC(isochron_barrier_create("mpi", MPI_COMM_WORLD, NULL, &m), ISOCHRON_OK, "create mpi");
        CHECK_RC(isochron_barrier_rds_info(m, &ri), ISOCHRON_EINVAL, "rds info of a non-rds barrier is refused");
        isochron_barrier_destroy(m);
        isochron_barrier_destroy(b);
    }
    /* measured constants are positive and the same on every rank */
    {
        isochron_barrier_t *b = NULL;
        isochron_barrier_opts_t o;
        isochron_barrier_opts_default(&o);
        o.rds_samples = 100;
        CHECK_RC(isochron_barrier_create("rds", MPI_COMM_WORLD, &o, &b), ISOCHRON_OK, "create rds (measured)");
        isochron_rds_info_t ri;
        isochron_barrier_rds_info(b, &ri);
        double mine[2] = {ri.b_s, ri.s}, lo[2], hi[2];
        MPI_Allreduce(mine, lo, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(mine, hi, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (size > 1) CHECK(ri.b_s > 0 && ri.s > 0 && ri.samples == 100, "rds measured b_s = %.3f us, s = %.3f us", ri.b_s * 1e6, ri.s * 1e6);
        CHECK(lo[0] == hi[0] && lo[1] == hi[1], "rds constants agree on every rank");
        isochron_barrier_destroy(b);
    }

    /* names */
    isochron_barrier_t *none = NULL;
    CHECK_RC(isochron_barrier_create("nosuch", MPI_COMM_WORLD, NULL, &none), ISOCHRON_ENAME, "unknown barrier refused");
    CHECK(strstr(isochron_last_error(), "rds") && strstr(isochron_last_error(), "sync0"), "the message lists the valid names: %s", isochron_last_error());
    CHECK(none == NULL, "no handle for an unknown name");
    CHECK(isochron_barrier_count() == 8, "8 algorithms registered");

    /* trial: stamps are ordered on every rank (same clock on a rank) */
    {
        isochron_timer_t *t;
        isochron_clock_t *clk;
        isochron_timer_create("monotonic", &t);
        isochron_clock_create(t, &clk);
        isochron_barrier_trial_t *tr;
        CHECK_RC(isochron_barrier_trial_create(MPI_COMM_WORLD, clk, 4096, &tr), ISOCHRON_OK, "trial create");
        isochron_barrier_t *b;
        isochron_barrier_create("dissemination", MPI_COMM_WORLD, NULL, &b);
        isochron_barrier_stamp_t *st = calloc((size_t)size, sizeof *st);
        double t0;
        CHECK_RC(isochron_barrier_trial_start_time(tr, 2e-3, &t0), ISOCHRON_OK, "start time");
        CHECK_RC(isochron_barrier_trial_run(tr, b, t0, 0, 4096, st), ISOCHRON_OK, "trial with a 4 KiB shift");
        CHECK_RC(isochron_barrier_trial_run(tr, b, t0, 0, 8192, st), ISOCHRON_EINVAL, "a shift beyond the allocated size is refused");
        if (rank == 0)
            for (int i = 0; i < size; i++)
                CHECK(st[i].entry >= t0 && st[i].exit >= st[i].entry && st[i].shift_end >= st[i].exit,
                      "rank %d: start <= entry <= exit <= shift end", i);
        /* CLOCK_MONOTONIC is one clock for the whole host, so causality is exact:
         * with the last rank arriving 2 ms late, every exit follows every entry. */
        for (int i = 0; i < isochron_barrier_count(); i++) {
            isochron_barrier_t *bi;
            isochron_barrier_create(isochron_barrier_info(i)->name, MPI_COMM_WORLD, NULL, &bi);
            isochron_barrier_trial_start_time(tr, 2e-3, &t0);
            CHECK_RC(isochron_barrier_trial_run(tr, bi, t0, rank == size - 1 ? 2e-3 : 0, -1, st), ISOCHRON_OK, "trial of %s", isochron_barrier_info(i)->name);
            if (rank == 0) {
                double last_in = -INFINITY, first_out = INFINITY;
                for (int k = 0; k < size; k++) { last_in = fmax(last_in, st[k].entry); first_out = fmin(first_out, st[k].exit); }
                CHECK(first_out >= last_in && last_in >= t0 + 2e-3, "%s: first exit %.1f us after the last entry (on the host clock)",
                      isochron_barrier_info(i)->name, (first_out - last_in) * 1e6);
            }
            isochron_barrier_destroy(bi);
        }
        free(st);
        isochron_barrier_destroy(b);
        isochron_barrier_trial_destroy(tr);
        isochron_clock_destroy(clk);
        isochron_timer_destroy(t);
    }

    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    int fails = all_sum(check_failures);
    if (rank == 0) printf("%d checks, %d failures (all ranks)\n", check_count, fails);
    MPI_Finalize();
    return check_failures ? 1 : 0;
}
