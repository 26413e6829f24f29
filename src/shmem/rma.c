/*
 * Point-to-point OpenSHMEM measurements of SKaMPI-OpenSHMEM (paper 002,
 * sec. 3.1 and 3.3): blocking get (Fig. 1a), put completed by shmem_quiet
 * with the cost of an empty quiet subtracted (Fig. 1b), quiet after a 1-byte
 * put (Fig. 1c), the bare put call, the single-element p/g forms, put
 * ping-pong and ring; non-blocking put/get post, quiet, full and overlap
 * (computation of twice the full time, busy, calibrated); the four
 * loop-timing variants of sec. 3.3 (Alg. 6-9); fence, quiet, wait_until and
 * test latency; shmem_malloc/free and shmem_align cost.
 *
 * Pair measurements: PE 0 measures, PE 1 is the target, other PEs wait.
 * Every repetition writes a pattern that depends on the repetition and the
 * writing PE and poisons the destination, so validate() catches data that
 * did not arrive, or arrived stale.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

#define T (c->target)
#define ME (c->me)

static int setup_buf(isochron_shmem_ctx_t *c)
{
    int rc = shm_alloc(c, c->bytes);
    if (!rc && ME == 0) c->qempty = shm_time_quiet_empty(c);
    return rc;
}
static void teardown_buf(isochron_shmem_ctx_t *c) { shm_free(c); }

/* fill the sources of PE 0 and the target, poison their destinations; barrier */
static int prep_pair(isochron_shmem_ctx_t *c, int get)
{
    if (ME == 0) { shm_fill(c->src, c->bytes, c->rep, 0); shm_poison(c->dst, c->bytes, c->rep, get ? T : 0); }
    if (ME == T) { shm_fill(c->src, c->bytes, c->rep, T); shm_poison(c->dst, c->bytes, c->rep, get ? T : 0); }
    return shm_barrier(c);
}

/* the call whose data validate_put/get check: the non-blocking form for nbi and loop measurements */
static const char *rma_call(isochron_shmem_ctx_t *c, int get)
{
    const isochron_shmem_op_t *op = c->op;
    int nbi = strstr(op->name, "nbi") || !strncmp(op->name, "loop_", 5);
    return get ? (nbi ? "shmem_getmem_nbi" : "shmem_getmem") : (nbi ? "shmem_putmem_nbi" : "shmem_putmem");
}
static int validate_put(isochron_shmem_ctx_t *c) { return ME == T ? shm_check(c, rma_call(c, 0), c->dst, c->bytes, c->rep, 0) : ISOCHRON_OK; }
static int validate_get(isochron_shmem_ctx_t *c) { return ME == 0 ? shm_check(c, rma_call(c, 1), c->dst, c->bytes, c->rep, T) : ISOCHRON_OK; }

/* ---- blocking ----------------------------------------------------------- */

static int run_get(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int rc = prep_pair(c, 1);
    if (rc || ME != 0) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, shmem_getmem(c->dst, c->src, c->bytes, T));
    return ISOCHRON_OK;
}

static int run_put(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int rc = prep_pair(c, 0);
    if (rc || ME != 0) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, shmem_putmem(c->dst, c->src, c->bytes, T); shmem_quiet());
    *t -= c->qempty;
    c->correction = c->qempty;
    c->res += SHM_QEMPTY_RES(c);
    return ISOCHRON_OK;
}

static int run_put_call(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int rc = prep_pair(c, 0);
    if (rc || ME != 0) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, shmem_putmem(c->dst, c->src, c->bytes, T));
    shmem_quiet();
    return ISOCHRON_OK;
}

