/*
 * The benchmark engine: one point = one operation at one size, measured with
 * a scheme (when each repetition starts, which are valid) and a timing method
 * (how per-rank timestamps become one run time), repeated adaptively
 * (MPIBlib, paper 001, sec. 3: min_reps/max_reps and a Student's t error
 * target; paper 000, Alg. 5: a time slice per point).
 *
 * Repetitions are isolated from each other by the scheme and timestamped on
 * the global clock on every rank. Per-rank timestamps are combined in
 * batches (one allreduce over the batch, outside any timed region; schemes
 * that must agree per repetition, window and roundtime, do so themselves),
 * then rank 0 updates the statistics over the valid repetitions and decides
 * whether to stop: the CI half-width of the median (or, with ci_mean, of the
 * mean) <= rel_ci x that statistic after min_reps (isochron_bench_ci_met),
 * max_reps reached, or the time budget used. Batches grow by a quarter of the
 * repetitions so far, so the statistics cost stays small. An error on one
 * rank (e.g. wrong data found by validation) is carried in the next batch's
 * reduction, so every rank stops together instead of deadlocking.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#if defined(__linux__) && !defined(SMPI_ISOCHRON)
#include <sys/prctl.h>
#endif
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

int isochron_bench_ci_met(const isochron_bench_opts_t *o, const isochron_summary_t *s, int nv)
{
    if (!(o->rel_ci > 0) || nv < o->min_reps) return 0;
    if (o->ci_mean) return s->ci_half <= o->rel_ci * fabs(s->mean);
    return 0.5 * (s->med_hi - s->med_lo) <= o->rel_ci * fabs(s->median);
}

int isochron_bench_create(MPI_Comm comm, isochron_clock_t *global, const isochron_bench_opts_t *opts, isochron_bench_t **out)
{
    *out = NULL;
    int rc = isochron_bench_opts_check(opts);
    if (rc) return rc;
    isochron_bench_t *b = calloc(1, sizeof *b);
    if (!b) return isochron_set_error(ISOCHRON_ENOMEM, "bench: out of memory");
    b->comm = comm;
    b->clk = global;
    b->o = *opts;
    MPI_Comm_dup(comm, &b->ctl);
    MPI_Comm_rank(comm, &b->rank);
    MPI_Comm_size(comm, &b->size);
    b->oversubscribed = isochron_comm_oversubscribed(comm);
    /* The late-start cap (scheme_roundtime.c). When ranks outnumber cores a
     * rank's core-mate runs its share of the same operation before the rank
     * can start (measured at 4 ranks on 2 cores: alltoall 64 KiB starts 30-60
     * µs late in a run of 80-100 µs), so a start up to one run time late is
     * the operation's own cost there, not a disturbance. Measured on the
     * default sweep, 4 interleaved rounds on a quiet machine: 81-96 of 306
     * points below 90 % valid at 0.5, 26-48 at 1.0, with the points' medians
     * unchanged (ratio 0.992, 10th-90th percentile 0.88-1.14;
     * bench/results/latecap-4ranks-2cores-ompi414.txt). */
    if (b->o.late_cap == ISOCHRON_LATE_CAP_AUTO) b->o.late_cap = b->oversubscribed ? 1.0 : 0.5;
#if defined(__linux__) && !defined(SMPI_ISOCHRON) && defined(PR_SET_TIMERSLACK)
    /* wake from polite sleeps within ~1 µs instead of the default 50 µs slack */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
#endif
    if (opts->cache_bytes && !(b->cache = malloc(opts->cache_bytes))) {
        MPI_Comm_free(&b->ctl);
        free(b);
        return isochron_set_error(ISOCHRON_ENOMEM, "bench: cannot allocate %zu bytes for cache clearing", opts->cache_bytes);
    }
    b->scheme = isochron_scheme_find_impl(opts->scheme);
    b->method = isochron_method_find_impl(opts->method);
    b->plain = isochron_streq_ci(opts->method, "global") || isochron_streq_ci(opts->method, "max");
    if (!b->scheme || !b->method || isochron_timing_parse(opts->timing, &b->tk, &b->tkk)) {
        isochron_bench_destroy(b);
        return isochron_set_error(ISOCHRON_EINVAL, "bench: scheme '%s', method '%s' or timing '%s' unknown", opts->scheme, opts->method, opts->timing);
    }
    if (b->scheme->uses_barrier && (rc = isochron_barrier_create(opts->barrier, comm, NULL, &b->bar))) {
        isochron_bench_destroy(b);
        return rc;
    }
    *out = b;
    return ISOCHRON_OK;
}

void isochron_bench_destroy(isochron_bench_t *b)
{
    if (!b) return;
    MPI_Comm_free(&b->ctl);
    isochron_barrier_destroy(b->bar);
    if (b->own_track) isochron_track_destroy(b->track);
    free(b->cache);
    free(b);
}

int isochron_bench_oversubscribed(const isochron_bench_t *b) { return b->oversubscribed; }
double isochron_bench_late_cap(const isochron_bench_t *b) { return b->o.late_cap; }
int isochron_bench_setup_failed(const isochron_bench_t *b) { return b && b->setup_failed; }

void isochron_bench_use_tracker(isochron_bench_t *b, isochron_track_t *track)
{
    if (b->own_track) isochron_track_destroy(b->track);
    b->track = track;
    b->own_track = 0;
}

isochron_track_t *isochron_bench_tracker(const isochron_bench_t *b) { return b->track; }

/* Clock tracking at a point boundary or between batches (outside any timed
 * region): the engine's own tracker is made at the first point. */
