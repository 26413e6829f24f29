/*
 * Passes (isochron-bench --passes P; include/isochron/bench.h): a run measures every point P
 * times, one pass over the whole list after another, and reports the union of a point's passes.
 * Why: where the machine's state changes within seconds (a 1 KiB bcast at 2 ranks runs at 0.7 or
 * 2.4 us for stretches of 0.1-1 s within one launch), a point measured in one burst of a few ms
 * samples one state, and launches differ by 25-35 % (CV of the medians); repetitions spread over
 * the run average the states. Each pass gets 1/P of the repetitions, attempts and budget, and stops
 * at a CI of sqrt(P) x rel_ci (P such passes give about rel_ci together, the CI of a median
 * shrinking as 1/sqrt(n)); the union's statistics are computed from its valid repetitions by the
 * same rule as one point's (isochron_summarize, paper 001 sec. 3's stop rule through
 * isochron_bench_ci_met), and its stop is "ci" when the union meets rel_ci, else the last pass's
 * reason. Moved here from the driver so that a program using the library gets the same union.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "core/util.h"

int isochron_bench_passes_check(const isochron_bench_opts_t *o, int passes)
{
    if (passes < 1 || passes > 1000) return isochron_set_error(ISOCHRON_EINVAL, "--passes '%d': expected an integer in [1, 1000]", passes);
    if (passes > 1 && !(o->rel_ci * sqrt((double)passes) < 1)) /* each pass's CI target must stay below 1 */
        return isochron_set_error(ISOCHRON_EINVAL,
                                  "--passes %d: each pass stops at a CI of sqrt(%d) x --rel-ci %g = %.3g of its statistic, which must be below 1; "
                                  "at --rel-ci %g use at most %d passes (or --rel-ci 0)",
                                  passes, passes, o->rel_ci, o->rel_ci * sqrt((double)passes), o->rel_ci, (int)ceil(1.0 / (o->rel_ci * o->rel_ci)) - 1);
    if (passes > 1 && 2 * passes > o->max_reps) /* a pass measures at least 2 repetitions: the union would exceed max_reps */
        return isochron_set_error(ISOCHRON_EINVAL,
                                  "--passes %d with --max-reps %d: every pass measures at least 2 repetitions, %d in all; raise --max-reps to %d or use "
                                  "at most %d passes",
                                  passes, o->max_reps, 2 * passes, 2 * passes, o->max_reps / 2);
    return ISOCHRON_OK;
}

void isochron_bench_pass_opts(const isochron_bench_opts_t *o, int P, isochron_bench_opts_t *bp)
{
    *bp = *o;
    if (P <= 1) return;
    bp->max_reps = (o->max_reps + P - 1) / P;
    bp->min_reps = (o->min_reps + P - 1) / P;
    if (bp->min_reps < 2) bp->min_reps = 2;
    if (bp->max_reps < bp->min_reps) bp->max_reps = bp->min_reps;
    if (o->max_attempts > 0) bp->max_attempts = (o->max_attempts + P - 1) / P;
    bp->rel_ci = o->rel_ci * sqrt((double)P);
    bp->budget = o->budget / P;
    bp->raw = 1; /* the union needs every repetition's run time (rank 0) */
}

typedef struct {
    isochron_point_t pt; /* the union so far; raw arrays grow with every pass */
    int n, cap;
    double *spread;      /* per repetition: last start - first start */
} acc_t;

struct isochron_passes {
    isochron_bench_opts_t o;
    int npoints;
    acc_t *acc;
};

int isochron_passes_create(int npoints, const isochron_bench_opts_t *o, isochron_passes_t **out)
{
    *out = NULL;
    if (npoints < 0) return isochron_set_error(ISOCHRON_EINVAL, "passes: %d points", npoints);
    isochron_passes_t *a = calloc(1, sizeof *a);
    if (a) a->acc = calloc((size_t)(npoints > 0 ? npoints : 1), sizeof *a->acc);
    if (!a || !a->acc) {
        free(a);
        return isochron_set_error(ISOCHRON_ENOMEM, "--passes: out of memory for %d points", npoints);
    }
    a->o = *o;
    a->npoints = npoints;
    *out = a;
    return ISOCHRON_OK;
}

