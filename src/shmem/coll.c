/*
 * OpenSHMEM collectives (active-set API of OpenSHMEM 1.4; Open MPI 4.1's
 * oshmem has no teams) and the broadcast measurement methods of
 * SKaMPI-OpenSHMEM (paper 002, sec. 3.2):
 *   bcast_barrier  Alg. 1: broadcast + barrier per iteration, minus the time
 *                  of a barrier measured separately;
 *   bcast_sync     Alg. 2: each broadcast starts at a common time on
 *                  isochron's global clock (SKaMPI's start_sync/stop_sync),
 *                  time = last end - start; a PE that starts late by more than
 *                  half the window invalidates that broadcast;
 *   bcast_rounds   Alg. 3: from one common start, one broadcast per root in
 *                  turn, time = (last end - start) / PEs (pipelining between
 *                  consecutive broadcasts can make it smaller, sec. 4.4);
 *   bcast_ack      Alg. 4-5 (de Supinski-Karonis, one-sided): per task, the
 *                  acknowledgment exchange (fetch_inc + wait_until) is
 *                  measured first (its median round trip); then the root waits for the task's ack
 *                  after every broadcast; the task's cycle minus one ack is
 *                  its broadcast time; the largest over tasks is reported.
 * Consecutive collectives alternate between two pSync arrays.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

#define ME (c->me)
#define NP (c->npes)
#define NEL (c->bytes / 8)
#define ACK 20 /* sig[ACK]: the acknowledgment counter; sig[ACK+1]: the largest value it was seen with */

static int setup_coll(isochron_shmem_ctx_t *c)
{
    size_t nb = c->bytes * (size_t)c->npes;
    return shm_alloc(c, nb ? nb : 8);
}
static void teardown_coll(isochron_shmem_ctx_t *c) { shm_free(c); }

static void bcast(isochron_shmem_ctx_t *c, int i, int root)
{
    shmem_broadcast64(c->dst, c->src, NEL, root, 0, 0, NP, c->psync[i & 1]);
}

/* ---- plain collectives ---------------------------------------------------- */

static void prep_coll(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    size_t n = c->bytes;
    if (!strncmp(op->name, "reduce", 6)) {
        long *s = (long *)c->src, *d = (long *)c->dst;
        for (size_t k = 0; k < NEL; k++) { s[k] = ME + c->rep + (long)k; d[k] = -1; }
    } else if (!strncmp(op->name, "alltoall", 8)) {
        for (int j = 0; j < NP; j++) {
            shm_fill(c->src + (size_t)j * n, n, c->rep, ME * NP + j);
            shm_poison(c->dst + (size_t)j * n, n, c->rep, j * NP + ME);
        }
    } else {
        shm_fill(c->src, n, c->rep, ME);
        for (int j = 0; j < NP; j++) shm_poison(c->dst + (size_t)j * n, n, c->rep, j);
    }
}

static int run_coll(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    prep_coll(c);
    int rc = shm_barrier(c);
    if (rc) return rc;
    *act = 1;
    const char *n = op->name;
    if (!strcmp(n, "barrier_all")) SHM_TIME_LOOP(c, *t, shmem_barrier_all());
    else if (!strcmp(n, "sync_all")) SHM_TIME_LOOP(c, *t, shmem_sync_all());
    else if (!strcmp(n, "broadcast")) SHM_TIME_LOOP(c, *t, bcast(c, i, 0));
    else if (!strcmp(n, "reduce")) {
        SHM_TIME_LOOP(c, *t, shmem_long_sum_to_all((long *)c->dst, (long *)c->src, (int)NEL, 0, 0, NP, c->pwrk, c->psync[i & 1]));
    } else if (!strcmp(n, "collect")) SHM_TIME_LOOP(c, *t, shmem_collect64(c->dst, c->src, NEL, 0, 0, NP, c->psync[i & 1]));
    else if (!strcmp(n, "fcollect")) SHM_TIME_LOOP(c, *t, shmem_fcollect64(c->dst, c->src, NEL, 0, 0, NP, c->psync[i & 1]));
    else if (!strcmp(n, "reduce_max")) {
        SHM_TIME_LOOP(c, *t, shmem_long_max_to_all((long *)c->dst, (long *)c->src, (int)NEL, 0, 0, NP, c->pwrk, c->psync[i & 1]));
    } else if (!strcmp(n, "alltoall")) SHM_TIME_LOOP(c, *t, shmem_alltoall64(c->dst, c->src, NEL, 0, 0, NP, c->psync[i & 1]));
    else if (!strcmp(n, "alltoalls")) SHM_TIME_LOOP(c, *t, shmem_alltoalls64(c->dst, c->src, 1, 1, NEL, 0, 0, NP, c->psync[i & 1]));
    else return isochron_set_error(ISOCHRON_EINVAL, "shmem: no collective named '%s'", n);
    return ISOCHRON_OK;
}

