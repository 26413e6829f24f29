#define _DEFAULT_SOURCE
/* paper 003's ggid (section 4.1: a hash of the participating processes' world
 * ranks, so MPI_SIMILAR communicators share one) and why one SEQ shared by
 * several communicators over the same set is safe (docs/collective-clocks.md,
 * "ggid"):
 *   test_cc_ggid dup|rev
 * Part 1, crossing starts: A = MPI_COMM_WORLD, B = MPI_Comm_dup(world) (dup)
 * or world's members in reversed order (rev). Rank 0 starts MPI_Ibarrier on A,
 * requests a checkpoint, polls with MPI_Iprobe for 100 ms, then starts one on
 * B; every other rank starts B, polls for 300 ms, then starts A. Legal MPI
 * (each communicator sees one order of operations) and A and B share the
 * ggid: every rank learns of the request while polling, with SEQ one above the
 * start and every target reached, and stops at its next start, while A was
 * started by rank 0 alone. A safe state there holds a non-blocking collective that cannot
 * complete until a rank moves (the argument of the paper's 4.3.2 fails); the
 * checkpoint must come after both were started by all, and the job finish
 * (world Allreduces until every rank has it).
 * Part 2: a ring Sendrecv and an Allreduce on the reversed communicator, a
 * checkpoint requested by rank size-1 at iteration 5: the state log's per-pair
 * counts (check_cc_log.py) hold only if peer ranks are translated through the
 * communicator's own order (its view), not the shared group's ascending set.
 * Rank 0 prints "cc_ggid KIND np N: checkpoints C". */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "isochron/cc.h"

/* MPI calls that are no collective (the protocol's rounds progress in them) for `sec` seconds */
static void poll_for(double sec)
{
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < sec) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        usleep(1000);
    }
}

/* a checkpoint is taken at a later collective entry: world Allreduces until every rank has `want` */
static int wait_checkpoints(int want)
{
    int all = 0;
    for (int guard = 0; all < want && guard < 1000000; guard++) {
        int mine = isochron_cc_checkpoints();
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *kind = argc > 1 ? argv[1] : "dup";
    MPI_Comm rev, B;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    if (strcmp(kind, "rev") == 0) MPI_Comm_dup(rev, &B);
    else MPI_Comm_dup(MPI_COMM_WORLD, &B);
    if (isochron_cc_ggid(B) != isochron_cc_ggid(MPI_COMM_WORLD) || isochron_cc_ggid(rev) != isochron_cc_ggid(MPI_COMM_WORLD)) {
        printf("FAIL rank %d: %s and world have different ggids\n", rank, kind);
        bad = 1;
    }
    /* part 1 */
    MPI_Request r[2];
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
        isochron_cc_request();
        poll_for(0.1);
        MPI_Ibarrier(B, &r[1]);
    } else {
        MPI_Ibarrier(B, &r[1]);
        poll_for(0.3);
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    }
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int c1 = wait_checkpoints(1);
    /* part 2 */
    int me = 0, n = 0;
    MPI_Comm_rank(rev, &me);
    MPI_Comm_size(rev, &n);
    long long acc = 0;
    for (int it = 0; it < 20; it++) {
        if (it == 5 && rank == size - 1) isochron_cc_request();
        long long out = 1000 * it + rank, in = -1, sum = 0;
        MPI_Sendrecv(&out, 1, MPI_LONG_LONG, (me + 1) % n, 3, &in, 1, MPI_LONG_LONG, (me + n - 1) % n, 3, rev, MPI_STATUS_IGNORE);
        int from = size - 1 - (me + n - 1) % n;   /* rev rank k is world rank size-1-k */
        if (in != 1000 * it + from) { printf("FAIL rank %d: got %lld from rev rank %d\n", rank, in, (me + n - 1) % n); bad = 1; }
        MPI_Allreduce(&in, &sum, 1, MPI_LONG_LONG, MPI_SUM, rev);
        acc += sum;
    }
    int cmin = wait_checkpoints(2), c = isochron_cc_checkpoints();
    if (c1 < 1 || cmin < 2) { printf("FAIL rank %d: checkpoints %d after part 1, %d (min %d) at the end\n", rank, c1, c, cmin); bad = 1; }
    if (rank == 0) printf("cc_ggid %s np %d: checkpoints %d result %lld\n", kind, size, c, acc);
    MPI_Comm_free(&B);
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return bad;
}