static int track_poll(isochron_bench_t *b)
{
    if (!b->o.track) return ISOCHRON_OK;
    if (!b->track) {
        int rc = isochron_track_create(b->comm, b->clk, NULL, &b->track);
        if (rc) return rc;
        b->own_track = 1;
        return ISOCHRON_OK;
    }
    return isochron_track_poll(b->track, NULL);
}

void isochron_point_clock_errors(isochron_point_t *p, const isochron_track_errors_t *te)
{
    p->clock_bound = te->bound;
    p->clock_true = te->true_err;
    p->clock_bound_stat = te->bound_stat;
    p->clock_bound_hard = te->bound_hard;
    p->clock_bound_is_hard = te->hard;
}

void isochron_point_free(isochron_point_t *p)
{
    free(p->raw_start);
    free(p->raw_end);
    free(p->raw_time);
    free(p->raw_valid);
    p->raw_start = p->raw_end = p->raw_time = NULL;
    p->raw_valid = NULL;
}

/* Is repetition k's data checked? (--validate: 0 never, 1 on 0, 1, 2, 4, 8, ..., 2 always) */
static int validated(const isochron_bench_opts_t *o, int k) { return o->validate == 2 || (o->validate == 1 && (k & (k - 1)) == 0); }
static int in_place_point(const isochron_op_t *op, const isochron_op_ctx_t *ctx) { return (op->flags & ISOCHRON_OP_INPLACE) && ctx->in_place; }

/* Agree on an error code; all ranks get the first failing rank's message. */
static int agree(isochron_bench_t *b, int rc)
{
    int all = rc, me = rc ? b->rank : b->size, who;
    isochron_allreduce_polite(&rc, &all, 1, MPI_INT, MPI_MIN, b->ctl);
    if (!all) return ISOCHRON_OK;
    MPI_Allreduce(&me, &who, 1, MPI_INT, MPI_MIN, b->ctl);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", isochron_last_error());
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, who < b->size ? who : 0, b->ctl);
    return isochron_set_error(all, "%s", msg);
}

/* Repetitions are reduced and gathered in chunks of at most CHUNK, through
 * buffers allocated with the point: no allocation between the point's
 * collective steps, where a failure on one rank would leave the others
 * waiting. */
#define CHUNK 4096

typedef struct {
    int cap;
    double *start, *end, *loc;
    char *late;
    double *red;          /* reduction buffer: 2 x (6 CHUNK + 1) */
    double *mine, *all;   /* raw gather buffers: 2 CHUNK, and 2 CHUNK x ranks on rank 0 */
    /* rank 0 */
    double *runtime, *spread;
    char *valid;
} reps_t;

static void reps_free(reps_t *r)
{
    free(r->start); free(r->end); free(r->loc); free(r->late);
    free(r->red); free(r->mine); free(r->all);
    free(r->runtime); free(r->spread); free(r->valid);
    memset(r, 0, sizeof *r); /* freed twice is harmless */
}

static int reps_alloc(reps_t *r, int cap, int root)
{
    memset(r, 0, sizeof *r);
    r->cap = cap;
    r->start = malloc(sizeof(double) * (size_t)cap);
    r->end = malloc(sizeof(double) * (size_t)cap);
    r->loc = malloc(sizeof(double) * (size_t)cap);
    r->late = calloc((size_t)cap, 1);
    r->red = malloc(sizeof(double) * 2 * (6 * CHUNK + 1));
    if (root) {
        r->runtime = malloc(sizeof(double) * (size_t)cap);
        r->spread = malloc(sizeof(double) * (size_t)cap);
        r->valid = calloc((size_t)cap, 1);
    }
    if (!r->start || !r->end || !r->loc || !r->late || !r->red || (root && (!r->runtime || !r->spread || !r->valid))) {
        reps_free(r);
        return isochron_set_error(ISOCHRON_ENOMEM, "bench: out of memory for %d repetitions", cap);
    }
    return ISOCHRON_OK;
}

/* Reduce repetitions [from, to) across ranks; rank 0 gets run times (from the
 * method's combine hook) and validity. err: this rank's error flag. */
static int reduce_chunk(isochron_bench_t *b, const method_t *m, int loop_k, reps_t *r, int from, int to, int err, int *any_err)
{
    int n = to - from, w = 6 * n + 1;
    double *in = r->red, *out = in + w;
    /* everything reduced with MAX: -start gives the first start */
    for (int i = 0; i < n; i++) {
        in[i] = -r->start[from + i];
        in[n + i] = r->start[from + i];
        in[2 * n + i] = r->end[from + i];
        in[3 * n + i] = isnan(r->loc[from + i]) ? -INFINITY : r->loc[from + i];
        in[4 * n + i] = r->end[from + i] - r->start[from + i];
        in[5 * n + i] = r->late[from + i] ? 1 : 0;
    }
    in[6 * n] = err ? 1 : 0;
    int rc = isochron_allreduce_polite(in, out, w, MPI_DOUBLE, MPI_MAX, b->ctl);
    if (!rc && b->rank == 0)
        for (int i = 0; i < n; i++) {
            isochron_rep_times_t rt = {-out[i], out[n + i], out[2 * n + i], out[3 * n + i], out[4 * n + i]};
            double t = m->combine(&rt) / loop_k; /* a loop's repetition: per call */
            r->runtime[from + i] = t;
            r->valid[from + i] = out[5 * n + i] == 0 && isfinite(t);
            r->spread[from + i] = rt.last_start - rt.first_start;
        }
    *any_err = *any_err || out[6 * n] > 0;
    return rc;
}