static int validate_coll(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    const char *n = op->name;
    size_t nb = c->bytes;
    if (!strcmp(n, "broadcast")) return ME == 0 ? ISOCHRON_OK : shm_check(c, "shmem_broadcast64", c->dst, nb, c->rep, 0);
    if (!strncmp(n, "reduce", 6)) {
        const long *d = (const long *)c->dst;
        int max = !strcmp(n, "reduce_max");
        for (size_t k = 0; k < NEL; k++) {
            long want = max ? NP - 1 + c->rep + (long)k : (long)NP * (c->rep + (long)k) + (long)NP * (NP - 1) / 2;
            if (d[k] != want)
                return shm_defect_long(c, max ? "shmem_long_max_to_all" : "shmem_long_sum_to_all", d[k], -1, want, "delivered a wrong result",
                                       "PE %d element %zu of %zu", ME, k, (size_t)NEL);
        }
        return ISOCHRON_OK;
    }
    if (!strcmp(n, "collect") || !strcmp(n, "fcollect")) {
        for (int j = 0; j < NP; j++) {
            int rc = shm_check(c, !strcmp(n, "collect") ? "shmem_collect64" : "shmem_fcollect64", c->dst + (size_t)j * nb, nb, c->rep, j);
            if (rc) return rc;
        }
        return ISOCHRON_OK;
    }
    if (!strncmp(n, "alltoall", 8)) {
        for (int j = 0; j < NP; j++) {
            int rc = shm_check(c, !strcmp(n, "alltoall") ? "shmem_alltoall64" : "shmem_alltoalls64", c->dst + (size_t)j * nb, nb, c->rep, j * NP + ME);
            if (rc) return rc;
        }
    }
    return ISOCHRON_OK;
}

/* ---- broadcast measurement methods (sec. 3.2) ------------------------------ */

static double barrier_time(isochron_shmem_ctx_t *c)
{
    double v[3];
    for (int k = 0; k < 3; k++) {
        shmem_barrier_all();
        double t0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) shmem_barrier_all();
        v[k] = (shm_now(c) - t0) / c->iters;
    }
    return isochron_median(v, 3);
}

/* the window of Alg. 2/3: several broadcast+barrier times, wider when oversubscribed */
static int setup_bmethod(isochron_shmem_ctx_t *c)
{
    int rc = setup_coll(c);
    if (rc) return rc;
    const isochron_shmem_op_t *op = c->op;
    if (!strcmp(op->name, "bcast_barrier")) c->correction = barrier_time(c); /* Alg. 1's subtrahend */
    if (!strcmp(op->name, "bcast_sync") || !strcmp(op->name, "bcast_rounds") || c->xcoll) {
        shmem_barrier_all();
        double t0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) { if (c->xcoll) c->xcoll(c, i); else bcast(c, i, 0); shmem_barrier_all(); }
        double est = (shm_now(c) - t0) / c->iters, w;
        MPI_Allreduce(&est, &w, 1, MPI_DOUBLE, MPI_MAX, c->comm);
        w = fmax(4 * w, 20e-6);
        if (c->oversubscribed) w = fmax(w, 1e-3);
        c->tfull = w; /* the window */
    }
    return ISOCHRON_OK;
}

static void wait_global(isochron_shmem_ctx_t *c, double when)
{
    double left = when - shm_now(c);
    if (c->oversubscribed && left > 400e-6) isochron_nap(left - 300e-6);
    while (shm_now(c) < when) isochron_spin_pause();
}

