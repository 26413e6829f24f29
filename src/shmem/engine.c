/*
 * Running one OpenSHMEM measurement at one size: the SKaMPI loop (paper 002
 * sec. 3.3, "Stability": each measuring call performs many operations and
 * returns their mean; the caller repeats calls until the standard deviation
 * is small enough), with the bench engine's stop rule (isochron_bench_ci_met:
 * the median's distribution-free interval, or the mean's Student's t one,
 * within rel_ci) and isochron_point_t as the result.
 *
 * Why not the bench engine (src/bench): it timestamps one execution of an
 * operation per repetition on every rank and turns the timestamps into a
 * run time. The OpenSHMEM methods need per-PE loop timing with subtraction
 * of separately measured parts (empty quiet, barrier, acknowledgment, post,
 * computation: Alg. 1, 4-5, 9) and one-sided operations that only one PE
 * times; what they share with the engine (statistics, points, reporters,
 * clock) is reused here.
 *
 * Repetitions are separated by shmem_quiet and a polite MPI barrier (waiting
 * PEs sleep instead of spinning, so an oversubscribed node gives its cores to
 * the PEs that measure).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/stats.h"
#include "isochron/timer.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

void isochron_shmem_opts_default(isochron_shmem_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->min_reps = ISOCHRON_SHMEM_DEFAULT_MIN_REPS;
    o->max_reps = ISOCHRON_SHMEM_DEFAULT_MAX_REPS;
    o->rel_ci = ISOCHRON_SHMEM_DEFAULT_REL_CI;
    o->ci_level = ISOCHRON_SHMEM_DEFAULT_CI_LEVEL;
    o->budget = ISOCHRON_SHMEM_DEFAULT_BUDGET;
    o->iters = ISOCHRON_SHMEM_DEFAULT_ITERS;
    (void)isochron_shmem_loop_find(ISOCHRON_SHMEM_DEFAULT_LOOP, &o->loop);
    o->validate = 1;
    o->window = 0;
}

int isochron_shmem_loop_find(const char *name, int *loop)
{
    if (isochron_streq_ci(name, "outside")) { *loop = ISOCHRON_SHMEM_LOOP_OUTSIDE; return ISOCHRON_OK; }
    if (isochron_streq_ci(name, "inside")) { *loop = ISOCHRON_SHMEM_LOOP_INSIDE; return ISOCHRON_OK; }
    return isochron_set_error(ISOCHRON_ENAME, "unknown loop timing '%s'; valid: outside (one timer around the loop, parts by subtraction: Alg. 6/9), "
                                              "inside (timers around each timed part: Alg. 7/8)", name);
}

const char *isochron_shmem_loop_name(int loop) { return loop == ISOCHRON_SHMEM_LOOP_INSIDE ? "inside" : "outside"; }

/* All PEs return the same code, and the message of the lowest failing PE. */
int shm_agree(isochron_shmem_ctx_t *c, int rc)
{
    int in[2] = {rc, c->me}, out[2];
    if (isochron_allreduce_polite(in, out, 1, MPI_2INT, MPI_MINLOC, c->comm) != ISOCHRON_OK) return ISOCHRON_EMPI;
    if (out[0] == ISOCHRON_OK) return ISOCHRON_OK;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", c->me == out[1] ? isochron_last_error() : "");
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, out[1], c->comm);
    if (c->me != out[1]) isochron_set_error(out[0], "%s", msg);
    if (out[0] == ISOCHRON_EVALIDATE) MPI_Bcast(&c->defect, (int)sizeof c->defect, MPI_CHAR, out[1], c->comm); /* what the library did, everywhere */
    return out[0];
}

int shm_barrier(isochron_shmem_ctx_t *c)
{
    shmem_quiet();
    return isochron_barrier_polite(c->comm);
}

/* The symmetric allocations of shm_alloc for buffers of bufbytes (also what
 * isochron_shmem_heap_needed adds up, so the two cannot disagree). */