static int reduce_batch(isochron_bench_t *b, const method_t *m, int loop_k, reps_t *r, int from, int to, int err, int *any_err)
{
    int rc = ISOCHRON_OK;
    *any_err = 0;
    for (int c = from; c < to && !rc; c += CHUNK) rc = reduce_chunk(b, m, loop_k, r, c, to - c > CHUNK ? c + CHUNK : to, err, any_err);
    return rc;
}

/* Gather raw per-rank timestamps of [from,to) into res (rank 0), reps-major. */
static void gather_raw(isochron_bench_t *b, reps_t *r, int from, int to, isochron_point_t *res)
{
    for (int c = from; c < to; c += CHUNK) {
        int n = to - c > CHUNK ? CHUNK : to - c;
        for (int i = 0; i < n; i++) { r->mine[2 * i] = r->start[c + i]; r->mine[2 * i + 1] = r->end[c + i]; }
        MPI_Gather(r->mine, 2 * n, MPI_DOUBLE, r->all, 2 * n, MPI_DOUBLE, 0, b->ctl);
        if (b->rank == 0)
            for (int p = 0; p < b->size; p++)
                for (int i = 0; i < n; i++) {
                    res->raw_start[(size_t)(c + i) * b->size + p] = r->all[(size_t)p * 2 * n + 2 * i];
                    res->raw_end[(size_t)(c + i) * b->size + p] = r->all[(size_t)p * 2 * n + 2 * i + 1];
                }
    }
}

/* A point's datatype and reduction by the ops module's names (src/ops/datatypes.c); what it does not name is
 * recorded as "other" and "-" (an application's own datatype or op). */
static void dtype_name(MPI_Datatype dt, char *buf, size_t len)
{
    const char *n = isochron_op_dtype_name(dt);
    snprintf(buf, len, "%s", strcmp(n, "?") ? n : "other");
}

static void op_name(MPI_Op op, char *buf, size_t len)
{
    const char *n = isochron_op_reduce_name(op);
    snprintf(buf, len, "%s", strcmp(n, "?") ? n : "-");
}

/* Root rotation (opts.rotate_root): one set-up per root, the contexts swapped
 * in and out of *ctx between repetitions so that prepare, run and validate of
 * repetition k all see root k mod p. */
typedef struct {
    isochron_op_ctx_t *ctxs; /* per root; NULL when not rotating */
    int cur, orig, n;
} rotation_t;

static void rotate_to(rotation_t *rt, isochron_op_ctx_t *ctx, int k)
{
    if (!rt->ctxs) return;
    int r = k % rt->n;
    if (r == rt->cur) return;
    int rep = ctx->rep;
    rt->ctxs[rt->cur] = *ctx;
    *ctx = rt->ctxs[r];
    ctx->rep = rep;
    rt->cur = r;
}

static int rotation_setup(isochron_bench_t *b, const isochron_op_t *op, const isochron_op_ctx_t *pristine, isochron_op_ctx_t *ctx, rotation_t *rt)
{
    memset(rt, 0, sizeof *rt);
    if (!b->o.rotate_root || !(op->flags & ISOCHRON_OP_ROOTED) || b->size < 2) return ISOCHRON_OK;
    int rc = ISOCHRON_OK;
    rt->ctxs = calloc((size_t)b->size, sizeof *rt->ctxs);
    if ((rc = agree(b, rt->ctxs ? ISOCHRON_OK : isochron_set_error(ISOCHRON_ENOMEM, "bench: out of memory for %d roots", b->size)))) {
        free(rt->ctxs);
        rt->ctxs = NULL;
        return rc;
    }
    rt->n = b->size;
    rt->cur = rt->orig = ctx->root;
    int r = 0;
    for (; r < b->size && !rc; r++) {
        if (r == rt->orig) continue;
        rt->ctxs[r] = *pristine;
        rt->ctxs[r].root = r;
        rc = agree(b, isochron_op_setup(op, &rt->ctxs[r]));
    }
    if (rc) { /* undo the set-ups that succeeded */
        for (int q = 0; q < r - 1; q++) if (q != rt->orig) isochron_op_teardown(op, &rt->ctxs[q]);
        free(rt->ctxs);
        rt->ctxs = NULL;
    }
    return rc;
}

static void rotation_free(const isochron_op_t *op, isochron_op_ctx_t *ctx, rotation_t *rt)
{
    if (!rt->ctxs) return;
    rotate_to(rt, ctx, rt->orig);
    for (int r = 0; r < rt->n; r++) if (r != rt->orig) isochron_op_teardown(op, &rt->ctxs[r]);
    free(rt->ctxs);
    rt->ctxs = NULL;
}

/* The timing of a point (--timing, opts.timing; issue 26). An operation whose whole effect is complete at
 * its origin (the one-sided ones: access + flush/unlock/fence return there) is timed at the origin, a local
 * clock difference to which the global clock adds nothing but its drift over the interval; one shorter than
 * LOOP_BELOW timer reads is timed as a loop of k back-to-back calls (paper 002's loop granularity), k from a
 * short probe so that one repetition is LOOP_READS x (granularity + read cost) long and LOOP_BOUND x the clock
 * bound where the timing reads the global clock across ranks. "auto" does both where they apply with --method
 * global or max (other methods are kept as they are), the loop for one-sided operations only: a call of one of
 * them is complete when it returns, so k of them back to back are k times one call, where k collectives
 * overlap (the root of a bcast runs ahead: bcast 8 B at 2 ranks read 0.21 us a call in a loop, a single
 * call's last exit ~1 us after the first start), so --timing loop must be asked for them. The same holds for
 * one-sided operations under active-target synchronization (ISOCHRON_OP_ACTIVE_TARGET: fence, PSCW), whose
 * target takes part in every epoch: back-to-back epochs lock-step the ranks (put_fence 8 B at 2 ranks, Open MPI
 * 4.1.4: 0.70 us an epoch in a loop, 0.88-1.9 us for one epoch from a common start), and their back-to-back
 * cost (0.7-1.9 us with the load, LOOP_BELOW reads = 0.83 us) sat on the threshold, so auto flipped between the
 * two from run to run; auto times them one epoch at a time (20+ timer reads: resolved), the loop only when
 * asked. The loop is for passive target (lock, lock_all), whose access completes without the target's
 * participation; their calls back to back took 0.10-0.18 us (lock_all) and 0.37-0.54 us (lock), clear of
 * the threshold (bench/timing_choice.sh repeats runs and prints the choices). "global" keeps
 * --method; "origin" and "loop[:K]" force.
 * Measured on this machine (Open MPI 4.1.4, 2 ranks): put_lockall 8 B single calls 300-460 ns on the global
 * clock with a 400 ns bound; bench/rma_small.sh compares the loop with a warm MPI_Put + MPI_Win_flush loop. */
