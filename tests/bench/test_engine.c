/*
 * test_engine: the benchmark engine produces valid, consistent results with
 * every scheme x timing method, never reports statistics over zero valid
 * repetitions, stops every rank together when one rank finds wrong data, and
 * refuses bad options with the valid choices listed. Runs at np 2, 3, 4.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "isochron/bench.h"
#include "check.h"
#include "check_clock.h"

static int rank, size;

/* Set by measure(): ranks outnumber the node's cores. */
static int oversubscribed, mpich;

static int measure(isochron_clock_t *g, const char *scheme, const char *method, double window, const isochron_op_t *op,
                   size_t bytes, isochron_point_t *pt)
{
    isochron_bench_opts_t o;
    isochron_bench_opts_default(&o);
    snprintf(o.scheme, sizeof o.scheme, "%s", scheme);
    snprintf(o.method, sizeof o.method, "%s", method);
    o.min_reps = 5;
    o.max_reps = 40;
    o.budget = 0.3;
    o.window = window;
    o.validate = 2;
    o.raw = 1;
    o.nq = 1;
    o.q[0] = 0.9;
    isochron_bench_t *b;
    int rc = isochron_bench_create(MPI_COMM_WORLD, g, &o, &b);
    if (rc) return rc;
    oversubscribed = isochron_bench_oversubscribed(b);
    isochron_op_ctx_t c;
    memset(&c, 0, sizeof c);
    c.bytes = bytes;
    c.dtype = MPI_DATATYPE_NULL;
    c.op = MPI_SUM;
    rc = isochron_bench_measure(b, op, &c, pt);
    isochron_bench_destroy(b);
    return rc;
}