static int run_quiet(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int rc = prep_pair(c, 0);
    if (rc || ME != 0) return rc;
    *act = 1;
    double s = 0;
    for (int i = 0; i < c->iters; i++) { /* Fig. 1c: a 1-byte put, then the measured quiet (the put is part of it) */
        double t0 = shm_now(c);
        shmem_putmem(c->dst, c->src, 1, T);
        shmem_quiet();
        s += shm_now(c) - t0;
    }
    if (c->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE) {
        double t0 = shm_now(c);
        for (int i = 0; i < c->iters; i++) { shmem_putmem(c->dst, c->src, 1, T); shmem_quiet(); }
        s = shm_now(c) - t0;
    }
    *t = s / c->iters;
    c->res = c->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE ? c->tres / c->iters : c->tres;
    shm_timed(c, c->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE ? c->iters : 1, "origin");
    return ISOCHRON_OK;
}
static int validate_quiet(isochron_shmem_ctx_t *c) { return ME == T ? shm_check(c, "shmem_putmem", c->dst, 1, c->rep, 0) : ISOCHRON_OK; }

static int run_p(isochron_shmem_ctx_t *c, double *t, int *act)
{
    c->sig[0] = -1;
    int rc = shm_barrier(c);
    if (rc || ME != 0) return rc;
    *act = 1;
    long base = (long)c->rep * 1000000L;
    SHM_TIME_LOOP(c, *t, shmem_long_p(&c->sig[0], base + i, T); shmem_quiet());
    *t -= c->qempty;
    c->correction = c->qempty;
    c->res += SHM_QEMPTY_RES(c);
    return ISOCHRON_OK;
}
static int validate_p(isochron_shmem_ctx_t *c)
{
    long want = (long)c->rep * 1000000L + c->iters - 1;
    if (ME == T && c->sig[0] != want)
        return shm_defect_long(c, "shmem_long_p", c->sig[0], -1, want, "left the target at a wrong value", "PE %d's target after %d calls by PE 0 (the last value put)",
                               ME, c->iters);
    return ISOCHRON_OK;
}

static int run_g(isochron_shmem_ctx_t *c, double *t, int *act)
{
    c->sig[1] = 4242 + c->rep;
    c->fetched[0] = -1;
    int rc = shm_barrier(c);
    if (rc || ME != 0) return rc;
    *act = 1;
    long v = 0;
    SHM_TIME_LOOP(c, *t, v = shmem_long_g(&c->sig[1], T));
    c->fetched[0] = v;
    return ISOCHRON_OK;
}
static int validate_g(isochron_shmem_ctx_t *c)
{
    if (ME == 0 && c->fetched[0] != 4242 + c->rep)
        return shm_defect(c, "shmem_long_g", "returned a wrong value", "PE 0 read %ld from PE %d, expected %ld", c->fetched[0], T, 4242L + c->rep);
    return ISOCHRON_OK;
}

/* Poll shmem_long_test until sig >= want: 0. A library that moves remote puts only inside blocking calls
 * never shows the flag here: Open MPI 4.1.4's oshmem over UCX on TCP (across hosts: the namespace
 * cluster) polled for ever and the op hung until the watchdog. After TEST_PATIENCE s without the flag,
 * the library is progressed from outside (MPI_Iprobe: Open MPI drives both from one progress engine; and
 * shmem_quiet, which pushes this PE's own last put out) for
 * up to TEST_PATIENCE s more: 1 if the flag arrived then (a library defect the caller names after
 * finishing its side of the exchange, so its partner is not left waiting), ETIMEOUT if never. */
#define TEST_PATIENCE 5.0
/* The flag value by which the PE that has named the defect tells its partner, still polling for its next
 * flag, to end the op too (2 from test_poll). */
