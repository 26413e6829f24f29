/*
 * test_mockup: the guideline mock-ups (src/ops/mockup.c, (key traff-guidelines, docs/references.md)) deliver exactly
 * their collective's result, and their validation can fail.
 *  1. Every mock-up and A/A alias at 0, 1, 3, 7 (bcast: counts not divisible by p), 1000 and
 *     40000 bytes of MPI_INT / MPI_BYTE, roots 0 and p-1 for the rooted ones, reductions with
 *     sum, prod, max and min: three repetitions run and validate on every rank.
 *  2. After a correct run, one receiving rank changes one received element (the last one of
 *     what it receives): its validate() fails with ISOCHRON_EVALIDATE, every other rank passes.
 *  3. The mock-ups are in --list-ops' registry under their collective's family and are not
 *     among the names "collectives" would pick (family != name).
 * Runs at 2, 3 and 4 processes.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;
static isochron_ops_t *ops;

static const char *const names[] = { "allgather_mockup", "allreduce_mockup", "reduce_scatter_block_mockup",
                                     "bcast_mockup", "gather_mockup", "scan_mockup", "allgather_alias",
                                     "allreduce_alias", "reduce_scatter_block_alias", "bcast_alias",
                                     "gather_alias", "scan_alias" };
static const char *const families[] = { "allgather", "allreduce", "reduce_scatter_block", "bcast", "gather", "scan",
                                        "allgather", "allreduce", "reduce_scatter_block", "bcast", "gather", "scan" };

static int setup(const isochron_op_t *op, isochron_op_ctx_t *c, size_t bytes, MPI_Datatype dt, MPI_Op rop, int root)
{
    memset(c, 0, sizeof *c);
    c->comm = MPI_COMM_WORLD;
    c->bytes = bytes;
    c->dtype = dt;
    c->op = rop;
    c->root = root;
    return isochron_op_setup(op, c);
}

/* N repetitions, every one run on every rank (a rank that stopped at its first failure would leave
 * the others in a collective); the first failure's code. */
static int reps(const isochron_op_t *op, isochron_op_ctx_t *c, int n)
{
    int first = ISOCHRON_OK;
    for (int k = 0; k < n; k++) {
        c->rep = k;
        int rc = op->prepare ? op->prepare(c) : ISOCHRON_OK;
        if (!rc) rc = op->run(c);
        if (!rc) rc = op->validate(c);
        if (rc && !first) first = rc;
    }
    return first;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "registry");
    const size_t sizes[] = { 0, 4, 12, 28, 1000, 40000 };
    const MPI_Op rops[] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const isochron_op_t *op = NULL;
        CHECK_RC(isochron_ops_find(ops, names[i], &op), ISOCHRON_OK, "%s registered", names[i]);
        if (!op) continue;
        CHECK(!strcmp(op->family, families[i]) && strcmp(op->family, op->name),
              "%s: family %s (not picked by 'collectives')", names[i], op->family);
        int reduction = (op->flags & ISOCHRON_OP_REDUCTION) != 0, rooted = (op->flags & ISOCHRON_OP_ROOTED) != 0;
        int bad = 0, runs = 0;
        /* 1: results right */
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int r = 0; r < (rooted ? 2 : 1); r++)
                for (int o = 0; o < (reduction ? 4 : 1); o++)
                    for (int t = 0; t < (reduction ? 1 : 2); t++) {
                        MPI_Datatype dt = reduction || t == 0 ? MPI_INT : MPI_BYTE;
                        size_t bytes = dt == MPI_BYTE ? sizes[s] / 4 * 4 + (sizes[s] ? 3 : 0) : sizes[s];
                        isochron_op_ctx_t c;
                        int rc = setup(op, &c, bytes, dt, rops[o], r ? size - 1 : 0);
                        if (!rc) rc = reps(op, &c, 3);
                        if (rc) {
                            bad++;
                            printf("rank %d: %s %zu B root %d op %d: %s\n", rank, names[i], bytes, r ? size - 1 : 0, o,
                                   isochron_last_error());
                        }
                        if (c.state) isochron_op_teardown(op, &c);
                        runs++;
                    }
        int all = 0;
        MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(all == 0, "%s: %d set-ups x 3 repetitions deliver the collective's result on every rank (%d failed)",
              names[i], runs, all);
        /* 2: a changed element is caught where it arrived */
        isochron_op_ctx_t c;
        if (setup(op, &c, 1000, MPI_INT, MPI_SUM, size - 1)) continue;
        /* a receiving rank that is not the bcast's source: the gather's root (size - 1), else rank 0 */
        int victim = strstr(names[i], "gather") && rooted ? size - 1 : 0;
        CHECK_RC(reps(op, &c, 1), ISOCHRON_OK, "rank %d: %s runs", rank, names[i]);
        size_t n = c.rbuf_bytes / sizeof(int); /* what this rank received (0: nothing) */
        if (rank == victim && n) ((int *)c.rbuf)[n - 1] += 1;
        int rc = op->validate(&c);
        if (rank == victim && n)
            CHECK_RC(rc, ISOCHRON_EVALIDATE, "rank %d: %s with its last received element changed fails validation",
                     rank, names[i]);
        else
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: %s untouched data validates", rank, names[i]);
        isochron_op_teardown(op, &c);
    }
    isochron_ops_destroy(ops);
    int fails = check_failures, total = 0;
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %d checks failed\n", total ? "FAIL" : "PASS", total);
    MPI_Finalize();
    return total != 0;
}
