/* Test of libisochron-cc.so's collective-clock bookkeeping (paper 003, Alg. 1):
 * ggid per SET of world ranks as the paper defines it (4.1: shared by a dup and
 * by a communicator of the same members in another order, distinct for
 * different sets, even when every hash collides: ISOCHRON_CC_TEST_COLLIDE=1), SEQ per
 * ggid counting blocking collectives and non-blocking initiations on every
 * communicator of the group, equal on all members; results of the collectives
 * unchanged in every mode (cc, 2pc, native). The program is relinked with the
 * library, exactly as a user would. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "isochron/cc.h"

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = isochron_cc_mode();
    int cc = strcmp(mode, "cc") == 0;

    MPI_Comm dup, half, rev;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev); /* same members, reversed order */
    long long w0 = isochron_cc_seq(MPI_COMM_WORLD), h0 = isochron_cc_seq(half), r0 = isochron_cc_seq(rev);

    int x = rank + 1, s = 0, v = 0, b = rank + 1;
    MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);   /* world +1 */
    CHECK(s == size * (size + 1) / 2, "allreduce %d", s);
    MPI_Barrier(dup);                                             /* world +1 (same group) */
    MPI_Request r[3];
    MPI_Ibarrier(half, &r[0]);                                    /* half +1 */
    MPI_Ireduce(&x, &v, 1, MPI_INT, MPI_MAX, 0, half, &r[1]);     /* half +1 */
    MPI_Ibcast(&b, 1, MPI_INT, 0, rev, &r[2]);                    /* world +1 (same set, reversed) */
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    if (hr == 0) CHECK(v == (rank % 2) + 2 * (hs - 1) + 1, "ireduce max %d", v);
    CHECK(b == size, "ibcast from rev root got %d", b);           /* rev rank 0 is world rank size-1 */

    if (cc) {
        CHECK(isochron_cc_seq(MPI_COMM_WORLD) - w0 == 3, "world SEQ advanced %lld, expected 3", isochron_cc_seq(MPI_COMM_WORLD) - w0);
        CHECK(isochron_cc_seq(dup) == isochron_cc_seq(MPI_COMM_WORLD), "dup and world differ in SEQ");
        CHECK(isochron_cc_ggid(dup) == isochron_cc_ggid(MPI_COMM_WORLD), "dup has its own ggid");
        CHECK(isochron_cc_seq(half) - h0 == 2, "half SEQ advanced %lld, expected 2", isochron_cc_seq(half) - h0);
        CHECK(r0 == w0 && isochron_cc_seq(rev) == isochron_cc_seq(MPI_COMM_WORLD), "rev and world differ in SEQ");
        CHECK(isochron_cc_ggid(rev) == isochron_cc_ggid(MPI_COMM_WORLD), "the same members in reversed order got their own ggid");
        if (size > 1) CHECK(isochron_cc_ggid(half) != isochron_cc_ggid(MPI_COMM_WORLD), "half merged with world");
        /* SEQ equal on all members of each group */
        long long mine[2] = { isochron_cc_seq(half), -isochron_cc_seq(half) }, red[2];
        PMPI_Allreduce(mine, red, 2, MPI_LONG_LONG, MPI_MAX, half);
        CHECK(red[0] == -red[1], "SEQ of half differs between members (%lld..%lld)", -red[1], red[0]);
        mine[0] = isochron_cc_seq(MPI_COMM_WORLD); mine[1] = -mine[0];
        PMPI_Allreduce(mine, red, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        CHECK(red[0] == -red[1], "SEQ of world differs between members (%lld..%lld)", -red[1], red[0]);
    } else {
        CHECK(isochron_cc_seq(MPI_COMM_WORLD) == -1 && isochron_cc_ngroups() == -1, "mode %s tracks SEQ", mode);
    }
    /* a freed handle that is reused must not inherit the old group (when half
     * has one member, solo IS that group and keeps its SEQ, as it should) */
    MPI_Comm_free(&half);
    MPI_Comm_free(&rev);
    MPI_Comm solo;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &solo);
    if (cc && hs > 1) CHECK(isochron_cc_seq(solo) == 0, "new single-rank comm starts at SEQ %lld", isochron_cc_seq(solo));
    MPI_Comm_free(&solo);
    MPI_Comm_free(&dup);
    printf("cc_seq rank %d mode %s groups %d: %s\n", rank, mode, isochron_cc_ngroups(), failures ? "FAIL" : "PASS");
    MPI_Finalize();
    return failures != 0;
}
