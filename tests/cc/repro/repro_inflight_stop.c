/* Reproducer (np 2) for the checkpoint protocol of libisochron-cc.so: a message in
 * flight to a rank that stops at the entry of a collective its sender is not part of.
 * Rank 0 requests a checkpoint, sends one small (eager) message to rank 1, polls MPI
 * (Iprobe) for 200 ms so that the request reaches rank 1, then enters
 * MPI_Barrier(MPI_COMM_WORLD). Rank 1 runs Allreduces on a communicator of its own
 * (1 ms apart) for 300 ms, then receives the message and enters the Barrier. Correct
 * MPI (no collective of both ranks lies between the send and the receive, so paper
 * 003's Figure 2 does not forbid it). Expected: one checkpoint, both ranks "done".
 * Seen: rank 1 stops at its own Allreduce (all its targets reached), the message is
 * never received, the agreement sees 1 application message in flight forever. */
#include <stdio.h>
#include <unistd.h>
#include <mpi.h>
#include "isochron/cc.h"
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, buf = 0, x = 1, y, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm self;
    MPI_Comm_split(MPI_COMM_WORLD, me, 0, &self);
    double t0 = MPI_Wtime();
    if (me == 0) {
        isochron_cc_request();
        MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        while (MPI_Wtime() - t0 < 0.2) { MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); usleep(1000); }
    } else {
        while (MPI_Wtime() - t0 < 0.3) { usleep(1000); MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, self); }
        MPI_Recv(&buf, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d done, checkpoints %d\n", me, isochron_cc_checkpoints());
    MPI_Comm_free(&self);
    MPI_Finalize();
    return 0;
}
