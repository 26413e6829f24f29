/*
 * test_truth_first: the accuracy check's truth is exact at a first check
 * (issue 35). Each call of isochron_sync_check with the single wait 0 is a
 * first check: the check's truth used to take each rank's sample unordered
 * against rank 0's two, and estimated rank 0's rate over those two alone (a
 * few us apart): 3 of 20 launches of clock_truth_timens reported a true
 * error of 455 ns where the real one was tens of ns.
 * This test computes the truth itself, independently of the check: the
 * timer is "monotonic", so a rank's base reading at truth instant m (the
 * kernel's CLOCK_MONOTONIC less the time namespace's offset) is
 * m + that offset, and its global clock there is that reading through the
 * injected skew and the model: G_i(m), a function every rank evaluates for
 * any m it is given. Rank 0 reads m when the check begins and after it
 * returns; the global clocks are affine in m (drift injected, no drift
 * change, linear models, no tracker), so the true offset G_i(m) - G_0(m) at
 * any instant between lies between its values at the two ends, and the
 * check's true offset must too, to within the rounding of doubles (never a
 * timing threshold). Two parts, CHECKS first checks each:
 *  A. exact values: the synchronized clocks (the ends move a few ns apart
 *     at most); the old oracle's pairing of truth and base reads was off by
 *     0.04-1.7 ns in most checks, now 0.
 *  B. every sample inside the check: a layer of 1000 ppm on every rank but 0
 *     (pushed after part A, offset 0 then) makes the truth move 1 ns per us,
 *     and the check's "begins" is after rank 0's callback at w = -1 (which
 *     isochron-clock uses to write its output; here it naps 300 us): a rank
 *     sampling while rank 0 was still in it, as the old check did, reports an
 *     offset from before the check's interval.
 * Run by tests/sync/check_truth_first.sh with rank 1 in its own time
 * namespace (the truth across "nodes"), quiet and beside a CPU hog; it runs
 * on one namespace too. Usage: test_truth_first [CHECKS [SEED]].
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "check.h"

static int rank, size;

/* this rank's global clock at truth instant m: the base (CLOCK_MONOTONIC) reads m + the namespace's offset */
static double global_at(const isochron_clock_t *g, double m)
{
    return isochron_clock_apply(g, isochron_timer_skew_apply(isochron_clock_timer(g), m + isochron_truth_timens_offset()));
}

/* rank 0's callback before the first wait: a pause (as a driver writing its output), then the check "begins" */
static void begun(int w, void *arg)
{
    if (w != -1) return;
    isochron_sleep(300e-6);
    ((double *)arg)[0] = isochron_truth_now();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int checks = argc > 1 ? atoi(argv[1]) : 20;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 3511;
    check_quiet = 1;
    isochron_timer_t *base = NULL, *t = NULL;
    CHECK_RC(isochron_timer_create("monotonic", &base), ISOCHRON_OK, "rank %d: monotonic", rank);
    isochron_skew_spec_t sp;
    char spec_text[64];
    snprintf(spec_text, sizeof spec_text, "drift=5,offset=1ms,seed=%llu", seed);
    CHECK_RC(isochron_skew_spec_parse(spec_text, &sp), ISOCHRON_OK, "skew %s", spec_text);
    isochron_skew_t sk;
    isochron_skew_for_rank(&sp, rank, &sk);
    CHECK_RC(isochron_timer_skew(base, &sk, &t), ISOCHRON_OK, "rank %d: skewed", rank);
    isochron_clock_t *c = NULL, *g = NULL;
    CHECK_RC(isochron_clock_create(t, &c), ISOCHRON_OK, "rank %d: clock", rank);
    isochron_sync_spec_t spec;
    CHECK_RC(isochron_sync_spec_parse("hca3/10/skampi/10", &spec), ISOCHRON_OK, "parse the sync spec");
    isochron_sync_report_t rep;
    int rc = isochron_sync_run(&spec, MPI_COMM_WORLD, c, &g, &rep);
    CHECK_RC(rc, ISOCHRON_OK, "rank %d: sync", rank);
    if (rc) MPI_Abort(MPI_COMM_WORLD, 1);
    const double waits[1] = {0.0};
    isochron_accuracy_t *out = calloc((size_t)size, sizeof *out);
    double *ends = malloc(sizeof(double) * 2 * (size_t)size);
    int bad[2] = {0, 0}, has_truth = 0;
    double worst[2] = {0, 0}, widest[2] = {0, 0};
    for (int part = 0; part < 2; part++) {
        if (part == 1 && rank > 0) { /* 1000 ppm against rank 0, 0 at this instant */
            double x = isochron_clock_now(g);
            isochron_lm_t steep = {1e-3, -1e-3 * x, ISOCHRON_LM_LINEAR}; /* ref = t + slope t + intercept */
            int idx;
            CHECK_RC(isochron_clock_push_layer(g, steep, &idx), ISOCHRON_OK, "rank %d: steep layer", rank);
        }
        for (int k = 0; k < checks; k++) {
            double m[2];
            m[0] = isochron_truth_now();
            rc = isochron_sync_check_each(MPI_COMM_WORLD, g, NULL, NULL, waits, 1, 3, out, &has_truth, part ? begun : NULL, m);
            m[1] = isochron_truth_now();
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: check %d", rank, k);
            if (rc) break;
            MPI_Bcast(m, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            double mine[2] = {global_at(g, m[0]), global_at(g, m[1])};
            MPI_Gather(mine, 2, MPI_DOUBLE, ends, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank != 0) continue;
            CHECK(has_truth == 1, "check %d: truth (one kernel)", k);
            for (int i = 1; i < size; i++) {
                double e0 = ends[2 * i] - ends[0], e1 = ends[2 * i + 1] - ends[1], lo = fmin(e0, e1), hi = fmax(e0, e1);
                /* the rounding of the doubles involved: readings near the uptime, in seconds */
                double tol = 64 * DBL_EPSILON * (fabs(ends[2 * i + 1]) + fabs(ends[1])) + 1e-12;
                double tr = out[i].true_offset, miss = tr < lo ? lo - tr : tr > hi ? tr - hi : 0;
                if (miss > worst[part]) worst[part] = miss;
                if (hi - lo > widest[part]) widest[part] = hi - lo;
                if (!(miss <= tol)) {
                    bad[part]++;
                    printf("FAIL part %c check %d rank %d: true offset %.3f ns outside the truth between the check's ends, [%.3f, %.3f] ns "
                           "(%.3f ns off; the ends %.1f us apart)\n", 'A' + part, k, i, tr * 1e9, lo * 1e9, hi * 1e9, miss * 1e9,
                           (m[1] - m[0]) * 1e6);
                }
            }
        }
    }
    for (int part = 0; part < 2 && rank == 0; part++) {
        CHECK(bad[part] == 0, "part %c: %d of %d first checks outside the truth between their ends", 'A' + part, bad[part], checks * (size - 1));
        printf("test_truth_first: part %c: %d checks x %d ranks, %d outside, largest miss %.3f ns; the truth moved up to %.1f ns within a check\n",
               'A' + part, checks, size - 1, bad[part], worst[part] * 1e9, widest[part] * 1e9);
    }
    free(out);
    free(ends);
    isochron_clock_destroy(g);
    isochron_clock_destroy(c);
    isochron_timer_destroy(t);
    int fails = check_failures;
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return fails ? 1 : 0;
}
