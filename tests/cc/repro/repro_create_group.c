#include <signal.h>
#include <stdio.h>
#include <mpi.h>
#include "isochron/cc.h"
/* Reproducer for the checkpoint protocol of libisochron-cc.so: the ranks in SUBSET
 * (a bitmask of world ranks, compile with -DSUBSET=1 at np 2, or 6 or 3 at np 3) make a
 * communicator with MPI_Comm_create_group; rank 0 raises SIGUSR1; all ranks Reduce on
 * MPI_COMM_WORLD and finalize. Expected: one checkpoint. Seen (any proper subset):
 * the checkpoint is never reached (watchdog in MPI_Finalize); the state log shows
 * SEQ of the world group one higher on the members than on the others, i.e. the
 * create_group was counted as a collective of the parent communicator's group,
 * although only the members of the new group call it. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, x = 1, y, m[8], n = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me); MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int r = 0; r < np; r++) if (SUBSET >> r & 1) m[n++] = r;
    MPI_Comm s = MPI_COMM_NULL;
    if (SUBSET >> me & 1) {
        MPI_Group wg, g;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, n, m, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &s);
    }
    if (me == 0) raise(SIGUSR1);
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    printf("rank %d done, checkpoints %d\n", me, isochron_cc_checkpoints());
    return 0;
}
