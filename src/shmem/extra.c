/*
 * The SKaMPI-OpenSHMEM measurements added for issue 28 item 3, beside the
 * first set (rma.c, atomics.c): paper 002's library (coti/SKaMPI,
 * measurements/openshmem*.c, read for what each measures, not copied).
 *   strided  Shmem_Iput/Iget_Round and the pair forms: shmem_iput64 /
 *            shmem_iget64 of n 64-bit elements at stride ISTRIDE on both
 *            sides; put + quiet minus an empty quiet (as Put_Simple);
 *            validated element by element, the gaps between strides too (a
 *            stride ignored writes them).
 *   rma      Shmem_Pingpong_Put_Put (put_exchange: PEs 0 and 1 put to each
 *            other at once), Shmem_Put_Full (put_ring_full: the ring's quiet
 *            counted, nothing subtracted), Shmem_P_Round / Shmem_G_Round.
 *   order    Shmem_Fence_Put / Shmem_Quiet_Put: the fence or quiet right
 *            after a put, a timer around it alone (the put untimed).
 *   ctx      shmem_ctx_create / shmem_ctx_destroy with each option
 *            (SERIALIZED, PRIVATE, NOSTORE), a timer around the call, the
 *            other untimed; put / get / put_nbi through a context completed
 *            by shmem_ctx_quiet (minus an empty one for put).
 *   memory   Shmem_Realloc (half the size allocated untimed, realloc to the
 *            size timed, the kept half's data checked), Shmem_Calloc (the
 *            block checked zero although the last one was written),
 *            Shmem_Free (malloc untimed).
 *   lock     Shmem_Set_Lock and Shmem_Clear_Lock timed apart (the other
 *            untimed), and test_lock on a lock another PE holds
 *            (Shmem_Lock_Test_Busy, _All, _Turns, _Round): every test must
 *            say "held".
 * Pair measurements: PE 0 measures, PE 1 is the target; ring ones every PE
 * to its right neighbour, the largest over PEs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

#define ME (c->me)
#define T (c->target)
#define NP (c->npes)
#define ISTRIDE 4 /* elements between two moved by iput/iget, on both sides */

/* ---- strided ------------------------------------------------------------ */

static long sval(size_t k, int rep, int pe) { return ((long)pe << 48) ^ ((long)rep << 24) ^ (long)(k * 2654435761u % 16777216u) ^ 0x5a5a; }

static int setup_strided(isochron_shmem_ctx_t *c)
{
    int rc = shm_alloc(c, c->bytes * ISTRIDE); /* n elements at stride ISTRIDE */
    if (!rc) c->qempty = shm_time_quiet_empty(c);
    return rc;
}
static void teardown_buf(isochron_shmem_ctx_t *c) { shm_free(c); }

/* the source of PE `pe` (strided elements its values, the gaps something else) and the poisoned destination */
static void prep_strided(isochron_shmem_ctx_t *c, int writer_into_me)
{
    size_t n = c->bytes / 8, all = n * ISTRIDE;
    long *s = (long *)c->src, *d = (long *)c->dst;
    for (size_t j = 0; j < all; j++) {
        s[j] = j % ISTRIDE ? -3 - (long)j : sval(j / ISTRIDE, c->rep, ME);
        d[j] = writer_into_me >= 0 ? ~sval(j / ISTRIDE, c->rep, writer_into_me) : 0;
    }
}

static int check_strided(isochron_shmem_ctx_t *c, const char *call, int from)
{
    size_t n = c->bytes / 8, all = n * ISTRIDE;
    const long *d = (const long *)c->dst;
    for (size_t j = 0; j < all; j++) {
        long want = j % ISTRIDE ? ~sval(j / ISTRIDE, c->rep, from) : sval(j / ISTRIDE, c->rep, from);
        if (d[j] == want) continue;
        if (j % ISTRIDE)
            return shm_defect(c, call, "wrote between the strides", "PE %d element %zu (a gap of stride %d): got %ld, expected it unchanged", ME, j, ISTRIDE, d[j]);
        return shm_defect_long(c, call, d[j], ~want, want, "delivered wrong data", "PE %d element %zu (element %zu of %zu at stride %d, from PE %d, repetition %d)", ME,
                               j, j / ISTRIDE, n, ISTRIDE, from, c->rep);
    }
    return ISOCHRON_OK;
}