typedef struct { size_t buf, gap, psync, nwrk; } shm_layout_t;
static shm_layout_t shm_layout(size_t bufbytes)
{
    shm_layout_t l;
    l.buf = bufbytes < 64 ? 64 : bufbytes;
    /* src and dst one allocation, dst starting 320 bytes past a 4 KiB multiple after src: when the
     * two were a multiple of 4 KiB apart (as two equal page-sized allocations are, and symmetric
     * addresses keep that offset on every PE), a 4 KiB put between two PEs of this host took
     * 2.2 us instead of 0.15 us (4K aliasing in the copy; measured with a 20-line oshmem program) */
    l.gap = (l.buf + 4095) / 4096 * 4096 + 320;
    size_t ps = SHMEM_REDUCE_SYNC_SIZE;
    if (SHMEM_BCAST_SYNC_SIZE > ps) ps = SHMEM_BCAST_SYNC_SIZE;
    if (SHMEM_COLLECT_SYNC_SIZE > ps) ps = SHMEM_COLLECT_SYNC_SIZE;
    if (SHMEM_ALLTOALL_SYNC_SIZE > ps) ps = SHMEM_ALLTOALL_SYNC_SIZE;
    if (SHMEM_BARRIER_SYNC_SIZE > ps) ps = SHMEM_BARRIER_SYNC_SIZE;
    l.psync = ps;
    l.nwrk = l.buf / sizeof(long) / 2 + 1;
    if (l.nwrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE) l.nwrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    return l;
}

size_t isochron_shmem_heap_needed(const isochron_shmem_op_t *op, size_t bytes, int npes, int window)
{
    size_t b = (op->flags & ISOCHRON_SHMEM_SIZED) ? bytes : 8;
    if (op->flags & ISOCHRON_SHMEM_TPUT) { /* a window of messages, each in its own slot */
        size_t w = (size_t)(window > 0 ? window : ISOCHRON_SHMEM_WINDOW_DEFAULT);
        if (b > SIZE_MAX / 4 / w) return SIZE_MAX;
        b *= w;
    }
    /* what each family's setup asks shm_alloc for: collectives a block per PE, atomics and locks
     * 64 B, memory measurements their own block of the size (shmem_malloc/shmem_align in the loop) */
    if (!strcmp(op->family, "memory")) return b + 4096;
    if (!strcmp(op->family, "atomic") || !strcmp(op->family, "lock")) b = 64;
    else if (!strcmp(op->family, "strided")) { /* n elements at stride 4 (extra.c's ISTRIDE) */
        if (b > SIZE_MAX / 16) return SIZE_MAX;
        b *= 4;
    }
    else if (!strcmp(op->family, "coll") || !strcmp(op->family, "bcast_method") || !strcmp(op->family, "active")) {
        if (npes > 0 && b > SIZE_MAX / 4 / (size_t)npes) return SIZE_MAX;
        b *= (size_t)(npes > 0 ? npes : 1);
    }
    if (b > SIZE_MAX / 4) return SIZE_MAX;
    shm_layout_t l = shm_layout(b);
    return l.gap + l.buf + (SHM_NSIG + 2 * l.psync + l.nwrk) * sizeof(long);
}

int shm_alloc(isochron_shmem_ctx_t *c, size_t bufbytes)
{
    shm_layout_t l = shm_layout(bufbytes);
    size_t gap = l.gap, ps = l.psync, nw = l.nwrk;
    c->bufbytes = l.buf;
    c->src = shmem_malloc(gap + c->bufbytes);
    c->dst = c->src ? c->src + gap : NULL;
    c->sig = shmem_calloc(SHM_NSIG, sizeof(long));
    c->psync[0] = shmem_malloc(ps * sizeof(long));
    c->psync[1] = shmem_malloc(ps * sizeof(long));
    c->pwrk = shmem_malloc(nw * sizeof(long));
    c->fetched = calloc((size_t)(c->iters > 0 ? c->iters : 1), sizeof(long));
    int rc = (c->src && c->dst && c->sig && c->psync[0] && c->psync[1] && c->pwrk && c->fetched)
                 ? ISOCHRON_OK
                 : isochron_set_error(ISOCHRON_ENOMEM, "shmem: symmetric heap exhausted allocating %zu bytes per buffer (raise SHMEM_SYMMETRIC_HEAP_SIZE)", c->bufbytes);
    if (!rc) {
        for (size_t i = 0; i < ps; i++) c->psync[0][i] = c->psync[1][i] = SHMEM_SYNC_VALUE;
        memset(c->src, 0, c->bufbytes);
        memset(c->dst, 0, c->bufbytes);
    }
    shmem_barrier_all(); /* pSync initialized everywhere before first use */
    return rc;
}