static int run_bcast_barrier(isochron_shmem_ctx_t *c, double *t, int *act)
{
    shm_fill(c->src, c->bytes, c->rep, ME);
    shm_poison(c->dst, c->bytes, c->rep, 0);
    int rc = shm_barrier(c);
    if (rc) return rc;
    *act = 1;
    /* the barrier's time measured again right before (it drifts on a loaded machine: subtracted as
     * measured at set-up, a broadcast came out at -0.67 ms at 4 PEs on 2 cores), outside-timed */
    shmem_barrier_all();
    double b0 = shm_now(c);
    for (int i = 0; i < c->iters; i++) shmem_barrier_all();
    c->correction = (shm_now(c) - b0) / c->iters;
    SHM_TIME_LOOP(c, *t, bcast(c, i, 0); shmem_barrier_all());
    *t -= c->correction;
    c->res += c->tres / c->iters;
    return ISOCHRON_OK;
}

/* Alg. 2 (rounds = 0) and Alg. 3 (rounds = 1) on the global clock */
static void xprep(isochron_shmem_ctx_t *c);
static int run_bcast_timed(isochron_shmem_ctx_t *c, double *t, int *act, int rounds)
{
    if (c->xcoll) xprep(c);
    else {
        shm_fill(c->src, c->bytes, c->rep, ME);
        shm_poison(c->dst, c->bytes, c->rep, 0);
    }
    int rc = shm_barrier(c);
    if (rc) return rc;
    int nseq = rounds ? (c->iters / NP > 0 ? c->iters / NP : 1) : c->iters;
    double w = rounds ? c->tfull * NP : c->tfull;
    double *se = malloc(sizeof(double) * 4 * (size_t)nseq);
    if (!se) return isochron_set_error(ISOCHRON_ENOMEM, "shmem: out of memory");
    double *s = se, *e = se + nseq, *smax = se + 2 * nseq, *emax = se + 3 * nseq;
    double t0 = shm_now(c) + fmax(2 * w, 200e-6);
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, c->comm);
    int call = 0;
    for (int k = 0; k < nseq; k++) {
        wait_global(c, t0 + k * w);
        s[k] = shm_now(c);
        if (rounds) for (int r = 0; r < NP; r++) bcast(c, call++, r);
        else if (c->xcoll) c->xcoll(c, call++);
        else bcast(c, call++, 0);
        e[k] = shm_now(c);
    }
    MPI_Allreduce(s, smax, nseq, MPI_DOUBLE, MPI_MAX, c->comm);
    MPI_Allreduce(e, emax, nseq, MPI_DOUBLE, MPI_MAX, c->comm);
    double sum = 0;
    int nv = 0;
    for (int k = 0; k < nseq; k++) {
        double start = t0 + k * w;
        if (smax[k] - start > 0.5 * c->tfull) continue; /* a late start: not measured from a common start */
        sum += (emax[k] - start) / (rounds ? NP : 1);
        nv++;
    }
    free(se);
    if (ME == 0) { *act = 1; *t = nv ? sum / nv : NAN; c->res = c->tres / (rounds ? NP : 1); shm_timed(c, rounds ? NP : 1, "global"); } /* + the clock's bound (the driver) */
    return ISOCHRON_OK;
}
static int run_bcast_sync(isochron_shmem_ctx_t *c, double *t, int *act) { return run_bcast_timed(c, t, act, 0); }
static int run_bcast_rounds(isochron_shmem_ctx_t *c, double *t, int *act) { return run_bcast_timed(c, t, act, 1); }

static void ack(isochron_shmem_ctx_t *c, int pe) { (void)shmem_long_atomic_fetch_inc(&c->sig[ACK], pe); }
static void wait_ack(isochron_shmem_ctx_t *c)
{
    shmem_long_wait_until(&c->sig[ACK], SHMEM_CMP_GE, 1);
    if (c->sig[ACK] > c->sig[ACK + 1]) c->sig[ACK + 1] = c->sig[ACK];
    c->sig[ACK] = 0; /* Lemma 1: never more than one acknowledgment pending */
}