/* who writes into my dst: put, the PE whose right neighbour I am (ring) or PE 0 (pair); get, the one I read */
static int strided_from(const isochron_shmem_ctx_t *c, int ring, int get)
{
    if (ring) return get ? (ME + 1) % NP : (ME + NP - 1) % NP;
    if (get) return ME == 0 ? T : -1;
    return ME == T ? 0 : -1;
}

static int run_strided(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int get = op->name[1] == 'g', ring = strstr(op->name, "_ring") != NULL;
    prep_strided(c, strided_from(c, ring, get));
    int rc = shm_barrier(c);
    if (rc || (!ring && ME != 0)) return rc;
    int to = ring ? (get ? (ME + 1) % NP : (ME + 1) % NP) : T;
    size_t n = c->bytes / 8;
    *act = 1;
    if (get) SHM_TIME_LOOP(c, *t, shmem_iget64(c->dst, c->src, ISTRIDE, ISTRIDE, n, to));
    else {
        SHM_TIME_LOOP(c, *t, shmem_iput64(c->dst, c->src, ISTRIDE, ISTRIDE, n, to); shmem_quiet());
        *t -= c->qempty;
        c->correction = c->qempty;
        c->res += SHM_QEMPTY_RES(c);
    }
    return ISOCHRON_OK;
}

static int validate_strided(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    int get = op->name[1] == 'g', ring = strstr(op->name, "_ring") != NULL, from = strided_from(c, ring, get);
    return from < 0 ? ISOCHRON_OK : check_strided(c, get ? "shmem_iget64" : "shmem_iput64", from);
}

/* ---- more point-to-point: exchange, full ring, p/g ring, fence/quiet after a put --- */

static int setup_buf(isochron_shmem_ctx_t *c)
{
    int rc = shm_alloc(c, c->bytes);
    if (!rc) c->qempty = shm_time_quiet_empty(c);
    return rc;
}

static int run_exchange(isochron_shmem_ctx_t *c, double *t, int *act)
{
    int in = ME == 0 || ME == T, peer = ME == 0 ? T : 0;
    if (in) { shm_fill(c->src, c->bytes, c->rep, ME); shm_poison(c->dst, c->bytes, c->rep, peer); }
    int rc = shm_barrier(c);
    if (rc || !in) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, shmem_putmem(c->dst, c->src, c->bytes, peer); shmem_quiet());
    *t -= c->qempty;
    c->correction = c->qempty;
    c->res += SHM_QEMPTY_RES(c);
    return ISOCHRON_OK;
}
static int validate_exchange(isochron_shmem_ctx_t *c)
{
    if (ME != 0 && ME != T) return ISOCHRON_OK;
    return shm_check(c, "shmem_putmem", c->dst, c->bytes, c->rep, ME == 0 ? T : 0);
}

static int run_ring_full(isochron_shmem_ctx_t *c, double *t, int *act)
{
    shm_fill(c->src, c->bytes, c->rep, ME);
    shm_poison(c->dst, c->bytes, c->rep, (ME + NP - 1) % NP);
    int rc = shm_barrier(c);
    if (rc) return rc;
    *act = 1;
    SHM_TIME_LOOP(c, *t, shmem_putmem(c->dst, c->src, c->bytes, (ME + 1) % NP); shmem_quiet());
    return ISOCHRON_OK;
}
static int validate_ring_full(isochron_shmem_ctx_t *c) { return shm_check(c, "shmem_putmem", c->dst, c->bytes, c->rep, (ME + NP - 1) % NP); }