#define TEST_STOP (1L << 40)
static int test_poll(isochron_shmem_ctx_t *c, long want, int from)
{
    if (shmem_long_test(&c->sig[2], SHMEM_CMP_GE, want)) return c->sig[2] >= TEST_STOP ? 2 : 0;
    double t0 = isochron_truth_now();
    for (unsigned k = 1;; k++) {
        if (shmem_long_test(&c->sig[2], SHMEM_CMP_GE, want)) return c->sig[2] >= TEST_STOP ? 2 : 0;
        if ((k & 4095u) == 0 && isochron_truth_now() - t0 > TEST_PATIENCE) break;
    }
    for (double t1 = isochron_truth_now(); isochron_truth_now() - t1 < TEST_PATIENCE;) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        shmem_quiet(); /* this PE's own last put may be waiting for progress too */
        if (shmem_long_test(&c->sig[2], SHMEM_CMP_GE, want)) return c->sig[2] >= TEST_STOP ? 2 : 1;
    }
    return isochron_set_error(ISOCHRON_ETIMEOUT, "test: PE %d waited %.0f s for flag %ld from PE %d, which never arrived", ME,
                              2 * TEST_PATIENCE, want, from);
}
static int test_defect(isochron_shmem_ctx_t *c, long want, int from)
{
    return shm_defect(c, "shmem_long_test", "did not progress communication",
                      "PE %d polled it %.0f s for flag %ld from PE %d, which arrived as soon as the library was progressed by "
                      "other calls (shmem_quiet, MPI_Iprobe): it moves remote puts only inside blocking calls; remedy: run test with its "
                      "PEs on one node, or over a network UCX drives in hardware (RDMA); wait_until (shmem_long_wait_until) progresses",
                      ME, TEST_PATIENCE, want, from);
}

/* ping-pong of `bytes` with a put, a fence and a flag the partner waits for; one-way time = half the round trip */
static int pingpong(isochron_shmem_ctx_t *c, double *t, int *act, size_t nb, int use_test)
{
    c->sig[2] = 0;
    if (ME == 0) shm_fill(c->src, c->bytes, c->rep, 0);
    if (ME == T) shm_fill(c->src, c->bytes, c->rep, T);
    if (ME == 0 || ME == T) shm_poison(c->dst, c->bytes, c->rep, ME == 0 ? T : 0);
    int rc = shm_barrier(c);
    if (rc) return rc;
    int peer = ME == 0 ? T : 0;
    if (ME == 0) {
        *act = 1;
        double t0 = shm_now(c);
        for (long i = 1; i <= c->iters; i++) {
            if (nb) { shmem_putmem(c->dst, c->src, nb, peer); shmem_fence(); }
            shmem_long_p(&c->sig[2], i, peer);
            if (use_test && (rc = test_poll(c, i, peer))) {
                if (rc < 0) return rc;
                if (rc == 1) { shmem_long_p(&c->sig[2], TEST_STOP, peer); shmem_quiet(); } /* the partner waits for flag i + 1 */
                return test_defect(c, i, peer);
            }
            if (!use_test) shmem_long_wait_until(&c->sig[2], SHMEM_CMP_GE, i);
        }
        *t = (shm_now(c) - t0) / c->iters / 2;
        c->res = c->tres / c->iters / 2;
        shm_timed(c, c->iters, "origin");
    } else if (ME == T) {
        for (long i = 1; i <= c->iters; i++) {
            if (use_test && (rc = test_poll(c, i, peer)) < 0) return rc;
            if (rc == 2) return test_defect(c, i, peer); /* PE 0 named it (TEST_STOP) */
            if (!use_test) shmem_long_wait_until(&c->sig[2], SHMEM_CMP_GE, i);
            if (nb) { shmem_putmem(c->dst, c->src, nb, peer); shmem_fence(); }
            shmem_long_p(&c->sig[2], i, peer);
            if (rc == 1) { shmem_quiet(); return test_defect(c, i, peer); } /* the answer is out: then say it */
        }
    }
    return ISOCHRON_OK;
}
static int run_put_pingpong(isochron_shmem_ctx_t *c, double *t, int *act) { return pingpong(c, t, act, c->bytes, 0); }
static int run_wait_until(isochron_shmem_ctx_t *c, double *t, int *act) { return pingpong(c, t, act, 0, 0); }
static int run_test(isochron_shmem_ctx_t *c, double *t, int *act) { return pingpong(c, t, act, 0, 1); }
static int validate_pingpong(isochron_shmem_ctx_t *c)
{
    if (ME == 0) return shm_check(c, "shmem_putmem", c->dst, c->bytes, c->rep, T); /* the pong */
    if (ME == T) return shm_check(c, "shmem_putmem", c->dst, c->bytes, c->rep, 0); /* the ping */
    return ISOCHRON_OK;
}
static int validate_flag(isochron_shmem_ctx_t *c)
{
    if ((ME == 0 || ME == T) && c->sig[2] != c->iters)
        return shm_defect_long(c, "shmem_long_p", c->sig[2], 0, c->iters, "left the target at a wrong value", "PE %d's ping-pong flag after %d rounds", ME, c->iters);
    return ISOCHRON_OK;
}