#define LOOP_BELOW 20.0
#define LOOP_READS 400.0
#define LOOP_BOUND 20.0
#define LOOP_AUTO_MAX 10000
#define LOOP_PROBE 50.0 /* auto probes calls back to back when a single call (cold, after a barrier) is below LOOP_PROBE x LOOP_BELOW reads */
extern const method_t isochron_method_origin;

static const method_t *timing_method(const isochron_bench_t *b, const isochron_op_t *op)
{
    int rma = (op->flags & ISOCHRON_OP_RMA) != 0, tk = b->tk;
    if (rma && (tk == ISOCHRON_TIMING_ORIGIN || tk == ISOCHRON_TIMING_LOOP || (tk == ISOCHRON_TIMING_AUTO && b->plain))) return &isochron_method_origin;
    return b->method;
}

/* Seconds per call of k back-to-back calls (the loop as the method will run it), the least of 3 tries. */
static int probe_calls(isochron_bench_t *b, const isochron_op_t *op, isochron_op_ctx_t *ctx, int k, double *per)
{
    isochron_timer_t *tm = isochron_clock_timer(b->clk);
    double best = INFINITY;
    int rc = ISOCHRON_OK;
    for (int t = 0; t < 3 && !rc; t++) {
        double a = isochron_timer_now(tm);
        if (op->run_n) rc = op->run_n(ctx, k);
        else for (int i = 0; i < k && !rc; i++) rc = op->run(ctx);
        double d = (isochron_timer_now(tm) - a) / k;
        if (d < best) best = d;
    }
    *per = best;
    return rc;
}

/* Choose k (1: no loop) after the warm-up, the same on every rank: single-call time \p single (this rank's
 * least over the warm-up, +inf without one: auto then keeps single calls), the timer's granularity + read cost, the clock bound. */
static int choose_loop(isochron_bench_t *b, const isochron_op_t *op, isochron_op_ctx_t *ctx, const method_t *me, int tk, int tkk,
                       double single, int *k)
{
    int plain = b->plain;
    *k = 1;
    if (tk == ISOCHRON_TIMING_LOOP && tkk > 0) { *k = tkk; return ISOCHRON_OK; }
    int loopable = (op->flags & ISOCHRON_OP_RMA) && !(op->flags & ISOCHRON_OP_ACTIVE_TARGET);
    if (!(tk == ISOCHRON_TIMING_LOOP || (tk == ISOCHRON_TIMING_AUTO && plain && loopable))) return ISOCHRON_OK;
    double gran, cost, in[4], out[4];
    isochron_timer_resolution(isochron_clock_timer(b->clk), &gran, &cost);
    in[0] = gran + cost;
    in[1] = cost;
    in[2] = single; /* the slowest rank's least single call decides whether the operation is short */
    in[3] = me->global_clock && b->track ? isochron_track_bound(b->track) : 0;
    int rc = isochron_allreduce_polite(in, out, 4, MPI_DOUBLE, MPI_MAX, b->ctl);
    if (rc) return rc;
    /* a single call (after a barrier, the epoch opened and closed) far above the threshold: no probe */
    if (tk == ISOCHRON_TIMING_AUTO && !(out[2] < LOOP_PROBE * LOOP_BELOW * out[1])) return ISOCHRON_OK;
    double per, pmax;
    rc = agree(b, probe_calls(b, op, ctx, 8, &per));
    if (rc) return rc;
    if ((rc = isochron_allreduce_polite(&per, &pmax, 1, MPI_DOUBLE, MPI_MAX, b->ctl))) return rc;
    /* short: a call back to back (for lock_all one-sided operations: access + flush) below LOOP_BELOW reads */
    if (tk == ISOCHRON_TIMING_AUTO && !(pmax < LOOP_BELOW * out[1])) return ISOCHRON_OK;
    double want = fmax(LOOP_READS * out[0], LOOP_BOUND * (isfinite(out[3]) ? out[3] : 0));
    double kk = pmax > 0 ? ceil(want / pmax) : LOOP_AUTO_MAX;
    *k = kk < 1 ? 1 : kk > LOOP_AUTO_MAX ? LOOP_AUTO_MAX : (int)kk;
    return ISOCHRON_OK;
}

