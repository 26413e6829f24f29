/*
 * The engine's registries (schemes, timing methods, barrier algorithms) and
 * its options: defaults and range checks in one place. Each registry is a
 * table of descriptors; --list prints it, an unknown name is an error that
 * lists it. Barrier algorithms have their own registry (src/barrier); the
 * barrier scheme takes any of them by name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

extern const scheme_t isochron_scheme_barrier, isochron_scheme_none, isochron_scheme_window, isochron_scheme_roundtime;
extern const method_t isochron_method_global, isochron_method_max, isochron_method_root, isochron_method_ack, isochron_method_overlap;

static const scheme_t *schemes[] = {&isochron_scheme_roundtime, &isochron_scheme_window, &isochron_scheme_barrier, &isochron_scheme_none};
static const method_t *methods[] = {&isochron_method_global, &isochron_method_max, &isochron_method_root, &isochron_method_ack, &isochron_method_overlap};
#define NS ((int)(sizeof schemes / sizeof schemes[0]))
#define NM ((int)(sizeof methods / sizeof methods[0]))
static isochron_named_t scheme_names[NS], method_names[NM];

ISOCHRON_REGISTRY_ACCESSORS(isochron_scheme_count, isochron_scheme_get, isochron_named_t, NS, ISOCHRON_REGISTRY_VIEW(schemes, scheme_names))
ISOCHRON_REGISTRY_ACCESSORS(isochron_method_count, isochron_method_get, isochron_named_t, NM, ISOCHRON_REGISTRY_VIEW(methods, method_names))
static const char *scheme_at(const void *reg, int i) { (void)reg; return schemes[i]->name; }
static const char *method_at(const void *reg, int i) { (void)reg; return methods[i]->name; }
const scheme_t *isochron_scheme_find_impl(const char *name)
{
    int i = isochron_names_find(NULL, NS, scheme_at, name);
    return i < 0 ? NULL : schemes[i];
}
const method_t *isochron_method_find_impl(const char *name)
{
    int i = isochron_names_find(NULL, NM, method_at, name);
    return i < 0 ? NULL : methods[i];
}

/* Timing choices (bench_impl.h: isochron_timing_parse; engine.c chooses for "auto"). */
static const isochron_named_t timings[] = {
    {"auto", "chosen per point: one-sided operations at the origin, as a loop of k calls when a call is shorter than"
             " 20 timer reads; the others with --method as it is (with --method global or max; other methods are kept)"},
    {"origin", "one-sided operations: each origin's local clock difference around access + completion, the largest"
               " over the origins (the global clock adds only its drift over the interval)"},
    {"global", "one call per repetition timed by --method as it is (global: last end - first start on the global clock)"},
    {"loop", "k back-to-back calls per repetition, times per call (paper 002's loop granularity); loop:K fixes k,"
             " plain loop takes k from a short probe; timed at the origin for one-sided operations, else by --method"},
};
#define NT ((int)(sizeof timings / sizeof timings[0]))
ISOCHRON_REGISTRY_ACCESSORS(isochron_timing_count, isochron_timing_get, isochron_named_t, NT, ISOCHRON_REGISTRY_ENTRY(timings))

int isochron_timing_parse(const char *s, int *kind, int *k)
{
    *k = 0;
    if (!s || !*s || isochron_streq_ci(s, "auto")) { *kind = ISOCHRON_TIMING_AUTO; return ISOCHRON_OK; }
    if (isochron_streq_ci(s, "origin")) { *kind = ISOCHRON_TIMING_ORIGIN; return ISOCHRON_OK; }
    if (isochron_streq_ci(s, "global")) { *kind = ISOCHRON_TIMING_GLOBAL; return ISOCHRON_OK; }
    if (!strncasecmp(s, "loop", 4) && (s[4] == 0 || s[4] == ':')) {
        *kind = ISOCHRON_TIMING_LOOP;
        if (s[4] == 0) return ISOCHRON_OK;
        char *end;
        long v = strtol(s + 5, &end, 10);
        if (end != s + 5 && !*end && v >= 1 && v <= ISOCHRON_LOOP_MAX) { *k = (int)v; return ISOCHRON_OK; }
        return isochron_set_error(ISOCHRON_EINVAL, "timing '%s': loop:K needs an integer K in [1, %d]", s, ISOCHRON_LOOP_MAX);
    }
    return isochron_set_error(ISOCHRON_ENAME, "unknown timing '%s'; valid: auto, origin, global, loop, loop:K (K in [1, %d])", s,
                              ISOCHRON_LOOP_MAX);
}

