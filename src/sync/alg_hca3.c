/*
 * HCA3 (paper 000, Algorithm 1). The reference time is pushed down an
 * inverted binomial tree from rank 0: in round i (from floor(log2 p) down to
 * 1) a process whose rank is an odd multiple of 2^(i-1) learns its model from
 * the rank 2^(i-1) below it, which timestamps with the global clock it
 * already has (PulseSync's idea). Ranks >= 2^floor(log2 p) learn last, from
 * rank r - 2^floor(log2 p) (Step 2). Each process is a client exactly once;
 * its clock is one linear model over its base clock. O(log p) rounds.
 * Pairs of a round are ordered by their reference's rank for turn-taking.
 */
#include "isochron.h"
#include "sync/sync_impl.h"

int isochron_alg_hca3(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                      isochron_fit_info_t *fit)
{
    int r, p, rc = ISOCHRON_OK;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int nrounds = 0;
    while ((2 << nrounds) <= p) nrounds++;
    int max_power = 1 << nrounds;
    isochron_clock_t *my = NULL;
    if ((rc = isochron_clock_copy(clk, &my))) return rc;
    isochron_lm_t lm = isochron_lm_identity();

    for (int i = nrounds; i >= 1 && r < max_power; i--) {
        int running = 1 << i, next = 1 << (i - 1);
        if (r % running == 0) { /* reference */
            int prev = r - running >= 0 ? r - running : -1, nxt = r + running < max_power ? r + running : -1;
            if ((rc = isochron_pair_begin(ctx, comm, 1, r + next, prev))) break;
            if ((rc = isochron_learn_model(ctx, comm, r, r + next, my, &lm, NULL))) break;
            if (ctx->lv->recompute_intercept && (rc = isochron_recompute_intercept(ctx, comm, r, r + next, my, &lm))) break;
            if ((rc = isochron_pair_end(ctx, comm, 1, nxt))) break;
        } else if (r % running == next) { /* client */
            int ref = r - next;
            if ((rc = isochron_pair_begin(ctx, comm, 0, ref, -1))) break;
            if ((rc = isochron_learn_model(ctx, comm, ref, r, my, &lm, fit))) break;
            if (ctx->lv->recompute_intercept && (rc = isochron_recompute_intercept(ctx, comm, ref, r, my, &lm))) break;
            isochron_clock_destroy(my);
            if ((rc = isochron_clock_nest(clk, lm, &my))) return rc;
        }
    }
    if (!rc && r >= max_power) { /* Step 2: client of r - max_power */
        int ref = r - max_power;
        if (!(rc = isochron_pair_begin(ctx, comm, 0, ref, -1)) && !(rc = isochron_learn_model(ctx, comm, ref, r, my, &lm, fit)) &&
            !(rc = ctx->lv->recompute_intercept ? isochron_recompute_intercept(ctx, comm, ref, r, my, &lm) : 0)) {
            isochron_clock_destroy(my);
            if ((rc = isochron_clock_nest(clk, lm, &my))) return rc;
        }
    } else if (!rc && r < p - max_power) { /* Step 2: reference of r + max_power */
        int prev = r > 0 ? r - 1 : -1, nxt = r + 1 < p - max_power ? r + 1 : -1;
        if (!(rc = isochron_pair_begin(ctx, comm, 1, r + max_power, prev)) &&
            !(rc = isochron_learn_model(ctx, comm, r, r + max_power, my, &lm, NULL)) &&
            !(rc = ctx->lv->recompute_intercept ? isochron_recompute_intercept(ctx, comm, r, r + max_power, my, &lm) : 0))
            rc = isochron_pair_end(ctx, comm, 1, nxt);
    }
    ctx->rounds += nrounds + (p > max_power);
    if (rc) { isochron_clock_destroy(my); return rc; }
    *out = my;
    return ISOCHRON_OK;
}