/* One point in progress: what the steps of measure_once share. */
typedef struct {
    isochron_bench_t *b;
    const isochron_op_t *op;
    isochron_op_ctx_t *ctx;
    isochron_point_t *res;
    point_state_t ps;     /* the scheme's and the method's view of the point (ps.method: its timing method) */
    reps_t r;             /* the repetitions' buffers */
    rotation_t rot;       /* root rotation (opts.rotate_root) */
    double wall0;         /* MPI_Wtime at the start (res->elapsed) */
    double t0;            /* the point's start on the global clock, rank 0's on every rank */
    int attempts;         /* repetitions tried at most, valid or not */
    int k;                /* repetitions run */
    int reduced;          /* repetitions reduced across ranks */
    int next_check;       /* the number of repetitions at which the next batch is reduced */
    int stop;             /* 1: rank 0 decided to stop */
    int err;              /* this rank's error in the data (prepare, validate), latched */
    int any_err;          /* some rank's, from the last batch */
    int prepare_always;   /* prepare before every repetition, not only before a validated one */
} measure_t;

/* The timing asked for (--timing) must apply to the operation. */
static int timing_applies(const isochron_bench_t *b, const isochron_op_t *op)
{
    if (b->tk == ISOCHRON_TIMING_ORIGIN && !(op->flags & ISOCHRON_OP_RMA))
        return isochron_set_error(ISOCHRON_EINVAL, "--timing origin applies to one-sided operations (whose effect is complete at the origin), not '%s'", op->name);
    if (b->tk == ISOCHRON_TIMING_LOOP && (op->flags & ISOCHRON_OP_PREPARE_EVERY))
        return isochron_set_error(ISOCHRON_EINVAL, "--timing loop runs '%s' back to back, but its prepare starts what each run completes; use auto or global", op->name);
    return ISOCHRON_OK;
}

/* The point as asked for, before its set-up. */
static void point_head(const isochron_bench_t *b, const isochron_op_t *op, const isochron_op_ctx_t *ctx, isochron_point_t *res)
{
    memset(res, 0, sizeof *res);
    snprintf(res->op, sizeof res->op, "%s", op->name);
    snprintf(res->family, sizeof res->family, "%s", op->family ? op->family : op->name);
    res->bytes = ctx->bytes;
    res->root = ctx->root;
    res->in_place = ctx->in_place;
    res->nprocs = b->size;
    res->active_ranks = (op->flags & ISOCHRON_OP_PAIR) && b->size > 2 ? 2 : b->size;
    res->s.n = 0;
    res->clock_bound = res->clock_true = res->clock_bound_stat = res->clock_bound_hard = NAN;
}

/* The operation set up on every rank, once per root when the root rotates; on failure nothing is left set up. */
static int point_setup(measure_t *m)
{
    isochron_bench_t *b = m->b;
    const isochron_op_t *op = m->op;
    isochron_op_ctx_t *ctx = m->ctx;
    ctx->comm = b->comm;
    if ((op->flags & ISOCHRON_OP_MIN2) && b->size < 2) return isochron_set_error(ISOCHRON_EINVAL, "%s needs at least 2 processes", op->name);
    int rc = track_poll(b);
    if (rc) return rc;
    isochron_op_ctx_t pristine = *ctx;
    rc = agree(b, isochron_op_setup(op, ctx));
    if (rc) { b->setup_failed = 1; return rc; }
    if ((rc = rotation_setup(b, op, &pristine, ctx, &m->rot))) { b->setup_failed = 1; isochron_op_teardown(op, ctx); return rc; }
    if (m->rot.ctxs) m->res->root = -1;
    return ISOCHRON_OK;
}

/* What the set-up decided: the datatype and reduction, and the unit and factors that turn times per run
 * into rates (reporters). */
static void point_data(const isochron_op_t *op, const isochron_op_ctx_t *ctx, isochron_point_t *res)
{
    dtype_name(ctx->dtype, res->dtype, sizeof res->dtype);
    if (op->flags & ISOCHRON_OP_REDUCTION) op_name(ctx->op, res->redop, sizeof res->redop);
    else snprintf(res->redop, sizeof res->redop, "-");
    snprintf(res->unit, sizeof res->unit, "%s", op->moved ? "B/s" : "s");
    res->moved_bytes = op->moved ? op->moved(ctx, &res->moved_msgs) : 0;
    res->msg_window = op->moved && (op->flags & ISOCHRON_OP_WINDOWED) ? ctx->window : 0;
    res->threads = (op->flags & ISOCHRON_OP_THREADED) ? ctx->threads : 0;
    res->partitions = (op->flags & ISOCHRON_OP_PARTITIONED) ? ctx->partitions : 0;
}

/* The repetitions' buffers, and the raw data's with opts.raw, agreed on every rank. */
static int reps_setup(measure_t *m)
{
    isochron_bench_t *b = m->b;
    const isochron_bench_opts_t *o = &b->o;
    isochron_point_t *res = m->res;
    /* max_reps counts valid repetitions (Alg. 5); attempts caps all of them */
    m->attempts = o->max_attempts > 0 ? o->max_attempts : o->max_reps + (o->max_reps < 333333 ? 3 * o->max_reps : 1000000);
    m->next_check = o->min_reps < o->max_reps ? o->min_reps : o->max_reps;
    int cap = m->attempts, rc;
    res->slack = res->late_tolerance = NAN;
    if ((rc = agree(b, reps_alloc(&m->r, cap, b->rank == 0)))) return rc;
    if (o->raw && !(m->r.mine = malloc(sizeof(double) * 2 * CHUNK)))
        rc = isochron_set_error(ISOCHRON_ENOMEM, "bench: out of memory for the raw data");
    if (o->raw && b->rank == 0) {
        m->r.all = malloc(sizeof(double) * 2 * CHUNK * (size_t)b->size);
        res->raw_start = calloc((size_t)cap * (size_t)b->size, sizeof(double));
        res->raw_end = calloc((size_t)cap * (size_t)b->size, sizeof(double));
        res->raw_time = calloc((size_t)cap, sizeof(double));
        res->raw_valid = calloc((size_t)cap, 1);
        if (!m->r.all || !res->raw_start || !res->raw_end || !res->raw_time || !res->raw_valid)
            rc = isochron_set_error(ISOCHRON_ENOMEM, "bench: out of memory for the raw data of %d repetitions x %d ranks", cap, b->size);
    }
    return agree(b, rc);
}

