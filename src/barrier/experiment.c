/*
 * The barrier experiments (paper 004, sec. 4: the ring shift after a barrier
 * and when synchronizing pays off, sec. 4.3, Table III; paper 000, sec. V-B,
 * Fig. 8: the exit skew of calls started at one instant of the global
 * clock). Each experiment runs trials (trial.c) of several configurations
 * interleaved trial by trial, so slow drifts of the machine's load hit every
 * configuration alike. A trial is invalid when a rank was already late for
 * its start (Round-Time's rule, paper 000 Alg. 5) or entered more than
 * `tolerance` after it (descheduled while waiting: the calls did not start
 * together). The samples of valid trials are gathered on rank 0; writing
 * them (table, JSON Lines) is the driver's. The barrier as an engine
 * operation (the cost experiment) is isochron_barrier_as_op.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "barrier/barrier_impl.h"

/* ---- the barrier as an operation of the engine ---- */

/* The operation reaches its barrier through the point's context (ctx->user,
 * kept through set-up), and its name lives in the barrier handle: nothing is
 * shared between callers. A thread-local pointer was shared by every rank
 * under SimGrid (one host thread runs all simulated ranks), so each rank ran
 * the barrier handle of the rank that called last, with that rank's number:
 * every algorithm but "mpi" deadlocked in the cost experiment. ctx->state
 * cannot carry it in: isochron_op_setup clears it before the set-up runs. */
static int bar_op_setup(isochron_op_ctx_t *c)
{
    if (!c->user) return isochron_set_error(ISOCHRON_EINVAL, "barrier operation: the context carries no barrier (fill it with isochron_barrier_as_op)");
    c->state = c->user;
    return ISOCHRON_OK;
}
static int bar_op_run(isochron_op_ctx_t *c) { return isochron_barrier_run(c->state); }

void isochron_barrier_as_op(isochron_barrier_t *b, isochron_op_t *op, isochron_op_ctx_t *ctx)
{
    snprintf(b->op_name, sizeof b->op_name, "barrier:%s", isochron_barrier_name(b));
    memset(op, 0, sizeof *op);
    op->name = b->op_name;
    op->family = "barrier";
    op->description = "a barrier algorithm of isochron/barrier.h";
    op->flags = ISOCHRON_OP_USER | ISOCHRON_OP_NODATA;
    op->setup = bar_op_setup;
    op->run = bar_op_run;
    memset(ctx, 0, sizeof *ctx);
    ctx->user = b;
}

/* ---- experiments ---- */

struct isochron_barrier_exp {
    isochron_barrier_trial_t *trial;
    isochron_barrier_exp_opts_t o;
    int rank, size;
    uint64_t rng;
};

void isochron_barrier_exp_opts_default(isochron_barrier_exp_opts_t *o)
{
    o->slack = 1e-3;
    o->spread = 20e-6;
    o->skew_spread = 0;
    o->tolerance = 10e-6;
    o->seed = 1;
}

