/*
 * The "barrier" and "none" process-synchronization schemes. barrier: a
 * barrier algorithm (MPI_Barrier by default, once or twice) on the measured
 * communicator before every repetition, as OSU and IMB do; how much the
 * barrier's own exit skew distorts small-message results is what paper 000
 * (sec. V-B, Fig. 7-8) warns about, and is visible here as start_spread.
 * none: repetitions back to back, no isolation (measures pipelined
 * throughput rather than one operation; paper 001, sec. 2.2).
 */
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

static int barrier_before(isochron_bench_t *b, point_state_t *ps, int rep, int *late)
{
    (void)ps; (void)rep;
    int rc;
    *late = 0;
    for (int i = 0; i < (b->o.barrier_twice ? 2 : 1); i++)
        if ((rc = isochron_barrier_run(b->bar))) return rc;
    return ISOCHRON_OK;
}

static int none_before(isochron_bench_t *b, point_state_t *ps, int rep, int *late)
{
    (void)b; (void)ps; (void)rep;
    *late = 0;
    return ISOCHRON_OK;
}

static int local_after(isochron_bench_t *b, point_state_t *ps, int rep, double t_end, int *invalid, int *stop)
{
    (void)b; (void)ps; (void)rep; (void)t_end;
    *invalid = 0;
    *stop = 0;
    return ISOCHRON_OK;
}

const scheme_t isochron_scheme_barrier = {"barrier", "a barrier (--barrier, once or --barrier-twice) before every repetition, like OSU/IMB", 0, NULL, barrier_before, local_after, NULL, 1};
const scheme_t isochron_scheme_none = {"none", "repetitions back to back, no synchronization (pipelined)", 0, NULL, none_before, local_after, NULL, 0};