/* The method's preparation; the warm-up, the same path untimed (its least single call tells the timing
 * whether the operation is short); the loop's k; the common start t0; the scheme's start of the point. */
static int point_start(measure_t *m)
{
    isochron_bench_t *b = m->b;
    const isochron_op_t *op = m->op;
    isochron_op_ctx_t *ctx = m->ctx;
    int rc = agree(b, m->ps.method->prepare(b, &m->ps));
    double single = INFINITY;
    for (int w = 0; w < b->o.warmup && !rc; w++) {
        rotate_to(&m->rot, ctx, w);
        ctx->rep = w;
        if (op->prepare) rc = op->prepare(ctx);
        MPI_Barrier(b->comm);
        double w0 = isochron_clock_now(b->clk);
        if (!rc) rc = op->run(ctx);
        double w1 = isochron_clock_now(b->clk) - w0;
        if (w1 < single) single = w1;
        rc = agree(b, rc);
    }
    if (!rc) rc = choose_loop(b, op, ctx, m->ps.method, b->tk, b->tkk, single, &m->ps.loop_k);
    double t0 = isochron_clock_now(b->clk);
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, b->ctl);
    m->t0 = m->ps.t0 = t0;
    if (!rc && b->scheme->point_begin) rc = agree(b, b->scheme->point_begin(b, &m->ps));
    return rc;
}

/* The first repetition's data (prepared when \p ok), caches cleared.
 * The next repetition's data is written (and caches cleared) right after the current one is validated,
 * before the schemes' agreement: writing 64 KiB of pattern after the agreement made every 64 KiB
 * Round-Time repetition late on an oversubscribed node.
 * Fresh data (a pattern written, receive buffers poisoned) is needed only before a repetition that is
 * validated: rewriting every buffer before every repetition cost more than the operation itself at 1 MiB
 * on 4 ranks (alltoall: 8 MiB written per rank), and peers do not do it either. Other repetitions run on
 * the previous one's buffers, which are as warm. One-sided, in-place and user operations prepare every
 * time: their prepare is part of the protocol (locks, barriers) or the buffer would accumulate results. */
static void data_first(measure_t *m, int ok)
{
    const isochron_op_t *op = m->op;
    isochron_op_ctx_t *ctx = m->ctx;
    m->prepare_always = op->prepare && (in_place_point(op, ctx) || (op->flags & (ISOCHRON_OP_RMA | ISOCHRON_OP_USER | ISOCHRON_OP_PREPARE_EVERY)));
    ctx->rep = 0;
    rotate_to(&m->rot, ctx, 0);
    double d0 = isochron_clock_now(m->b->clk);
    if (ok && op->prepare) m->err = op->prepare(ctx);
    m->ps.data_s = isochron_clock_now(m->b->clk) - d0;
    if (m->b->cache) memset(m->b->cache, 0, m->b->o.cache_bytes);
}

/* After repetition k: its data checked and the next one's written when either is validated (every rank
 * calls validate and prepare: one-sided operations synchronize inside them), caches cleared. Errors in the
 * data are latched in m->err: the rank keeps taking part in every collective step until the next batch
 * stops all ranks together. */
static void data_next(measure_t *m)
{
    const isochron_bench_opts_t *o = &m->b->o;
    const isochron_op_t *op = m->op;
    isochron_op_ctx_t *ctx = m->ctx;
    int k = m->k;
    double d0 = isochron_clock_now(m->b->clk);
    if (op->validate && validated(o, k)) {
        int v = op->validate(ctx);
        if (!m->err) m->err = v;
        m->res->validated++;
    }
    ctx->rep = k + 1;
    rotate_to(&m->rot, ctx, k + 1);
    if (op->prepare && (m->prepare_always || validated(o, k + 1))) {
        ctx->no_fill = !validated(o, k + 1); /* one-sided: the protocol without rewriting the buffers */
        int p = op->prepare(ctx);
        ctx->no_fill = 0;
        if (!m->err) m->err = p;
    }
    if (validated(o, k) || validated(o, k + 1)) m->ps.data_s += isochron_clock_now(m->b->clk) - d0;
    if (m->b->cache) memset(m->b->cache, (k + 1) & 0xff, o->cache_bytes);
}

/* One repetition: the scheme's start, the method's run, the data (data_next), the scheme's verdict on it;
 * its times kept in m->r. *st: the scheme stops the point. An error of the scheme or the method itself (an
 * MPI failure) is returned at once. */
static int repetition(measure_t *m, int *st)
{
    isochron_bench_t *b = m->b;
    const scheme_t *sc = b->scheme;
    point_state_t *ps = &m->ps;
    int k = m->k, late = 0, rc;
    double s = 0, en = 0, l = NAN;
    *st = 0;
    if ((rc = sc->before(b, ps, k, &late))) return rc;
    ps->validating = b->o.validate > 0 && m->op->validate && validated(&b->o, k);
    if ((rc = ps->method->run(b, ps, &s, &en, &l))) return rc;
    data_next(m);
    int inv = late;
    ps->rep_start = s;
    if (sc->per_rep && (rc = sc->after(b, ps, k, en, &inv, st))) return rc;
    m->r.start[k] = s;
    m->r.end[k] = en;
    m->r.loc[k] = l;
    m->r.late[k] = (char)inv;
    m->k++;
    return ISOCHRON_OK;
}