int isochron_barrier_exp_create(MPI_Comm comm, isochron_clock_t *clk, long max_shift_bytes, const isochron_barrier_exp_opts_t *o,
                                isochron_barrier_exp_t **out)
{
    *out = NULL;
    isochron_barrier_exp_opts_t def;
    if (!o) { isochron_barrier_exp_opts_default(&def); o = &def; }
    if (!(o->slack > 0 && o->slack <= 10) || !(o->spread >= 0 && o->spread <= 10) || !(o->skew_spread >= 0 && o->skew_spread <= 10) ||
        !(o->tolerance >= 0 && o->tolerance <= 10))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier experiments: slack must be in (0, 10] s, spreads and tolerance in [0, 10] s");
    isochron_barrier_exp_t *e = calloc(1, sizeof *e);
    if (!e) return isochron_set_error(ISOCHRON_ENOMEM, "barrier experiments: out of memory");
    int rc = isochron_barrier_trial_create(comm, clk, max_shift_bytes, &e->trial);
    if (rc) { free(e); return rc; }
    e->o = *o;
    MPI_Comm_rank(comm, &e->rank);
    MPI_Comm_size(comm, &e->size);
    e->rng = (o->seed + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(e->rank + 1) * 0xBF58476D1CE4E5B9ull;
    if (!e->rng) e->rng = 1;
    *out = e;
    return ISOCHRON_OK;
}

void isochron_barrier_exp_destroy(isochron_barrier_exp_t *e)
{
    if (!e) return;
    isochron_barrier_trial_destroy(e->trial);
    free(e);
}

int isochron_barrier_exp_oversubscribed(const isochron_barrier_exp_t *e) { return isochron_barrier_trial_oversubscribed(e->trial); }

static double rnd01(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; /* xorshift64 */
    return (double)(*s >> 11) / 9007199254740992.0;
}

static double median_of(const double *v, int n)
{
    if (n <= 0) return NAN;
    double *t = malloc(sizeof *t * (size_t)n);
    if (!t) return NAN;
    memcpy(t, v, sizeof *t * (size_t)n);
    double m = isochron_median(t, n);
    free(t);
    return m;
}

/* What a trial yields (rank 0, global clock). */
enum { V_SKEW, V_SHIFT, V_TOTAL, V_COST };

/* One configuration: a barrier (NULL: none), the arrival spread, the shift
 * size (-1: no shift); out->value / out->cost receive what[0] / what[1]. */
typedef struct {
    isochron_barrier_t *bar;
    double spread;
    long bytes;
    isochron_barrier_samples_t *out;
} cfg_t;

static int samples_alloc(isochron_barrier_samples_t *s, const char *name, long bytes, int n, int with_cost)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->bytes = bytes;
    s->trials = n;
    s->reference = NAN;
    s->clock_bound = s->clock_true = s->clock_bound_hard = NAN;
    s->clock_bound_is_hard = 0;
    s->value = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    s->cost = with_cost ? calloc((size_t)(n > 0 ? n : 1), sizeof(double)) : NULL;
    if (!s->value || (with_cost && !s->cost)) return isochron_set_error(ISOCHRON_ENOMEM, "barrier experiments: out of memory for %d trials", n);
    return ISOCHRON_OK;
}

void isochron_barrier_samples_free(isochron_barrier_samples_t *s, int n)
{
    for (int i = 0; s && i < n; i++) {
        free(s[i].value);
        free(s[i].cost);
        s[i].value = s[i].cost = NULL;
    }
}

/* n trials (after warm) of every configuration, interleaved. */
static int interleaved(isochron_barrier_exp_t *e, cfg_t *cf, int nc, int n, int warm, int nv, const int *what)
{
    isochron_barrier_stamp_t *st = e->rank == 0 ? malloc(sizeof *st * (size_t)e->size) : NULL;
    if (e->rank == 0 && !st) return isochron_set_error(ISOCHRON_ENOMEM, "barrier experiments: out of memory");
    for (int c = 0; c < nc; c++) cf[c].out->valid = 0;
    for (int i = -warm; i < n; i++) {
        /* between rounds (outside every trial): keep the clock true, then
         * take its error, which every trial of the round carries */
        if (e->o.track) {
            isochron_track_errors_t te;
            int rc = isochron_track_poll(e->o.track, NULL);
            if (!rc) rc = isochron_track_errors(e->o.track, &te);
            if (rc) { free(st); return rc; }
            for (int c = 0; c < nc && i >= 0; c++) {
                if (!(cf[c].out->clock_bound >= te.bound)) cf[c].out->clock_bound = te.bound;
                if (!(cf[c].out->clock_bound_hard >= te.bound_hard)) cf[c].out->clock_bound_hard = te.bound_hard;
                cf[c].out->clock_bound_is_hard |= te.hard;
                if (!(cf[c].out->clock_true >= te.true_err)) cf[c].out->clock_true = te.true_err;
            }
        }
        for (int c = 0; c < nc; c++) {
            double t0, delay = cf[c].spread > 0 ? cf[c].spread * rnd01(&e->rng) : 0;
            int rc = isochron_barrier_trial_start_time(e->trial, e->o.slack, &t0);
            if (!rc) rc = isochron_barrier_trial_run(e->trial, cf[c].bar, t0, delay, cf[c].bytes, st);
            if (rc) { free(st); return rc; }
            if (e->rank != 0 || i < 0) continue;
            double fe = INFINITY, fx = INFINITY, lx = -INFINITY, ls = -INFINITY;
            int late = 0;
            for (int k = 0; k < e->size; k++) {
                fe = fmin(fe, st[k].entry); fx = fmin(fx, st[k].exit);
                lx = fmax(lx, st[k].exit); ls = fmax(ls, st[k].shift_end);
                late |= st[k].late > 0 || st[k].entry - st[k].target > e->o.tolerance;
            }
            if (late) continue;
            isochron_barrier_samples_t *o = cf[c].out;
            for (int j = 0; j < nv; j++) {
                double v = what[j] == V_SKEW ? lx - fx : what[j] == V_SHIFT ? ls - fx : what[j] == V_TOTAL ? ls - fe : lx - t0;
                (j == 0 ? o->value : o->cost)[o->valid] = v;
            }
            o->valid++;
        }
    }
    free(st);
    for (int c = 0; c < nc; c++) MPI_Bcast(&cf[c].out->valid, 1, MPI_INT, 0, isochron_bar_trial_comm(e->trial));
    return ISOCHRON_OK;
}

