/*
 * What every pairwise synchronization step shares (paper 000, Alg. 2):
 * LEARN_CLOCK_MODEL with the fit points spread over a time span, the
 * recompute_intercept step, and the turn-taking protocol between the pairs of
 * one round.
 *
 * Turn-taking: in HCA-style rounds several pairs ping-pong at once. When a
 * node has more ranks than cores, two spinning pairs share one core and the
 * exchanges of both become scheduler-bound (milliseconds instead of a
 * microsecond). The algorithms therefore ask every rank to agree at start
 * whether to serialize; if so, the pairs of a round take turns through a
 * token passed from reference to reference, and every waiting rank waits
 * politely (test + sleep), so the active pair has the cores to itself.
 *
 * Spreading fit points: a slope estimated from points taken back to back
 * (10 ms) has an error of ~σ/10 ms, i.e. ppm, which is tens of µs after 10 s.
 * The client therefore spaces its nfit measurements evenly over `span`
 * seconds; the error of the slope falls as 1/span.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

/* Polite on purpose: ranks that finished their pairs wait here while others
 * still measure, and a spinning MPI_Allreduce took their CPU (measured: the
 * last pair of every algorithm was 10x noisier until this waited politely). */
int isochron_agree(MPI_Comm comm, int rc)
{
    int all = rc;
    if (isochron_allreduce_polite(&rc, &all, 1, MPI_INT, MPI_MIN, comm) != ISOCHRON_OK) return ISOCHRON_EMPI;
    return all;
}

/*
 * Pinning: measured here at 4 ranks on 2 cores, the scheduler can leave the
 * two processes of the active pair stacked on one CPU for 100 ms while the
 * other CPU idles (each exchange then costs a context switch and its
 * midpoint is biased by ~0.7 µs, which became a 10 ppm slope error). So on
 * an oversubscribed node the reference pins itself to the CPU it is on and
 * tells the client, which pins itself to its allowed CPUs minus that one.
 * Both restore their affinity at the end of the pair. If the launcher bound
 * both to the same single CPU, nothing can be done and nothing is changed.
 */
static void pin_to(isochron_sync_ctx_t *ctx, const cpu_set_t *set)
{
#ifndef SMPI_ISOCHRON
    if (sched_getaffinity(0, sizeof ctx->saved_affinity, &ctx->saved_affinity) != 0) return;
    if (sched_setaffinity(0, sizeof *set, set) == 0) ctx->pinned = 1;
#else
    (void)ctx; (void)set;
#endif
}

static void unpin(isochron_sync_ctx_t *ctx)
{
#ifndef SMPI_ISOCHRON
    if (ctx->pinned) sched_setaffinity(0, sizeof ctx->saved_affinity, &ctx->saved_affinity);
#endif
    ctx->pinned = 0;
}

int isochron_pair_begin(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int partner, int prev_ref)
{
    int go = -1, rc;
    ctx->pinned = 0;
    if (is_ref) {
        if (ctx->serialize && prev_ref >= 0 && (rc = isochron_recv_polite(&go, 1, MPI_INT, prev_ref, TAG_TOKEN, comm))) return rc;
        go = -1;
#ifndef SMPI_ISOCHRON
        if (ctx->serialize) {
            go = sched_getcpu();
            cpu_set_t one;
            CPU_ZERO(&one);
            if (go >= 0 && go < CPU_SETSIZE) { CPU_SET(go, &one); pin_to(ctx, &one); }
            else go = -1;
        }
#endif
        if (MPI_Send(&go, 1, MPI_INT, partner, TAG_GO, comm) != MPI_SUCCESS)
            return isochron_set_error(ISOCHRON_EMPI, "sync: sending go to rank %d failed", partner);
        return ISOCHRON_OK;
    }
    if ((rc = isochron_recv_polite(&go, 1, MPI_INT, partner, TAG_GO, comm))) return rc;
#ifndef SMPI_ISOCHRON
    if (go >= 0 && go < CPU_SETSIZE) {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(go, &set)) {
            CPU_CLR(go, &set);
            if (CPU_COUNT(&set) > 0) pin_to(ctx, &set);
        }
    }
