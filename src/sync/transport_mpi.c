/*
 * The MPI transport of the sync's timestamp exchanges (isochron/sync.h,
 * isochron_xport_t): blocking point-to-point on the sync's own duplicated
 * communicator, as paper 000's algorithms are written (SKaMPI-Offset, Alg. 7;
 * Mean-RTT-Offset, Alg. 8, whose pong is an MPI_Ssend). A NULL transport
 * means this one; other transports (OpenSHMEM, isochron/shmem.h) plug in at
 * the same three calls.
 */
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

static int mpi_peer(const isochron_xport_t *x, MPI_Comm comm, int rank, int *addr)
{
    (void)x; (void)comm;
    *addr = rank;
    return ISOCHRON_OK;
}

static int mpi_send(const isochron_xport_t *x, MPI_Comm comm, int addr, int tag, double v, int synchronous)
{
    (void)x;
    int rc = synchronous ? MPI_Ssend(&v, 1, MPI_DOUBLE, addr, tag, comm) : MPI_Send(&v, 1, MPI_DOUBLE, addr, tag, comm);
    return rc == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "sync: sending a timestamp to rank %d failed", addr);
}

static int mpi_recv(const isochron_xport_t *x, MPI_Comm comm, int addr, int tag, double *v)
{
    (void)x;
    return MPI_Recv(v, 1, MPI_DOUBLE, addr, tag, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? ISOCHRON_OK
               : isochron_set_error(ISOCHRON_EMPI, "sync: receiving a timestamp from rank %d failed", addr);
}

static const isochron_xport_t mpi_xport = {"mpi", mpi_peer, mpi_send, mpi_recv, NULL};

const isochron_xport_t *isochron_xport_mpi(void) { return &mpi_xport; }
