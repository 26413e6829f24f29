/*
 * "prop": ClockPropSync (paper 000, Algorithm 3). Rank 0 of the level, already
 * synchronized with the level above, flattens its (nested) clock model and
 * broadcasts it; every other rank rebuilds it over its own timer. That is
 * correct only where all ranks read one time source, so the level first
 * tests it (isochron_shared_timesource) and refuses with ISOCHRON_ENOTSHARED
 * otherwise: a peer silently gave millisecond errors there.
 */
#include <stdlib.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

int isochron_alg_prop(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk, isochron_clock_t **out,
                      isochron_fit_info_t *fit)
{
    (void)fit;
    int r, shared = 0;
    char why[1024] = ""; /* the sentence names two ranks and their hosts (pair.c) */
    MPI_Comm_rank(comm, &r);
    int rc = isochron_shared_timesource(comm, clk, &shared, why, sizeof why);
    if (rc) return rc;
    if (!shared) return isochron_set_error(ISOCHRON_ENOTSHARED, "prop (ClockPropSync) refused: %s", why);
    ctx->rounds += 1;
    size_t need = 0;
    isochron_clock_flatten(clk, NULL, 0, &need);
    unsigned long len = r == 0 ? (unsigned long)need : 0;
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG, 0, comm);
    unsigned char *buf = malloc(len);
    if (!buf) return isochron_set_error(ISOCHRON_ENOMEM, "prop: out of memory");
    if (r == 0) isochron_clock_flatten(clk, buf, len, NULL);
    MPI_Bcast(buf, (int)len, MPI_BYTE, 0, comm);
    if (r == 0) rc = isochron_clock_copy(clk, out);
    else rc = isochron_clock_unflatten(buf, len, isochron_clock_timer(clk), out);
    free(buf);
    return rc;
}
