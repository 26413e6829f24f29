/*
 * The registry of synchronization algorithms: one descriptor per algorithm
 * (name, description, defaults, function), in the manner of Open MPI's MCA
 * tables. Defaults are chosen for this kind of machine (shared memory,
 * sub-µs ping-pong) and a sync time well under a second at a few ranks; every
 * default can be overridden in the spec. span spreads the fit points of one
 * pair over time, which is what makes a fitted slope trustworthy.
 */
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

static const isochron_sync_alg_t algs[] = {
    {"none", "no synchronization: global = local timer (baseline)", 0, 0, "skampi", 0, 0, 0, isochron_alg_none},
    {"skampi", "SKaMPI: offsets only, rank 0 with each rank in turn, O(p)", 1, 1, "skampi", 100, 0, 0, isochron_alg_skampi},
    {"jk", "Jones-Koenig: linear drift model, rank 0 with each rank in turn, O(p)", 1, 40, "skampi", 30, 0.02, 0, isochron_alg_jk},
    {"hca", "HCA: models merged up a binomial tree, scattered, intercepts re-measured (O(p) last pass)", 1, 40, "skampi", 30, 0.02, 0, isochron_alg_hca},
    {"hca2", "HCA2: models merged up a binomial tree and scattered, O(log p)", 1, 40, "skampi", 30, 0.02, 0, isochron_alg_hca2},
    {"hca3", "HCA3 (Alg. 1): reference time pushed down a binomial tree, O(log p)", 1, 40, "skampi", 30, 0.02, 0, isochron_alg_hca3},
    {"prop", "ClockPropSync (Alg. 3): copy rank 0's model; only where all ranks share one time source", 0, 0, "skampi", 0, 0, 0, isochron_alg_prop},
};
#define NALG ((int)(sizeof algs / sizeof algs[0]))

/* Pairwise rounds on the critical path of one level at p processes. */
static int log2ceil(int p) { int r = 0; while ((1 << r) < p) r++; return r; }
int isochron_sync_rounds_of(const char *alg, int p)
{
    if (p < 2 || !strcmp(alg, "none") || !strcmp(alg, "prop")) return 0;
    if (!strcmp(alg, "skampi") || !strcmp(alg, "jk")) return p - 1;
    if (!strcmp(alg, "hca")) return log2ceil(p) + p - 1;
    return log2ceil(p); /* hca2, hca3 */
}

double isochron_sync_estimate(const isochron_sync_spec_t *spec, int nprocs, double rtt)
{
    double total = 0;
    for (int l = 0; l < spec->nlevels; l++) {
        const isochron_sync_level_t *lv = &spec->level[l];
        double exch = (double)lv->nfit * lv->npingpongs * rtt, pair = exch > lv->span ? exch : lv->span;
        if (lv->recompute_intercept) pair += lv->npingpongs * rtt;
        total += isochron_sync_rounds_of(lv->alg, nprocs) * pair;
    }
    return total;
}

ISOCHRON_REGISTRY_ACCESSORS(isochron_sync_alg_count, isochron_sync_alg_get, isochron_sync_alg_t, NALG, ISOCHRON_REGISTRY_ENTRY(algs))

static const char *alg_at(const void *reg, int i) { (void)reg; return algs[i].name; }

int isochron_sync_alg_find(const char *name, const isochron_sync_alg_t **out)
{
    int i = isochron_names_find(NULL, NALG, alg_at, name);
    *out = i < 0 ? NULL : &algs[i];
    if (*out) return ISOCHRON_OK;
    char valid[256];
    isochron_names_join(NULL, NALG, alg_at, valid, sizeof valid);
    return isochron_set_error(ISOCHRON_ENAME, "unknown sync algorithm '%s'; valid: %s", name, valid);
}
