/*
 * The global clock of a driver: the base timer (with injected skew), the sync budget (the library's,
 * isochron_sync_budget in src/sync/budget.c: the driver passes --sync-limit and says what was decided),
 * the synchronization, the tracker and the Alg. 6 check right after it (paper000), summarized as the
 * context's "clock_sync" object.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "common.h"

int app_make_timer(const char *prog, const char *name, const isochron_skew_spec_t *skew, MPI_Comm comm,
                   isochron_timer_t **out, isochron_skew_t *my_skew)
{
    int rank, size, rc, all;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(my_skew, 0, sizeof *my_skew);
    *out = NULL;
    int key = rank, nkeys = size; /* by=host: the index of this rank's host, in order of first rank */
    if (skew->per_host) {
        MPI_Comm node, leaders;
        int nrank;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &nrank);
        MPI_Comm_split(comm, nrank == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
        if (nrank == 0) { MPI_Comm_rank(leaders, &key); MPI_Comm_size(leaders, &nkeys); MPI_Comm_free(&leaders); }
        MPI_Bcast(&key, 1, MPI_INT, 0, node);
        MPI_Comm_free(&node);
        MPI_Bcast(&nkeys, 1, MPI_INT, 0, comm);
    }
    for (int i = 0; i < skew->nexplicit; i++)
        if (skew->explicit_rank[i] >= nkeys) {
            if (rank == 0) fprintf(stderr, "%s: --skew: %s %d given but the job has %d %ss (0..%d)\n", prog, skew->per_host ? "host" : "rank",
                                   skew->explicit_rank[i], nkeys, skew->per_host ? "host" : "rank", nkeys - 1);
            return 2;
        }
    isochron_timer_t *t = NULL;
    rc = isochron_timer_create(name, &t);
    if (!rc && isochron_skew_spec_active(skew)) {
        isochron_timer_t *sk;
        isochron_skew_for_rank(skew, key, my_skew);
        if (skew->per_host) my_skew->seed ^= (uint64_t)rank * 0x9E3779B97F4A7C15ull; /* read jitter is per process */
        if ((rc = isochron_timer_skew(t, my_skew, &sk))) isochron_timer_destroy(t), t = NULL;
        else t = sk;
    }
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
        if (rank == 0) fprintf(stderr, "%s: --timer/--skew: %s\n", prog, rc ? isochron_last_error() : "refused on another rank");
        isochron_timer_destroy(t);
        return 2;
    }
    *out = t;
    return 0;
}

static double sync_limit = 600, sync_watchdog = -1;
void app_sync_watchdog(double secs) { sync_watchdog = secs; }

int app_parse_sync_limit(const char *prog, const char *v, int rank)
{
    double d;
    if (!v) return 0;
    if (isochron_parse_duration(v, &d) || d < 0 || d > 1e7) {
        if (rank == 0) fprintf(stderr, "%s: --sync-limit '%s': expected seconds in [0, 1e7] (0: no limit)\n", prog, v);
        return 2;
    }
    sync_limit = d;
    return 0;
}

/* The sync budget is the library's (isochron_sync_budget, src/sync/budget.c): the driver passes its
 * options, says what the library decided, and arms the watchdog for the sync phase. */
static isochron_sync_plan_t guard_plan; /* the last app_sync_guard's plan */

void app_sync_done(const char *prog, const isochron_sync_report_t *rep, int rank)
{
    char line[1024];
    if (rank == 0 && isochron_sync_review(&guard_plan, rep, 1, line, sizeof line)) fprintf(stderr, "%s: note: %s\n", prog, line);
    if (rank == 0 && isochron_sync_review(&guard_plan, rep, 2, line, sizeof line)) fprintf(stderr, "%s: warning: %s\n", prog, line);
}

int app_sync_guard(const char *prog, isochron_sync_spec_t *spec, char *spec_text, size_t textlen, int fit_given, MPI_Comm comm,
                   const char *out, int quiet)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    isochron_sync_budget_opts_t bo;
    isochron_sync_budget_opts_default(&bo);
    bo.fit_given = fit_given;
    bo.limit = sync_limit;
    int rc = isochron_sync_budget(spec, comm, &bo, &guard_plan);
    isochron_sync_spec_format(spec, spec_text, textlen);
    if (rc && rank == 0 && sync_limit > 0 && guard_plan.estimate > sync_limit)
        fprintf(stderr, "%s: --sync %s: estimated to take %.3g s at %d ranks (round trip %.2g us measured), beyond --sync-limit %.3g s; "
                        "use fewer fit points or ping-pongs, or raise --sync-limit (0: no limit)\n", prog, spec_text, guard_plan.estimate,
                guard_plan.nprocs, guard_plan.rtt * 1e6, sync_limit);
    else if (rc && rank == 0) fprintf(stderr, "%s: --sync: %s\n", prog, isochron_last_error());
    if (rc) return 2;
    char line[2048];
    if (rank == 0 && isochron_sync_plan_say(&guard_plan, spec, ISOCHRON_SYNC_SAY_SLOW, line, sizeof line)) fprintf(stderr, "%s: warning: %s\n", prog, line);
    if (rank == 0 && isochron_sync_plan_say(&guard_plan, spec, ISOCHRON_SYNC_SAY_SHRUNK, line, sizeof line)) fprintf(stderr, "%s: note: %s\n", prog, line);
    if (rank == 0 && !quiet && isochron_sync_plan_say(&guard_plan, spec, ISOCHRON_SYNC_SAY_PLAN, line, sizeof line))
        fprintf(stderr, "%s: synchronizing %d ranks with %s: %s ...\n", prog, guard_plan.nprocs, spec_text, line);
    char what[256];
    snprintf(what, sizeof what, "clock synchronization (%s, estimated %.2g s)", spec_text, guard_plan.estimate);
    app_watchdog_arm(prog, sync_watchdog >= 0 ? sync_watchdog : 3 * guard_plan.estimate + 60, rank, what, out);
    return 0;
}