#endif
    return ISOCHRON_OK;
}

int isochron_pair_end(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int next_ref)
{
    int tok = 1;
    unpin(ctx);
    if (is_ref && ctx->serialize && next_ref >= 0)
        if (MPI_Send(&tok, 1, MPI_INT, next_ref, TAG_TOKEN, comm) != MPI_SUCCESS)
            return isochron_set_error(ISOCHRON_EMPI, "sync: passing the turn to rank %d failed", next_ref);
    return ISOCHRON_OK;
}

/* Spin until clock time t. The client spins rather than sleeps between fit
 * points: measured here, a client woken from a sleep is often put on the CPU
 * where its reference spins, and the next exchanges are slow and biased.
 * Only the active pair spins (the others wait politely), so this costs no
 * one else a core. Under SimGrid the wait sleeps in simulated time instead
 * (isochron_spin_until). */
static double clock_now_cb(void *clk) { return isochron_clock_now(clk); }
static void wait_until(isochron_clock_t *clk, double t) { isochron_spin_until(clock_now_cb, clk, t); }

/* A budget (isochron_sync_spec_t.budget) may end a pair's measurement after
 * fit point i (0-based) of an attempt: both sides evaluate this, and there the
 * client tells its reference whether to go on. Every attempt after the first
 * may stop at any check; the first only once it has ISOCHRON_SYNC_MIN_FIT
 * points. Measured in the namespace cluster with a busy-polling rank on every
 * core: single exchanges took 8-30 ms instead of 25 µs, and the default sync
 * ran 24-30 s; a pre-emptive estimate from a round trip measured before the
 * sync cannot see conditions that worsen during it. */
static int budget_check(const isochron_sync_ctx_t *ctx, int attempt, int i, int n)
{
    return ctx->pair_budget > 0 && i + 1 < n && (i + 1) % ISOCHRON_SYNC_BUDGET_CHUNK == 0 &&
           (attempt > 0 || i + 1 >= ISOCHRON_SYNC_MIN_FIT);
}