static int run_p_ring(isochron_shmem_ctx_t *c, double *t, int *act)
{
    c->sig[0] = -1;
    int rc = shm_barrier(c);
    if (rc) return rc;
    *act = 1;
    long base = (long)c->rep * 1000000L + (long)ME * 100000000L;
    SHM_TIME_LOOP(c, *t, shmem_long_p(&c->sig[0], base + i, (ME + 1) % NP); shmem_quiet());
    *t -= c->qempty;
    c->correction = c->qempty;
    c->res += SHM_QEMPTY_RES(c);
    return ISOCHRON_OK;
}
static int validate_p_ring(isochron_shmem_ctx_t *c)
{
    int from = (ME + NP - 1) % NP;
    long want = (long)c->rep * 1000000L + (long)from * 100000000L + c->iters - 1;
    if (c->sig[0] != want)
        return shm_defect_long(c, "shmem_long_p", c->sig[0], -1, want, "left the target at a wrong value", "PE %d's target after %d calls by PE %d (the last value put)", ME,
                               c->iters, from);
    return ISOCHRON_OK;
}

static int run_g_ring(isochron_shmem_ctx_t *c, double *t, int *act)
{
    c->sig[1] = 7000 + 10L * c->rep + ME;
    c->fetched[0] = -1;
    int rc = shm_barrier(c);
    if (rc) return rc;
    *act = 1;
    long v = 0;
    SHM_TIME_LOOP(c, *t, v = shmem_long_g(&c->sig[1], (ME + 1) % NP));
    c->fetched[0] = v;
    return ISOCHRON_OK;
}
static int validate_g_ring(isochron_shmem_ctx_t *c)
{
    int from = (ME + 1) % NP;
    long want = 7000 + 10L * c->rep + from;
    if (c->fetched[0] != want) return shm_defect(c, "shmem_long_g", "returned a wrong value", "PE %d read %ld from PE %d, expected %ld", ME, c->fetched[0], from, want);
    return ISOCHRON_OK;
}

/* fence_put / quiet_put: the put untimed, a timer around the fence (quiet) that follows it */
static int run_after_put(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int fence = op->name[0] == 'f';
    if (ME == 0) shm_fill(c->src, c->bytes, c->rep, 0);
    if (ME == T) shm_poison(c->dst, c->bytes, c->rep, 0);
    int rc = shm_barrier(c);
    if (rc || ME != 0) return rc;
    *act = 1;
    double s = 0;
    for (int i = 0; i < c->iters; i++) {
        shmem_putmem(c->dst, c->src, c->bytes, T);
        double t0 = shm_now(c);
        if (fence) shmem_fence();
        else shmem_quiet();
        s += shm_now(c) - t0;
    }
    shmem_quiet();
    *t = s / c->iters;
    c->res = c->tres;
    shm_timed(c, 1, "origin");
    return ISOCHRON_OK;
}
static int validate_put_pair(isochron_shmem_ctx_t *c) { return ME == T ? shm_check(c, "shmem_putmem", c->dst, c->bytes, c->rep, 0) : ISOCHRON_OK; }

/* ---- contexts ----------------------------------------------------------- */

static long ctx_option(const char *name)
{
    return strstr(name, "serialized") ? SHMEM_CTX_SERIALIZED : strstr(name, "private") ? SHMEM_CTX_PRIVATE : SHMEM_CTX_NOSTORE;
}

static int setup_ctxop(isochron_shmem_ctx_t *c) { return shm_alloc(c, c->bytes); }

static int run_ctx_life(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int create = strstr(op->name, "create") != NULL;
    long opt = ctx_option(op->name);
    *act = 1;
    double s = 0;
    int bad = 0, ret = 0;
    for (int i = 0; i < c->iters && !bad; i++) {
        shmem_ctx_t x;
        memset(&x, 0, sizeof x);
        double t0 = shm_now(c);
        if (create) ret = shmem_ctx_create(opt, &x);
        double t1 = shm_now(c);
        if (!create) ret = shmem_ctx_create(opt, &x);
        if (ret != 0) { bad = 1; break; }
        double t2 = shm_now(c);
        shmem_ctx_destroy(x);
        double t3 = shm_now(c);
        s += create ? t1 - t0 : t3 - t2;
    }
    if (bad)
        return isochron_set_error(ISOCHRON_EUNSUPPORTED, "%s: shmem_ctx_create(%s) on PE %d returned %d: the library could not make a context", op->name,
                                  opt == SHMEM_CTX_SERIALIZED ? "SHMEM_CTX_SERIALIZED" : opt == SHMEM_CTX_PRIVATE ? "SHMEM_CTX_PRIVATE" : "SHMEM_CTX_NOSTORE", ME, ret);
    *t = s / c->iters;
    c->res = c->tres;
    shm_timed(c, 1, "origin");
    return ISOCHRON_OK;
}