/* ring: every PE puts to (or gets from) its right neighbour at once */
static int run_ring(isochron_shmem_ctx_t *c, double *t, int *act, int get)
{
    int right = (ME + 1) % c->npes;
    shm_fill(c->src, c->bytes, c->rep, ME);
    shm_poison(c->dst, c->bytes, c->rep, get ? right : (ME + c->npes - 1) % c->npes);
    int rc = shm_barrier(c);
    if (rc) return rc;
    *act = 1;
    if (get) SHM_TIME_LOOP(c, *t, shmem_getmem(c->dst, c->src, c->bytes, right));
    else {
        SHM_TIME_LOOP(c, *t, shmem_putmem(c->dst, c->src, c->bytes, right); shmem_quiet());
        *t -= c->qempty;
        c->correction = c->qempty;
        c->res += SHM_QEMPTY_RES(c);
    }
    return ISOCHRON_OK;
}
static int run_put_ring(isochron_shmem_ctx_t *c, double *t, int *act) { return run_ring(c, t, act, 0); }
static int run_get_ring(isochron_shmem_ctx_t *c, double *t, int *act) { return run_ring(c, t, act, 1); }
static int setup_ring(isochron_shmem_ctx_t *c)
{
    int rc = shm_alloc(c, c->bytes);
    if (!rc) c->qempty = shm_time_quiet_empty(c);
    return rc;
}
static int validate_put_ring(isochron_shmem_ctx_t *c) { return shm_check(c, "shmem_putmem", c->dst, c->bytes, c->rep, (ME + c->npes - 1) % c->npes); }
static int validate_get_ring(isochron_shmem_ctx_t *c) { return shm_check(c, "shmem_getmem", c->dst, c->bytes, c->rep, (ME + 1) % c->npes); }

/* ---- non-blocking (sec. 3.1): post, quiet, full, overlap ----------------- */

static void nbi(isochron_shmem_ctx_t *c, int get)
{
    if (get) shmem_getmem_nbi(c->dst, c->src, c->bytes, T);
    else shmem_putmem_nbi(c->dst, c->src, c->bytes, T);
}

/* post time: a timer around each post, its completion untimed (the only way to isolate it) */
static double post_time(isochron_shmem_ctx_t *c, int get)
{
    double s = 0;
    for (int i = 0; i < c->iters; i++) {
        double t0 = shm_now(c);
        nbi(c, get);
        s += shm_now(c) - t0;
        shmem_quiet();
    }
    return s / c->iters;
}

static double full_time(isochron_shmem_ctx_t *c, int get)
{
    double t0 = shm_now(c);
    for (int i = 0; i < c->iters; i++) { nbi(c, get); shmem_quiet(); }
    return (shm_now(c) - t0) / c->iters;
}

static int setup_nbi(isochron_shmem_ctx_t *c)
{
    int rc = shm_alloc(c, c->bytes);
    if (rc) return rc;
    const isochron_shmem_op_t *op = c->op;
    int get = op->name[0] == 'g';
    if (ME == 0) {
        c->qempty = shm_time_quiet_empty(c);
        c->tpost = post_time(c, get);
        if (strstr(op->name, "overlap")) {
            double v[3];
            v[0] = full_time(c, get);
            /* a repetition is iters x (post + computation of twice the full time + quiet) and the computation
             * timed alone: about 5 x iters x the full time, at least 6 repetitions a point (warm-up, min_reps).
             * Across TCP nodes the full time is a millisecond and more (the target's progress): 100 iterations
             * made a point last 6-12 s, and longer as the network degrades. With iters chosen by isochron, fewer
             * (at least 4), so that a repetition takes about a sixth of the budget; the time per operation is the
             * same quantity. On one host (full times of 0.1-100 us) nothing changes. */
            if (c->iters_auto && c->budget > 0 && v[0] > 0) {
                double cap = c->budget / 6 / (5 * v[0]);
                if (cap < c->iters) c->iters = cap < 4 ? 4 : (int)cap;
            }
            for (int k = 1; k < 3; k++) v[k] = full_time(c, get);
            c->tfull = isochron_median(v, 3);
            c->busy_n = shm_busy_calibrate(c, 2 * c->tfull, &c->tcomp);
        }
    }
    return ISOCHRON_OK;
}

