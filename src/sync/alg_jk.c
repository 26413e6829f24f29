/*
 * "jk": Jones & Koenig (paper 000 ref. [16], sec. II): rank 0 learns a linear
 * drift model with every other rank in turn, O(p) rounds. The paper found it
 * the most accurate at moderate scale and better with SKaMPI-Offset than with
 * its original Mean-RTT-Offset (sec. III-C3); both are selectable.
 */
#include "isochron.h"
#include "sync/sync_impl.h"

int isochron_star_sync(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                       isochron_fit_info_t *fit);

int isochron_alg_jk(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                    isochron_fit_info_t *fit)
{
    return isochron_star_sync(ctx, comm, clk, out, fit);
}