static int run_bcast_ack(isochron_shmem_ctx_t *c, double *t, int *act)
{
    shm_fill(c->src, c->bytes, c->rep, ME);
    shm_poison(c->dst, c->bytes, c->rep, 0);
    c->sig[ACK] = 0;
    c->sig[ACK + 1] = 0;
    double *rts = malloc(sizeof(double) * (size_t)(c->iters > 0 ? c->iters : 1)); /* every PE agrees before any waits */
    int rc = shm_agree(c, rts ? ISOCHRON_OK : isochron_set_error(ISOCHRON_ENOMEM, "bcast_ack: out of memory for %d round trips", c->iters));
    if (!rc) rc = shm_barrier(c);
    if (rc) { free(rts); return rc; }
    int M = c->iters, call = 0;
    for (int task = 1; task < NP; task++) {
        /* initialize (Alg. 4): the acknowledgment round trip, measured on
         * the task: the median of the M round trips, not Alg. 4's mean (one
         * round trip descheduled for milliseconds made the mean, and so the
         * part subtracted, larger than a whole cycle: a negative broadcast
         * time at 2 PEs on a loaded machine) */
        shmem_barrier_all();
        double t1 = shm_now(c), rt1 = 0;
        for (int i = 0; i < M; i++) {
            if (ME == 0) { wait_ack(c); ack(c, task); }
            else if (ME == task) {
                ack(c, 0);
                wait_ack(c);
                double t = shm_now(c);
                rts[i] = t - t1;
                t1 = t;
            }
        }
        if (ME == task) rt1 = isochron_median(rts, M);
        /* warm-up (Alg. 5, first part) */
        bcast(c, call++, 0);
        if (ME == 0) wait_ack(c);
        else if (ME == task) ack(c, 0);
        /* measure */
        t1 = shm_now(c);
        for (int i = 0; i < M; i++) {
            bcast(c, call++, 0);
            if (ME == 0) wait_ack(c);
            else if (ME == task) ack(c, 0);
        }
        double t2 = shm_now(c);
        if (ME == task) {
            *act = 1;
            *t = (t2 - t1) / M - 0.5 * rt1;
            c->correction = 0.5 * rt1;
            c->res = c->tres / M + 0.5 * c->tres; /* the cycle loop's, and half a round trip's (consecutive readings) */
            shm_timed(c, M, "ack");
        }
    }
    free(rts);
    shmem_barrier_all();
    return ISOCHRON_OK;
}
static int validate_bcast(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    if (!strcmp(op->name, "bcast_ack") && ME == 0 && c->sig[ACK + 1] > 1)
        return shm_defect(c, "shmem_long_atomic_fetch_inc", "delivered more acknowledgments than were sent",
                          "PE 0's acknowledgment counter reached %ld, expected at most 1 pending (Lemma 1)", c->sig[ACK + 1]);
    if (!strcmp(op->name, "bcast_rounds")) { /* the last broadcast with another root wins */
        int last = ME == NP - 1 ? NP - 2 : NP - 1;
        return shm_check(c, "shmem_broadcast64", c->dst, c->bytes, c->rep, last);
    }
    return ME == 0 ? ISOCHRON_OK : shm_check(c, "shmem_broadcast64", c->dst, c->bytes, c->rep, 0);
}


/* ---- the collectives added for issue 28 item 3 ------------------------------
 * SKaMPI-OpenSHMEM's collective measurements not in the first set: the
 * barrier- and clock-synchronized forms of every collective (Shmem_*_Barrier:
 * Alg. 1, the collective + a barrier per iteration minus a barrier measured
 * right before; Shmem_*_Synchro: Alg. 2, each call from a common start on the
 * global clock), the other reductions (and, or, xor, min, prod), the barrier
 * and sync of the whole set timed one by one (Shmem_Barrier, Shmem_Sync), and
 * collectives over a subset of the PEs (active sets: PE_start, logPE_stride,
 * PE_size; Shmem_Barrier_Half and the like): "_half" the first half (start 0,
 * stride 1, size max(1, p/2)), "_even" the even PEs (start 0, logPE_stride 1,
 * size (p+1)/2). PEs outside the set take no part and measure nothing. The
 * broadcast separated by busy waits (bcast_busy, the "SK" variant of sec. 4.4):
 * consecutive broadcasts, each followed by a computation of twice a
 * broadcast + barrier's time (busy, paper 002 sec. 3.3), the loop minus the
 * computation timed alike. Every result is validated over the set's members. */
enum { XB_BARRIER, XB_SYNC, XB_BCAST, XB_SUM, XB_MAX, XB_MIN, XB_AND, XB_OR, XB_XOR, XB_PROD, XB_COLLECT, XB_FCOLLECT, XB_ALLTOALL, XB_ALLTOALLS };
static const char *const xbase[] = {"barrier", "sync", "broadcast", "reduce", "reduce_max", "reduce_min", "reduce_and", "reduce_or", "reduce_xor", "reduce_prod",
                                    "collect", "fcollect", "alltoall", "alltoalls"};