int isochron_learn_model(isochron_sync_ctx_t *ctx, MPI_Comm comm, int ref, int client, isochron_clock_t *clk,
                         isochron_lm_t *lm, isochron_fit_info_t *fit)
{
    const isochron_sync_level_t *lv = ctx->lv;
    isochron_estimator_state_t st = {0, ctx->xport};
    const isochron_xport_t *xp = ctx->xport ? ctx->xport : isochron_xport_mpi();
    isochron_offset_t o;
    int me, rc, peer, n = lv->nfit, warm = lv->npingpongs < 10 ? lv->npingpongs : 10;
    MPI_Comm_rank(comm, &me);
    if ((rc = xp->peer(xp, comm, me == ref ? client : ref, &peer))) return rc;
    /* warm-up exchange (caches, wake-up after a polite wait): discarded */
    if ((rc = lv->estimator->measure(comm, clk, ref, client, warm, &st, &o))) return rc;
    /* Whether this pair may re-measure its fit (the refit rule below), known
     * to both sides. Only where a slope can be kept: an offset-only fit
     * (slope=never, e.g. SKaMPI's one point at span 0, whose slope_se is
     * infinite and slope_se * span NaN) has no trend to judge; it was
     * re-measured refit times on every pair. Without a possible refit no
     * TAG_REFIT message is exchanged either (the protocol before the rule). */
    int can_refit = lv->refit > 0 && lv->slope != ISOCHRON_SLOPE_NEVER && n > 2;
    if (me == ref) {
        double again = 1;
        for (int attempt = 0; again != 0; attempt++) { /* the client says whether it re-measures */
            for (int i = 0; i < n; i++) {
                if ((rc = lv->estimator->measure(comm, clk, ref, client, lv->npingpongs, &st, &o))) return rc;
                double go = 1;
                if (budget_check(ctx, attempt, i, n) && (rc = xp->recv(xp, comm, peer, TAG_BUDGET, &go))) return rc;
                if (go == 0) break;
            }
            if (!can_refit) break;
            if ((rc = xp->recv(xp, comm, peer, TAG_REFIT, &again))) return rc;
        }
        return ISOCHRON_OK;
    }
    /* Room for every attempt's points: a refit adds to the fit, see below. */
    int cap = n * (can_refit ? lv->refit + 1 : 1);
    double *x = malloc(sizeof(double) * (size_t)cap * 3);
    if (!x) return isochron_set_error(ISOCHRON_ENOMEM, "sync: out of memory for %d fit points", cap);
    double *y = x + cap, *u = x + 2 * cap;
    isochron_fit_t f, best;
    int attempts = 0, have = 0, cut = 0;
    double span1 = 0, pair_t0 = isochron_clock_now(clk);
    for (;;) {
        double t0 = isochron_clock_now(clk), step = n > 1 ? lv->span / (n - 1) : 0;
        for (int i = 0; i < n; i++) {
            if (step > 0) wait_until(clk, t0 + i * step);
            if ((rc = lv->estimator->measure(comm, clk, ref, client, lv->npingpongs, &st, &o))) { free(x); return rc; }
            x[have] = o.timestamp;
            y[have] = o.offset;
            u[have] = o.uncertainty;
            have++;
            if (budget_check(ctx, attempts, i, n)) {
                double go = isochron_clock_now(clk) - pair_t0 <= ctx->pair_budget;
                if ((rc = xp->send(xp, comm, peer, TAG_BUDGET, go, 0))) { free(x); return rc; }
                if (go == 0) { cut = 1; break; }
            }
        }
        /* A fit whose trend is uncertain beyond ISOCHRON_REFIT_SPREAD over
         * one span was disturbed (measured here at 4 ranks on 2 cores: 13 of
         * 100 points rejected, residuals 0.2 µs instead of 0.006, a slope
         * 6 ppm off at "3.4 standard errors", 60 µs after 10 s). Measure
         * another span and fit the points of all attempts together: they lie
         * on one line (the relative drift is constant over a second), so the
         * longer span shrinks the slope's error, and the minimum-RTT filter
         * and outlier rejection drop the disturbed points wherever they fell.
         * Keeping only the best single attempt instead left a slope 5 ppm off
         * after three disturbed attempts in a CI run (50 µs after 10 s). The
         * fit with the smallest standard error is kept; the reference is
         * told whether to measure again. */
        rc = isochron_fit_line(x, y, u, have, (int)lv->slope, lv->outliers, lv->estimator->hard_bounds, &f);
        attempts++;
        if (attempts == 1) span1 = f.span;
        if (rc == ISOCHRON_OK && (attempts == 1 || f.slope_se < best.slope_se)) best = f;
        double again = rc == ISOCHRON_OK && can_refit && attempts <= lv->refit &&
                       !(best.slope_se * span1 <= ISOCHRON_REFIT_SPREAD);
        if (again != 0 && ctx->pair_budget > 0 && isochron_clock_now(clk) - pair_t0 > ctx->pair_budget) { again = 0; cut = 1; }
        int rc2 = can_refit ? xp->send(xp, comm, peer, TAG_REFIT, again, 0) : ISOCHRON_OK;
        if (rc || rc2) { free(x); return rc ? rc : rc2; }
        if (again == 0) break;
    }
    free(x);
    f = best;
    lm->slope = f.slope;
    lm->intercept = f.intercept;
    lm->kind = f.slope_kept ? ISOCHRON_LM_LINEAR : ISOCHRON_LM_OFFSET;
    if (fit) /* the report's view of the line (every member) */
        *fit = (isochron_fit_info_t){.partner = ref, .npoints = f.npoints, .nused = f.nused, .slope = f.slope, .intercept = f.intercept,
                                     .slope_se = f.slope_se, .slope_kept = f.slope_kept, .r2 = f.r2, .resid_rms = f.resid_rms,
                                     .span = f.span, .attempts = attempts, .cut = cut};
    ctx->cut += cut;
    return ISOCHRON_OK;
}