/* Rank 0's verdict after a batch, from the statistics of the valid repetitions so far: a stop reason
 * (ISOCHRON_STOP_*), 0 to go on, -1 out of memory (the message set). *nv: the valid repetitions. */
static int verdict(const measure_t *m, int st, double data_max, int *nv)
{
    const isochron_bench_opts_t *o = &m->b->o;
    int k = m->k, decision = 0;
    double *v = malloc(sizeof(double) * (size_t)k);
    if (!v) decision = -1;
    for (int i = 0; v && i < k; i++) if (m->r.valid[i]) v[(*nv)++] = m->r.runtime[i];
    isochron_summary_t sum;
    isochron_summarize(v, *nv, o->ci_level, NULL, 0, &sum);
    free(v);
    if (decision) isochron_set_error(ISOCHRON_ENOMEM, "bench: out of memory for the statistics of %d repetitions", k);
    else if (*nv >= o->max_reps) decision = ISOCHRON_STOP_MAXREPS;
    else if (k >= m->attempts) decision = ISOCHRON_STOP_ATTEMPTS;
    else if (st) decision = ISOCHRON_STOP_BUDGET;
    else if (isochron_bench_ci_met(o, &sum, *nv)) decision = ISOCHRON_STOP_CI;
    else if (!m->b->scheme->per_rep && o->budget > 0 && isochron_clock_now(m->b->clk) - m->t0 - data_max >= o->budget) decision = ISOCHRON_STOP_BUDGET;
    return decision;
}

/* The batch [reduced, k) reduced across ranks (and its raw data gathered); rank 0 decides for all whether
 * to stop and whether the clock is refreshed before the next batch, which comes a quarter of the
 * repetitions later, but no later than max_reps valid ones could be reached. */
static int batch(measure_t *m, int st)
{
    isochron_bench_t *b = m->b;
    const isochron_bench_opts_t *o = &b->o;
    int rc = reduce_batch(b, m->ps.method, m->ps.loop_k, &m->r, m->reduced, m->k, m->err, &m->any_err);
    if (rc) return rc;
    double data_max = m->ps.data_s; /* the budget does not count the longest validation */
    if (!b->scheme->per_rep && o->budget > 0 && MPI_Allreduce(&m->ps.data_s, &data_max, 1, MPI_DOUBLE, MPI_MAX, b->ctl) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "bench: MPI_Allreduce failed");
    if (o->raw) gather_raw(b, &m->r, m->reduced, m->k, m->res);
    int decision = 0, due = 0, nv = 0;
    if (b->rank == 0) {
        due = b->track && isochron_track_due(b->track);
        decision = verdict(m, st, data_max, &nv);
    }
    m->reduced = m->k;
    if (m->any_err) decision = -1;
    double dd[3] = {decision, due, nv}; /* the decision, the refresh, the valid repetitions */
    MPI_Bcast(dd, 3, MPI_DOUBLE, 0, b->ctl);
    decision = (int)dd[0];
    if (decision == -1 && !m->any_err) return agree(b, b->rank == 0 ? ISOCHRON_ENOMEM : ISOCHRON_OK);
    if (decision) {
        m->stop = 1;
        m->res->stop = decision > 0 ? decision : 0;
    } else if (dd[1] && (rc = isochron_track_refresh(b->track))) return rc;
    int grow = m->k / 4 > 5 ? m->k / 4 : 5, left = o->max_reps - (int)dd[2];
    m->next_check = m->k + (left > 0 && left < grow ? left : grow);
    return ISOCHRON_OK;
}

/* Repetitions until rank 0 says stop; per-rank timestamps are combined in batches (batch). */
static int repetitions(measure_t *m)
{
    int rc = ISOCHRON_OK;
    while (!rc && !m->stop) {
        int st = 0;
        if ((rc = repetition(m, &st))) break;
        if (m->k >= m->next_check || m->k >= m->attempts || st) rc = batch(m, st);
    }
    return rc;
}

/* Rank 0: the statistics over the valid repetitions, their start spread, the raw data's run times. */
static void point_stats(measure_t *m)
{
    const isochron_bench_opts_t *o = &m->b->o;
    isochron_point_t *res = m->res;
    int k = m->k, nv = 0;
    double *v = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1)), *sp = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
    for (int i = 0; v && sp && i < k; i++)
        if (m->r.valid[i]) { sp[nv] = m->r.spread[i]; v[nv++] = m->r.runtime[i]; }
    res->valid = nv;
    isochron_summarize(v, nv, o->ci_level, o->q, o->nq, &res->s);
    /* a time is not negative: the mean's t interval of skewed times can reach below 0, and is cut at it */
    if (res->s.min >= 0 && res->s.ci_lo < 0) res->s.ci_lo = 0;
    res->start_spread = nv ? isochron_median(sp, nv) : NAN;
    if (res->raw_time) for (int i = 0; i < k; i++) { res->raw_time[i] = m->r.runtime[i]; res->raw_valid[i] = m->r.valid[i]; }
    res->raw_n = res->raw_time ? k : 0;
    free(v);
    free(sp);
}

/* What the scheme and the method add to the point; its timing and what that can resolve, per call. */
static void point_timing(measure_t *m)
{
    isochron_bench_t *b = m->b;
    const point_state_t *ps = &m->ps;
    const method_t *me = ps->method;
    isochron_point_t *res = m->res;
    res->correction = ps->correction;
    if (b->scheme->finish) b->scheme->finish(b, ps, res);
    res->window = ps->window;
    res->overlap = NAN;
    res->t_comm = ps->t_comm;
    res->t_comp = ps->t_comp;
    if (me->summarize) me->summarize(ps, res);
    res->loop_k = ps->loop_k;
    res->timing_user = b->tk != ISOCHRON_TIMING_AUTO;
    snprintf(res->timing, sizeof res->timing, "%s", ps->loop_k > 1 ? "loop" : me->name);
    snprintf(res->loop_of, sizeof res->loop_of, "%s", ps->loop_k > 1 ? me->name : "");
    double gran, cost;
    isochron_timer_resolution(isochron_clock_timer(b->clk), &gran, &cost);
    res->clock_used = me->global_clock && isfinite(res->clock_bound) ? res->clock_bound / ps->loop_k : 0;
    res->resolution = (gran + cost) / ps->loop_k + res->clock_used;
}

