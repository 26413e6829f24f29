/*
 * The accuracy check: Check-Global-Clock (paper 000, Algorithm 6) plus
 * ground truth (the truth itself is read by truth.c).
 *  - Measured: at each wait time, rank 0 measures every rank's global-clock
 *    offset with SKaMPI-Offset on the global clocks, one rank after another
 *    (the others wait politely).
 *  - True: when all ranks share one kernel (the same boot_id, whatever their
 *    hostnames or namespaces), CLOCK_MONOTONIC less each process's
 *    time-namespace offset (isochron_truth_now) is one clock for all of them,
 *    exact to the kernel's own reading: truth across the "nodes" of a cluster
 *    built from namespaces (tools/cluster) as on one host. At each check,
 *    after the wait, rank 0 reads it, then (after a barrier) every rank reads
 *    it with a jitter-free reading of its global clock (the base timer through
 *    the injected skew without noise, then through the model): a pair
 *    (m_i, G_i); after a second barrier rank 0 reads it again. Rank 0 knows
 *    its own global clock as a function of m between its two readings (exactly
 *    where the base timer reads the truth clock; else at the base's rate
 *    measured since the check's first sample), so true_offset_i =
 *    G_i - G_0(m_i), with no network in the way (truth.c: isochron_truth_round). With skew injection this is the exact error of the
 *    synchronization against the injected truth. Under SimGrid the truth
 *    clock is the simulated time, one clock for every simulated host.
 * Waiting sleeps until shortly before each check time, so an oversubscribed
 * node is not starved by ranks spinning for seconds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

int isochron_sync_check(MPI_Comm comm, isochron_clock_t *global, const double *waits, int nwaits, int npp,
                        isochron_accuracy_t *out, int *has_truth)
{
    return isochron_sync_check_tracked(comm, global, NULL, waits, nwaits, npp, out, has_truth);
}

static double clock_now_cb(void *g) { return isochron_clock_now(g); }

/* Sleep until shortly before global time t, then spin to it. */
static void wait_global(isochron_clock_t *global, double t)
{
    double left = t - isochron_clock_now(global);
    if (left > 2e-3) isochron_sleep(left - 1e-3);
    isochron_spin_until(clock_now_cb, global, t);
}

int isochron_sync_check_tracked(MPI_Comm comm, isochron_clock_t *global, isochron_track_t *track, const double *waits,
                                int nwaits, int npp, isochron_accuracy_t *out, int *has_truth)
{
    return isochron_sync_check_xport(comm, global, track, NULL, waits, nwaits, npp, out, has_truth);
}

int isochron_sync_check_xport(MPI_Comm comm, isochron_clock_t *global, isochron_track_t *track, const isochron_xport_t *xport,
                              const double *waits, int nwaits, int npp, isochron_accuracy_t *out, int *has_truth)
{
    return isochron_sync_check_each(comm, global, track, xport, waits, nwaits, npp, out, has_truth, NULL, NULL);
}