static const char *const xcall[] = {"shmem_barrier", "shmem_sync", "shmem_broadcast64", "shmem_long_sum_to_all", "shmem_long_max_to_all", "shmem_long_min_to_all",
                                    "shmem_long_and_to_all", "shmem_long_or_to_all", "shmem_long_xor_to_all", "shmem_long_prod_to_all", "shmem_collect64",
                                    "shmem_fcollect64", "shmem_alltoall64", "shmem_alltoalls64"};
#define NXB ((int)(sizeof xbase / sizeof xbase[0]))

static int as_member(const isochron_shmem_ctx_t *c, int pe) /* index of pe in the active set, or -1 */
{
    int d = pe - c->as_start, st = 1 << c->as_log;
    if (d < 0 || d % st) return -1;
    return d / st < c->as_size ? d / st : -1;
}
static int as_pe(const isochron_shmem_ctx_t *c, int j) { return c->as_start + j * (1 << c->as_log); }

static long xval(int kind, int pe, size_t k, int rep)
{
    long b = (long)((pe + (long)k + rep) % 60);
    switch (kind) {
    case XB_AND: return ~(1L << b);
    case XB_OR: case XB_XOR: return 1L << b;
    case XB_PROD: return 1 + ((pe + (long)k + rep) & 1);
    default: return pe + rep + (long)k;
    }
}

static void xone(isochron_shmem_ctx_t *c, int i)
{
    long *ps = c->psync[i & 1], *d = (long *)c->dst, *sr = (long *)c->src;
    int st = c->as_start, lg = c->as_log, sz = c->as_size, n = (int)NEL;
    switch (c->xkind) {
    case XB_BARRIER: if (st == 0 && lg == 0 && sz == NP) shmem_barrier_all(); else shmem_barrier(st, lg, sz, ps); break;
    case XB_SYNC: if (st == 0 && lg == 0 && sz == NP) shmem_sync_all(); else shmem_sync(st, lg, sz, ps); break;
    case XB_BCAST: shmem_broadcast64(c->dst, c->src, NEL, 0, st, lg, sz, ps); break;
    case XB_SUM: shmem_long_sum_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_MAX: shmem_long_max_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_MIN: shmem_long_min_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_AND: shmem_long_and_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_OR: shmem_long_or_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_XOR: shmem_long_xor_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_PROD: shmem_long_prod_to_all(d, sr, n, st, lg, sz, c->pwrk, ps); break;
    case XB_COLLECT: shmem_collect64(c->dst, c->src, NEL, st, lg, sz, ps); break;
    case XB_FCOLLECT: shmem_fcollect64(c->dst, c->src, NEL, st, lg, sz, ps); break;
    case XB_ALLTOALL: shmem_alltoall64(c->dst, c->src, NEL, st, lg, sz, ps); break;
    default: shmem_alltoalls64(c->dst, c->src, 1, 1, NEL, st, lg, sz, ps); break;
    }
}

static void xprep(isochron_shmem_ctx_t *c)
{
    int me = as_member(c, ME), P = c->as_size;
    size_t n = c->bytes;
    if (me < 0) return;
    int k = c->xkind;
    if (k >= XB_SUM && k <= XB_PROD) {
        long *s = (long *)c->src, *d = (long *)c->dst;
        for (size_t e = 0; e < NEL; e++) { s[e] = xval(k, ME, e, c->rep); d[e] = -1; }
    } else if (k == XB_ALLTOALL || k == XB_ALLTOALLS) {
        for (int j = 0; j < P; j++) {
            shm_fill(c->src + (size_t)j * n, n, c->rep, ME * NP + as_pe(c, j));
            shm_poison(c->dst + (size_t)j * n, n, c->rep, as_pe(c, j) * NP + ME);
        }
    } else if (k != XB_BARRIER && k != XB_SYNC) {
        shm_fill(c->src, n, c->rep, ME);
        for (int j = 0; j < (k == XB_BCAST ? 1 : P); j++) shm_poison(c->dst + (size_t)j * n, n, c->rep, k == XB_BCAST ? as_pe(c, 0) : as_pe(c, j));
    }
}