/* Every rank gets rank 0's summary; the raw data stays on rank 0. */
static void share_summary(isochron_bench_t *b, isochron_point_t *res)
{
    isochron_point_t copy = *res;
    MPI_Bcast(&copy, (int)sizeof copy, MPI_BYTE, 0, b->ctl);
    double *rs = res->raw_start, *re = res->raw_end, *rt = res->raw_time;
    char *rv = res->raw_valid;
    *res = copy;
    res->raw_start = rs, res->raw_end = re, res->raw_time = rt, res->raw_valid = rv;
    if (b->rank != 0) res->raw_n = 0;
}

/* The finished point: statistics, the clock's error now, timing; on every rank. */
static int point_result(measure_t *m)
{
    isochron_bench_t *b = m->b;
    m->res->reps = m->k;
    if (b->rank == 0) point_stats(m);
    if (b->track) {
        isochron_track_errors_t te;
        int rc = isochron_track_errors(b->track, &te);
        if (rc) return rc;
        isochron_point_clock_errors(m->res, &te);
    }
    point_timing(m);
    m->res->elapsed = MPI_Wtime() - m->wall0; /* rank 0's: set-up, warm-up, repetitions, reductions */
    share_summary(b, m->res);
    return ISOCHRON_OK;
}

static int measure_once(isochron_bench_t *b, const isochron_op_t *op, isochron_op_ctx_t *ctx, isochron_point_t *res)
{
    int rc = timing_applies(b, op);
    if (rc) return rc;
    measure_t m;
    memset(&m, 0, sizeof m);
    m.b = b, m.op = op, m.ctx = ctx, m.res = res;
    m.ps.op = op, m.ps.ctx = ctx, m.ps.method = timing_method(b, op), m.ps.loop_k = 1;
    m.wall0 = MPI_Wtime();
    point_head(b, op, ctx, res);
    if ((rc = point_setup(&m))) return rc;
    point_data(op, ctx, res);
    if ((rc = reps_setup(&m))) {
        reps_free(&m.r);
        isochron_point_free(res);
        rotation_free(op, ctx, &m.rot);
        isochron_op_teardown(op, ctx);
        return rc;
    }
    rc = point_start(&m);
    data_first(&m, !rc);
    if (!rc) rc = repetitions(&m);
    if (!rc && m.any_err) rc = agree(b, m.err);
    if (!rc) rc = point_result(&m);
    if (m.ps.method->finish) m.ps.method->finish(b, &m.ps);
    reps_free(&m.r);
    rotation_free(op, ctx, &m.rot);
    isochron_op_teardown(op, ctx);
    return rc;
}

/* A point, tried again while its valid share is below --retry-below (issue 11:
 * "re-anchor and retry, saying so in the record"). At 4 ranks on 2 cores a
 * Round-Time point loses 10-30 % of its repetitions to a rank that waits for a
 * core; most of a sweep's points below 90 % come from such a stretch, not
 * from the operation, and a try from a fresh start (set-up, warm-up, the
 * Bcast latency measured anew) often lands outside it. A try is never mixed
 * with another: the last one is the result, and the record keeps every
 * discarded try's share (retry_share), so a point that stays below says so.
 * The run's retry budget: a retry is made only while the run's retried tries
 * are fewer than RETRY_FLOOR + RETRY_BUDGET x the points measured before this
 * one, so a machine that is busy throughout costs about 1.25x the time, not
 * (--retries + 1)x (on the default sweep at 4 ranks on 2 cores, 10-34 of 306
 * points were retried: bench/results/retries-4ranks-2cores-ompi414.txt). The
 * floor is for the first operation of a run, whose points are retried most
 * (with --retries + 0.25 x points, allgather 256 KiB, the 16th point of the
 * default sweep, found the budget spent).
 * The decision is the same on every rank (res is rank 0's summary, sent to
 * all, and the counts follow from it). */
#define RETRY_FLOOR 12
#define RETRY_BUDGET 0.25
int isochron_bench_measure(isochron_bench_t *b, const isochron_op_t *op, isochron_op_ctx_t *ctx, isochron_point_t *res)
{
    isochron_op_ctx_t pristine = *ctx;
    double share[ISOCHRON_MAX_RETRIES];
    b->setup_failed = 0;
    int n = 0, rc = measure_once(b, op, ctx, res);
    while (!rc && n < b->o.retries && res->reps > 0 && res->valid < b->o.retry_below * res->reps &&
           b->retries_made < RETRY_FLOOR + RETRY_BUDGET * b->points_done) {
        share[n++] = (double)res->valid / res->reps;
        b->retries_made++;
        isochron_point_free(res);
        *ctx = pristine;
        b->bcast_lat = 0; /* re-anchor: the scheme measures it again (the late-start tolerance carries over
                           * relative to the run time, as from one size to the next: scheme_roundtime.c) */
        rc = measure_once(b, op, ctx, res);
    }
    b->points_done++;
    if (!rc) {
        res->retries = n;
        for (int i = 0; i < n; i++) res->retry_share[i] = share[i];
    }
    return rc;
}