int isochron_recompute_intercept(isochron_sync_ctx_t *ctx, MPI_Comm comm, int ref, int client, isochron_clock_t *clk,
                                 isochron_lm_t *lm)
{
    isochron_estimator_state_t st = {0, ctx->xport};
    isochron_offset_t o;
    int me, rc;
    MPI_Comm_rank(comm, &me);
    if ((rc = ctx->lv->estimator->measure(comm, clk, ref, client, ctx->lv->npingpongs, &st, &o))) return rc;
    if (me == client) lm->intercept = o.offset - lm->slope * o.timestamp;
    return ISOCHRON_OK;
}

/*
 * ClockPropSync is correct only where every process reads one time source
 * (paper 000, sec. IV-C). Test it rather than trust it, in three steps, each
 * refusal naming two ranks that differ:
 *  1. one kernel: the ranks must share a boot_id (isochron_truth_shared);
 *     hostnames and MPI's shared-memory nodes are not evidence (containers and
 *     the namespace cluster give one kernel many), and different kernels never
 *     share a clock;
 *  2. injected skew: the parameters each rank's skew injection was given
 *     (offset, drift, ddrift) must be equal, as they are with --skew ...,by=host
 *     (one injected clock per node, as real nodes have); per-rank skew gives
 *     every rank its own oscillator, which a 20 ms sample cannot tell apart at
 *     a few ppm but which leaves prop's copies microseconds off after seconds;
 *  3. the timer itself: every rank reads it bracketed by two readings of the
 *     kernel-wide truth clock, twice, 20 ms apart, and the differences timer -
 *     truth must agree within 1 µs both times (catching per-process origins, as
 *     with Open MPI's MPI_Wtime, time namespaces with different offsets, and
 *     different rates). An injected read jitter (--skew jitter=...) is left
 *     out of this sample: it is noise on each read of one time source, not a
 *     second source, and prop's copies carry it as the leader's clock does;
 *     counted, it refused prop for any jitter near 1 µs, and under SimGrid
 *     that refusal surfaced as another rank's "clock flatten" message
 *     (src/core/error.c). The sample reads the skewed timer without it
 *     (isochron_timer_skew_apply of the base reading), after step 2 has
 *     shown the injected offset, drift and ddrift equal.
 */
static void sample(isochron_timer_t *t, double *d)
{
    double best = INFINITY;
    for (int i = 0; i < 8; i++) {
        double a = isochron_truth_now(), v = isochron_timer_skew_apply(t, isochron_timer_base_now(t)), b = isochron_truth_now();
        if (b - a < best) { best = b - a; *d = v - 0.5 * (a + b); }
    }
}

/* The first rank whose 3 values differ from rank 0's (-1: none). Collective. */
static int first_differing(MPI_Comm comm, const double v[3])
{
    int me, p, bad = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    double r0[3] = {v[0], v[1], v[2]};
    MPI_Bcast(r0, 3, MPI_DOUBLE, 0, comm);
    int mine = (v[0] != r0[0] || v[1] != r0[1] || v[2] != r0[2]) ? me : p;
    MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MIN, comm);
    return bad < p ? bad : -1;
}

/* Ranks a and b of comm (a level's communicator) as a user knows them: their
 * ranks in MPI_COMM_WORLD and their hosts (MPI_Get_processor_name), e.g.
 * "world ranks 6 and 7 (both on host node-3)". A level's own numbering ("ranks
 * 0 and 1 of this level") named ranks nobody launched. Without the world model
 * (MPI started by sessions, or finalized) the ranks of the level's communicator
 * are named. Collective over comm (the hosts are broadcast from a and b). */
