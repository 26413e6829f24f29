/* Reproducer (np 2): a receive posted but not yet matched when the checkpoint is taken.
 * Rank 1 posts MPI_Irecv from rank 0 (buffer in a registered region), then runs
 * Allreduces on a communicator of its own until a checkpoint completed, then waits.
 * Rank 0 requests the checkpoint, runs Allreduces on its own communicator until it
 * completed, then (KILL=1: MPI_Abort here) sends 42. The safe state is legitimate
 * (no message in flight: nothing was sent yet). Run once with KILL=1 and
 * ISOCHRON_CC_DIR=D, then with ISOCHRON_CC_RESTART=D: cc.h promises the restarted
 * rank 1 that its pending receive is complete with the data in its registered buffer,
 * but the message is only sent after the checkpoint: rank 1 sees 0, not 42, and rank
 * 0's message is never received. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <mpi.h>
#include "isochron/cc.h"
static struct { int posted, buf; } st;
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, x = 1, y, lo = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm self;
    MPI_Comm_split(MPI_COMM_WORLD, me, 0, &self);
    isochron_cc_register("r9", &st, sizeof st);
    int kill = getenv("KILL") && atoi(getenv("KILL"));
    MPI_Request r = MPI_REQUEST_NULL;
    if (me == 1 && !st.posted) { MPI_Irecv(&st.buf, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r); st.posted = 1; }
    if (me == 0 && !isochron_cc_restarted()) isochron_cc_request();
    while (isochron_cc_checkpoints() < 1) { usleep(1000); MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, self); }
    if (me == 0) {
        if (kill) { printf("rank 0: killed after checkpoint %d\n", isochron_cc_checkpoints()); fflush(stdout); MPI_Abort(MPI_COMM_WORLD, 3); }
        int v = 42;
        MPI_Send(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        printf("rank 1: restarted %d, received %d (expected 42): %s\n", isochron_cc_restarted(), st.buf, st.buf == 42 ? "ok" : "WRONG");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&self);
    MPI_Finalize();
    return 0;
}
