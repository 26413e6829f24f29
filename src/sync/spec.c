/*
 * Parsing and printing of sync specs (grammar in include/isochron/sync.h).
 * The paper's labels (paper 000, sec. III-C3: "hca/1000/SKaMPI-Offset/100")
 * are accepted as they are written; levels are joined with '+', top level
 * (between nodes) first. Every value is range-checked and every error names
 * the offending part and the valid choices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

#define MAX_FIT 1000000L
#define MAX_PP 1000000L
#define MAX_SPAN 100.0

static int parse_level(char *text, isochron_sync_level_t *lv)
{
    int rc;
    memset(lv, 0, sizeof *lv);
    char *opts = strchr(text, ',');
    if (opts) *opts++ = 0;
    char *parts[5] = {0};
    int np = 0;
    char *save = NULL;
    for (char *t = strtok_r(text, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (np == 4) return isochron_set_error(ISOCHRON_EPARSE, "sync spec level '%s...' has more than 4 '/'-parts (alg/fitpoints/estimator/pingpongs)", parts[0]);
        parts[np++] = t;
    }
    if (np == 0) return isochron_set_error(ISOCHRON_EPARSE, "empty sync spec level; valid algorithms: none, skampi, jk, hca, hca2, hca3, prop");
    const isochron_sync_alg_t *alg;
    if ((rc = isochron_sync_alg_find(parts[0], &alg))) return rc;
    snprintf(lv->alg, sizeof lv->alg, "%s", alg->name);
    lv->nfit = alg->default_nfit;
    lv->npingpongs = alg->default_npingpongs;
    lv->span = alg->default_span;
    lv->recompute_intercept = alg->default_recompute;
    lv->slope = ISOCHRON_SLOPE_AUTO;
    lv->outliers = 1;
    lv->refit = 2;
    if ((rc = isochron_estimator_find(alg->default_estimator, &lv->estimator))) return rc;
    if (!alg->uses_fit && (np > 1 || opts))
        return isochron_set_error(ISOCHRON_EPARSE, "sync algorithm '%s' takes no parameters", alg->name);
    lv->given = np > 1 || opts != NULL; /* the spec's own parameters: kept as given (isochron_sync_budget) */
    long v;
    if (np > 1) {
        if (isochron_parse_long(parts[1], &v) || v < 1 || v > MAX_FIT)
            return isochron_set_error(ISOCHRON_EINVAL, "fit points '%s' in sync spec: expected an integer in [1, %ld]", parts[1], MAX_FIT);
        lv->nfit = (int)v;
    }
    if (np > 2 && (rc = isochron_estimator_find(parts[2], &lv->estimator))) return rc;
    if (np > 3) {
        if (isochron_parse_long(parts[3], &v) || v < 1 || v > MAX_PP)
            return isochron_set_error(ISOCHRON_EINVAL, "ping-pongs '%s' in sync spec: expected an integer in [1, %ld]", parts[3], MAX_PP);
        lv->npingpongs = (int)v;
    }
    save = NULL;
    for (char *kv = opts ? strtok_r(opts, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) return isochron_set_error(ISOCHRON_EPARSE, "sync spec option '%s' is not key=value; keys: span, recompute, slope, outliers, refit, fit, est, pp", kv);
        *eq = 0;
        const char *k = kv, *val = eq + 1;
        double d;
        if (!strcmp(k, "span")) {
            if (isochron_parse_duration(val, &d) || d < 0 || d > MAX_SPAN)
                return isochron_set_error(ISOCHRON_EINVAL, "span=%s: expected a time in [0, %g] s, e.g. 0.1 or 100ms", val, MAX_SPAN);
            lv->span = d;
        } else if (!strcmp(k, "recompute") || !strcmp(k, "outliers")) {
            if (strcmp(val, "0") && strcmp(val, "1")) return isochron_set_error(ISOCHRON_EINVAL, "%s=%s: expected 0 or 1", k, val);
            if (!strcmp(k, "recompute")) lv->recompute_intercept = val[0] == '1';
            else lv->outliers = val[0] == '1';
        } else if (!strcmp(k, "slope")) {
            if (!strcmp(val, "auto")) lv->slope = ISOCHRON_SLOPE_AUTO;
            else if (!strcmp(val, "always")) lv->slope = ISOCHRON_SLOPE_ALWAYS;
            else if (!strcmp(val, "never")) lv->slope = ISOCHRON_SLOPE_NEVER;
            else return isochron_set_error(ISOCHRON_EINVAL, "slope=%s: valid: auto, always, never", val);
        } else if (!strcmp(k, "refit")) {
            if (isochron_parse_long(val, &v) || v < 0 || v > 5) return isochron_set_error(ISOCHRON_EINVAL, "refit=%s: expected an integer in [0, 5]", val);
            lv->refit = (int)v;
        } else if (!strcmp(k, "fit")) {
            if (isochron_parse_long(val, &v) || v < 1 || v > MAX_FIT) return isochron_set_error(ISOCHRON_EINVAL, "fit=%s: expected an integer in [1, %ld]", val, MAX_FIT);
            lv->nfit = (int)v;
        } else if (!strcmp(k, "pp")) {
            if (isochron_parse_long(val, &v) || v < 1 || v > MAX_PP) return isochron_set_error(ISOCHRON_EINVAL, "pp=%s: expected an integer in [1, %ld]", val, MAX_PP);
            lv->npingpongs = (int)v;
        } else if (!strcmp(k, "est")) {
            if ((rc = isochron_estimator_find(val, &lv->estimator))) return rc;
        } else
            return isochron_set_error(ISOCHRON_EPARSE, "unknown sync spec option '%s'; keys: span, recompute, slope, outliers, refit, fit, est, pp", k);
    }
    return ISOCHRON_OK;
}