void shm_free(isochron_shmem_ctx_t *c)
{
    shmem_barrier_all();
    if (c->src) shmem_free(c->src); /* dst is inside it */
    if (c->sig) shmem_free(c->sig);
    if (c->psync[0]) shmem_free(c->psync[0]);
    if (c->psync[1]) shmem_free(c->psync[1]);
    if (c->pwrk) shmem_free(c->pwrk);
    free(c->fetched);
    c->src = c->dst = NULL;
    c->sig = c->psync[0] = c->psync[1] = c->pwrk = c->fetched = NULL;
}

static unsigned char pat(size_t k, int rep, int pe) { return (unsigned char)(k * 7u + (unsigned)rep * 13u + (unsigned)pe * 31u + 1u); }

void shm_fill(void *buf, size_t n, int rep, int pe)
{
    unsigned char *b = buf;
    for (size_t k = 0; k < n; k++) b[k] = pat(k, rep, pe);
}

void shm_poison(void *buf, size_t n, int rep, int pe)
{
    unsigned char *b = buf;
    for (size_t k = 0; k < n; k++) b[k] = (unsigned char)~pat(k, rep, pe);
}

/* Library defects: the sentence is made from what was seen (see isochron_shmem_defect_t). */
static int defect_set(isochron_shmem_ctx_t *c, const char *call, const char *what, const char *fmt, va_list ap)
{
    const isochron_shmem_op_t *op = c->op;
    snprintf(c->defect.call, sizeof c->defect.call, "%s", call);
    snprintf(c->defect.what, sizeof c->defect.what, "%s", what);
    vsnprintf(c->defect.detail, sizeof c->defect.detail, fmt, ap);
    return isochron_set_error(ISOCHRON_EVALIDATE, "%s: %s %s: %s", op ? op->name : "shmem", call, what, c->defect.detail);
}

int shm_defect(isochron_shmem_ctx_t *c, const char *call, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = defect_set(c, call, what, fmt, ap);
    va_end(ap);
    return rc;
}

int shm_defect_long(isochron_shmem_ctx_t *c, const char *call, long got, long before, long want, const char *otherwise, const char *fmt, ...)
{
    char where[160], detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where, sizeof where, fmt, ap);
    va_end(ap);
    snprintf(detail, sizeof detail, "%s: got %ld, expected %ld", where, got, want);
    return shm_defect(c, call, got == before ? "left the target unchanged" : otherwise, "%s", detail);
}

const char *isochron_shmem_defect_sentence(const isochron_shmem_defect_t *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s on symmetric-heap memory %s", d->call[0] ? d->call : "an OpenSHMEM call", d->what[0] ? d->what : "delivered wrong data");
    return buf;
}

int shm_check(isochron_shmem_ctx_t *c, const char *call, const void *buf, size_t n, int rep, int pe)
{
    const unsigned char *b = buf;
    for (size_t k = 0; k < n; k++) {
        if (b[k] == pat(k, rep, pe)) continue;
        /* what is there instead: the poison written before the call, an earlier repetition's data, or other bytes */
        size_t same = 0;
        for (size_t m = k; m < n; m++) same += b[m] == (unsigned char)~pat(m, rep, pe);
        const char *what = same == n - k ? "left the destination unchanged"
                         : rep > 0 && b[k] == pat(k, rep - 1, pe) ? "delivered stale data (an earlier repetition's)"
                         : "delivered wrong data";
        return shm_defect(c, call, what, "PE %d byte %zu: expected %u (from PE %d, repetition %d), got %u", c->me, k, pat(k, rep, pe), pe, rep, b[k]);
    }
    return ISOCHRON_OK;
}

/* An (almost) empty shmem_quiet: nothing outstanding. Timed around a loop. */
double shm_time_quiet_empty(isochron_shmem_ctx_t *c)
{
    int n = SHM_QEMPTY_N;
    shmem_quiet();
    double t0 = shm_now(c);
    for (int i = 0; i < n; i++) shmem_quiet();
    return (shm_now(c) - t0) / n;
}

/* Busy computation without the operating system (paper 002 sec. 3.3, "Busy
 * wait": increment in a loop, an empty asm keeps the compiler from removing it). */
void shm_busy(long n)
{
    for (volatile long i = 0; i < n; i++) __asm__ volatile("");
}

long shm_busy_calibrate(isochron_shmem_ctx_t *c, double seconds, double *actual)
{
    long n = 1000;
    double t = 0;
    for (int k = 0; k < 30; k++) {
        double t0 = shm_now(c);
        shm_busy(n);
        t = shm_now(c) - t0;
        if (t > 2e-4 || t > seconds) break;
        n *= 4;
    }
    double per = t > 0 ? t / (double)n : 1e-9;
    long want = (long)(seconds / per);
    if (want < 1) want = 1;
    /* measure what it really takes (median of 5) */
    double v[5];
    for (int k = 0; k < 5; k++) {
        double t0 = shm_now(c);
        shm_busy(want);
        v[k] = shm_now(c) - t0;
    }
    *actual = isochron_median(v, 5);
    return want;
}