int isochron_barrier_exp_skew(isochron_barrier_exp_t *e, isochron_barrier_t **bars, int nb, int calls, isochron_barrier_samples_t *out)
{
    if (calls < 1) return isochron_set_error(ISOCHRON_EINVAL, "skew experiment: %d calls (at least 1)", calls);
    cfg_t *cf = calloc((size_t)(nb > 0 ? nb : 1), sizeof *cf);
    if (!cf) return isochron_set_error(ISOCHRON_ENOMEM, "skew experiment: out of memory");
    int rc = ISOCHRON_OK;
    for (int b = 0; b < nb && !rc; b++) {
        rc = samples_alloc(&out[b], isochron_barrier_name(bars[b]), -1, calls, 1);
        cf[b] = (cfg_t){bars[b], e->o.skew_spread, -1, &out[b]};
    }
    int what[2] = {V_SKEW, V_COST};
    if (!rc) rc = interleaved(e, cf, nb, calls, 10, 2, what);
    free(cf);
    return rc;
}

int isochron_barrier_exp_shift(isochron_barrier_exp_t *e, isochron_barrier_t **bars, int nb, long bytes, int trials, double threshold,
                               isochron_barrier_samples_t *out)
{
    if (trials < 1 || bytes < 0) return isochron_set_error(ISOCHRON_EINVAL, "shift experiment: %d trials of %ld bytes", trials, bytes);
    /* "clock": all start at one instant of the global clock (the concurrent
     * reference); "none": spread arrivals, no barrier; then each barrier */
    int nc = nb + 2, rc = ISOCHRON_OK;
    cfg_t *cf = calloc((size_t)nc, sizeof *cf);
    if (!cf) return isochron_set_error(ISOCHRON_ENOMEM, "shift experiment: out of memory");
    for (int c = 0; c < nc && !rc; c++) {
        rc = samples_alloc(&out[c], c == 0 ? "clock" : c == 1 ? "none" : isochron_barrier_name(bars[c - 2]), bytes, trials, 0);
        cf[c] = (cfg_t){c < 2 ? NULL : bars[c - 2], c == 0 ? 0 : e->o.spread, bytes, &out[c]};
    }
    int what[1] = {V_SHIFT};
    if (!rc) rc = interleaved(e, cf, nc, trials, 3, 1, what);
    free(cf);
    if (rc || e->rank != 0) return rc;
    double ref = median_of(out[0].value, out[0].valid);
    for (int c = 0; c < nc; c++) {
        out[c].reference = ref;
        out[c].successes = 0;
        for (int i = 0; i < out[c].valid; i++) out[c].successes += out[c].value[i] <= (1 + threshold) * ref;
    }
    return ISOCHRON_OK;
}

void isochron_barrier_line_fit(const double *x, const double *y, int n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(y[i])) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i]; k++; }
    double den = k * sxx - sx * sx;
    *a = k > 1 && den > 0 ? (k * sxy - sx * sy) / den : NAN;
    *b = k ? (sy - (isfinite(*a) ? *a : 0) * sx) / k : NAN;
}