int isochron_sync_spec_parse(const char *text, isochron_sync_spec_t *out)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text) return isochron_set_error(ISOCHRON_EPARSE, "empty sync spec; e.g. hca3, hca3/1000/skampi/100, hca3+prop");
    char *copy = strdup(text);
    if (!copy) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    int rc = ISOCHRON_OK, n = 0;
    char *p = copy;
    for (;;) {
        char *plus = strchr(p, '+');
        if (plus) *plus = 0;
        if (n == ISOCHRON_SYNC_MAX_LEVELS) {
            rc = isochron_set_error(ISOCHRON_EPARSE, "sync spec '%s' has more than %d levels (node, socket, core)", text, ISOCHRON_SYNC_MAX_LEVELS);
            break;
        }
        if (!*p) { rc = isochron_set_error(ISOCHRON_EPARSE, "sync spec '%s' has an empty level", text); break; }
        if ((rc = parse_level(p, &out->level[n]))) break;
        n++;
        if (!plus) break;
        p = plus + 1;
    }
    free(copy);
    if (rc) { memset(out, 0, sizeof *out); return rc; }
    out->nlevels = n;
    return ISOCHRON_OK;
}

int isochron_sync_spec_format(const isochron_sync_spec_t *spec, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = 0;
    for (int i = 0; i < spec->nlevels; i++) {
        const isochron_sync_level_t *lv = &spec->level[i];
        const isochron_sync_alg_t *alg;
        isochron_sync_alg_find(lv->alg, &alg);
        int w;
        if (alg && alg->uses_fit)
            w = snprintf(buf + used, len - used, "%s%s/%d/%s/%d,span=%g,recompute=%d,slope=%s,outliers=%d,refit=%d", i ? "+" : "", lv->alg,
                         lv->nfit, lv->estimator->name, lv->npingpongs, lv->span, lv->recompute_intercept,
                         lv->slope == ISOCHRON_SLOPE_AUTO ? "auto" : lv->slope == ISOCHRON_SLOPE_ALWAYS ? "always" : "never",
                         lv->outliers, lv->refit);
        else
            w = snprintf(buf + used, len - used, "%s%s", i ? "+" : "", lv->alg);
        if (w < 0 || (size_t)w >= len - used) return isochron_set_error(ISOCHRON_ETRUNC, "sync spec text longer than %zu bytes", len);
        used += (size_t)w;
    }
    return ISOCHRON_OK;
}
