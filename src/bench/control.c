/*
 * The engine's protocol on its control communicator (b->ctl): the start-time
 * broadcasts and the agreements of the schemes and methods (paper 000,
 * Algorithm 5, the Round-Time scheme), and waiting for a global time. On an
 * oversubscribed node each yields the CPU while it waits, so the ranks still
 * on their way are not starved. In a file of its own, below the methods and
 * schemes that call it: in engine.c, which reaches them through registry.c, it
 * made the five files depend on each other (tests/layering/check_cycles.py).
 */
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

/* On an oversubscribed node a rank waiting for a start time sleeps while the
 * time is far and yields the CPU while it is near: a plain spin starved the
 * ranks still receiving the start time, and every repetition was late. */
void isochron_bench_wait_until(isochron_bench_t *b, double t) { isochron_clock_wait_until(b->clk, t, b->oversubscribed); }

int isochron_bench_bcast(isochron_bench_t *b, void *buf, int n, MPI_Datatype dt, int root)
{
    if (!b->oversubscribed) return MPI_Bcast(buf, n, dt, root, b->ctl) == MPI_SUCCESS ? ISOCHRON_OK : ISOCHRON_EMPI;
    MPI_Request r;
    if (MPI_Ibcast(buf, n, dt, root, b->ctl, &r) != MPI_SUCCESS) return ISOCHRON_EMPI;
    return isochron_wait_yield(&r);
}

int isochron_bench_allreduce(isochron_bench_t *b, const void *in, void *out, int n, MPI_Datatype dt, MPI_Op op)
{
    if (!b->oversubscribed) return MPI_Allreduce(in, out, n, dt, op, b->ctl) == MPI_SUCCESS ? ISOCHRON_OK : ISOCHRON_EMPI;
    MPI_Request r;
    if (MPI_Iallreduce(in, out, n, dt, op, b->ctl, &r) != MPI_SUCCESS) return ISOCHRON_EMPI;
    return isochron_wait_yield(&r);
}
