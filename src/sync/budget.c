/*
 * The sync budget: how long a synchronization may take on this network,
 * decided before it runs (isochron/sync.h, isochron_sync_budget). A spec's
 * cost is its pairwise rounds times what one pair does (nfit fit points of
 * npingpongs round trips; isochron_sync_estimate, after paper000's Alg. 2),
 * so a round trip measured first says whether it fits. On a healthy network
 * every default spec takes well under a second; on a starved one (the
 * namespace cluster with a busy-polling rank on every core: 8-30 ms round
 * trips, docs/cluster.md) hca3's 40 x 30 round trips per pair took 29 s.
 *
 * Policy: a spec without parameters ("hca3", "hca3+prop", "jk": the
 * algorithms' defaults, chosen for a sub-µs network) gets a budget of 2 s:
 * its fit points and ping-pongs are halved until the estimate fits, and
 * isochron_sync_spec_t.budget stops pairs that still run past their share
 * (the clock's bounds then state what was achieved). A spec given with
 * parameters is the user's: kept as given, refused only beyond the limit.
 * The probe runs over the sync's own transport on a duplicate communicator,
 * so that it measures the path the sync will take.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

#define PROBE_N 20
#define MIN_PP 5

void isochron_sync_budget_opts_default(isochron_sync_budget_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->budget = ISOCHRON_SYNC_BUDGET_DEFAULT;
    o->limit = 600;
}

int isochron_sync_spec_defaulted(const isochron_sync_spec_t *spec)
{
    for (int l = 0; l < spec->nlevels; l++)
        if (spec->level[l].given) return 0;
    return 1;
}

int isochron_sync_probe(MPI_Comm comm, const isochron_xport_t *xport, double *rtt, double *rtt_min)
{
    int rank, size, rc = ISOCHRON_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const isochron_xport_t *x = xport ? xport : isochron_xport_mpi();
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    double r[PROBE_N], both[2] = {0, 0};
    int peer = size - 1, addr = 0;
    if (size > 1 && (rank == 0 || rank == peer)) {
        rc = x->peer(x, dup, rank == 0 ? peer : 0, &addr);
        for (int i = 0; i < PROBE_N && !rc; i++) {
            double v = 0, t0 = MPI_Wtime();
            if (rank == 0) {
                if (!(rc = x->send(x, dup, addr, TAG_PING, v, 0))) rc = x->recv(x, dup, addr, TAG_PONG, &v);
            } else if (!(rc = x->recv(x, dup, addr, TAG_PING, &v)))
                rc = x->send(x, dup, addr, TAG_PONG, v, 0);
            r[i] = MPI_Wtime() - t0;
        }
        for (int i = 1; i < PROBE_N; i++) /* insertion sort: the minimum and the median */
            for (int k = i; k > 0 && r[k] < r[k - 1]; k--) { double t = r[k]; r[k] = r[k - 1]; r[k - 1] = t; }
        if (!rc) { both[0] = 0.5 * (r[PROBE_N / 2 - 1] + r[PROBE_N / 2]); both[1] = r[0]; }
    }
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, dup);
    MPI_Bcast(both, 2, MPI_DOUBLE, 0, dup);
    MPI_Comm_free(&dup);
    *rtt = both[0];
    *rtt_min = both[1];
    if (all && !rc) return isochron_set_error(all, "sync budget: the round-trip probe failed on another rank");
    return all;
}

/* Fewer fit points and ping-pongs per level until the estimate fits the budget (never below
 * ISOCHRON_SYNC_MIN_FIT fit points and MIN_PP ping-pongs): the larger of the two is halved first.
 * 1 if it changed. */
static int shrink(isochron_sync_spec_t *spec, int size, double rtt, double budget)
{
    int changed = 0;
    const int mf = ISOCHRON_SYNC_MIN_FIT;
    while (isochron_sync_estimate(spec, size, rtt) > budget) {
        int any = 0;
        for (int l = 0; l < spec->nlevels; l++) {
            isochron_sync_level_t *lv = &spec->level[l];
            if (lv->nfit > mf && lv->nfit >= 2 * lv->npingpongs) { lv->nfit = lv->nfit / 2 > mf ? lv->nfit / 2 : mf; any = 1; }
            else if (lv->npingpongs > MIN_PP) { lv->npingpongs = lv->npingpongs / 2 > MIN_PP ? lv->npingpongs / 2 : MIN_PP; any = 1; }
            else if (lv->nfit > mf) { lv->nfit = lv->nfit / 2 > mf ? lv->nfit / 2 : mf; any = 1; }
        }
        if (!any) break;
        changed = 1;
    }
    return changed;
}

int isochron_sync_budget(isochron_sync_spec_t *spec, MPI_Comm comm, const isochron_sync_budget_opts_t *o, isochron_sync_plan_t *plan)
{
    isochron_sync_budget_opts_t d;
    if (!o) { isochron_sync_budget_opts_default(&d); o = &d; }
    memset(plan, 0, sizeof *plan);
    int rank, rc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &plan->nprocs);
    plan->peer = plan->nprocs - 1;
    isochron_sync_spec_format(spec, plan->given, sizeof plan->given);
    if ((rc = isochron_sync_probe(comm, spec->xport, &plan->rtt, &plan->rtt_min))) return rc;