static int run_ctx_rma(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int get = !strcmp(op->name, "ctx_get"), nbi = strstr(op->name, "nbi") != NULL;
    if (ME == 0) { shm_fill(c->src, c->bytes, c->rep, 0); shm_poison(c->dst, c->bytes, c->rep, get ? T : 0); }
    if (ME == T) { shm_fill(c->src, c->bytes, c->rep, T); shm_poison(c->dst, c->bytes, c->rep, get ? T : 0); }
    int rc = shm_barrier(c);
    if (rc || ME != 0) return rc;
    shmem_ctx_t x;
        memset(&x, 0, sizeof x);
    int ret = shmem_ctx_create(SHMEM_CTX_PRIVATE, &x);
    if (ret != 0)
        return isochron_set_error(ISOCHRON_EUNSUPPORTED, "%s: shmem_ctx_create(SHMEM_CTX_PRIVATE) on PE 0 returned %d: the library could not make a context", op->name, ret);
    *act = 1;
    /* an empty quiet on the context, subtracted from put (as put's empty shmem_quiet) */
    shmem_ctx_quiet(x);
    double q0 = shm_now(c);
    for (int i = 0; i < SHM_QEMPTY_N; i++) shmem_ctx_quiet(x);
    double qe = (shm_now(c) - q0) / SHM_QEMPTY_N;
    if (get) SHM_TIME_LOOP(c, *t, shmem_ctx_getmem(x, c->dst, c->src, c->bytes, T));
    else if (nbi) SHM_TIME_LOOP(c, *t, shmem_ctx_putmem_nbi(x, c->dst, c->src, c->bytes, T); shmem_ctx_quiet(x));
    else {
        SHM_TIME_LOOP(c, *t, shmem_ctx_putmem(x, c->dst, c->src, c->bytes, T); shmem_ctx_quiet(x));
        *t -= qe;
        c->correction = qe;
        c->res += SHM_QEMPTY_RES(c);
    }
    shmem_ctx_quiet(x);
    shmem_ctx_destroy(x);
    return ISOCHRON_OK;
}
static int validate_ctx_rma(isochron_shmem_ctx_t *c)
{
    const isochron_shmem_op_t *op = c->op;
    if (!strcmp(op->name, "ctx_get")) return ME == 0 ? shm_check(c, "shmem_ctx_getmem", c->dst, c->bytes, c->rep, T) : ISOCHRON_OK;
    return ME == T ? shm_check(c, strstr(op->name, "nbi") ? "shmem_ctx_putmem_nbi" : "shmem_ctx_putmem", c->dst, c->bytes, c->rep, 0) : ISOCHRON_OK;
}

/* ---- memory: realloc, calloc, free ----------------------------------------- */

static int setup_none(isochron_shmem_ctx_t *c) { (void)c; return ISOCHRON_OK; }
static void teardown_none(isochron_shmem_ctx_t *c) { (void)c; }

/* Collective calls (every PE allocates and frees together): a PE that finds something wrong goes on
 * with the loop and reports at the end, so no PE waits in a call the others left. */
