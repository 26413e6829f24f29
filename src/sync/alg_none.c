/* "none": no synchronization; the global clock is the local timer. The baseline
 * that shows what synchronization buys (and that the accuracy check can fail). */
#include "isochron.h"
#include "sync/sync_impl.h"

int isochron_alg_none(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                      isochron_fit_info_t *fit)
{
    (void)ctx; (void)comm; (void)fit;
    return isochron_clock_copy(clk, out);
}
