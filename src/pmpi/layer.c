/* What the PMPI layers (libisochron-cc.so, libisochron-trace.so) share
 * besides the generated wrappers: stopping the job on a bad setting
 * (src/pmpi/pmpi.h, isochron_pmpi_agree_or_stop). Design: the settings are
 * checked on every rank at MPI_Init (src/core/settings.c), but one rank may
 * find what the others do not (its own environment, a directory on its own
 * node, a checkpoint file of its own), so the verdict is agreed first (one
 * MPI_MIN over the failing ranks), then every rank ends the same way: the
 * lowest failing rank prints, and every other failing rank whose message
 * differs from that one (its own file), then all finalize and exit. This is how the
 * drivers stop on a bad option (message, MPI_Finalize, exit 2); MPI_Abort is
 * kept for errors found by one rank in the middle of a run. Only PMPI calls:
 * the layers' own wrappers are never entered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi/pmpi.h"

void isochron_pmpi_agree_or_stop(const char *prefix, const char *msg, int code)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = msg && *msg ? rank : size, first = size;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size) return;
    /* the lowest failing rank's message goes to all; a rank whose own message differs (its own file, its
     * own directory) prints it too, so every rank's finding is seen but a shared one only once */
    int len = rank == first ? (int)strlen(msg) + 1 : 0;
    PMPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
    char *m0 = malloc((size_t)len);
    if (m0 && rank == first) memcpy(m0, msg, (size_t)len);
    int ok = m0 != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) PMPI_Bcast(m0, len, MPI_CHAR, first, MPI_COMM_WORLD);
    if (rank == first || (msg && *msg && (!all || strcmp(msg, m0) != 0))) {
        if (rank) fprintf(stderr, "%s: rank %d: %s\n", prefix, rank, msg);
        else fprintf(stderr, "%s: %s\n", prefix, msg);
        fflush(stderr);
    }
    free(m0);
    /* every rank waits for the message to be out (MPICH's hydra dropped it now and then when the
     * job ended right after it), then ends cleanly */
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Finalize();
    exit(code);
}