static int run_mem(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    size_t nb = c->bytes ? c->bytes : 1, half = nb / 2 ? nb / 2 : 1, nel = nb / 8 ? nb / 8 : 1;
    int kind = op->name[0]; /* r(ealloc), c(alloc), f(ree) */
    *act = 1;
    double s = 0;
    int rc = ISOCHRON_OK, null = 0;
    for (int i = 0; i < c->iters; i++) {
        unsigned char *p = NULL, *h = NULL;
        double t0 = 0, t1 = 0;
        if (kind == 'r') {
            h = shmem_malloc(half);
            if (h) shm_fill(h, half, c->rep + i, ME);
            t0 = shm_now(c);
            p = h ? shmem_realloc(h, nb) : NULL;
            t1 = shm_now(c);
            if (!p) { null = 1; if (h) shmem_free(h); continue; }
            if (!rc) rc = shm_check(c, "shmem_realloc", p, half, c->rep + i, ME); /* the data it held must be kept */
        } else if (kind == 'c') {
            t0 = shm_now(c);
            p = shmem_calloc(nel, 8);
            t1 = shm_now(c);
            if (!p) { null = 1; continue; }
            for (size_t k = 0; k < nel * 8 && !rc; k++)
                if (p[k]) rc = shm_defect(c, "shmem_calloc", "returned memory that is not zero", "PE %d byte %zu of %zu: %u", ME, k, nel * 8, p[k]);
            memset(p, 0xa5, nel * 8); /* the next block, maybe this one again, must be zeroed anew */
        } else {
            p = shmem_malloc(nb);
            if (!p) { null = 1; continue; }
            t0 = shm_now(c);
            shmem_free(p);
            t1 = shm_now(c);
            p = NULL;
        }
        if (p) shmem_free(p);
        s += t1 - t0;
    }
    if (null) /* the symmetric heap is full: not wrong data */
        return isochron_set_error(ISOCHRON_ENOMEM, "%s: an allocation of %zu bytes on PE %d returned NULL: symmetric heap exhausted (raise SHMEM_SYMMETRIC_HEAP_SIZE)", op->name, nb, ME);
    if (rc) return rc;
    *t = s / c->iters;
    c->res = c->tres;
    shm_timed(c, 1, "origin");
    return ISOCHRON_OK;
}

/* ---- locks: set and clear apart, test_lock on a held lock ------------------- */
#define LK 10  /* sig[LK]: the lock word */
#define FAILS 12 /* sig[FAILS]: tests that answered "free" on a held lock */

static int setup_lk(isochron_shmem_ctx_t *c) { return shm_alloc(c, 64); }

static int run_setclear(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    int set = !strcmp(op->name, "set_lock");
    c->sig[LK + 1] = 0;
    int rc = shm_barrier(c);
    if (rc || ME != 0) return rc;
    *act = 1;
    long *lk = &c->sig[LK];
    double s = 0;
    for (int i = 0; i < c->iters; i++) {
        double t0 = shm_now(c);
        shmem_set_lock(lk);
        double t1 = shm_now(c);
        c->sig[LK + 1]++; /* guarded by the lock (one PE: checks set and clear pair up) */
        double t2 = shm_now(c);
        shmem_clear_lock(lk);
        double t3 = shm_now(c);
        s += set ? t1 - t0 : t3 - t2;
    }
    /* the lock must be free again: a test acquires it */
    if (shmem_test_lock(lk)) c->sig[FAILS] = 1;
    else { c->sig[FAILS] = 0; shmem_clear_lock(lk); }
    *t = s / c->iters;
    c->res = c->tres;
    shm_timed(c, 1, "origin");
    return ISOCHRON_OK;
}
static int validate_setclear(isochron_shmem_ctx_t *c)
{
    if (ME == 0 && c->sig[FAILS])
        return shm_defect(c, "shmem_clear_lock", "left the lock taken", "PE 0: shmem_test_lock after %d set/clear pairs found the lock held", c->iters);
    return ISOCHRON_OK;
}

/* test_lock_busy (PE 1 holds, PE 0 tests), _all (the last PE holds, every other tests at once),
 * _turns (the last holds, the others test one after another), _round (each PE holds in turn while the
 * others test one after another); every test must find the lock held */
static int test_held(isochron_shmem_ctx_t *c, long *lk, double *s)
{
    long fails = 0;
    double t0 = shm_now(c);
    for (int i = 0; i < c->iters; i++) fails += shmem_test_lock(lk) == 0;
    *s += shm_now(c) - t0;
    if (fails) { shmem_clear_lock(lk); c->sig[FAILS] += fails; } /* it was acquired: give it back */
    return 0;
}

