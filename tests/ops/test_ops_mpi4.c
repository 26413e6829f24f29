/*
 * MPI-4 point-to-point features (issue 29): the partitioned operations
 * (part_pingpong, part_pready) and the large-count ones (*_c).
 * Where this build's MPI library has them (MPICH 4, tools/test-mpich.sh; Open
 * MPI 5 for the partitioned ones):
 *   1. every one runs 3 repetitions at 0 B and 1000 B of int, each validated,
 *      with 1, 2, 5 and 250 partitions for the partitioned ones;
 *   2. one corrupted received element fails validation, naming the rank, the
 *      element (and for the partitioned ones the partition size);
 *   3. part_pready: a prepare whose run never came is completed by the next
 *      prepare and by teardown (no request left active, no hang);
 *   4. bad partition counts are refused naming the valid range, and a count
 *      they do not divide naming the multiple to use;
 *   5. a size beyond what a process may use is refused before allocating,
 *      for the large-count operations too (64 GiB: more than any node here),
 *      and a plain operation above INT_MAX elements points to the _c ones.
 * Where it lacks them (Debian's Open MPI 4.1): each is refused in set-up with
 * EUNSUPPORTED naming the operation and the library.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static MPI_Comm comm;
static int rank, size;
static isochron_ops_t *ops;

static int setup(const isochron_op_t *op, isochron_op_ctx_t *c, size_t bytes, MPI_Datatype dt, int parts)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->bytes = bytes;
    c->dtype = dt;
    c->partitions = parts;
    return isochron_op_setup(op, c);
}

static int one_rep(const isochron_op_t *op, isochron_op_ctx_t *c, int k)
{
    c->rep = k;
    int rc = op->prepare ? op->prepare(c) : ISOCHRON_OK;
    return rc ? rc : op->run(c);
}

static void refused(const isochron_op_t *op)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, " ")] = '\0';
    isochron_op_ctx_t c;
    int rc = setup(op, &c, 1000, MPI_INT, 0);
    CHECK(rc == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), op->name) &&
              strstr(isochron_last_error(), "this MPI library (") && strstr(isochron_last_error(), lib),
          "rank %d: %s refused where the library lacks it: %s", rank, op->name, isochron_last_error());
    if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
}

/* 1 */
static void runs(const isochron_op_t *op, size_t bytes, int parts)
{
    isochron_op_ctx_t c;
    int rc = setup(op, &c, bytes, MPI_INT, parts);
    CHECK_RC(rc, ISOCHRON_OK, "rank %d: %s %zu B, %d partitions: set-up", rank, op->name, bytes, parts);
    if (rc) return;
    for (int k = 0; k < 3; k++) {
        CHECK_RC(one_rep(op, &c, k), ISOCHRON_OK, "rank %d: %s %zu B rep %d runs", rank, op->name, bytes, k);
        CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s %zu B rep %d validates", rank, op->name, bytes, k);
    }
    isochron_op_teardown(op, &c);
}

/* 2 */
static void corruption(const isochron_op_t *op, int victim, int parts)
{
    isochron_op_ctx_t c;
    if (setup(op, &c, 1000, MPI_INT, parts) != ISOCHRON_OK) {
        CHECK(0, "rank %d: %s set-up for the corruption check: %s", rank, op->name, isochron_last_error());
        return;
    }
    size_t where = c.count - 1;
    CHECK_RC(one_rep(op, &c, 0), ISOCHRON_OK, "rank %d: %s runs", rank, op->name);
    if (rank == victim) ((int *)c.rbuf)[where] += 1;
    int rc = op->validate(&c);
    if (rank == victim) {
        char elem[48], who[32];
        snprintf(elem, sizeof elem, "element %zu", where);
        snprintf(who, sizeof who, "rank %d", rank);
        const char *msg = isochron_last_error();
        CHECK(rc == ISOCHRON_EVALIDATE && strstr(msg, op->name) && strstr(msg, elem) && strstr(msg, who) &&
                  (!(op->flags & ISOCHRON_OP_PARTITIONED) || strstr(msg, "partition")),
              "rank %d: %s with element %zu changed fails validation: %s", rank, op->name, where, msg);
    } else {
        CHECK_RC(rc, ISOCHRON_OK, "rank %d: %s untouched data validates", rank, op->name);
    }
    isochron_op_teardown(op, &c);
}

