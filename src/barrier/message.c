/*
 * The null-message primitives every barrier algorithm is built from (paper
 * 004 sec. 3: zero-byte messages on the barrier's own communicator), waiting
 * by spinning in MPI or by MPI_Test + sched_yield() as the handle decided
 * (registry.c's header says when). In a file of their own, below the
 * algorithms: registry.c lists the algorithms, so primitives there would make
 * it and every algorithm file depend on each other (tests/layering/check_cycles.py).
 */
#include <sched.h>
#include "isochron.h"
#include "core/util.h"
#include "barrier/barrier_impl.h"

static int wait_req(isochron_barrier_t *b, MPI_Request *r)
{
    if (b->yield) return isochron_wait_yield(r);
    return MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "MPI_Wait failed in barrier");
}

int isochron_bar_send(isochron_barrier_t *b, int dst, int tag)
{
    return MPI_Send(NULL, 0, MPI_BYTE, dst, tag, b->comm) == MPI_SUCCESS ? ISOCHRON_OK
                                                                      : isochron_set_error(ISOCHRON_EMPI, "barrier: MPI_Send to %d failed", dst);
}

int isochron_bar_recv(isochron_barrier_t *b, int src, int tag)
{
    if (!b->yield)
        return MPI_Recv(NULL, 0, MPI_BYTE, src, tag, b->comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
                   ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "barrier: MPI_Recv from %d failed", src);
    MPI_Request r;
    if (MPI_Irecv(NULL, 0, MPI_BYTE, src, tag, b->comm, &r) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "barrier: MPI_Irecv from %d failed", src);
    return wait_req(b, &r);
}

int isochron_bar_sendrecv(isochron_barrier_t *b, int dst, int src, int tag)
{
    if (!b->yield)
        return MPI_Sendrecv(NULL, 0, MPI_BYTE, dst, tag, NULL, 0, MPI_BYTE, src, tag, b->comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
                   ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "barrier: MPI_Sendrecv (to %d, from %d) failed", dst, src);
    MPI_Request r[2];
    if (MPI_Irecv(NULL, 0, MPI_BYTE, src, tag, b->comm, &r[0]) != MPI_SUCCESS ||
        MPI_Isend(NULL, 0, MPI_BYTE, dst, tag, b->comm, &r[1]) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "barrier: MPI_Irecv/Isend (to %d, from %d) failed", dst, src);
    int rc = wait_req(b, &r[0]);
    int rc2 = wait_req(b, &r[1]);
    return rc ? rc : rc2;
}

int isochron_bar_pow2_floor(int n)
{
    int p = 1;
    while (p <= n / 2) p *= 2;
    return p;
}