static int xvalidate(isochron_shmem_ctx_t *c)
{
    int me = as_member(c, ME), P = c->as_size, k = c->xkind;
    size_t n = c->bytes;
    if (me < 0 || k == XB_BARRIER || k == XB_SYNC) return ISOCHRON_OK;
    const char *call = xcall[k];
    if (k == XB_BCAST) return me == 0 ? ISOCHRON_OK : shm_check(c, call, c->dst, n, c->rep, as_pe(c, 0));
    if (k >= XB_SUM && k <= XB_PROD) {
        const long *d = (const long *)c->dst;
        for (size_t e = 0; e < NEL; e++) {
            long want = xval(k, as_pe(c, 0), e, c->rep);
            for (int j = 1; j < P; j++) {
                long v = xval(k, as_pe(c, j), e, c->rep);
                switch (k) {
                case XB_SUM: want += v; break;
                case XB_MAX: want = v > want ? v : want; break;
                case XB_MIN: want = v < want ? v : want; break;
                case XB_AND: want &= v; break;
                case XB_OR: want |= v; break;
                case XB_XOR: want ^= v; break;
                default: want *= v; break;
                }
            }
            if (d[e] != want)
                return shm_defect_long(c, call, d[e], -1, want, "delivered a wrong result", "PE %d element %zu of %zu (active set of %d PEs)", ME, e, (size_t)NEL, P);
        }
        return ISOCHRON_OK;
    }
    for (int j = 0; j < P; j++) {
        int from = (k == XB_ALLTOALL || k == XB_ALLTOALLS) ? as_pe(c, j) * NP + ME : as_pe(c, j);
        int rc = shm_check(c, call, c->dst + (size_t)j * n, n, c->rep, from);
        if (rc) return rc;
    }
    return ISOCHRON_OK;
}

/* the op's base kind, variant (0 consecutive, 1 _barrier, 2 _sync, 3 bcast_busy) and active set, from its name */
static int xsetup(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    char base[40];
    snprintf(base, sizeof base, "%s", op->name);
    int var = 0;
    c->as_start = 0; c->as_log = 0; c->as_size = NP;
    size_t L = strlen(base);
    if (!strcmp(base, "bcast_busy")) { snprintf(base, sizeof base, "broadcast"); var = 3; }
    else if (L > 5 && !strcmp(base + L - 5, "_half")) { base[L - 5] = 0; c->as_size = NP / 2 > 0 ? NP / 2 : 1; }
    else if (L > 5 && !strcmp(base + L - 5, "_even")) { base[L - 5] = 0; c->as_log = 1; c->as_size = (NP + 1) / 2; }
    else if (L > 8 && !strcmp(base + L - 8, "_barrier")) { base[L - 8] = 0; var = 1; }
    else if (L > 5 && !strcmp(base + L - 5, "_sync")) { base[L - 5] = 0; var = 2; }
    if (!strcmp(base, "barrier_all")) base[7] = 0;
    if (!strcmp(base, "sync_all")) base[4] = 0;
    c->xkind = -1;
    for (int k = 0; k < NXB; k++) if (!strcmp(base, xbase[k])) c->xkind = k;
    if (c->xkind < 0) return isochron_set_error(ISOCHRON_EINVAL, "shmem: no collective named '%s'", op->name);
    c->xcoll = xone;
    int rc = var == 2 ? setup_bmethod(c) : setup_coll(c);
    if (rc) return rc;
    c->xvar = var;
    c->tcomp = 0;
    if (var == 3) { /* the computation: twice a broadcast + barrier's time, the largest over PEs */
        shmem_barrier_all();
        double t0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) { xone(c, i); shmem_barrier_all(); }
        double est = (shm_now(c) - t0) / c->iters, w;
        MPI_Allreduce(&est, &w, 1, MPI_DOUBLE, MPI_MAX, c->comm);
        /* at most 1 ms: on an oversubscribed node a broadcast + barrier waits for descheduled PEs (tens of ms
         * at 4 PEs on 2 cores), and a longer computation only separates the broadcasts further */
        c->busy_n = shm_busy_calibrate(c, fmin(2 * w, 1e-3), &c->tcomp);
    }
    return ISOCHRON_OK;
}

