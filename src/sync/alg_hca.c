/*
 * HCA and HCA2 (Hunold & Carpen-Amarie 2015, paper 000 ref. [10], sketched in
 * paper 000 sec. II and Fig. 1a). Models are learned towards rank 0 along an
 * inverted binomial tree: in round i (2^i = 1, 2, 4, ...) the rank r with
 * r mod 2^(i+1) == 2^i learns its model to r - 2^i on base clocks and sends it,
 * together with the models of its subtree, to r - 2^i, which merges them
 * (model(j -> ref) = merge(model(r -> ref), model(j -> r))). Ranks >= the
 * largest power of two first attach to r - 2^floor(log2 p). After
 * O(log p) rounds rank 0 holds a model for every rank and scatters them.
 * HCA adds one O(p) pass in which every rank re-measures its offset to
 * rank 0 on its base clock and recomputes its intercept (Alg. 2,
 * COMPUTE_AND_SET_INTERCEPT); HCA2 skips it.
 */
#include <stdlib.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

typedef struct { double rank, slope, intercept, kind; } entry_t;

static int send_models(MPI_Comm comm, int dest, entry_t *e, int n)
{
    if (MPI_Send(&n, 1, MPI_INT, dest, TAG_MODELS_N, comm) != MPI_SUCCESS ||
        MPI_Send(e, 4 * n, MPI_DOUBLE, dest, TAG_MODELS, comm) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "hca: sending models to rank %d failed", dest);
    return ISOCHRON_OK;
}

static int recv_merge(MPI_Comm comm, int src, isochron_lm_t *have, int *known, int p)
{
    int n, rc;
    if ((rc = isochron_recv_polite(&n, 1, MPI_INT, src, TAG_MODELS_N, comm))) return rc;
    entry_t *e = malloc(sizeof(entry_t) * (size_t)(n > 0 ? n : 1));
    if (!e) return isochron_set_error(ISOCHRON_ENOMEM, "hca: out of memory");
    if ((rc = isochron_recv_polite(e, 4 * n, MPI_DOUBLE, src, TAG_MODELS, comm))) { free(e); return rc; }
    /* e[0] is src's own model to us; the rest map their rank to src */
    isochron_lm_t to_me = {e[0].slope, e[0].intercept, (isochron_lm_kind_t)e[0].kind};
    for (int k = 0; k < n; k++) {
        int j = (int)e[k].rank;
        if (j < 0 || j >= p) continue;
        isochron_lm_t m = {e[k].slope, e[k].intercept, (isochron_lm_kind_t)e[k].kind};
        have[j] = k == 0 ? to_me : isochron_lm_merge(to_me, m);
        known[j] = 1;
    }
    free(e);
    return ISOCHRON_OK;
}

/* Client side of one tree step: learn the model to ref, then send it with the subtree's models. */
static int client_step(isochron_sync_ctx_t *ctx, MPI_Comm comm, int ref, isochron_clock_t *clk,
                       isochron_lm_t *have, int *known, int p, isochron_fit_info_t *fit)
{
    int r, rc, n = 0;
    MPI_Comm_rank(comm, &r);
    isochron_lm_t lm;
    if ((rc = isochron_pair_begin(ctx, comm, 0, ref, -1))) return rc;
    rc = isochron_learn_model(ctx, comm, ref, r, clk, &lm, fit);
    isochron_pair_end(ctx, comm, 0, -1);
    if (rc) return rc;
    entry_t *e = malloc(sizeof(entry_t) * (size_t)p);
    if (!e) return isochron_set_error(ISOCHRON_ENOMEM, "hca: out of memory");
    e[n++] = (entry_t){r, lm.slope, lm.intercept, lm.kind};
    for (int j = 0; j < p; j++)
        if (known[j] && j != r) e[n++] = (entry_t){j, have[j].slope, have[j].intercept, have[j].kind};
    rc = send_models(comm, ref, e, n);
    free(e);
    return rc;
}