/* A user operation whose validation fails on the last rank at repetition 0. */
static int bad_run(isochron_op_ctx_t *c) { return MPI_Barrier(c->comm) == MPI_SUCCESS ? ISOCHRON_OK : ISOCHRON_EMPI; }
static int bad_validate(isochron_op_ctx_t *c)
{
    return (c->rank == c->size - 1 && c->rep == 0) ? ISOCHRON_EVALIDATE : ISOCHRON_OK;
}
static int nothing(isochron_op_ctx_t *c) { (void)c; return ISOCHRON_OK; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;
    {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        mpich = strstr(lib, "MPICH") != NULL;
    }
    check_clock_t clk;
    check_clock_sync(&clk, "hca3/30/skampi/20,span=0.03");
    isochron_clock_t *g = clk.g;
    isochron_ops_t *ops;
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "ops registry");
    const isochron_op_t *allreduce, *bcast;
    CHECK_RC(isochron_ops_find(ops, "allreduce", &allreduce), ISOCHRON_OK, "find allreduce");
    CHECK_RC(isochron_ops_find(ops, "bcast", &bcast), ISOCHRON_OK, "find bcast");

    const char *schemes[] = {"roundtime", "window", "barrier", "none"};
    const char *methods[] = {"global", "max", "root"};
    for (int s = 0; s < 4; s++)
        for (int m = 0; m < 3; m++) {
            isochron_point_t pt;
            int rc = measure(g, schemes[s], methods[m], 0, allreduce, 16, &pt);
            CHECK_RC(rc, ISOCHRON_OK, "allreduce 16 B, %s/%s", schemes[s], methods[m]);
            if (rc) continue;
            /* Round-Time rejects a repetition in which a rank started later than its
             * tolerance (descheduled while waiting), and adapts slack and tolerance
             * so that a point keeps valid repetitions, also when ranks outnumber
             * cores. Only MPICH, whose collectives busy-poll, can start ranks up to
             * 12 ms apart at 3 ranks on 2 cores: there a point may have none and
             * must then say so. */
            int may_have_none = oversubscribed && mpich && !strcmp(schemes[s], "roundtime");
            CHECK(pt.reps >= pt.valid && (pt.valid >= 1 || may_have_none), "%s/%s: %d valid of %d", schemes[s], methods[m], pt.valid, pt.reps);
            if (pt.valid == 0) {
                CHECK(pt.s.n == 0 && isnan(pt.s.median) && isnan(pt.s.mean), "%s/%s: no valid repetition, so no statistics", schemes[s], methods[m]);
                isochron_point_free(&pt);
                continue;
            }
            if (!strcmp(schemes[s], "roundtime") && rank == 0) {
                /* every valid repetition started on every rank within [start, start + tolerance] */
                int ok = 1;
                for (int i = 0; i < pt.raw_n; i++) {
                    if (!pt.raw_valid[i]) continue;
                    double lo = INFINITY, hi = -INFINITY;
                    for (int p = 0; p < size; p++) {
                        lo = fmin(lo, pt.raw_start[(size_t)i * size + p]);
                        hi = fmax(hi, pt.raw_start[(size_t)i * size + p]);
                    }
                    if (hi - lo > pt.late_tolerance + 1e-9) ok = 0;
                }
                CHECK(ok, "roundtime/%s: starts of every valid repetition within the late-start tolerance (%.3g s)", methods[m], pt.late_tolerance);
            }
            CHECK(pt.s.n == pt.valid, "%s/%s: statistics over the valid repetitions (%d)", schemes[s], methods[m], pt.s.n);
            /* root subtracts the confirmation time (pt.correction), so single
             * repetitions of a tiny operation can come out negative (paper 001,
             * sec. 2.1 says so) but never below -correction, since what is
             * subtracted from is an elapsed time; global and max are differences
             * of timestamps and must be positive */
            double floor_s = strcmp(methods[m], "root") ? 0.0 : -pt.correction - 1e-12;
            CHECK(pt.s.min <= pt.s.median && pt.s.median <= pt.s.max && pt.s.min > floor_s && pt.s.max < 1,
                  "%s/%s: %g < min %.3g <= median %.3g <= max %.3g < 1 s", schemes[s], methods[m], floor_s, pt.s.min, pt.s.median, pt.s.max);
            if (pt.valid >= 2)
                CHECK(pt.s.ci_lo <= pt.s.mean && pt.s.mean <= pt.s.ci_hi, "%s/%s: CI [%.3g, %.3g] contains the mean %.3g", schemes[s], methods[m],
                      pt.s.ci_lo, pt.s.ci_hi, pt.s.mean);
            CHECK(pt.validated >= 1, "%s/%s: data validated in %d repetitions", schemes[s], methods[m], pt.validated);
            CHECK(pt.stop >= ISOCHRON_STOP_CI && pt.stop <= ISOCHRON_STOP_ATTEMPTS, "%s/%s: stop reason %d", schemes[s], methods[m], pt.stop);
            if (rank == 0) {
                CHECK(pt.raw_n == pt.reps, "%s/%s: raw data for every repetition (%d)", schemes[s], methods[m], pt.raw_n);
                int ok = 1;
                for (int i = 0; i < pt.raw_n; i++)
                    for (int p = 0; p < size; p++)
                        if (!(pt.raw_end[(size_t)i * size + p] >= pt.raw_start[(size_t)i * size + p])) ok = 0;
                CHECK(ok, "%s/%s: raw end >= start for every rank and repetition", schemes[s], methods[m]);
                if (!strcmp(methods[m], "global") && pt.raw_n > 0) {
                    /* global = last end - first start of the same repetition (per call: a loop's repetition is loop_k calls) */
                    int i = 0;
                    double lo = INFINITY, hi = -INFINITY;
                    for (int p = 0; p < size; p++) {
                        if (pt.raw_start[p] < lo) lo = pt.raw_start[p];
                        if (pt.raw_end[p] > hi) hi = pt.raw_end[p];
                    }
                    CHECK(pt.loop_k >= 1 && fabs(pt.raw_time[i] - (hi - lo) / pt.loop_k) < 1e-12,
                          "%s/global: repetition 0 time %.9g = (last end - first start %.9g) / loop_k %d", schemes[s], pt.raw_time[i], hi - lo, pt.loop_k);
                }
            }
            isochron_point_free(&pt);
        }

    /* the ack method on bcast (barrier scheme) */
    {
        isochron_point_t pt;
        int rc = measure(g, "barrier", "ack", 0, bcast, 1024, &pt);
        CHECK_RC(rc, ISOCHRON_OK, "bcast 1 KiB with the ack method");
        /* the ack time is half a measured round trip: positive and finite (its size is the machine's) */
        if (!rc) CHECK(pt.valid >= 1 && pt.correction > 0 && isfinite(pt.correction), "ack: %d valid, ack time %.3g s", pt.valid, pt.correction);
        isochron_point_free(&pt);
        rc = measure(g, "barrier", "ack", 0, allreduce, 8, &pt);
        CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "broadcast"), "ack refused for allreduce: \"%s\"", isochron_last_error());
    }

    /* the overlap method on a non-blocking operation; refused on a blocking one */
    {
        const isochron_op_t *iallreduce;
        CHECK_RC(isochron_ops_find(ops, "iallreduce", &iallreduce), ISOCHRON_OK, "find iallreduce");
        isochron_point_t pt;
        int rc = measure(g, "barrier", "overlap", 0, iallreduce, 1024, &pt);
        CHECK_RC(rc, ISOCHRON_OK, "iallreduce 1 KiB with the overlap method");
        if (!rc)
            CHECK(pt.valid >= 1 && pt.overlap >= 0 && pt.overlap <= 1 && pt.t_comm > 0 && pt.t_comp == pt.t_comm && pt.s.median >= pt.t_comp,
                  "overlap %.2f in [0,1], comm %.3g s, comp %.3g s, total %.3g s >= comp", pt.overlap, pt.t_comm, pt.t_comp, pt.s.median);
        isochron_point_free(&pt);
        rc = measure(g, "barrier", "overlap", 0, allreduce, 8, &pt);
        CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "non-blocking"), "overlap refused for blocking allreduce: \"%s\"", isochron_last_error());
    }

    /* a window far too small: every repetition is late; no statistics over zero valid */
    {
        isochron_point_t pt;
        int rc = measure(g, "window", "global", 1e-9, allreduce, 8, &pt);
        CHECK_RC(rc, ISOCHRON_OK, "window of 1 ns runs");
        if (!rc) {
            CHECK(pt.valid < pt.reps, "1 ns window: %d of %d repetitions invalid", pt.reps - pt.valid, pt.reps);
            if (pt.valid == 0) CHECK(pt.s.n == 0 && isnan(pt.s.median) && isnan(pt.s.mean), "no valid repetitions gives no statistics (NaN)");
        }
        isochron_point_free(&pt);
    }

    /* wrong data on one rank stops every rank with EVALIDATE (no deadlock) */
    {
        isochron_op_t bad;
        memset(&bad, 0, sizeof bad);
        bad.name = "bad_validation";
        bad.family = "barrier";
        bad.description = "test: fails validation on the last rank";
        bad.setup = nothing;
        bad.run = bad_run;
        bad.validate = bad_validate;
        CHECK_RC(isochron_ops_register(ops, &bad), ISOCHRON_OK, "register a user op");
        const isochron_op_t *bp;
        isochron_ops_find(ops, "bad_validation", &bp);
        isochron_point_t pt;
        int rc = measure(g, "barrier", "global", 0, bp, 0, &pt);
        CHECK_RC(rc, ISOCHRON_EVALIDATE, "validation failure on rank %d reaches rank %d", size - 1, rank);
    }

    /* the stop rule on the CI (isochron_bench_ci_met; the engine and isochron-bench --passes use it):
     * the median's CI half-width (or the mean's, with ci_mean) within rel_ci of |median| (|mean|),
     * with min_reps valid repetitions at least and rel_ci > 0 */
    {
        isochron_bench_opts_t o;
        isochron_bench_opts_default(&o); /* rel_ci 0.05, min_reps 10, CI of the median */
        isochron_summary_t su;
        memset(&su, 0, sizeof su);
        su.median = -1.0; su.med_lo = -1.04; su.med_hi = -0.96; /* half-width 0.04: within 5 % of |median| */
        su.mean = 1.0; su.ci_half = 0.5;
        CHECK(isochron_bench_ci_met(&o, &su, 10), "stop rule: median CI 4 %% of |median| at 10 valid meets 5 %%");
        CHECK(!isochron_bench_ci_met(&o, &su, 9), "stop rule: not before min-reps valid repetitions");
        su.med_lo = -1.07; su.med_hi = -0.95;
        CHECK(!isochron_bench_ci_met(&o, &su, 10), "stop rule: median CI 6 %% does not meet 5 %%");
        o.ci_mean = 1;
        su.ci_half = 0.04;
        CHECK(isochron_bench_ci_met(&o, &su, 10), "stop rule: with ci_mean the mean's CI (4 %%) decides");
        su.ci_half = 0.06;
        CHECK(!isochron_bench_ci_met(&o, &su, 10), "stop rule: mean CI 6 %% does not meet 5 %%");
        su.ci_half = 0;
        o.rel_ci = 0;
        CHECK(!isochron_bench_ci_met(&o, &su, 10), "stop rule: rel-ci 0 never stops on the CI");
    }

    /* bad options */
    {
        isochron_bench_opts_t o;
        isochron_bench_opts_default(&o);
        snprintf(o.scheme, sizeof o.scheme, "nosuch");
        CHECK(isochron_bench_opts_check(&o) == ISOCHRON_ENAME && strstr(isochron_last_error(), "roundtime") && strstr(isochron_last_error(), "window"),
              "unknown scheme lists the valid ones: \"%s\"", isochron_last_error());
        isochron_bench_opts_default(&o);
        snprintf(o.method, sizeof o.method, "nosuch");
        CHECK(isochron_bench_opts_check(&o) == ISOCHRON_ENAME && strstr(isochron_last_error(), "global"), "unknown method lists the valid ones");
        isochron_bench_opts_default(&o);
        o.min_reps = 10; o.max_reps = 5;
        CHECK(isochron_bench_opts_check(&o) == ISOCHRON_EINVAL, "min-reps > max-reps refused: \"%s\"", isochron_last_error());
        isochron_bench_opts_default(&o);
        snprintf(o.method, sizeof o.method, "ack");
        CHECK(isochron_bench_opts_check(&o) == ISOCHRON_EINVAL, "ack with roundtime refused: \"%s\"", isochron_last_error());
        isochron_bench_opts_default(&o);
        o.ci_level = 1.5;
        CHECK(isochron_bench_opts_check(&o) == ISOCHRON_EINVAL, "confidence level 1.5 refused");
    }
    isochron_ops_destroy(ops);
    check_clock_free(&clk);
    int fails = check_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("test_engine: %d checks on rank 0, %d failures over all ranks\n", check_count, all);
    MPI_Finalize();
    return all ? 1 : 0;
}
