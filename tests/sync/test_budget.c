/*
 * test_budget: a synchronization with a budget (isochron_sync_spec_t.budget)
 * stops pairs that run past their share and reports it, instead of running
 * the whole spec. The spec spreads 100 fit points over 20 s per pair (the
 * client spins between points), far beyond a 0.3 s budget, so every pair
 * must stop at the first check after ISOCHRON_SYNC_MIN_FIT points: this
 * holds on any machine, however fast or loaded (points are 0.2 s apart by
 * construction). Proves:
 *  - the report counts every client pair as cut (size - 1 pairs for hca3 and
 *    skampi at one level) and states each pair's share (budget / rounds);
 *  - each client's fit has between ISOCHRON_SYNC_MIN_FIT and
 *    ISOCHRON_SYNC_MIN_FIT + ISOCHRON_SYNC_BUDGET_CHUNK - 1 points, not 100,
 *    and the sync returns in a few seconds, not 20 s per round;
 *  - the model it achieved is still a model: the true error from
 *    isochron_sync_check against the injected truth (monotonic + skew,
 *    exact) is within 50 us while the injected offsets are milliseconds;
 *  - without a budget the same protocol runs unchanged (a short spec, no
 *    cut, full points), and a negative or NaN budget is EINVAL on every rank.
 * Runs at np 2 and 3.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "check.h"

static int rank, size;

static isochron_timer_t *skewed(void)
{
    static const double off[4] = {-3.0e-3, 4.7e-3, -6.4e-3, 8.1e-3};
    isochron_skew_t s = {off[rank % 4], 0, 0, 0, 4101 + (uint64_t)rank};
    isochron_timer_t *b = NULL, *t = NULL;
    if (isochron_timer_create("monotonic", &b)) return NULL;
    if (isochron_timer_skew(b, &s, &t)) { isochron_timer_destroy(b); return NULL; }
    return t;
}

static int run(const char *text, double budget, isochron_timer_t *t, isochron_sync_report_t *rep, double *err)
{
    isochron_sync_spec_t spec;
    isochron_clock_t *base = NULL, *global = NULL;
    int rc = isochron_sync_spec_parse(text, &spec);
    if (rc) return rc;
    spec.budget = budget;
    if ((rc = isochron_clock_create(t, &base))) return rc;
    rc = isochron_sync_run(&spec, MPI_COMM_WORLD, base, &global, rep);
    if (rc == ISOCHRON_OK && err) {
        double e = NAN;
        *err = isochron_sync_true_error(MPI_COMM_WORLD, global, &e) == ISOCHRON_OK ? e : NAN;
    }
    isochron_clock_destroy(global);
    isochron_clock_destroy(base);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;
    isochron_timer_t *t = skewed();
    CHECK(t != NULL, "skewed monotonic timer");
    const char *specs[] = {"hca3/100/skampi/5,span=20", "skampi/100/skampi/5,span=20"};
    for (int s = 0; s < 2 && t; s++) {
        isochron_sync_report_t rep;
        double err = NAN, t0 = MPI_Wtime();
        int rc = run(specs[s], 0.3, t, &rep, &err);
        double took = MPI_Wtime() - t0;
        CHECK_RC(rc, ISOCHRON_OK, "%s with a 0.3 s budget", specs[s]);
        if (rc) continue;
        int rounds = !strncmp(specs[s], "hca3", 4) ? (size > 2 ? 2 : 1) : size - 1;
        CHECK(rep.cut_pairs == size - 1, "%s: %d of %d client pairs stopped by the budget", specs[s], rep.cut_pairs, size - 1);
        CHECK(fabs(rep.pair_budget - 0.3 / rounds) < 1e-12, "%s: each pair's share %.3f s = 0.3 s over %d round(s)", specs[s],
              rep.pair_budget, rounds);
        int np = rep.fit.npoints, lo = rank == 0 ? 0 : ISOCHRON_SYNC_MIN_FIT, hi = rank == 0 ? 0 : ISOCHRON_SYNC_MIN_FIT + ISOCHRON_SYNC_BUDGET_CHUNK - 1;
        int okp = np >= lo && np <= hi && (rank == 0 || rep.fit.cut == 1), allok = 0;
        MPI_Allreduce(&okp, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        CHECK(allok, "%s: every client fitted %d-%d points (rank %d: %d, cut %d), not 100", specs[s], ISOCHRON_SYNC_MIN_FIT,
              ISOCHRON_SYNC_MIN_FIT + ISOCHRON_SYNC_BUDGET_CHUNK - 1, rank, np, rep.fit.cut);
        CHECK(took < 20, "%s: returned after %.1f s, not 20 s per round", specs[s], took);
        if (rank == 0) CHECK(err < 50e-6, "%s: true error %.3g us after the cut sync (injected offsets: ms)", specs[s], err * 1e6);
    }
    if (t) {
        isochron_sync_report_t rep;
        int rc = run("hca3/12/skampi/5", 0, t, &rep, NULL);
        CHECK_RC(rc, ISOCHRON_OK, "hca3/12 without a budget");
        if (!rc) {
            CHECK(rep.cut_pairs == 0 && rep.pair_budget == 0, "no budget: no pair cut (%d), no share (%g)", rep.cut_pairs, rep.pair_budget);
            if (rank > 0) CHECK(rep.fit.npoints >= 12 && rep.fit.cut == 0, "no budget: rank %d fitted all %d points", rank, rep.fit.npoints);
        }
        CHECK_RC(run("hca3/12/skampi/5", -1, t, &rep, NULL), ISOCHRON_EINVAL, "a negative budget");
        CHECK_RC(run("hca3/12/skampi/5", NAN, t, &rep, NULL), ISOCHRON_EINVAL, "a NaN budget");
    }
    isochron_timer_destroy(t);
    MPI_Finalize();
    return check_failures ? 1 : 0;
}