/* 3 */
static void pending(const isochron_op_t *op)
{
    isochron_op_ctx_t c;
    if (setup(op, &c, 4096, MPI_BYTE, 8) != ISOCHRON_OK) {
        CHECK(0, "rank %d: part_pready set-up: %s", rank, isochron_last_error());
        return;
    }
    c.rep = 0;
    CHECK_RC(op->prepare(&c), ISOCHRON_OK, "rank %d: part_pready prepared, its run skipped", rank);
    CHECK_RC(one_rep(op, &c, 1), ISOCHRON_OK, "rank %d: the next prepare completes the pending one and runs", rank);
    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: and its data validates", rank);
    c.rep = 2;
    CHECK_RC(op->prepare(&c), ISOCHRON_OK, "rank %d: prepared again, then torn down without a run", rank);
    if (op->teardown) op->teardown(&c);
    CHECK(c.state == NULL && c.sbuf == NULL && c.rbuf == NULL, "rank %d: teardown completed and freed everything", rank);
}

/* 4 */
static void bad_partitions(const isochron_op_t *op)
{
    static const int bad[] = { -1, ISOCHRON_OP_PARTITIONS_MAX + 1 };
    isochron_op_ctx_t c;
    for (int i = 0; i < 2; i++) {
        int rc = setup(op, &c, 1024, MPI_BYTE, bad[i]);
        CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "1..65536"), "rank %d: %s with %d partitions: %s",
              rank, op->name, bad[i], isochron_last_error());
        if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
    }
    int rc = setup(op, &c, 1000, MPI_INT, 3); /* 250 elements */
    CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "3 equal partitions") && strstr(isochron_last_error(), "12 bytes"),
          "rank %d: %s: 250 ints in 3 partitions: %s", rank, op->name, isochron_last_error());
    if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
}

/* 5 */
static void too_big(const isochron_op_t *op)
{
    isochron_op_ctx_t c;
    int rc = setup(op, &c, (size_t)64 << 30, MPI_BYTE, 0);
    CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "available") && strstr(isochron_last_error(), "68719476736"),
          "rank %d: %s at 64 GiB refused before allocating: %s", rank, op->name, isochron_last_error());
    if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "create registry");
    int npart = 0, nbig = 0, nmissing = 0;
    for (int i = 0; i < isochron_ops_count(ops); i++) {
        const isochron_op_t *op = isochron_ops_get(ops, i);
        if (!(op->flags & (ISOCHRON_OP_PARTITIONED | ISOCHRON_OP_BIGCOUNT))) continue;
        if (op->flags & ISOCHRON_OP_PARTITIONED) npart++;
        else nbig++;
        if (op->flags & ISOCHRON_OP_MISSING) {
            nmissing++;
            refused(op);
            continue;
        }
        int victim = (op->flags & (ISOCHRON_OP_PAIR | ISOCHRON_OP_PARTITIONED)) ? 1 : size - 1;
        runs(op, 0, 0);
        if (op->flags & ISOCHRON_OP_PARTITIONED) {
            static const int parts[] = { 1, 2, 5, 250 };
            for (int p = 0; p < 4; p++) runs(op, 1000, parts[p]);
            corruption(op, victim, 5);
            if (!strcmp(op->name, "part_pingpong")) corruption(op, 0, 2);
            if (op->flags & ISOCHRON_OP_PREPARE_EVERY) pending(op);
            bad_partitions(op);
        } else {
            runs(op, 1000, 0);
            if (!strcmp(op->name, "allreduce_c") || !strcmp(op->name, "pingpong_c") || !strcmp(op->name, "bcast_c"))
                corruption(op, victim, 0);
            if (!strcmp(op->name, "pingpong_c") || !strcmp(op->name, "alltoall_c")) too_big(op);
        }
    }
    CHECK(npart == 2 && nbig == 9, "rank %d: 2 partitioned and 9 large-count operations listed (%d, %d)", rank, npart, nbig);
    if (rank == 0) printf("this library: %d of %d refused as missing\n", nmissing, npart + nbig);
    /* a plain operation above INT_MAX elements: refused, before allocating, naming the _c ones (or memory) */
    {
        const isochron_op_t *op = NULL;
        isochron_op_ctx_t c;
        CHECK_RC(isochron_ops_find(ops, "pingpong", &op), ISOCHRON_OK, "find pingpong");
        int rc = op ? setup(op, &c, (size_t)3 << 30, MPI_BYTE, 0) : ISOCHRON_OK;
        CHECK(rc == ISOCHRON_EINVAL && (strstr(isochron_last_error(), "_c") || strstr(isochron_last_error(), "available")),
              "rank %d: pingpong at 3 GiB refused: %s", rank, isochron_last_error());
        if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
    }
    isochron_ops_destroy(ops);
    int rc = check_report("test_ops_mpi4");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