void isochron_barrier_payoff_free(isochron_barrier_payoff_t *p)
{
    if (!p) return;
    free(p->sizes);
    free(p->reference);
    memset(p, 0, sizeof *p);
}

int isochron_barrier_exp_payoff(isochron_barrier_exp_t *e, isochron_barrier_t *rds, const size_t *sizes, int ns, int trials,
                                isochron_barrier_payoff_t *out)
{
    memset(out, 0, sizeof *out);
    isochron_rds_info_t ri;
    int rc = isochron_barrier_rds_info(rds, &ri);
    if (rc) return rc;
    if (ns < 1 || trials < 1) return isochron_set_error(ISOCHRON_EINVAL, "payoff experiment: %d sizes, %d trials", ns, trials);
    out->nsizes = ns;
    out->trials = trials;
    out->sizes = malloc(sizeof(size_t) * (size_t)ns);
    out->reference = malloc(sizeof(double) * 3 * (size_t)ns);
    if (!out->sizes || !out->reference) { isochron_barrier_payoff_free(out); return isochron_set_error(ISOCHRON_ENOMEM, "payoff experiment: out of memory"); }
    memcpy(out->sizes, sizes, sizeof(size_t) * (size_t)ns);
    out->synced = out->reference + ns;
    out->unsynced = out->reference + 2 * ns;
    /* per size, interleaved: the concurrent shift (global-clock start), RDS
     * then the shift, the shift alone; both of the latter from spread
     * arrivals, timed from the first arrival */
    isochron_barrier_samples_t sm[3];
    cfg_t cf[3];
    int what[1] = {V_TOTAL};
    for (int s = 0; s < ns && !rc; s++) {
        for (int c = 0; c < 3 && !rc; c++) {
            rc = samples_alloc(&sm[c], c == 1 ? "rds" : "none", (long)sizes[s], trials, 0);
            cf[c] = (cfg_t){c == 1 ? rds : NULL, c == 0 ? 0 : e->o.spread, (long)sizes[s], &sm[c]};
        }
        if (!rc) rc = interleaved(e, cf, 3, trials, 2, 1, what);
        double *m[3] = {&out->reference[s], &out->synced[s], &out->unsynced[s]};
        for (int c = 0; c < 3 && !rc; c++) {
            if (s == 0 && c == 0) out->clock_bound = out->clock_true = out->clock_bound_hard = NAN;
            if (!(out->clock_bound >= sm[c].clock_bound)) out->clock_bound = sm[c].clock_bound;
            if (!(out->clock_bound_hard >= sm[c].clock_bound_hard)) out->clock_bound_hard = sm[c].clock_bound_hard;
            out->clock_bound_is_hard |= sm[c].clock_bound_is_hard;
            if (!(out->clock_true >= sm[c].clock_true)) out->clock_true = sm[c].clock_true;
        }
        for (int c = 0; c < 3; c++) *m[c] = !rc && e->rank == 0 && sm[c].valid ? median_of(sm[c].value, sm[c].valid) : NAN;
        isochron_barrier_samples_free(sm, 3);
    }
    if (rc) { isochron_barrier_payoff_free(out); return rc; }
    double *x = malloc(sizeof(double) * (size_t)ns);
    if (!x) { isochron_barrier_payoff_free(out); return isochron_set_error(ISOCHRON_ENOMEM, "payoff experiment: out of memory"); }
    for (int s = 0; s < ns; s++) x[s] = (double)sizes[s];
    isochron_barrier_line_fit(x, out->reference, ns, &out->a, &out->b_l);
    free(x);
    out->b_s = ri.b_s;
    out->d = ri.d;
    double model = out->a > 0 ? fmax(0, (2 * ri.d * ri.b_s - out->b_l / 2) / out->a) : NAN;
    out->model_min_bytes = isfinite(model) ? ceil(model) : NAN;
    out->measured_min_bytes = NAN;
    for (int s = 0; s < ns; s++)
        if (isfinite(out->synced[s]) && isfinite(out->unsynced[s]) && out->synced[s] < out->unsynced[s]) {
            out->measured_min_bytes = (double)sizes[s];
            break;
        }
    return ISOCHRON_OK;
}