static int default_iters(size_t bytes)
{
    size_t it = bytes ? (size_t)(4u << 20) / bytes : 100;
    if (it > 100) it = 100;
    if (it < 4) it = 4;
    return (int)it;
}

/* The measurement's context: sizes, window, iterations, loop timing, the timer's resolution; the checks
 * that refuse a measurement (a clear error, nothing made), then its own communicator. */
static int ctx_init(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, size_t bytes, isochron_clock_t *global,
                    isochron_shmem_ctx_t *c)
{
    memset(c, 0, sizeof *c);
    c->me = shmem_my_pe();
    c->npes = shmem_n_pes();
    c->target = c->npes > 1 ? 1 : 0;
    c->bytes = (op->flags & ISOCHRON_SHMEM_SIZED) ? bytes : 8;
    c->window = o->window > 0 ? o->window : ISOCHRON_SHMEM_WINDOW_DEFAULT;
    if (c->window > ISOCHRON_SHMEM_WINDOW_MAX)
        return isochron_set_error(ISOCHRON_EINVAL, "window of %d messages: at most %d", c->window, ISOCHRON_SHMEM_WINDOW_MAX);
    /* a throughput operation is a window: as many windows as operations of the window's bytes */
    c->iters = o->iters > 0 ? o->iters : default_iters((op->flags & ISOCHRON_SHMEM_TPUT) ? c->bytes * (size_t)c->window : c->bytes);
    c->iters_auto = o->iters <= 0;
    c->budget = o->budget;
    c->loop = o->loop;
    c->clk = global;
    c->op = op;
    double gran = 0, cost = 0;
    isochron_timer_resolution(isochron_clock_timer(global), &gran, &cost);
    c->tres = gran + cost;
    if ((op->flags & ISOCHRON_SHMEM_MIN2) && c->npes < 2)
        return isochron_set_error(ISOCHRON_EINVAL, "%s needs at least 2 PEs (running on %d)", op->name, c->npes);
    if ((op->flags & ISOCHRON_SHMEM_ELEM8) && c->bytes % 8)
        return isochron_set_error(ISOCHRON_EINVAL, "%s moves 64-bit elements: size %zu B is not a multiple of 8", op->name, c->bytes);
    if (o->min_reps < 1 || o->max_reps < o->min_reps)
        return isochron_set_error(ISOCHRON_EINVAL, "repetitions: need 1 <= min_reps (%d) <= max_reps (%d)", o->min_reps, o->max_reps);
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c->comm) != MPI_SUCCESS) return isochron_set_error(ISOCHRON_EMPI, "shmem: MPI_Comm_dup failed");
    c->oversubscribed = isochron_comm_oversubscribed(c->comm);
    return ISOCHRON_OK;
}

/* One measurement in progress: the repetitions so far and how this PE timed its last one. */
typedef struct {
    isochron_bench_opts_t rule; /* the stop rule's fields of the bench engine's options */
    double wall0;         /* the start (truth clock) */
    double *vals;         /* the valid repetitions' times (the slowest measuring PE's), max_reps */
    int n, nvalid;        /* repetitions measured, valid ones */
    int attempts;         /* repetitions run */
    int stop;             /* ISOCHRON_STOP_*, PE 0's */
    double res_max;       /* the coarsest resolution of a repetition on a measuring PE */
    int last_tk;          /* how the last repetition was timed on this PE (0: it measured none) */
    char last_timing[12], last_of[12];
} shm_run_t;

static void run_init(const isochron_shmem_opts_t *o, shm_run_t *u)
{
    memset(u, 0, sizeof *u);
    u->wall0 = isochron_truth_now();
    isochron_bench_opts_default(&u->rule);
    u->rule.min_reps = o->min_reps;
    u->rule.rel_ci = o->rel_ci;
    u->rule.ci_mean = o->ci_mean;
    u->stop = ISOCHRON_STOP_MAXREPS;
}