static int run_nbi(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int get = op->name[0] == 'g';
    int rc = prep_pair(c, get);
    if (rc || ME != 0) return rc;
    *act = 1;
    const char *part = strrchr(op->name, '_') + 1;
    int inside = c->loop == ISOCHRON_SHMEM_LOOP_INSIDE;
    if (!strcmp(part, "post")) {
        *t = post_time(c, get);
        c->res = c->tres; /* a timer around each post */
        shm_timed(c, 1, "origin");
    } else if (!strcmp(part, "full")) {
        SHM_TIME_LOOP(c, *t, nbi(c, get); shmem_quiet());
    } else if (!strcmp(part, "quiet")) {
        if (inside) { /* Alg. 8: a timer around each quiet */
            double s = 0;
            for (int i = 0; i < c->iters; i++) {
                nbi(c, get);
                double t0 = shm_now(c);
                shmem_quiet();
                s += shm_now(c) - t0;
            }
            *t = s / c->iters;
            c->res = c->tres;
            shm_timed(c, 1, "origin");
        } else { /* Alg. 9: the whole loop minus the post time measured just before */
            c->tpost = post_time(c, get);
            *t = full_time(c, get) - c->tpost;
            c->correction = c->tpost;
            c->res = c->tres / c->iters + c->tres; /* the loop's, and the post time's (a timer around each post) */
            shm_timed(c, c->iters, "origin");
        }
    } else { /* overlap: post, computation of twice the full time, quiet; time in the communication calls */
        if (inside) {
            double s = 0;
            for (int i = 0; i < c->iters; i++) {
                double t0 = shm_now(c);
                nbi(c, get);
                double t1 = shm_now(c);
                shm_busy(c->busy_n);
                double t2 = shm_now(c);
                shmem_quiet();
                s += (t1 - t0) + (shm_now(c) - t2);
            }
            *t = s / c->iters;
            c->res = 2 * c->tres; /* two timed parts per iteration */
            shm_timed(c, 1, "origin");
        } else { /* the computation timed the same way just before (its time drifts between calibration and loop) */
            double t0 = shm_now(c);
            for (int i = 0; i < c->iters; i++) shm_busy(c->busy_n);
            c->tcomp = (shm_now(c) - t0) / c->iters;
            t0 = shm_now(c);
            for (int i = 0; i < c->iters; i++) { nbi(c, get); shm_busy(c->busy_n); shmem_quiet(); }
            *t = (shm_now(c) - t0) / c->iters - c->tcomp;
            c->correction = c->tcomp;
            c->res = 2 * c->tres / c->iters; /* the loop's and the computation's, both timed outside */
            shm_timed(c, c->iters, "origin");
        }
    }
    return ISOCHRON_OK;
}
static int validate_nbi(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    return op->name[0] == 'g' ? validate_get(c) : validate_put(c);
}

/* ---- loop timing granularity (sec. 3.3, Alg. 6-9) on put_nbi + quiet ----- */