static int ref_step(isochron_sync_ctx_t *ctx, MPI_Comm comm, int client, int prev, int next, isochron_clock_t *clk,
                    isochron_lm_t *have, int *known, int p)
{
    int r, rc;
    MPI_Comm_rank(comm, &r);
    isochron_lm_t lm;
    if ((rc = isochron_pair_begin(ctx, comm, 1, client, prev))) return rc;
    rc = isochron_learn_model(ctx, comm, r, client, clk, &lm, NULL);
    int rc2 = isochron_pair_end(ctx, comm, 1, next);
    if (rc || (rc = rc2)) return rc;
    return recv_merge(comm, client, have, known, p);
}

static int hca_common(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                      isochron_fit_info_t *fit, int recompute_all)
{
    int r, p, rc = ISOCHRON_OK;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int nrounds = 0;
    while ((2 << nrounds) <= p) nrounds++;
    int max_power = 1 << nrounds, extra = p - max_power;
    isochron_lm_t *have = calloc((size_t)p, sizeof *have);
    int *known = calloc((size_t)p, sizeof *known);
    if (!have || !known) { free(have); free(known); return isochron_set_error(ISOCHRON_ENOMEM, "hca: out of memory"); }
    have[r] = isochron_lm_identity();
    int done = 0; /* 1 once this rank has handed its subtree up */

    /* ranks beyond the largest power of two attach first */
    if (r >= max_power) { rc = client_step(ctx, comm, r - max_power, clk, have, known, p, fit); done = 1; }
    else if (r < extra) rc = ref_step(ctx, comm, r + max_power, r > 0 ? r - 1 : -1, r + 1 < extra ? r + 1 : -1, clk, have, known, p);

    for (int i = 0; i < nrounds && !rc && !done; i++) {
        int step = 1 << i, span = step << 1;
        if (r % span == step) { rc = client_step(ctx, comm, r - step, clk, have, known, p, fit); done = 1; }
        else if (r % span == 0)
            rc = ref_step(ctx, comm, r + step, r - span >= 0 ? r - span : -1, r + span < max_power ? r + span : -1, clk, have, known, p);
    }
    ctx->rounds += nrounds + (extra > 0);
    /* rank 0 scatters each rank's model (rank -> rank 0) */
    rc = isochron_agree(comm, rc);
    double *all = NULL, mine[3];
    if (!rc && r == 0) {
        all = malloc(sizeof(double) * 3 * (size_t)p);
        if (!all) rc = isochron_set_error(ISOCHRON_ENOMEM, "hca: out of memory");
        else
            for (int j = 0; j < p; j++) {
                isochron_lm_t m = j == 0 ? isochron_lm_identity() : have[j];
                if (j != 0 && !known[j]) rc = isochron_set_error(ISOCHRON_EINVAL, "hca: no model for rank %d (internal error)", j);
                all[3 * j] = m.slope; all[3 * j + 1] = m.intercept; all[3 * j + 2] = m.kind;
            }
    }
    rc = isochron_agree(comm, rc);
    if (!rc) MPI_Scatter(all, 3, MPI_DOUBLE, mine, 3, MPI_DOUBLE, 0, comm);
    free(all); free(have); free(known);
    if (rc) return rc;
    isochron_lm_t lm = {mine[0], mine[1], (isochron_lm_kind_t)mine[2]};
    if (recompute_all) { /* HCA: O(p) intercept pass against rank 0 */
        ctx->rounds += p - 1;
        if (r == 0) {
            for (int c = 1; c < p && !rc; c++)
                if (!(rc = isochron_pair_begin(ctx, comm, 1, c, -1))) {
                    rc = isochron_recompute_intercept(ctx, comm, 0, c, clk, &lm);
                    isochron_pair_end(ctx, comm, 1, -1);
                }
        } else if (!(rc = isochron_pair_begin(ctx, comm, 0, 0, -1))) {
            rc = isochron_recompute_intercept(ctx, comm, 0, r, clk, &lm);
            isochron_pair_end(ctx, comm, 0, -1);
        }
        if (rc) return rc;
    }
    if (r == 0) return isochron_clock_copy(clk, out);
    return isochron_clock_nest(clk, lm, out);
}

int isochron_alg_hca(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                     isochron_fit_info_t *fit)
{
    return hca_common(ctx, comm, clk, out, fit, 1);
}

int isochron_alg_hca2(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                      isochron_fit_info_t *fit)
{
    return hca_common(ctx, comm, clk, out, fit, 0);
}