#ifndef SMPI_ISOCHRON
    /* more ranks on one kernel than the CPUs they may use (collective): the likely cause of a slow network */
    plan->oversubscribed = isochron_sync_oversubscribed(comm);
    plan->slow = plan->rtt > ISOCHRON_SYNC_SLOW_RTT;
#endif
    plan->estimate = plan->estimate_given = isochron_sync_estimate(spec, plan->nprocs, plan->rtt);
    plan->budgeted = o->budget > 0 && (o->fit_given || isochron_sync_spec_defaulted(spec));
    if (plan->budgeted) {
        plan->budget = spec->budget = o->budget;
        if (plan->estimate > o->budget && shrink(spec, plan->nprocs, plan->rtt, o->budget)) {
            plan->shrunk = 1;
            plan->estimate = isochron_sync_estimate(spec, plan->nprocs, plan->rtt);
        }
    }
    if (o->limit > 0 && plan->estimate > o->limit) {
        char text[1024];
        isochron_sync_spec_format(spec, text, sizeof text);
        return isochron_set_error(ISOCHRON_EINVAL, "sync spec %s: estimated to take %.3g s at %d ranks (round trip %.2g us measured), beyond the "
                                  "limit of %.3g s; use fewer fit points or ping-pongs, or raise the limit (0: no limit)", text, plan->estimate,
                                  plan->nprocs, plan->rtt * 1e6, o->limit);
    }
    return ISOCHRON_OK;
}

static const char starved[] = "with Open MPI run --mca mpi_yield_when_idle 1, or leave a core free per node";

size_t isochron_sync_plan_say(const isochron_sync_plan_t *plan, const isochron_sync_spec_t *spec, int what, char *buf, size_t len)
{
    int n = 0;
    if (len) buf[0] = 0;
    if (what == ISOCHRON_SYNC_SAY_SLOW && plan->slow)
        n = snprintf(buf, len, "exchanges are slow: a round trip between rank 0 and rank %d takes %.2f ms (median of %d; best %.3f ms), where "
                               "shared memory takes about 1 us and TCP 20-100 us: %s%s", plan->peer, plan->rtt * 1e3, PROBE_N, plan->rtt_min * 1e3,
                     plan->oversubscribed ? "ranks polling on every core starve the kernel's network path (more ranks than cores here); " : "",
                     plan->oversubscribed ? starved : "a busy node (a CPU hog, another job) or a degraded link delays it; leave a core free per node, or check the network");
    else if (what == ISOCHRON_SYNC_SAY_SHRUNK && plan->shrunk) {
        char now[1024];
        isochron_sync_spec_format(spec, now, sizeof now);
        n = snprintf(buf, len, "the sync %s would take about %.3g s at this round trip (%.2g ms), over its budget of %.3g s: synchronizing with %s "
                               "(about %.3g s) instead; its clock bounds state what it achieved (a spec given with parameters, e.g. "
                               "hca3/40/skampi/30, is kept as given)", plan->given, plan->estimate_given, plan->rtt * 1e3, plan->budget, now, plan->estimate);
    } else if (what == ISOCHRON_SYNC_SAY_PLAN) {
        char b[48] = "";
        if (plan->budgeted) snprintf(b, sizeof b, ", budget %.3g s", plan->budget);
        int ms = plan->rtt >= 1e-3;
        n = snprintf(buf, len, "about %.3g s on this network (round trip %.3g %s between rank 0 and rank %d%s)", plan->estimate,
                     plan->rtt * (ms ? 1e3 : 1e6), ms ? "ms" : "us", plan->peer, b);
    }
    return n > 0 ? strlen(buf) : 0;
}

size_t isochron_sync_review(const isochron_sync_plan_t *plan, const isochron_sync_report_t *rep, int which, char *buf, size_t len)
{
    int n = 0;
    if (len) buf[0] = 0;
    if (which == 1 && rep->cut_pairs > 0)
        n = snprintf(buf, len, "the synchronization reached its budget of %.3g s per pair: %d pair(s) stopped early with the fit points they had (at "
                               "least %d) after %.2f s in all; its clock bounds state what it achieved", rep->pair_budget, rep->cut_pairs,
                     ISOCHRON_SYNC_MIN_FIT, rep->duration);
    else if (which == 2 && rep->duration > 1.0 && rep->duration > 10 * plan->estimate)
        n = snprintf(buf, len, "the synchronization took %.1f s where %.2g s was expected from the round trip measured before it (%.0f us): "
                               "exchanges were far slower than the network's own latency while the ranks ran, e.g. ranks polling on every core "
                               "starved the kernel's network path; %s", rep->duration, plan->estimate, plan->rtt * 1e6, starved);
    return n > 0 ? strlen(buf) : 0;
}