static int xrun(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int var = c->xvar;
    if (var == 2) return run_bcast_timed(c, t, act, 0);
    xprep(c);
    int rc = shm_barrier(c);
    if (rc || as_member(c, ME) < 0) return rc;
    *act = 1;
    if (var == 1) { /* Alg. 1: a barrier measured right before, subtracted */
        shmem_barrier_all();
        double b0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) shmem_barrier_all();
        c->correction = (shm_now(c) - b0) / c->iters;
        SHM_TIME_LOOP(c, *t, xone(c, i); shmem_barrier_all());
        *t -= c->correction;
        c->res += c->tres / c->iters;
    } else if (var == 3) { /* broadcasts separated by busy waits, minus the computation timed alike just before */
        long n = c->busy_n;
        double t0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) shm_busy(n);
        c->correction = (shm_now(c) - t0) / c->iters;
        t0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) { xone(c, i); shm_busy(n); }
        *t = (shm_now(c) - t0) / c->iters - c->correction;
        c->res = 2 * c->tres / c->iters;
        shm_timed(c, c->iters, "origin");
    } else
        SHM_TIME_LOOP(c, *t, xone(c, i));
    return ISOCHRON_OK;
}

#define S ISOCHRON_SHMEM_SIZED
#define E8 ISOCHRON_SHMEM_ELEM8
#define L ISOCHRON_SHMEM_LOOPED
#define X ISOCHRON_SHMEM_EXTRA
#define M2 ISOCHRON_SHMEM_MIN2
/* Rows of the collectives (setup_coll ... teardown_coll) and of the extended ones (xsetup ..., marked X):
 * one that moves data takes a size of 8-byte elements and is validated; a barrier or sync moves none. */