void isochron_bench_opts_default(isochron_bench_opts_t *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->scheme, sizeof o->scheme, ISOCHRON_BENCH_DEFAULT_SCHEME);
    snprintf(o->method, sizeof o->method, ISOCHRON_BENCH_DEFAULT_METHOD);
    snprintf(o->timing, sizeof o->timing, ISOCHRON_BENCH_DEFAULT_TIMING);
    snprintf(o->barrier, sizeof o->barrier, ISOCHRON_BENCH_DEFAULT_BARRIER);
    o->warmup = ISOCHRON_BENCH_DEFAULT_WARMUP;
    o->min_reps = ISOCHRON_BENCH_DEFAULT_MIN_REPS;
    o->max_reps = ISOCHRON_BENCH_DEFAULT_MAX_REPS;
    o->max_attempts = ISOCHRON_BENCH_DEFAULT_MAX_ATTEMPTS;
    o->rel_ci = ISOCHRON_BENCH_DEFAULT_REL_CI;
    o->ci_level = ISOCHRON_BENCH_DEFAULT_CI_LEVEL;
    o->budget = ISOCHRON_BENCH_DEFAULT_BUDGET;
    o->window = ISOCHRON_BENCH_DEFAULT_WINDOW;
    o->slack = ISOCHRON_BENCH_DEFAULT_SLACK_BCASTS;
    o->late_cap = ISOCHRON_LATE_CAP_AUTO;
    o->retries = ISOCHRON_BENCH_DEFAULT_RETRIES;
    o->retry_below = ISOCHRON_BENCH_DEFAULT_RETRY_BELOW;
    o->validate = ISOCHRON_BENCH_DEFAULT_VALIDATE;
    o->cache_bytes = ISOCHRON_BENCH_DEFAULT_CACHE_BYTES;
    o->inject_slowdown = ISOCHRON_BENCH_DEFAULT_INJECT_SLOWDOWN;
    o->track = 1;
}

