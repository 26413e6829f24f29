/*
 * Skew injection: a decorator that turns any base timer into a clock with a
 * known error, so that synchronization accuracy can be proven against ground
 * truth on any machine (a test bench in the spirit of paper 000's Alg. 6, with
 * the true offsets known exactly instead of estimated).
 *
 *   skewed(b) = b + offset + d*(b - t0) + dd*(b - t0)^2 / 2 + N(0, jitter^2)
 *
 * with d = drift_ppm*1e-6, dd = ddrift_ppm_s*1e-6 and t0 the base reading when
 * the decorator was made. isochron_timer_skew_apply() gives the same value
 * without the jitter: the injected truth. Per-rank values are drawn from a
 * seed with splitmix64, so every rank of a job can recompute every other
 * rank's skew.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "timer/timer_impl.h"

/* Bounds of every parameter, checked when parsing and when decorating. */
#define MAX_OFFSET 1e4      /* seconds */
#define MAX_DRIFT 1e5       /* ppm (10 %) */
#define MAX_DDRIFT 1e3      /* ppm per second */
#define MAX_JITTER 1e-2     /* seconds */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in (0,1) */
static double unit(uint64_t *s) { return ((double)(splitmix64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static double gauss(uint64_t *s)
{
    double u = unit(s), v = unit(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

double isochron_timer_skew_apply(const isochron_timer_t *t, double b)
{
    if (!t->skewed) return b;
    double dt = b - t->t0;
    return b + t->skew.offset + t->skew.drift_ppm * 1e-6 * dt + 0.5 * t->skew.ddrift_ppm_s * 1e-6 * dt * dt;
}

static double now_skew(isochron_timer_t *t)
{
    double v = isochron_timer_skew_apply(t, t->base->now(t->base));
    if (t->skew.jitter > 0) v += t->skew.jitter * gauss(&t->rng);
    return v;
}

double isochron_timer_base_now(isochron_timer_t *t) { return t->skewed ? t->base->now(t->base) : t->now(t); }

const isochron_skew_t *isochron_timer_get_skew(const isochron_timer_t *t) { return t->skewed ? &t->skew : NULL; }

int isochron_timer_skew(isochron_timer_t *base, const isochron_skew_t *skew, isochron_timer_t **out)
{
    *out = NULL;
    if (!base || !skew) return isochron_set_error(ISOCHRON_EINVAL, "skew: NULL base timer or skew");
    if (base->skewed) return isochron_set_error(ISOCHRON_EINVAL, "skew: timer '%s' is already skewed", base->name);
    if (!isfinite(skew->offset) || fabs(skew->offset) > MAX_OFFSET || !isfinite(skew->drift_ppm) || fabs(skew->drift_ppm) > MAX_DRIFT ||
        !isfinite(skew->ddrift_ppm_s) || fabs(skew->ddrift_ppm_s) > MAX_DDRIFT || !(skew->jitter >= 0) || skew->jitter > MAX_JITTER)
        return isochron_set_error(ISOCHRON_EINVAL, "skew: parameters out of range (|offset| <= %g s, |drift| <= %g ppm, |ddrift| <= %g ppm/s, 0 <= jitter <= %g s)",
                                  MAX_OFFSET, MAX_DRIFT, MAX_DDRIFT, MAX_JITTER);
    isochron_timer_t *t = calloc(1, sizeof *t);
    if (!t) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory creating skewed timer");
    snprintf(t->name, sizeof t->name, "skew(%.60s)", base->name);
    t->base = base;
    t->skewed = 1;
    t->skew = *skew;
    t->rng = skew->seed ^ 0x5DEECE66Dull;
    t->t0 = base->now(base);
    t->now = now_skew;
    *out = t;
    return ISOCHRON_OK;
}

int isochron_skew_spec_active(const isochron_skew_spec_t *s)
{
    return s->offset_max > 0 || s->drift_max_ppm > 0 || s->ddrift_max_ppm_s > 0 || s->jitter > 0 || s->nexplicit > 0;
}

void isochron_skew_for_rank(const isochron_skew_spec_t *spec, int rank, isochron_skew_t *out)
{
    memset(out, 0, sizeof *out);
    uint64_t s = spec->seed * 0x2545F4914F6CDD1Dull + (uint64_t)rank * 0x9E3779B97F4A7C15ull + 1;
    double u1 = 2 * unit(&s) - 1, u2 = 2 * unit(&s) - 1, u3 = 2 * unit(&s) - 1;
    if (!(spec->ref_exact && rank == 0)) {
        out->offset = u1 * spec->offset_max;
        out->drift_ppm = u2 * spec->drift_max_ppm;
        out->ddrift_ppm_s = u3 * spec->ddrift_max_ppm_s;
    }
    out->jitter = spec->jitter;
    out->seed = splitmix64(&s);
    for (int i = 0; i < spec->nexplicit; i++)
        if (spec->explicit_rank[i] == rank) {
            isochron_skew_t e = spec->explicit_skew[i];
            e.seed = out->seed;
            if (e.jitter < 0) e.jitter = spec->jitter;
            *out = e;
        }
}


static int parse_value(const char *key, const char *val, double *out)
{
    int is_time = !strcmp(key, "offset") || !strcmp(key, "jitter");
    int ok = is_time ? isochron_parse_duration(val, out) == 0 : isochron_parse_double(val, out) == 0;
    if (!ok)
        return isochron_set_error(ISOCHRON_EPARSE, "skew: bad value '%s' for %s (expected %s)", val, key,
                                  is_time ? "a time such as 10ms, 5us, 0.001" : "a number");
    return ISOCHRON_OK;
}

static int check_range(const char *key, double v, int allow_negative)
{
    double lim = !strcmp(key, "offset") ? MAX_OFFSET : !strcmp(key, "drift") ? MAX_DRIFT
               : !strcmp(key, "ddrift") ? MAX_DDRIFT : MAX_JITTER;
    double lo = allow_negative ? -lim : 0;
    if (v < lo || v > lim)
        return isochron_set_error(ISOCHRON_EINVAL, "skew: %s=%g out of range [%g, %g]%s", key, v, lo, lim,
                                  allow_negative ? "" : " (a range is given as its non-negative maximum: offset=10ms means ±10 ms)");
    return ISOCHRON_OK;
}

static const char *KEYS = "offset, drift, ddrift, jitter, seed, ref=exact, by=rank|host, rR:offset=..:drift=..:ddrift=..:jitter=..";

static int parse_explicit(char *tok, isochron_skew_spec_t *out)
{
    char *colon = strchr(tok, ':');
    if (!colon) return isochron_set_error(ISOCHRON_EPARSE, "skew: '%s' should be rR:key=value[:key=value...]", tok);
    *colon = 0;
    long rank;
    if (isochron_parse_long(tok + 1, &rank) != 0 || rank < 0)
        return isochron_set_error(ISOCHRON_EPARSE, "skew: bad rank in '%s'", tok);
    if (out->nexplicit >= ISOCHRON_SKEW_MAX_RANKS || rank >= 1 << 30)
        return isochron_set_error(ISOCHRON_EINVAL, "skew: at most %d explicit ranks", ISOCHRON_SKEW_MAX_RANKS);
    isochron_skew_t e;
    memset(&e, 0, sizeof e);
    e.jitter = -1; /* inherit the job-wide jitter unless given */
    char *save = NULL;
    for (char *kv = strtok_r(colon + 1, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) return isochron_set_error(ISOCHRON_EPARSE, "skew: '%s' is not key=value", kv);
        *eq = 0;
        double v;
        int rc;
        if (strcmp(kv, "offset") && strcmp(kv, "drift") && strcmp(kv, "ddrift") && strcmp(kv, "jitter"))
            return isochron_set_error(ISOCHRON_EPARSE, "skew: unknown per-rank key '%s'; valid: offset, drift, ddrift, jitter", kv);
        if ((rc = parse_value(kv, eq + 1, &v)) || (rc = check_range(kv, v, strcmp(kv, "jitter") != 0))) return rc;
        if (!strcmp(kv, "offset")) e.offset = v;
        else if (!strcmp(kv, "drift")) e.drift_ppm = v;
        else if (!strcmp(kv, "ddrift")) e.ddrift_ppm_s = v;
        else e.jitter = v;
    }
    for (int i = 0; i < out->nexplicit; i++)
        if (out->explicit_rank[i] == (int)rank)
            return isochron_set_error(ISOCHRON_EINVAL, "skew: rank %ld given twice", rank);
    out->explicit_rank[out->nexplicit] = (int)rank;
    out->explicit_skew[out->nexplicit] = e;
    out->nexplicit++;
    return ISOCHRON_OK;
}

int isochron_skew_spec_parse(const char *spec, isochron_skew_spec_t *out)
{
    memset(out, 0, sizeof *out);
    out->seed = 1;
    if (!spec || !*spec || !strcmp(spec, "none")) return ISOCHRON_OK;
    char *copy = strdup(spec);
    if (!copy) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    int rc = ISOCHRON_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == ISOCHRON_OK; tok = strtok_r(NULL, ",", &save)) {
        if (tok[0] == 'r' && tok[1] >= '0' && tok[1] <= '9') { rc = parse_explicit(tok, out); continue; }
        char *eq = strchr(tok, '=');
        if (!eq) { rc = isochron_set_error(ISOCHRON_EPARSE, "skew: '%s' is not key=value; keys: %s", tok, KEYS); break; }
        *eq = 0;
        const char *key = tok, *val = eq + 1;
        double v;
        if (!strcmp(key, "seed")) {
            long s;
            if (isochron_parse_long(val, &s) != 0 || s < 0) rc = isochron_set_error(ISOCHRON_EPARSE, "skew: bad seed '%s' (a non-negative integer)", val);
            else out->seed = (uint64_t)s;
        } else if (!strcmp(key, "ref")) {
            if (!strcmp(val, "exact")) out->ref_exact = 1;
            else if (!strcmp(val, "skewed")) out->ref_exact = 0;
            else rc = isochron_set_error(ISOCHRON_EPARSE, "skew: ref=%s; valid: exact, skewed", val);
        } else if (!strcmp(key, "by")) {
            if (!strcmp(val, "rank")) out->per_host = 0;
            else if (!strcmp(val, "host")) out->per_host = 1;
            else rc = isochron_set_error(ISOCHRON_EPARSE, "skew: by=%s; valid: rank, host", val);
        } else if (!strcmp(key, "offset") || !strcmp(key, "drift") || !strcmp(key, "ddrift") || !strcmp(key, "jitter")) {
            if ((rc = parse_value(key, val, &v)) == ISOCHRON_OK && (rc = check_range(key, v, 0)) == ISOCHRON_OK) {
                if (!strcmp(key, "offset")) out->offset_max = v;
                else if (!strcmp(key, "drift")) out->drift_max_ppm = v;
                else if (!strcmp(key, "ddrift")) out->ddrift_max_ppm_s = v;
                else out->jitter = v;
            }
        } else {
            rc = isochron_set_error(ISOCHRON_EPARSE, "skew: unknown key '%s'; keys: %s", key, KEYS);
        }
    }
    free(copy);
    if (rc != ISOCHRON_OK) memset(out, 0, sizeof *out);
    return rc;
}