static int run_loopvar(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int rc = prep_pair(c, 0);
    if (rc || ME != 0) return rc;
    *act = 1;
    const char *v = op->name + 5;
    double s = 0;
    if (!strcmp(v, "outside")) { /* Alg. 6 */
        *t = full_time(c, 0);
        c->res = c->tres / c->iters;
        shm_timed(c, c->iters, "origin");
    } else if (!strcmp(v, "inside")) { /* Alg. 7 */
        for (int i = 0; i < c->iters; i++) {
            double t0 = shm_now(c);
            shmem_putmem_nbi(c->dst, c->src, c->bytes, T);
            shmem_quiet();
            s += shm_now(c) - t0;
        }
        *t = s / c->iters;
        c->res = c->tres;
        shm_timed(c, 1, "origin");
    } else if (!strcmp(v, "quiet")) { /* Alg. 8 */
        for (int i = 0; i < c->iters; i++) {
            shmem_putmem_nbi(c->dst, c->src, c->bytes, T);
            double t0 = shm_now(c);
            shmem_quiet();
            s += shm_now(c) - t0;
        }
        *t = s / c->iters;
        c->res = c->tres;
        shm_timed(c, 1, "origin");
    } else { /* Alg. 9 */
        c->tpost = post_time(c, 0);
        *t = full_time(c, 0) - c->tpost;
        c->correction = c->tpost;
        c->res = c->tres / c->iters + c->tres;
        shm_timed(c, c->iters, "origin");
    }
    return ISOCHRON_OK;
}

/* ---- ordering and memory ------------------------------------------------ */

static int run_fence(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int rc = prep_pair(c, 0);
    if (rc || ME != 0) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, shmem_putmem(c->dst, c->src, c->bytes, T); shmem_fence());
    shmem_quiet();
    return ISOCHRON_OK;
}

static int run_quiet_empty(isochron_shmem_ctx_t *c, double *t, int *act)
{
    if (ME != 0) return ISOCHRON_OK;
    *act = 1;
    shmem_quiet();
    SHM_TIME_LOOP(c, *t, shmem_quiet());
    return ISOCHRON_OK;
}

static int setup_none(isochron_shmem_ctx_t *c) { (void)c; return ISOCHRON_OK; }
static void teardown_none(isochron_shmem_ctx_t *c) { (void)c; }

static int run_alloc(isochron_shmem_ctx_t *c, double *t, int *act, int align)
{
    *act = 1;
    int null = 0;
    uintptr_t mis = 0;
    size_t nb = c->bytes ? c->bytes : 1;
    SHM_TIME_LOOP(c, *t, {
        void *p = align ? shmem_align(4096, nb) : shmem_malloc(nb);
        if (!p) null = 1;
        else if (align && ((uintptr_t)p & 4095u)) mis = (uintptr_t)p;
        if (p) shmem_free(p);
    });
    if (null) /* the symmetric heap is full: not wrong data */
        return isochron_set_error(ISOCHRON_ENOMEM, "%s(%zu) on PE %d returned NULL: symmetric heap exhausted (raise SHMEM_SYMMETRIC_HEAP_SIZE)", align ? "shmem_align" : "shmem_malloc", nb, ME);
    if (mis) return shm_defect(c, "shmem_align", "returned a misaligned block", "PE %d: shmem_align(4096, %zu) returned %#lx, %lu bytes past a 4096 boundary", ME, nb,
                               (unsigned long)mis, (unsigned long)(mis & 4095u));
    return ISOCHRON_OK;
}
static int run_malloc(isochron_shmem_ctx_t *c, double *t, int *act) { return run_alloc(c, t, act, 0); }
static int run_align(isochron_shmem_ctx_t *c, double *t, int *act) { return run_alloc(c, t, act, 1); }

#define S ISOCHRON_SHMEM_SIZED
#define M2 ISOCHRON_SHMEM_MIN2
#define L ISOCHRON_SHMEM_LOOPED
/* The non-blocking puts and gets (one set-up, run and check, the part timed chosen by name) and the loop
 * timings of put_nbi + quiet (Alg. 6-9). */