static int clock_node_size;
void app_clock_node_size(int n) { clock_node_size = n; }
static const isochron_xport_t *clock_xport; /* NULL: MPI */
void app_clock_transport(const isochron_xport_t *x) { clock_xport = x; }

int app_clock_options(const char *prog, const char *sync, const char *skew, const char *node_size, int rank)
{
    isochron_sync_spec_t sp;
    isochron_skew_spec_t sk;
    int n;
    if (isochron_sync_spec_parse(sync ? sync : APP_SYNC_TRACKED, &sp)) {
        if (rank == 0) fprintf(stderr, "%s: --sync: %s\n", prog, isochron_last_error());
        return 2;
    }
    if (app_parse_node_size(prog, node_size, rank, &n)) return 2;
    if (isochron_skew_spec_parse(skew ? skew : APP_DEFAULT_SKEW, &sk)) {
        if (rank == 0) fprintf(stderr, "%s: --skew: %s\n", prog, isochron_last_error());
        return 2;
    }
    app_clock_node_size(n);
    return 0;
}

int app_clock_setup(const char *prog, const char *sync, const char *timer, const char *skew, int track, MPI_Comm comm, int quiet,
                    app_clock_t *c)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(c, 0, sizeof *c);
    isochron_skew_spec_t sk;
    if (isochron_sync_spec_parse(sync ? sync : track ? APP_SYNC_TRACKED : APP_SYNC_UNTRACKED, &c->spec)) {
        if (rank == 0) fprintf(stderr, "%s: --sync: %s\n", prog, isochron_last_error());
        return 2;
    }
    c->spec.node_size = clock_node_size;
    c->spec.xport = clock_xport;
    if (isochron_skew_spec_parse(skew ? skew : APP_DEFAULT_SKEW, &sk)) {
        if (rank == 0) fprintf(stderr, "%s: --skew: %s\n", prog, isochron_last_error());
        return 2;
    }
    isochron_skew_t my_skew;
    if (app_make_timer(prog, timer ? timer : APP_DEFAULT_TIMER, &sk, comm, &c->timer, &my_skew)) return 2;
    isochron_clock_create(c->timer, &c->base);
    if (app_sync_guard(prog, &c->spec, c->spec_text, sizeof c->spec_text, sync == NULL, comm, NULL, quiet)) { app_clock_free(c); return 2; }
    int src = isochron_sync_run(&c->spec, comm, c->base, &c->global, &c->rep);
    app_watchdog_disarm();
    if (!src) app_sync_done(prog, &c->rep, rank);
    if (src) {
        if (rank == 0) fprintf(stderr, "%s: synchronization failed: %s\n", prog, isochron_last_error());
        app_clock_free(c);
        return 2;
    }
    isochron_track_opts_t to;
    isochron_track_opts_default(&to);
    to.follow = c->rep.follows; /* ranks that copied a model by prop copy its correction too */
    to.xport = clock_xport;
    if (track && isochron_track_create(comm, c->global, &to, &c->track)) {
        if (rank == 0) fprintf(stderr, "%s: clock tracking failed: %s\n", prog, isochron_last_error());
        app_clock_free(c);
        return 2;
    }
    double waits[1] = {0};
    isochron_accuracy_t *acc = rank == 0 ? calloc((size_t)size, sizeof *acc) : NULL;
    int has_truth = 0;
    if (isochron_sync_check_xport(comm, c->global, NULL, clock_xport, waits, 1, 50, acc, &has_truth)) {
        if (rank == 0) fprintf(stderr, "%s: clock check failed: %s\n", prog, isochron_last_error());
        free(acc);
        app_clock_free(c);
        return 2;
    }
    double meas = 0, truth = 0;
    for (int i = 0; rank == 0 && i < size; i++) {
        if (fabs(acc[i].measured_offset) > meas) meas = fabs(acc[i].measured_offset);
        if (fabs(acc[i].true_offset) > truth) truth = fabs(acc[i].true_offset);
    }
    free(acc);
    char *t = rank == 0 ? isochron_report_clock_sync_json(c->spec_text, &c->rep, c->spec.node_size, meas, has_truth ? truth : NAN, track)
                        : NULL;
    if (t) snprintf(c->json, sizeof c->json, "%s", t);
    free(t);
    return 0;
}

void app_clock_free(app_clock_t *c)
{
    isochron_track_destroy(c->track);
    c->track = NULL;
    isochron_clock_destroy(c->global);
    isochron_clock_destroy(c->base);
    isochron_timer_destroy(c->timer);
    c->global = c->base = NULL;
    c->timer = NULL;
}
