/*
 * "skampi" and the star pattern it shares with "jk". SKaMPI (Worsch et al.,
 * paper 000 ref. [8]) measures one offset per client against rank 0 with
 * SKaMPI-Offset and keeps no drift: O(p) rounds, accurate right after
 * synchronization, degrading with drift. With nfit > 1 the offset is the
 * fit's offset-only model (fit.c, slope policy "never"): the mean of the nfit
 * offset measurements weighted by 1/uncertainty^2, over the points that pass
 * minimum-RTT filtering and robust rejection, moved into the intersection of
 * the SKaMPI-Offset bounds when it lies outside. JK (Jones & Koenig) is the
 * same star with a linear model learned per client (alg_jk.c).
 */
#include "isochron.h"
#include "sync/sync_impl.h"

int isochron_star_sync(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                       isochron_fit_info_t *fit)
{
    int me, p, rc = ISOCHRON_OK;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    isochron_lm_t lm = isochron_lm_identity();
    if (me == 0) {
        for (int c = 1; c < p && !rc; c++) {
            if ((rc = isochron_pair_begin(ctx, comm, 1, c, -1))) break;
            rc = isochron_learn_model(ctx, comm, 0, c, clk, &lm, NULL);
            if (!rc && ctx->lv->recompute_intercept) rc = isochron_recompute_intercept(ctx, comm, 0, c, clk, &lm);
            int rc2 = isochron_pair_end(ctx, comm, 1, -1);
            if (!rc) rc = rc2;
        }
        ctx->rounds += p - 1;
        if (rc) return rc;
        return isochron_clock_copy(clk, out);
    }
    ctx->rounds += p - 1;
    if ((rc = isochron_pair_begin(ctx, comm, 0, 0, -1))) return rc;
    rc = isochron_learn_model(ctx, comm, 0, me, clk, &lm, fit);
    if (!rc && ctx->lv->recompute_intercept) rc = isochron_recompute_intercept(ctx, comm, 0, me, clk, &lm);
    isochron_pair_end(ctx, comm, 0, -1);
    if (rc) return rc;
    return isochron_clock_nest(clk, lm, out);
}

int isochron_alg_skampi(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                        isochron_fit_info_t *fit)
{
    isochron_sync_level_t lv = *ctx->lv;
    lv.slope = ISOCHRON_SLOPE_NEVER; /* offsets only, by definition */
    isochron_sync_ctx_t c = *ctx;
    c.lv = &lv;
    int rc = isochron_star_sync(&c, comm, clk, out, fit);
    ctx->rounds = c.rounds;
    ctx->cut = c.cut;
    return rc;
}