static void name_ranks(MPI_Comm comm, int a, int b, char *out, size_t len)
{
    char host[2][MPI_MAX_PROCESSOR_NAME + 1];
    int who[2] = {a, b}, me, n = 0;
    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < 2; i++) {
        memset(host[i], 0, sizeof host[i]);
        if (me == who[i] && MPI_Get_processor_name(host[i], &n) != MPI_SUCCESS) host[i][0] = 0;
        MPI_Bcast(host[i], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, who[i], comm);
        host[i][MPI_MAX_PROCESSOR_NAME] = 0;
    }
    int init = 0, fin = 0, w[2] = {MPI_UNDEFINED, MPI_UNDEFINED};
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) {
        MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
        if (MPI_Comm_group(comm, &g) == MPI_SUCCESS && MPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS)
            MPI_Group_translate_ranks(g, 2, who, wg, w);
        if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
        if (wg != MPI_GROUP_NULL) MPI_Group_free(&wg);
    }
    int world = w[0] != MPI_UNDEFINED && w[1] != MPI_UNDEFINED;
    int k = snprintf(out, len, "%s %d and %d", world ? "world ranks" : "ranks", world ? w[0] : a, world ? w[1] : b);
    if (k < 0 || (size_t)k >= len) return;
    if (host[0][0] && host[1][0] && !strcmp(host[0], host[1]))
        k += snprintf(out + k, len - (size_t)k, " (both on host %s)", host[0]);
    else if (host[0][0] && host[1][0])
        k += snprintf(out + k, len - (size_t)k, " (on hosts %s and %s)", host[0], host[1]);
    if (!world && k >= 0 && (size_t)k < len) snprintf(out + k, len - (size_t)k, " of this level's communicator");
}

int isochron_shared_timesource(MPI_Comm comm, isochron_clock_t *clk, int *shared, char *why, int whylen)
{
    isochron_timer_t *t = isochron_clock_timer(clk);
    if (!isochron_truth_shared(comm)) {
        *shared = 0;
        snprintf(why, (size_t)whylen, "the processes do not all run on one kernel (their boot_ids differ), so they cannot share a time source; "
                                      "use a pairwise algorithm such as hca3 at this level");
        return ISOCHRON_OK;
    }
    const isochron_skew_t *sk = isochron_timer_get_skew(t);
    double v[3] = {sk ? sk->offset : 0, sk ? sk->drift_ppm : 0, sk ? sk->ddrift_ppm_s : 0};
    int bad = first_differing(comm, v);
    char who[2 * MPI_MAX_PROCESSOR_NAME + 96];
    if (bad > 0) {
        *shared = 0;
        name_ranks(comm, 0, bad, who, sizeof who);
        snprintf(why, (size_t)whylen, "skew injection gave %s different clocks (per rank); "
                                      "inject per node with --skew ...,by=host, as real nodes drift, or use a pairwise algorithm such as hca3", who);
        return ISOCHRON_OK;
    }
    /* the lowest and highest readings of each sample, with their ranks (named if they differ) */
    struct { double v; int r; } d[2], lo[2], hi[2];
    MPI_Comm_rank(comm, &d[0].r);
    d[1].r = d[0].r;
    sample(t, &d[0].v);
    isochron_sleep(0.02);
    sample(t, &d[1].v);
    MPI_Allreduce(d, lo, 2, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    MPI_Allreduce(d, hi, 2, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    int k = hi[1].v - lo[1].v > hi[0].v - lo[0].v;
    double spread = hi[k].v - lo[k].v;
    *shared = spread <= 1e-6;
    if (*shared) return ISOCHRON_OK;
    name_ranks(comm, lo[k].r < hi[k].r ? lo[k].r : hi[k].r, lo[k].r < hi[k].r ? hi[k].r : lo[k].r, who, sizeof who);
    if (spread > 0.5 && !isochron_timer_is_skewed(t))
        snprintf(why, (size_t)whylen, "timer '%s' differs between processes of this level, %s, by %.6f s: they run in different time namespaces "
                                      "(containers) or read clocks of different origins; use a pairwise algorithm such as hca3 at this level",
                 isochron_timer_name(t), who, spread);
    else
        snprintf(why, (size_t)whylen, "timer '%s' differs between processes of this level, %s, by %.1f µs (origins or rates differ, e.g. Open MPI's MPI_Wtime); "
                                      "use a host-wide timer such as monotonic, or a pairwise algorithm such as hca3",
                 isochron_timer_name(t), who, spread * 1e6);
    return ISOCHRON_OK;
}
