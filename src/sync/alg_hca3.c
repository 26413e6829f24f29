/*
 * HCA3 (paper 000, Algorithm 1). The reference time is pushed down an
 * inverted binomial tree from rank 0: in round i (from floor(log2 p) down to
 * 1) a process whose rank is an odd multiple of 2^(i-1) learns its model from
 * the rank 2^(i-1) below it, which timestamps with the global clock it
 * already has (PulseSync's idea). Ranks >= 2^floor(log2 p) learn last, from
 * rank r - 2^floor(log2 p) (Step 2). Each process is a client exactly once;
 * its clock is one linear model over its base clock. O(log p) rounds.
 * Pairs of a round are ordered by their reference's rank for turn-taking.
 * The tree walk (isochron_hca3_tree) is shared with clock tracking, whose
 * refreshes push offsets down the same tree (track.c).
 */
#include "isochron.h"
#include "sync/sync_impl.h"

int isochron_hca3_tree(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_tree_pair_fn fn, void *arg)
{
    int r, p, rc = ISOCHRON_OK;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int nrounds = 0;
    while ((2 << nrounds) <= p) nrounds++;
    int max_power = 1 << nrounds;
    for (int i = nrounds; i >= 1 && r < max_power && !rc; i--) {
        int running = 1 << i, next = 1 << (i - 1);
        if (r % running == 0) { /* reference */
            int prev = r - running >= 0 ? r - running : -1, nxt = r + running < max_power ? r + running : -1;
            rc = fn(ctx, comm, 1, r, r + next, prev, nxt, arg);
        } else if (r % running == next) { /* client */
            rc = fn(ctx, comm, 0, r - next, r, -1, -1, arg);
        }
    }
    if (!rc && r >= max_power) /* Step 2: client of r - max_power */
        rc = fn(ctx, comm, 0, r - max_power, r, -1, -1, arg);
    else if (!rc && r < p - max_power) /* Step 2: reference of r + max_power */
        rc = fn(ctx, comm, 1, r, r + max_power, r > 0 ? r - 1 : -1, r + 1 < p - max_power ? r + 1 : -1, arg);
    ctx->rounds += nrounds + (p > max_power);
    return rc;
}

typedef struct {
    isochron_clock_t *base, *my; /* base clock; this rank's clock so far (global once it was a client) */
    isochron_fit_info_t *fit;
} hca3_state_t;

/* One pair of a round, from either side: turn, LEARN_CLOCK_MODEL, optional intercept, end of turn. */
static int pair(isochron_sync_ctx_t *ctx, MPI_Comm comm, int is_ref, int ref, int client, int prev, int next, void *arg)
{
    hca3_state_t *s = arg;
    isochron_lm_t lm = isochron_lm_identity();
    int rc = isochron_pair_begin(ctx, comm, is_ref, is_ref ? client : ref, prev);
    if (rc) return rc;
    rc = isochron_learn_model(ctx, comm, ref, client, s->my, &lm, is_ref ? NULL : s->fit);
    if (!rc && ctx->lv->recompute_intercept) rc = isochron_recompute_intercept(ctx, comm, ref, client, s->my, &lm);
    int rc2 = isochron_pair_end(ctx, comm, is_ref, next);
    if (rc || (rc = rc2) || is_ref) return rc;
    isochron_clock_destroy(s->my);
    return isochron_clock_nest(s->base, lm, &s->my);
}

int isochron_alg_hca3(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                      isochron_fit_info_t *fit)
{
    hca3_state_t s = {clk, NULL, fit};
    int rc = isochron_clock_copy(clk, &s.my);
    if (rc) return rc;
    rc = isochron_hca3_tree(ctx, comm, pair, &s);
    if (rc) { isochron_clock_destroy(s.my); return rc; }
    *out = s.my;
    return ISOCHRON_OK;
}