int isochron_bench_opts_check(const isochron_bench_opts_t *o)
{
    char list[200];
    if (!isochron_scheme_find_impl(o->scheme)) { isochron_names_join(NULL, NS, scheme_at, list, sizeof list); return isochron_set_error(ISOCHRON_ENAME, "unknown scheme '%s'; valid: %s", o->scheme, list); }
    if (!isochron_method_find_impl(o->method)) { isochron_names_join(NULL, NM, method_at, list, sizeof list); return isochron_set_error(ISOCHRON_ENAME, "unknown timing method '%s'; valid: %s", o->method, list); }
    int rc = isochron_barrier_check_name(o->barrier), tk, tkk;
    if (rc) return rc;
    if ((rc = isochron_timing_parse(o->timing, &tk, &tkk))) return rc;
    if ((tk == ISOCHRON_TIMING_ORIGIN || tk == ISOCHRON_TIMING_LOOP) && !isochron_streq_ci(o->method, "global") && !isochron_streq_ci(o->method, "max"))
        return isochron_set_error(ISOCHRON_EINVAL, "--timing %s works with --method global or max, not %s", o->timing, o->method);
    if (o->min_reps < 1 || o->max_reps < o->min_reps || o->max_reps > 10000000)
        return isochron_set_error(ISOCHRON_EINVAL, "repetitions: need 1 <= min-reps (%d) <= max-reps (%d) <= 10000000", o->min_reps, o->max_reps);
    if (o->max_attempts != 0 && (o->max_attempts < o->max_reps || o->max_attempts > 40000000))
        return isochron_set_error(ISOCHRON_EINVAL, "max-attempts %d: 0 (4 x max-reps) or in [max-reps (%d), 40000000]", o->max_attempts, o->max_reps);
    if (o->warmup < 0 || o->warmup > 1000000) return isochron_set_error(ISOCHRON_EINVAL, "warm-up repetitions %d not in [0, 1000000]", o->warmup);
    if (!(o->rel_ci >= 0 && o->rel_ci < 1)) return isochron_set_error(ISOCHRON_EINVAL, "relative CI target %g not in [0, 1)", o->rel_ci);
    if (!(o->ci_level > 0.5 && o->ci_level < 1)) return isochron_set_error(ISOCHRON_EINVAL, "confidence level %g not in (0.5, 1)", o->ci_level);
    if (!(o->budget >= 0 && o->budget <= 86400)) return isochron_set_error(ISOCHRON_EINVAL, "time budget %g s not in [0, 86400]", o->budget);
    if (!isochron_streq_ci(o->scheme, "roundtime") || o->budget > 0) {} else
        return isochron_set_error(ISOCHRON_EINVAL, "the roundtime scheme needs a time slice (--budget > 0)");
    if (!(o->window >= 0 && o->window <= 10)) return isochron_set_error(ISOCHRON_EINVAL, "window %g s not in [0, 10]", o->window);
    if (!(o->slack >= 1 && o->slack <= 1000)) return isochron_set_error(ISOCHRON_EINVAL, "roundtime slack B=%g not in [1, 1000]", o->slack);
    if (o->late_cap != ISOCHRON_LATE_CAP_AUTO && !(o->late_cap > 0 && o->late_cap <= 10)) return isochron_set_error(ISOCHRON_EINVAL, "roundtime late-start cap %g not in (0, 10] (x the median run time)", o->late_cap);
    if (o->retries < 0 || o->retries > ISOCHRON_MAX_RETRIES) return isochron_set_error(ISOCHRON_EINVAL, "retries %d not in [0, %d]", o->retries, ISOCHRON_MAX_RETRIES);
    if (!(o->retry_below >= 0 && o->retry_below <= 1)) return isochron_set_error(ISOCHRON_EINVAL, "retry threshold %g not in [0, 1] (a valid share)", o->retry_below);
    if (!(o->inject_slowdown >= 0 && o->inject_slowdown <= 10)) return isochron_set_error(ISOCHRON_EINVAL, "injected slowdown %g not in [0, 10] (a fraction of the operation's time)", o->inject_slowdown);
    if (o->validate < 0 || o->validate > 2) return isochron_set_error(ISOCHRON_EINVAL, "validate %d not in 0..2", o->validate);
    if (o->cache_bytes > ((size_t)1 << 34)) return isochron_set_error(ISOCHRON_EINVAL, "cache clearing buffer larger than 16 GiB");
    if (o->nq < 0 || o->nq > ISOCHRON_STATS_MAXQ) return isochron_set_error(ISOCHRON_EINVAL, "at most %d quantiles", ISOCHRON_STATS_MAXQ);
    for (int i = 0; i < o->nq; i++)
        if (!(o->q[i] >= 0 && o->q[i] <= 1)) return isochron_set_error(ISOCHRON_EINVAL, "quantile %g not in [0, 1]", o->q[i]);
    if (isochron_streq_ci(o->method, "ack") && !(isochron_streq_ci(o->scheme, "barrier") || isochron_streq_ci(o->scheme, "none")))
        return isochron_set_error(ISOCHRON_EINVAL, "the ack method (de Supinski-Karonis) times each root->i task after a barrier; use --scheme barrier");
    if (o->rotate_root && (isochron_streq_ci(o->method, "root") || isochron_streq_ci(o->method, "ack")))
        return isochron_set_error(ISOCHRON_EINVAL, "--root rotate (a new root every repetition) works with the global and max methods; the %s method"
                                  " corrects for one root (measure each root as its own point with --root all)", o->method);
    return ISOCHRON_OK;
}