#define NBI(name, desc, fl) {name, "nbi", desc, S | M2 | (fl), setup_nbi, run_nbi, validate_nbi, teardown_buf}
#define LOOPVAR(name, desc) {name, "loop", desc, S | M2, setup_nbi, run_loopvar, validate_put, teardown_buf}
const isochron_shmem_op_t isochron_shmem_rma_ops[] = {
    {"get", "rma", "shmem_getmem from PE 1 (Fig. 1a: returns with the data)", S | M2 | L, setup_buf, run_get, validate_get, teardown_buf},
    {"put", "rma", "shmem_putmem + shmem_quiet to PE 1, minus an empty quiet (Fig. 1b)", S | M2 | L, setup_buf, run_put, validate_put, teardown_buf},
    {"put_call", "rma", "the bare shmem_putmem call (returns when the source is reusable; quiet after the loop, untimed)", S | M2 | L, setup_buf, run_put_call, validate_put, teardown_buf},
    {"quiet", "rma", "shmem_quiet after a 1-byte put, the put included (Fig. 1c)", M2 | L, setup_buf, run_quiet, validate_quiet, teardown_buf},
    {"p", "rma", "shmem_long_p + quiet, minus an empty quiet", M2 | L, setup_buf, run_p, validate_p, teardown_buf},
    {"g", "rma", "shmem_long_g", M2 | L, setup_buf, run_g, validate_g, teardown_buf},
    {"put_pingpong", "rma", "put + fence + flag, partner waits (wait_until) and answers alike; half the round trip", S | M2, setup_buf, run_put_pingpong, validate_pingpong, teardown_buf},
    {"put_ring", "rma", "every PE puts to its right neighbour at once, + quiet minus an empty quiet; largest over PEs", S | L, setup_ring, run_put_ring, validate_put_ring, teardown_buf},
    {"get_ring", "rma", "every PE gets from its right neighbour at once; largest over PEs", S | L, setup_ring, run_get_ring, validate_get_ring, teardown_buf},
    NBI("put_nbi_post", "shmem_putmem_nbi: the post call alone (timer around it, quiet untimed)", 0),
    NBI("put_nbi_quiet", "shmem_quiet right after shmem_putmem_nbi (outside: loop minus post, Alg. 9; inside: timer around quiet, Alg. 8)", L),
    NBI("put_nbi_full", "shmem_putmem_nbi immediately followed by shmem_quiet", L),
    NBI("put_nbi_overlap", "post + busy computation of twice the full time + quiet: time in the two calls (overlap = 1 - this/full)", L),
    NBI("get_nbi_post", "shmem_getmem_nbi: the post call alone", 0),
    NBI("get_nbi_quiet", "shmem_quiet right after shmem_getmem_nbi (outside: Alg. 9; inside: Alg. 8)", L),
    NBI("get_nbi_full", "shmem_getmem_nbi immediately followed by shmem_quiet", L),
    NBI("get_nbi_overlap", "get post + busy computation of twice the full time + quiet: time in the two calls", L),
    LOOPVAR("loop_outside", "put_nbi + quiet, one timer around the loop (Alg. 6)"),
    LOOPVAR("loop_inside", "put_nbi + quiet, a timer around each iteration (Alg. 7)"),
    LOOPVAR("loop_quiet", "the quiet of put_nbi + quiet, a timer around each quiet (Alg. 8)"),
    LOOPVAR("loop_subtract", "the quiet of put_nbi + quiet, loop timed outside minus the post time (Alg. 9)"),
    {"fence", "order", "shmem_putmem + shmem_fence to PE 1", S | M2 | L, setup_buf, run_fence, validate_put, teardown_buf},
    {"quiet_empty", "order", "shmem_quiet with nothing outstanding", L, setup_none, run_quiet_empty, NULL, teardown_none},
    {"wait_until", "order", "flag ping-pong: shmem_long_p, partner in shmem_long_wait_until; half the round trip", M2, setup_buf, run_wait_until, validate_flag, teardown_buf},
    {"test", "order", "flag ping-pong: shmem_long_p, partner polling shmem_long_test; half the round trip", M2, setup_buf, run_test, validate_flag, teardown_buf},
    {"malloc", "memory", "shmem_malloc + shmem_free of the size (collective); largest over PEs", S | L, setup_none, run_malloc, NULL, teardown_none},
    {"align", "memory", "shmem_align(4096) + shmem_free of the size (collective); largest over PEs", S | L, setup_none, run_align, NULL, teardown_none},
};
const int isochron_shmem_rma_nops = (int)(sizeof isochron_shmem_rma_ops / sizeof isochron_shmem_rma_ops[0]);