static int run_test_busy(isochron_shmem_ctx_t *c, double *t, int *act)
{
    const isochron_shmem_op_t *op = c->op;
    long *lk = &c->sig[LK];
    c->sig[FAILS] = 0;
    int rc = shm_barrier(c);
    if (rc) return rc;
    const char *v = op->name + strlen("test_lock_busy");
    double s = 0;
    int turns = 0;
    if (!*v || !strcmp(v, "_all") || !strcmp(v, "_turns")) {
        int holder = *v ? NP - 1 : 1;
        if (ME == holder) shmem_set_lock(lk);
        rc = shm_barrier(c);
        if (rc) return rc;
        if (!*v) { if (ME == 0) { test_held(c, lk, &s); turns = 1; } }
        else if (!strcmp(v, "_all")) { if (ME != holder) { test_held(c, lk, &s); turns = 1; } }
        else
            for (int p = 0; p < NP; p++) {
                if (p != holder && ME == p) { test_held(c, lk, &s); turns = 1; }
                if ((rc = shm_barrier(c))) return rc;
            }
        if ((rc = shm_barrier(c))) return rc;
        if (ME == holder) shmem_clear_lock(lk);
    } else { /* _round */
        for (int h = 0; h < NP; h++) {
            if (ME == h) shmem_set_lock(lk);
            if ((rc = shm_barrier(c))) return rc;
            for (int p = 0; p < NP; p++) {
                if (p != h && ME == p) { test_held(c, lk, &s); turns++; }
                if ((rc = shm_barrier(c))) return rc;
            }
            if (ME == h) shmem_clear_lock(lk);
            if ((rc = shm_barrier(c))) return rc;
        }
    }
    if (turns) {
        *act = 1;
        *t = s / ((double)c->iters * turns);
        c->res = c->tres / c->iters;
        shm_timed(c, c->iters, "origin");
    }
    return ISOCHRON_OK;
}
static int validate_test_busy(isochron_shmem_ctx_t *c)
{
    if (c->sig[FAILS])
        return shm_defect(c, "shmem_test_lock", "reported a held lock as free", "PE %d: %ld of its tests acquired a lock another PE held", ME, c->sig[FAILS]);
    return ISOCHRON_OK;
}