/* The point as asked for, before anything runs. */
static void point_head(const isochron_shmem_op_t *op, const isochron_shmem_ctx_t *c, isochron_point_t *res)
{
    snprintf(res->op, sizeof res->op, "%s", op->name);
    snprintf(res->family, sizeof res->family, "%s", op->family);
    res->bytes = (op->flags & ISOCHRON_SHMEM_SIZED) ? c->bytes : 0;
    res->nprocs = c->npes;
    res->root = 0;
    res->overlap = NAN;
    res->t_comm = NAN;
    res->t_comp = NAN;
    res->window = NAN;
    res->slack = NAN;
    res->late_tolerance = NAN;
    res->clock_bound = res->clock_true = res->clock_bound_stat = res->clock_bound_hard = NAN;
}

/* The measurement set up, the times' buffer, a warm-up repetition (not recorded); the same code on every PE. */
static int measure_start(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, isochron_shmem_ctx_t *c, shm_run_t *u)
{
    int rc = shm_agree(c, op->setup ? op->setup(c) : ISOCHRON_OK);
    if (rc) return rc;
    u->vals = malloc(sizeof(double) * (size_t)o->max_reps);
    if ((rc = shm_agree(c, u->vals ? ISOCHRON_OK : isochron_set_error(ISOCHRON_ENOMEM, "shmem: out of memory")))) return rc;
    double t;
    int act;
    c->rep = 0;
    shm_barrier(c);
    rc = shm_agree(c, op->run(c, &t, &act));
    shm_barrier(c);
    return rc;
}

/* One repetition on every PE: the measurement's run (how this PE timed it noted), the data checked, the
 * slowest measuring PE's time kept when finite. */
static int repetition(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, isochron_shmem_ctx_t *c, isochron_point_t *res,
                      shm_run_t *u)
{
    double t = NAN, tmax;
    int act = 0;
    c->rep = ++u->attempts;
    c->tk = 0;
    shm_barrier(c);
    int rc = op->run(c, &t, &act);
    if (act && c->tk == 0) shm_timed(c, c->loop == ISOCHRON_SHMEM_LOOP_OUTSIDE ? c->iters : 1, "origin");
    if (act) {
        u->last_tk = c->tk;
        memcpy(u->last_timing, c->timing, sizeof u->last_timing);
        memcpy(u->last_of, c->loop_of, sizeof u->last_of);
    }
    shm_barrier(c);
    if ((rc = shm_agree(c, rc))) return rc;
    const char *corrupt = getenv("ISOCHRON_TEST_CORRUPT"); /* test hook: prove validation can fail */
    if (corrupt && !strcmp(corrupt, op->name) && c->dst) c->dst[0] ^= 0x5a;
    if (o->validate && op->validate) {
        if ((rc = shm_agree(c, op->validate(c)))) return rc;
        res->validated++;
    }
    double mine = act ? (isnan(t) ? INFINITY : t) : -INFINITY;
    MPI_Allreduce(&mine, &tmax, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    if (act && c->res > u->res_max) u->res_max = c->res;
    u->n++;
    if (isfinite(tmax)) u->vals[u->nvalid++] = tmax;
    return ISOCHRON_OK;
}

/* PE 0 after a repetition: 1 to go on, else 0 with u->stop the reason. The bench engine's stop rule
 * (isochron_bench_ci_met: --rel-ci means the same in every driver), then the budget, max_reps, the attempts. */
static int go_on(const isochron_shmem_opts_t *o, shm_run_t *u)
{
    if (u->nvalid >= o->min_reps && o->rel_ci > 0) {
        isochron_summary_t s;
        isochron_summarize(u->vals, u->nvalid, o->ci_level, NULL, 0, &s);
        if (u->nvalid >= 2 && isochron_bench_ci_met(&u->rule, &s, u->nvalid)) { u->stop = ISOCHRON_STOP_CI; return 0; }
    }
    if (o->budget > 0 && u->nvalid >= o->min_reps && isochron_truth_now() - u->wall0 > o->budget) { u->stop = ISOCHRON_STOP_BUDGET; return 0; }
    if (u->nvalid >= o->max_reps) { u->stop = ISOCHRON_STOP_MAXREPS; return 0; }
    if (u->attempts >= 4 * o->max_reps) { u->stop = ISOCHRON_STOP_ATTEMPTS; return 0; }
    return 1;
}

/* Repetitions until PE 0 says stop (or at most max_reps valid ones of 4 x max_reps attempts). */
static int repetitions(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, isochron_shmem_ctx_t *c, isochron_point_t *res,
                       shm_run_t *u)
{
    while (u->nvalid < o->max_reps && u->attempts < 4 * o->max_reps) {
        int rc = repetition(op, o, c, res, u);
        if (rc) return rc;
        int go = c->me == 0 ? go_on(o, u) : 1;
        MPI_Bcast(&go, 1, MPI_INT, 0, c->comm);
        if (!go) break;
    }
    return ISOCHRON_OK;
}

/* The timing, from the lowest PE that measured (PEs that measure time alike). */
static void point_timing(const isochron_shmem_ctx_t *c, const shm_run_t *u, isochron_point_t *res)
{
    int in[2] = {u->last_tk > 0 ? 0 : 1, c->me}, out[2];
    MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, c->comm);
    struct { int tk; char timing[12], of[12]; } tm = {u->last_tk, "", ""};
    memcpy(tm.timing, u->last_timing, sizeof tm.timing);
    memcpy(tm.of, u->last_of, sizeof tm.of);
    MPI_Bcast(&tm, (int)sizeof tm, MPI_BYTE, out[1], c->comm);
    res->loop_k = tm.tk > 0 ? tm.tk : 1;
    snprintf(res->timing, sizeof res->timing, "%s", tm.timing[0] ? tm.timing : "origin");
    snprintf(res->loop_of, sizeof res->loop_of, "%s", tm.of);
}