#define COLL_DATA(name, fam, desc, fl) {name, fam, desc, S | E8 | (fl), setup_coll, run_coll, validate_coll, teardown_coll}
#define COLL_SYNC(name, fam, desc, fl) {name, fam, desc, fl, setup_coll, run_coll, NULL, teardown_coll}
#define XCOLL_DATA(name, fam, desc, fl) {name, fam, desc, S | E8 | X | (fl), xsetup, xrun, xvalidate, teardown_coll}
#define XCOLL_SYNC(name, fam, desc, fl) {name, fam, desc, X | (fl), xsetup, xrun, NULL, teardown_coll}
const isochron_shmem_op_t isochron_shmem_coll_ops[] = {
    COLL_SYNC("barrier_all", "coll", "shmem_barrier_all; largest over PEs", L),
    COLL_SYNC("sync_all", "coll", "shmem_sync_all; largest over PEs", L),
    COLL_DATA("broadcast", "coll", "shmem_broadcast64 from PE 0, back to back; largest over PEs", L),
    COLL_DATA("reduce", "coll", "shmem_long_sum_to_all; largest over PEs", L),
    COLL_DATA("reduce_max", "coll", "shmem_long_max_to_all; largest over PEs", L),
    COLL_DATA("collect", "coll", "shmem_collect64 (size per PE); largest over PEs", L),
    COLL_DATA("fcollect", "coll", "shmem_fcollect64 (size per PE); largest over PEs", L),
    COLL_DATA("alltoall", "coll", "shmem_alltoall64 (size per pair); largest over PEs", L),
    COLL_DATA("alltoalls", "coll", "shmem_alltoalls64 with unit strides (size per pair); largest over PEs", L),
    {"bcast_barrier", "bcast_method", "Alg. 1: broadcast + barrier per iteration minus a barrier's time; largest over PEs", S | E8 | ISOCHRON_SHMEM_MIN2 | L, setup_bmethod, run_bcast_barrier, validate_bcast, teardown_coll},
    {"bcast_sync", "bcast_method", "Alg. 2: each broadcast from a common start on the global clock; last end - start", S | E8 | ISOCHRON_SHMEM_MIN2, setup_bmethod, run_bcast_sync, validate_bcast, teardown_coll},
    {"bcast_rounds", "bcast_method", "Alg. 3: one broadcast per root in turn from a common start; (last end - start) / PEs", S | E8 | ISOCHRON_SHMEM_MIN2, setup_bmethod, run_bcast_rounds, validate_bcast, teardown_coll},
    {"bcast_ack", "bcast_method", "Alg. 4-5: root waits for each task's fetch_inc ack; cycle minus one ack, largest over tasks", S | E8 | ISOCHRON_SHMEM_MIN2, setup_bmethod, run_bcast_ack, validate_bcast, teardown_coll},
    /* issue 28 item 3 (marked + in --list-ops: not in the default set) */
    XCOLL_DATA("reduce_and", "coll", "shmem_long_and_to_all; largest over PEs", L),
    XCOLL_DATA("reduce_or", "coll", "shmem_long_or_to_all; largest over PEs", L),
    XCOLL_DATA("reduce_xor", "coll", "shmem_long_xor_to_all; largest over PEs", L),
    XCOLL_DATA("reduce_min", "coll", "shmem_long_min_to_all; largest over PEs", L),
    XCOLL_DATA("reduce_prod", "coll", "shmem_long_prod_to_all; largest over PEs", L),
    XCOLL_DATA("reduce_barrier", "coll", "Alg. 1 on shmem_long_sum_to_all: + barrier per iteration minus a barrier's time (Shmem_Reduce_*_Barrier); largest over PEs", M2 | L),
    XCOLL_DATA("collect_barrier", "coll", "Alg. 1 on shmem_collect64 (Shmem_Collect_Barrier); largest over PEs", M2 | L),
    XCOLL_DATA("fcollect_barrier", "coll", "Alg. 1 on shmem_fcollect64 (Shmem_Fcollect_Barrier); largest over PEs", M2 | L),
    XCOLL_DATA("alltoall_barrier", "coll", "Alg. 1 on shmem_alltoall64 (Shmem_Alltoall_Barrier); largest over PEs", M2 | L),
    XCOLL_DATA("alltoalls_barrier", "coll", "Alg. 1 on shmem_alltoalls64 (Shmem_Alltoalls_Barrier); largest over PEs", M2 | L),
    XCOLL_DATA("reduce_sync", "coll", "Alg. 2 on shmem_long_sum_to_all: each from a common start on the global clock (Shmem_Reduce_*_Synchro)", M2),
    XCOLL_DATA("collect_sync", "coll", "Alg. 2 on shmem_collect64 (Shmem_Collect_Synchro)", M2),
    XCOLL_DATA("fcollect_sync", "coll", "Alg. 2 on shmem_fcollect64 (Shmem_Fcollect_Synchro)", M2),
    XCOLL_DATA("alltoall_sync", "coll", "Alg. 2 on shmem_alltoall64 (Shmem_Alltoall_Synchro)", M2),
    XCOLL_DATA("alltoalls_sync", "coll", "Alg. 2 on shmem_alltoalls64 (Shmem_Alltoalls_Synchro)", M2),
    XCOLL_SYNC("barrier_all_sync", "coll", "Alg. 2 on shmem_barrier_all: one at a time from a common start (Shmem_Barrier)", M2),
    XCOLL_SYNC("sync_all_sync", "coll", "Alg. 2 on shmem_sync_all: one at a time from a common start (Shmem_Sync)", M2),
    XCOLL_SYNC("barrier_half", "active", "shmem_barrier over the first half of the PEs (PE_start 0, stride 1, size p/2; Shmem_Barrier_Half_Consecutive); largest over them", L),
    XCOLL_SYNC("sync_half", "active", "shmem_sync over the first half of the PEs (Shmem_Sync_Half_Consecutive); largest over them", L),
    XCOLL_DATA("broadcast_half", "active", "shmem_broadcast64 over the first half of the PEs, root its first; largest over them", L),
    XCOLL_DATA("reduce_half", "active", "shmem_long_sum_to_all over the first half of the PEs; largest over them", L),
    XCOLL_DATA("collect_half", "active", "shmem_collect64 over the first half of the PEs; largest over them", L),
    XCOLL_DATA("fcollect_half", "active", "shmem_fcollect64 over the first half of the PEs; largest over them", L),
    XCOLL_DATA("alltoall_half", "active", "shmem_alltoall64 over the first half of the PEs; largest over them", L),
    XCOLL_SYNC("barrier_even", "active", "shmem_barrier over the even PEs (PE_start 0, logPE_stride 1, size (p+1)/2); largest over them", L),
    XCOLL_SYNC("sync_even", "active", "shmem_sync over the even PEs; largest over them", L),
    XCOLL_DATA("broadcast_even", "active", "shmem_broadcast64 over the even PEs, root PE 0; largest over them", L),
    XCOLL_DATA("reduce_even", "active", "shmem_long_sum_to_all over the even PEs; largest over them", L),
    XCOLL_DATA("fcollect_even", "active", "shmem_fcollect64 over the even PEs; largest over them", L),
    XCOLL_DATA("bcast_busy", "bcast_method", "consecutive broadcasts each followed by a busy computation of twice a broadcast + barrier (at most 1 ms), minus the computation (the SK variant, sec. 4.4); largest over PEs", ISOCHRON_SHMEM_MIN2),
};
const int isochron_shmem_coll_nops = (int)(sizeof isochron_shmem_coll_ops / sizeof isochron_shmem_coll_ops[0]);