int isochron_sync_check_each(MPI_Comm comm, isochron_clock_t *global, isochron_track_t *track, const isochron_xport_t *xport,
                             const double *waits, int nwaits, int npp, isochron_accuracy_t *out, int *has_truth,
                             isochron_check_each_fn each, void *arg)
{
    int me, p, rc = ISOCHRON_OK;
    if (nwaits < 1 || npp < 1) return isochron_set_error(ISOCHRON_EINVAL, "check: need at least one wait time and one ping-pong");
    for (int i = 0; i < nwaits; i++)
        if (!(waits[i] >= 0) || (i && waits[i] < waits[i - 1]))
            return isochron_set_error(ISOCHRON_EINVAL, "check: wait times must be non-negative and ascending");
    MPI_Comm work;
    MPI_Comm_dup(comm, &work);
    MPI_Comm_rank(work, &me);
    MPI_Comm_size(work, &p);
    int any_over = isochron_comm_oversubscribed(work);
    int truth = isochron_truth_shared(work);
    if (has_truth) *has_truth = truth;

    isochron_sync_level_t lv;
    memset(&lv, 0, sizeof lv);
    isochron_sync_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.lv = &lv;
    ctx.serialize = any_over; /* pins the measuring pair to two CPUs when oversubscribed */
    double first[2] = {0, 0}, g_dummy, anchor = isochron_clock_now(global);
    MPI_Bcast(&anchor, 1, MPI_DOUBLE, 0, work);
    isochron_truth_sample(global, &first[0], &first[1], &g_dummy); /* the baseline of rank 0's rate */
    enum { NX = 3 }; /* per rank, beside the truth: statistical bound, hard bound, untrusted */
    double *err = me == 0 ? malloc(sizeof(double) * (size_t)p) : NULL, *extras = me == 0 ? malloc(sizeof(double) * NX * (size_t)p) : NULL;
    if (me == 0 && (!err || !extras)) rc = isochron_set_error(ISOCHRON_ENOMEM, "check: out of memory");
    rc = isochron_agree(work, rc);
    if (!rc && me == 0 && each) each(-1, arg);

    for (int w = 0; w < nwaits && !rc; w++) {
        double target = anchor + waits[w];
        /* tracking between checks: refresh at every due time before the target (same decision on all ranks) */
        while (track && !rc && isochron_track_next_due(track) < target) {
            wait_global(global, isochron_track_next_due(track));
            rc = isochron_track_refresh(track);
        }
        if (rc) break;
        wait_global(global, target);
        /* ground truth: every rank's sample inside rank 0's bracket, with the bounds stated then */
        double mine[NX] = {track ? isochron_track_bound(track) : NAN, track ? isochron_track_bound_hard(track) : NAN,
                           track ? isochron_track_untrusted(track) : 0};
        if (truth) rc = isochron_truth_round(work, global, first, mine, NX, err, extras);
        else MPI_Gather(mine, NX, MPI_DOUBLE, extras, NX, MPI_DOUBLE, 0, work);
        if (rc) break;
        if (me == 0) {
            for (int i = 0; i < p; i++) {
                isochron_accuracy_t *a = &out[i * nwaits + w];
                a->wait = waits[w];
                a->true_offset = truth ? err[i] : NAN;
                a->bound = extras[NX * i];
                a->bound_hard = extras[NX * i + 1];
                a->untrusted = extras[NX * i + 2] > 0;
                a->measured_offset = 0.0;
                a->measured_hw = 0.0;
            }
        }
        /* Alg. 6: rank 0 measures each rank's offset on the global clocks */
        for (int c = 1; c < p && !rc; c++) {
            if (me == 0) {
                if (!(rc = isochron_pair_begin(&ctx, work, 1, c, -1))) {
                    isochron_offset_t o;
                    rc = isochron_offset_skampi(work, global, 0, c, npp, xport, &o);
                    isochron_pair_end(&ctx, work, 1, -1);
                }
            } else if (me == c) {
                isochron_offset_t o;
                if (!(rc = isochron_pair_begin(&ctx, work, 0, 0, -1))) {
                    rc = isochron_offset_skampi(work, global, 0, c, npp, xport, &o);
                    isochron_pair_end(&ctx, work, 0, -1);
                    /* injected read jitter can make a jittered round trip look shorter than it was (down to a
                     * half-width of 0): the interval is widened as the tracker widens its own */
                    const isochron_skew_t *sk = isochron_timer_get_skew(isochron_clock_timer(global));
                    double off[2] = {-o.offset, o.uncertainty + (sk ? isochron_jitter_hard(sk->jitter) : 0)};
                    if (!rc) MPI_Send(off, 2, MPI_DOUBLE, 0, TAG_CHECK, work);
                }
            }
            if (me == 0 && !rc) {
                double off[2];
                rc = isochron_recv_polite(off, 2, MPI_DOUBLE, c, TAG_CHECK, work);
                out[c * nwaits + w].measured_offset = off[0];
                out[c * nwaits + w].measured_hw = off[1];
            }
        }
        rc = isochron_agree(work, rc);
        if (!rc && me == 0 && each) each(w, arg);
        if (!rc) rc = isochron_barrier_polite(work);
    }
    free(err);
    free(extras);
    MPI_Comm_free(&work);
    return rc;
}