#define S ISOCHRON_SHMEM_SIZED
#define M2 ISOCHRON_SHMEM_MIN2
#define L ISOCHRON_SHMEM_LOOPED
#define E8 ISOCHRON_SHMEM_ELEM8
#define X ISOCHRON_SHMEM_EXTRA
const isochron_shmem_op_t isochron_shmem_extra_ops[] = {
    {"iput", "strided", "shmem_iput64 to PE 1, stride 4 both sides (size: bytes moved), + quiet minus an empty quiet", S | E8 | M2 | L | X, setup_strided, run_strided, validate_strided, teardown_buf},
    {"iget", "strided", "shmem_iget64 from PE 1, stride 4 both sides (size: bytes moved)", S | E8 | M2 | L | X, setup_strided, run_strided, validate_strided, teardown_buf},
    {"iput_ring", "strided", "every PE shmem_iput64 to its right neighbour at once, + quiet minus an empty quiet (Shmem_Iput_Round); largest over PEs", S | E8 | L | X, setup_strided, run_strided, validate_strided, teardown_buf},
    {"iget_ring", "strided", "every PE shmem_iget64 from its right neighbour at once (Shmem_Iget_Round); largest over PEs", S | E8 | L | X, setup_strided, run_strided, validate_strided, teardown_buf},
    {"put_exchange", "rma", "PEs 0 and 1 put to each other at once, + quiet minus an empty quiet (Shmem_Pingpong_Put_Put); largest of the two", S | M2 | L | X, setup_buf, run_exchange, validate_exchange, teardown_buf},
    {"put_ring_full", "rma", "every PE puts to its right neighbour + quiet, the quiet counted (Shmem_Put_Full); largest over PEs", S | L | X, setup_buf, run_ring_full, validate_ring_full, teardown_buf},
    {"p_ring", "rma", "every PE shmem_long_p to its right neighbour + quiet, minus an empty quiet (Shmem_P_Round); largest over PEs", L | X, setup_buf, run_p_ring, validate_p_ring, teardown_buf},
    {"g_ring", "rma", "every PE shmem_long_g from its right neighbour (Shmem_G_Round); largest over PEs", L | X, setup_buf, run_g_ring, validate_g_ring, teardown_buf},
    {"fence_put", "order", "shmem_fence right after a put to PE 1, a timer around the fence alone (Shmem_Fence_Put)", S | M2 | X, setup_buf, run_after_put, validate_put_pair, teardown_buf},
    {"quiet_put", "order", "shmem_quiet right after a put to PE 1, a timer around the quiet alone (Shmem_Quiet_Put)", S | M2 | X, setup_buf, run_after_put, validate_put_pair, teardown_buf},
    {"ctx_create_serialized", "ctx", "shmem_ctx_create(SHMEM_CTX_SERIALIZED), destroy untimed; largest over PEs", X, setup_none, run_ctx_life, NULL, teardown_none},
    {"ctx_create_private", "ctx", "shmem_ctx_create(SHMEM_CTX_PRIVATE), destroy untimed; largest over PEs", X, setup_none, run_ctx_life, NULL, teardown_none},
    {"ctx_create_nostore", "ctx", "shmem_ctx_create(SHMEM_CTX_NOSTORE), destroy untimed; largest over PEs", X, setup_none, run_ctx_life, NULL, teardown_none},
    {"ctx_destroy_serialized", "ctx", "shmem_ctx_destroy of a SERIALIZED context, create untimed; largest over PEs", X, setup_none, run_ctx_life, NULL, teardown_none},
    {"ctx_destroy_private", "ctx", "shmem_ctx_destroy of a PRIVATE context, create untimed; largest over PEs", X, setup_none, run_ctx_life, NULL, teardown_none},
    {"ctx_destroy_nostore", "ctx", "shmem_ctx_destroy of a NOSTORE context, create untimed; largest over PEs", X, setup_none, run_ctx_life, NULL, teardown_none},
    {"ctx_put", "ctx", "shmem_ctx_putmem to PE 1 + shmem_ctx_quiet on a private context, minus an empty ctx_quiet", S | M2 | L | X, setup_ctxop, run_ctx_rma, validate_ctx_rma, teardown_buf},
    {"ctx_get", "ctx", "shmem_ctx_getmem from PE 1 on a private context", S | M2 | L | X, setup_ctxop, run_ctx_rma, validate_ctx_rma, teardown_buf},
    {"ctx_put_nbi", "ctx", "shmem_ctx_putmem_nbi to PE 1 + shmem_ctx_quiet on a private context", S | M2 | L | X, setup_ctxop, run_ctx_rma, validate_ctx_rma, teardown_buf},
    {"realloc", "memory", "shmem_realloc of a half-size block to the size (malloc untimed), its data kept (Shmem_Realloc); largest over PEs", S | X, setup_none, run_mem, NULL, teardown_none},
    {"calloc", "memory", "shmem_calloc of the size in 8-byte elements, checked zero (Shmem_Calloc); largest over PEs", S | X, setup_none, run_mem, NULL, teardown_none},
    {"free", "memory", "shmem_free of a block of the size (malloc untimed; Shmem_Free); largest over PEs", S | X, setup_none, run_mem, NULL, teardown_none},
    {"set_lock", "lock", "shmem_set_lock on a free lock alone, clear untimed (PE 0)", X, setup_lk, run_setclear, validate_setclear, teardown_buf},
    {"clear_lock", "lock", "shmem_clear_lock alone, set untimed (PE 0)", X, setup_lk, run_setclear, validate_setclear, teardown_buf},
    {"test_lock_busy", "lock", "PE 0 shmem_test_lock on the lock PE 1 holds (Shmem_Lock_Test_Busy)", M2 | X, setup_lk, run_test_busy, validate_test_busy, teardown_buf},
    {"test_lock_busy_all", "lock", "the last PE holds the lock, every other tests it at once (Shmem_Lock_Test_Busy_All); largest over PEs", M2 | X, setup_lk, run_test_busy, validate_test_busy, teardown_buf},
    {"test_lock_busy_turns", "lock", "the last PE holds the lock, the others test it one after another (Shmem_Lock_Test_Busy_Turns); largest", M2 | X, setup_lk, run_test_busy, validate_test_busy, teardown_buf},
    {"test_lock_busy_round", "lock", "each PE holds the lock in turn, the others test it one after another (Shmem_Lock_Test_Busy_Round); largest", M2 | X, setup_lk, run_test_busy, validate_test_busy, teardown_buf},
};
const int isochron_shmem_extra_nops = (int)(sizeof isochron_shmem_extra_ops / sizeof isochron_shmem_extra_ops[0]);
