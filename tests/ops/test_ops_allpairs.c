/*
 * test_ops_allpairs: MPIBlib's parallel all-pairs round trips
 * (isochron_ops_allpairs) measure every pair. On rank 0 the size x size
 * matrix has a finite, positive round-trip time for every i != j (at 0 and
 * 4096 bytes), zeros on the diagonal, and is symmetric; a round trip is not
 * absurd (under 1 s on one node, even oversubscribed). Bad arguments (reps
 * 0, NULL matrix on rank 0) are refused with EINVAL on every rank, and a
 * following call still works (no rank was left behind). Runs at 3 and 4
 * processes (odd: one process sits each round out).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;

static void check_matrix(const double *rtt, size_t bytes)
{
    int finite = 1, diag = 1, sym = 1, sane = 1;
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++) {
            double v = rtt[i * size + j];
            if (i == j) {
                if (v != 0.0) diag = 0;
                continue;
            }
            if (!isfinite(v) || !(v > 0)) finite = 0;
            if (!(v < 1.0)) sane = 0;
            if (v != rtt[j * size + i]) sym = 0;
        }
    CHECK(finite, "%zu B: every off-diagonal round trip finite and > 0", bytes);
    CHECK(diag, "%zu B: zeros on the diagonal", bytes);
    CHECK(sym, "%zu B: symmetric", bytes);
    CHECK(sane, "%zu B: every round trip under 1 s", bytes);
    for (int i = 0; i < size; i++) {
        printf("     ");
        for (int j = 0; j < size; j++) printf(" %9.2f us", rtt[i * size + j] * 1e6);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *rtt = rank == 0 ? malloc((size_t)size * size * sizeof *rtt) : NULL;
    static const size_t sizes[] = { 0, 4096 };
    for (int s = 0; s < 2; s++) {
        if (rtt)
            for (int i = 0; i < size * size; i++) rtt[i] = NAN;
        double t0 = MPI_Wtime();
        int rc = isochron_ops_allpairs(MPI_COMM_WORLD, sizes[s], 20, rtt);
        CHECK_RC(rc, ISOCHRON_OK, "rank %d: allpairs %zu B x 20 round trips (%.3f s)", rank, sizes[s],
                 MPI_Wtime() - t0);
        if (rank == 0 && rc == ISOCHRON_OK) check_matrix(rtt, sizes[s]);
    }
    CHECK_RC(isochron_ops_allpairs(MPI_COMM_WORLD, 8, 0, rtt), ISOCHRON_EINVAL, "rank %d: reps 0 refused", rank);
    CHECK_RC(isochron_ops_allpairs(MPI_COMM_WORLD, 8, 5, NULL), ISOCHRON_EINVAL, "rank %d: NULL matrix on rank 0 refused",
             rank);
    CHECK_RC(isochron_ops_allpairs(MPI_COMM_WORLD, 8, 5, rtt), ISOCHRON_OK, "rank %d: works again afterwards", rank);
    free(rtt);
    int rc = check_report("test_ops_allpairs");
    MPI_Finalize();
    return rc;
}