int isochron_passes_add(isochron_passes_t *p, int i, const isochron_point_t *pt)
{
    if (!p || i < 0 || i >= p->npoints) return isochron_set_error(ISOCHRON_EINVAL, "passes: no point %d", i);
    acc_t *a = &p->acc[i];
    int np = pt->nprocs, k = pt->raw_n;
    if (k > 0 && (!pt->raw_start || !pt->raw_time || !pt->raw_valid))
        return isochron_set_error(ISOCHRON_EINVAL, "passes: point %d has no raw data (a pass needs opts.raw, see isochron_bench_pass_opts)", i);
    if (a->n + k > a->cap) {
        int cap = (a->n + k) * 2;
        double *rs = realloc(a->pt.raw_start, sizeof(double) * (size_t)cap * (size_t)np);
        if (rs) a->pt.raw_start = rs;
        double *re = realloc(a->pt.raw_end, sizeof(double) * (size_t)cap * (size_t)np);
        if (re) a->pt.raw_end = re;
        double *rt = realloc(a->pt.raw_time, sizeof(double) * (size_t)cap);
        if (rt) a->pt.raw_time = rt;
        char *rv = realloc(a->pt.raw_valid, (size_t)cap);
        if (rv) a->pt.raw_valid = rv;
        double *sp = realloc(a->spread, sizeof(double) * (size_t)cap);
        if (sp) a->spread = sp;
        if (!rs || !re || !rt || !rv || !sp) return isochron_set_error(ISOCHRON_ENOMEM, "--passes: out of memory for %d repetitions", cap);
        a->cap = cap;
    }
    if (a->n == 0) {
        double *rs = a->pt.raw_start, *re = a->pt.raw_end, *rt = a->pt.raw_time;
        char *rv = a->pt.raw_valid;
        a->pt = *pt;
        a->pt.raw_start = rs; a->pt.raw_end = re; a->pt.raw_time = rt; a->pt.raw_valid = rv;
        a->pt.raw_n = 0;
        a->pt.reps = a->pt.valid = a->pt.validated = a->pt.adapted = 0;
        a->pt.retries = 0;
        a->pt.elapsed = 0;
    }
    if (k > 0) {
        memcpy(a->pt.raw_start + (size_t)a->n * np, pt->raw_start, sizeof(double) * (size_t)k * (size_t)np);
        if (pt->raw_end) memcpy(a->pt.raw_end + (size_t)a->n * np, pt->raw_end, sizeof(double) * (size_t)k * (size_t)np);
        memcpy(a->pt.raw_time + a->n, pt->raw_time, sizeof(double) * (size_t)k);
        memcpy(a->pt.raw_valid + a->n, pt->raw_valid, (size_t)k);
    }
    for (int r = 0; r < k; r++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int q = 0; q < np; q++) {
            double t = pt->raw_start[(size_t)r * np + q];
            if (t < lo) lo = t;
            if (t > hi) hi = t;
        }
        a->spread[a->n + r] = hi - lo;
    }
    a->n += k;
    a->pt.reps += pt->reps;
    a->pt.valid += pt->valid;
    a->pt.validated += pt->validated;
    a->pt.adapted += pt->adapted;
    for (int r = 0; r < pt->retries && a->pt.retries < ISOCHRON_MAX_RETRIES; r++) a->pt.retry_share[a->pt.retries++] = pt->retry_share[r];
    a->pt.elapsed += pt->elapsed;
    a->pt.stop = pt->stop;
    a->pt.clock_bound = pt->clock_bound;
    a->pt.clock_true = pt->clock_true;
    a->pt.clock_bound_stat = pt->clock_bound_stat;
    a->pt.clock_bound_hard = pt->clock_bound_hard;
    a->pt.clock_bound_is_hard = pt->clock_bound_is_hard;
    if (pt->slack > a->pt.slack) a->pt.slack = pt->slack;
    if (pt->late_tolerance > a->pt.late_tolerance) a->pt.late_tolerance = pt->late_tolerance;
    return ISOCHRON_OK;
}

int isochron_passes_finish(isochron_passes_t *p, int i, const isochron_point_t **out)
{
    if (!p || i < 0 || i >= p->npoints) return isochron_set_error(ISOCHRON_EINVAL, "passes: no point %d", i);
    acc_t *a = &p->acc[i];
    const isochron_bench_opts_t *bo = &p->o;
    double *v = calloc((size_t)(a->n > 0 ? a->n : 1), sizeof(double)), *sp = calloc((size_t)(a->n > 0 ? a->n : 1), sizeof(double));
    if (!v || !sp) { free(v); free(sp); return isochron_set_error(ISOCHRON_ENOMEM, "--passes: out of memory for the statistics"); }
    int nv = 0;
    for (int r = 0; r < a->n; r++)
        if (a->pt.raw_valid[r]) { sp[nv] = a->spread[r]; v[nv++] = a->pt.raw_time[r]; }
    isochron_summarize(v, nv, bo->ci_level, bo->q, bo->nq, &a->pt.s);
    isochron_summary_t ss;
    a->pt.start_spread = nv && isochron_summarize(sp, nv, bo->ci_level, NULL, 0, &ss) == ISOCHRON_OK ? ss.median : NAN;
    if (isochron_bench_ci_met(bo, &a->pt.s, nv)) a->pt.stop = ISOCHRON_STOP_CI;
    free(v);
    free(sp);
    a->pt.raw_n = bo->raw ? a->n : 0;
    *out = &a->pt;
    return ISOCHRON_OK;
}

void isochron_passes_release(isochron_passes_t *p, int i)
{
    if (!p || i < 0 || i >= p->npoints) return;
    acc_t *a = &p->acc[i];
    a->pt.raw_n = 0;
    isochron_point_free(&a->pt);
    free(a->spread);
    memset(a, 0, sizeof *a);
}

void isochron_passes_destroy(isochron_passes_t *p)
{
    if (!p) return;
    for (int i = 0; i < p->npoints; i++) isochron_passes_release(p, i);
    free(p->acc);
    free(p);
}

void isochron_point_p2p(isochron_point_t *pt, const char *op, size_t bytes, int timer, int nprocs, int reps, const isochron_summary_t *s,
                        int active)
{
    memset(pt, 0, sizeof *pt);
    snprintf(pt->op, sizeof pt->op, "%s", op);
    snprintf(pt->family, sizeof pt->family, "p2p");
    snprintf(pt->dtype, sizeof pt->dtype, "byte");
    snprintf(pt->unit, sizeof pt->unit, "s");
    pt->bytes = bytes;
    pt->root = timer;
    pt->nprocs = nprocs;
    pt->reps = pt->valid = reps;
    pt->stop = ISOCHRON_STOP_MAXREPS;
    pt->s = *s;
    pt->active_ranks = active;
    pt->start_spread = pt->correction = pt->window = pt->overlap = pt->t_comm = pt->t_comp = NAN;
    pt->clock_bound = pt->clock_true = pt->clock_bound_stat = pt->clock_bound_hard = pt->slack = pt->late_tolerance = NAN;
}