/* The finished measurement, on every PE: statistics, the largest corrections and resolution, the timing,
 * the unit (a throughput measurement's rates), the overlap of the nbi overlap measurements. */
static void point_result(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, const isochron_shmem_ctx_t *c,
                         const shm_run_t *u, isochron_point_t *res)
{
    isochron_summarize(u->vals, u->nvalid, o->ci_level, NULL, 0, &res->s);
    res->reps = u->n;
    res->valid = u->nvalid;
    res->stop = u->stop;
    double corr[5] = {c->correction, c->tfull, c->tcomp, c->overlap, u->res_max}, cmax[5];
    MPI_Allreduce(corr, cmax, 5, MPI_DOUBLE, MPI_MAX, c->comm);
    res->correction = cmax[0];
    /* per operation: a repetition is c->iters operations, every time is per operation; a median
     * below the resolution (a subtraction's difference within its parts' resolutions, or
     * negative) is reported as "<= resolution", the raw value kept (isochron_point_below_resolution) */
    res->resolution = cmax[4];
    point_timing(c, u, res);
    snprintf(res->unit, sizeof res->unit, "s");
    if (op->flags & ISOCHRON_SHMEM_TPUT) { /* the statistics stay times per window; the reporters give B/s and msg/s */
        snprintf(res->unit, sizeof res->unit, "B/s");
        res->msg_window = c->window;
        res->moved_msgs = c->moved_msgs;
        res->moved_bytes = c->moved_msgs * (double)c->bytes;
    }
    res->clock_used = 0; /* local differences on one PE; a driver adds the clock bound where starts are global */
    if (!strcmp(op->family, "nbi") && strstr(op->name, "overlap")) {
        res->t_comm = cmax[1];
        res->t_comp = cmax[2];
        res->overlap = cmax[1] > 0 ? fmin(1.0, fmax(0.0, 1.0 - res->s.median / cmax[1])) : NAN; /* median: robust to descheduled repetitions */
    }
}

int isochron_shmem_measure(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, size_t bytes,
                           isochron_clock_t *global, isochron_point_t *res, isochron_shmem_defect_t *defect)
{
    if (defect) memset(defect, 0, sizeof *defect);
    memset(res, 0, sizeof *res);
    isochron_shmem_ctx_t c;
    int rc = ctx_init(op, o, bytes, global, &c);
    if (rc) return rc;
    shm_run_t u;
    run_init(o, &u);
    point_head(op, &c, res);
    rc = measure_start(op, o, &c, &u);
    if (!rc) rc = repetitions(op, o, &c, res, &u);
    MPI_Bcast(&u.stop, 1, MPI_INT, 0, c.comm);
    if (!rc) point_result(op, o, &c, &u, res);
    if (rc == ISOCHRON_EVALIDATE) { /* the library delivered wrong data: no time for it, the repetitions run, what it did */
        isochron_summarize(NULL, 0, o->ci_level, NULL, 0, &res->s);
        res->reps = u.attempts;
        res->valid = 0;
        res->stop = 0;
        if (defect) *defect = c.defect;
    }
    if (op->teardown) op->teardown(&c);
    res->elapsed = isochron_truth_now() - u.wall0;
    free(u.vals);
    MPI_Comm_free(&c.comm);
    return rc;
}
