/*
 * test_ops_errors: impossible requests are refused with EINVAL or ENAME and a
 * sentence saying why, identically on every rank, before anything is
 * allocated:
 *  - unknown operation name: ENAME, and the sentence lists every valid name
 *    (each registry name is searched in it); lookup is case-insensitive;
 *    unknown datatype / reduction names list the valid ones;
 *  - size not a multiple of the datatype (1001 B of double), naming both;
 *  - root out of range (size, -1) for a rooted operation;
 *  - 1 TiB bcast and an overflowing alltoall refused within a second, with
 *    "needs N bytes per process, more than the M available" and no buffer
 *    left behind; isochron_op_memory_needed() grows with the process count
 *    where the root holds p blocks; a count beyond INT_MAX that does fit in
 *    memory refused before allocation (the count itself, and at np 2 an
 *    alltoall whose p blocks exceed it);
 *  - sum on byte and char (isochron_op_accepts and setup);
 *  - in_place for bcast and pingpong, which do not allow it;
 *  - at np 1, every ISOCHRON_OP_MIN2 operation (point-to-point, one-sided)
 *    refused; at np 2 they are accepted;
 *  - MPI_COMM_NULL, NULL arguments.
 * Runs at 1 and 2 processes.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;
static isochron_ops_t *ops;

static const isochron_op_t *find(const char *name)
{
    const isochron_op_t *op = NULL;
    CHECK_RC(isochron_ops_find(ops, name, &op), ISOCHRON_OK, "find %s", name);
    return op;
}

static void ctx_init(isochron_op_ctx_t *c, size_t bytes, MPI_Datatype dt, MPI_Op rop, int root, int ip)
{
    memset(c, 0, sizeof *c);
    c->comm = MPI_COMM_WORLD;
    c->bytes = bytes;
    c->dtype = dt;
    c->op = rop;
    c->root = root;
    c->in_place = ip;
}

/* setup must fail with `code` and a message containing every needle. */
static void refused(const char *name, size_t bytes, MPI_Datatype dt, MPI_Op rop, int root, int ip, int code,
                    const char *what, const char *needle1, const char *needle2)
{
    const isochron_op_t *op = find(name);
    if (!op) return;
    isochron_op_ctx_t c;
    ctx_init(&c, bytes, dt, rop, root, ip);
    double t0 = MPI_Wtime();
    int rc = isochron_op_setup(op, &c);
    double dt_s = MPI_Wtime() - t0;
    CHECK_RC(rc, code, "%s refused: %s", name, what);
    const char *msg = isochron_last_error();
    CHECK(strstr(msg, name) && (!needle1 || strstr(msg, needle1)) && (!needle2 || strstr(msg, needle2)),
          "message of %s names it and says why: \"%s\"", what, msg);
    CHECK(c.sbuf == NULL && c.rbuf == NULL && c.state == NULL, "nothing allocated for %s", what);
    CHECK(dt_s < 1.0, "%s refused in %.3f s", what, dt_s);
    if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "create registry");

    /* names */
    const isochron_op_t *op = NULL;
    CHECK_RC(isochron_ops_find(ops, "allreduse", &op), ISOCHRON_ENAME, "unknown name");
    CHECK(op == NULL, "no operation returned for an unknown name");
    const char *msg = isochron_last_error();
    int listed = 1;
    char word[80];
    for (int i = 0; i < isochron_ops_count(ops); i++) {
        snprintf(word, sizeof word, " %s,", isochron_ops_get(ops, i)->name);
        if (i == isochron_ops_count(ops) - 1) snprintf(word, sizeof word, " %s", isochron_ops_get(ops, i)->name);
        if (!strstr(msg, word)) {
            listed = 0;
            printf("     not listed: '%s'\n", word);
        }
    }
    CHECK(listed && strstr(msg, "allreduse"), "ENAME message names the bad name and lists all %d valid names: \"%s\"",
          isochron_ops_count(ops), msg);
    CHECK_RC(isochron_ops_find(ops, "AllReduce", &op), ISOCHRON_OK, "find is case-insensitive");
    CHECK(op && strcmp(op->name, "allreduce") == 0, "found allreduce");
    MPI_Datatype dt;
    MPI_Op rop;
    int ts = 0;
    CHECK_RC(isochron_op_dtype_find("quad", &dt, &ts), ISOCHRON_ENAME, "unknown datatype");
    CHECK(strstr(isochron_last_error(), "quad") && strstr(isochron_last_error(), "byte, char, int, long, float, double"),
          "datatype message lists the valid ones: \"%s\"", isochron_last_error());
    CHECK_RC(isochron_op_reduce_find("avg", &rop), ISOCHRON_ENAME, "unknown reduction");
    CHECK(strstr(isochron_last_error(), "sum, prod, max, min"), "reduction message lists the valid ones: \"%s\"",
          isochron_last_error());
    CHECK_RC(isochron_op_dtype_find("Double", &dt, &ts), ISOCHRON_OK, "datatype by name");
    CHECK(dt == MPI_DOUBLE && ts == 8 && strcmp(isochron_op_dtype_name(dt), "double") == 0, "double is 8 bytes");
    CHECK_RC(isochron_op_reduce_find("MAX", &rop), ISOCHRON_OK, "reduction by name");
    CHECK(rop == MPI_MAX && strcmp(isochron_op_reduce_name(rop), "max") == 0, "max is MPI_MAX");

    /* size / datatype */
    refused("allreduce", 1001, MPI_DOUBLE, MPI_SUM, 0, 0, ISOCHRON_EINVAL, "1001 B of double", "1001", "double");
    /* root */
    refused("bcast", 16, MPI_BYTE, MPI_OP_NULL, size, 0, ISOCHRON_EINVAL, "root = size", "root", NULL);
    refused("gather_binomial", 16, MPI_BYTE, MPI_OP_NULL, -1, 0, ISOCHRON_EINVAL, "root -1", "root", NULL);
    /* memory */
    refused("bcast", (size_t)1 << 40, MPI_BYTE, MPI_OP_NULL, 0, 0, ISOCHRON_EINVAL, "1 TiB bcast",
            "bytes per process, more than the", "available");
    refused("alltoall", SIZE_MAX - 7, MPI_DOUBLE, MPI_OP_NULL, 0, 0, ISOCHRON_EINVAL, "overflowing alltoall",
            "bytes per process", "available");
    refused("reduce_scatter_block", (size_t)1 << 40, MPI_INT, MPI_SUM, 0, 1, ISOCHRON_EINVAL,
            "1 TiB in-place reduce_scatter_block", "needs", "available");
    {
        const isochron_op_t *g = find("gather");
        isochron_op_ctx_t c;
        ctx_init(&c, 1000, MPI_BYTE, MPI_OP_NULL, 0, 0);
        size_t need = isochron_op_memory_needed(g, &c);
        CHECK(need >= (size_t)(size + 1) * 1000 && need < (size_t)(size + 1) * 1000 + 1024,
              "gather of 1000 B needs (p+1) x 1000 bytes at the root: %zu", need);
        c.in_place = 1;
        CHECK(isochron_op_memory_needed(g, &c) == (size_t)size * 1000, "in place the root needs p x 1000: %zu",
              isochron_op_memory_needed(g, &c));
        size_t avail = 0;
        CHECK_RC(isochron_op_memory_available(MPI_COMM_WORLD, &avail), ISOCHRON_OK, "memory available");
        CHECK(avail > ((size_t)1 << 20) && avail < ((size_t)1 << 40), "available per process is plausible: %zu", avail);
        /* a count beyond INT_MAX that fits in memory: refused before allocating */
        if (avail > ((size_t)5 << 30)) {
            size_t big = (size_t)2500 << 20; /* 2.6e9 bytes: > INT_MAX elements of byte */
            refused("bcast", big, MPI_BYTE, MPI_OP_NULL, 0, 0, ISOCHRON_EINVAL, "2.6 GB bcast of bytes (count > INT_MAX)",
                    "MPI count", NULL);
        }
        /* each count fits, but p blocks of alltoall do not: refused by the
         * operation's own set-up, before allocating, on every rank */
        if (size >= 2 && avail > ((size_t)6 << 30)) {
            size_t big = (size_t)1200 << 20;
            refused("alltoall", big, MPI_BYTE, MPI_OP_NULL, 0, 0, ISOCHRON_EINVAL,
                    "1.2 GB alltoall (p x count > INT_MAX)", "MPI count", NULL);
        }
    }
    /* reductions on non-arithmetic types */
    refused("allreduce", 16, MPI_BYTE, MPI_SUM, 0, 0, ISOCHRON_EINVAL, "sum on byte", "byte", "sum");
    refused("reduce_binomial", 16, MPI_CHAR, MPI_SUM, 0, 0, ISOCHRON_EINVAL, "sum on char", "char", NULL);
    CHECK_RC(isochron_op_accepts(find("allreduce"), MPI_BYTE, MPI_SUM, 0), ISOCHRON_EINVAL, "accepts: byte sum");
    CHECK_RC(isochron_op_accepts(find("allreduce"), MPI_DATATYPE_NULL, MPI_OP_NULL, 1), ISOCHRON_OK,
             "accepts: defaults, in place");
    CHECK_RC(isochron_op_accepts(find("accumulate_lock"), MPI_LONG, MPI_PROD, 0), ISOCHRON_OK, "accepts: long prod");
    CHECK_RC(isochron_op_accepts(find("allreduce"), MPI_INT, MPI_BAND, 0), ISOCHRON_EINVAL, "accepts: band refused");
    CHECK_RC(isochron_op_accepts(find("bcast"), MPI_SHORT, MPI_OP_NULL, 0), ISOCHRON_EINVAL, "accepts: short refused");
    /* in place */
    refused("bcast", 16, MPI_BYTE, MPI_OP_NULL, 0, 1, ISOCHRON_EINVAL, "in_place bcast", "in_place", NULL);
    refused("pingpong", 16, MPI_BYTE, MPI_OP_NULL, 0, 1, ISOCHRON_EINVAL, "in_place pingpong", "in_place", NULL);
    /* windows of the throughput operations */
    if (size >= 2) {
        int wins[2] = { -1, ISOCHRON_OP_WINDOW_MAX + 1 };
        for (int i = 0; i < 2; i++) {
            const isochron_op_t *o = find("bw");
            isochron_op_ctx_t c;
            ctx_init(&c, 16, MPI_BYTE, MPI_OP_NULL, 0, 0);
            c.window = wins[i];
            CHECK_RC(isochron_op_setup(o, &c), ISOCHRON_EINVAL, "bw with a window of %d refused", wins[i]);
            CHECK(strstr(isochron_last_error(), "bw") && strstr(isochron_last_error(), "window") &&
                      strstr(isochron_last_error(), "expected 1..65536"),
                  "window message names the op and the valid range: \"%s\"", isochron_last_error());
            CHECK(c.sbuf == NULL && c.rbuf == NULL && c.state == NULL, "nothing allocated for window %d", wins[i]);
        }
        isochron_op_ctx_t c;
        ctx_init(&c, 1 << 20, MPI_BYTE, MPI_OP_NULL, 0, 0);
        c.size = size;
        c.window = 1000;
        size_t need = isochron_op_memory_needed(find("bw"), &c);
        CHECK(need >= (size_t)1000 << 20, "bw at 1 MiB x window 1000 needs 1000 MiB at the receiver: %zu", need);
        ctx_init(&c, 16, MPI_BYTE, MPI_OP_NULL, 0, 0);
        CHECK_RC(isochron_op_setup(find("bibw"), &c), ISOCHRON_OK, "bibw with window 0 (default)");
        CHECK(c.window == ISOCHRON_OP_WINDOW_DEFAULT, "window 0 becomes the default %d: %d", ISOCHRON_OP_WINDOW_DEFAULT,
              c.window);
        double msgs = 0, moved = find("bibw")->moved(&c, &msgs);
        CHECK(moved == 2.0 * 16 * ISOCHRON_OP_WINDOW_DEFAULT && msgs == 2.0 * ISOCHRON_OP_WINDOW_DEFAULT,
              "bibw moves 2 x W x 16 bytes in 2 x W messages per run: %g bytes, %g messages", moved, msgs);
        isochron_op_teardown(find("bibw"), &c);
        CHECK(find("pingping")->moved == NULL && find("multi_lat")->moved == NULL, "latency-type operations have no rate");
    }
    /* process count */
    int nmin2 = 0;
    for (int i = 0; i < isochron_ops_count(ops); i++) {
        const isochron_op_t *o = isochron_ops_get(ops, i);
        if (!(o->flags & ISOCHRON_OP_MIN2)) continue;
        nmin2++;
        if (size < 2) {
            refused(o->name, 16, MPI_DATATYPE_NULL, MPI_OP_NULL, 0, 0, ISOCHRON_EINVAL, "at 1 process",
                    "at least 2 processes", NULL);
        } else {
            isochron_op_ctx_t c;
            ctx_init(&c, 16, MPI_DATATYPE_NULL, MPI_OP_NULL, 0, 0);
            if (o->flags & ISOCHRON_OP_THREADED) { /* this program calls MPI_Init: refused, naming the level */
                CHECK(isochron_op_setup(o, &c) == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), "MPI_THREAD_SINGLE"),
                      "%s refused under MPI_THREAD_SINGLE: %s", o->name, isochron_last_error());
                continue;
            }
            if (o->flags & ISOCHRON_OP_MISSING) { /* the library lacks its calls (MPI-4, test_ops_mpi4): refused, naming it */
                CHECK(isochron_op_setup(o, &c) == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), "this MPI library ("),
                      "%s refused where the library lacks it: %s", o->name, isochron_last_error());
                continue;
            }
            CHECK_RC(isochron_op_setup(o, &c), ISOCHRON_OK, "%s accepted at %d processes", o->name, size);
            isochron_op_teardown(o, &c);
        }
    }
    CHECK(nmin2 == 75, "75 operations need 2 processes (18 point-to-point, 37 one-sided, 20 on the distributed graph): %d", nmin2);
    /* arguments */
    {
        isochron_op_ctx_t c;
        ctx_init(&c, 16, MPI_BYTE, MPI_OP_NULL, 0, 0);
        c.comm = MPI_COMM_NULL;
        CHECK_RC(isochron_op_setup(find("bcast"), &c), ISOCHRON_EINVAL, "MPI_COMM_NULL refused");
        CHECK_RC(isochron_op_setup(NULL, &c), ISOCHRON_EINVAL, "NULL op refused");
        CHECK_RC(isochron_ops_create(NULL), ISOCHRON_EINVAL, "create(NULL) refused");
        CHECK(isochron_ops_get(ops, -1) == NULL && isochron_ops_get(ops, isochron_ops_count(ops)) == NULL,
              "get out of range is NULL");
    }
    /* defaults: MPI_BYTE for movement, MPI_INT + MPI_SUM for reductions */
    {
        isochron_op_ctx_t c;
        ctx_init(&c, 16, MPI_DATATYPE_NULL, MPI_OP_NULL, 0, 0);
        CHECK_RC(isochron_op_setup(find("allreduce"), &c), ISOCHRON_OK, "allreduce with defaults");
        CHECK(c.dtype == MPI_INT && c.op == MPI_SUM && c.count == 4 && c.dtype_size == 4, "allreduce default int sum");
        isochron_op_teardown(find("allreduce"), &c);
        ctx_init(&c, 16, MPI_DATATYPE_NULL, MPI_OP_NULL, 0, 0);
        CHECK_RC(isochron_op_setup(find("bcast"), &c), ISOCHRON_OK, "bcast with defaults");
        CHECK(c.dtype == MPI_BYTE && c.count == 16, "bcast default byte");
        isochron_op_teardown(find("bcast"), &c);
    }

    isochron_ops_destroy(ops);
    int rc = check_report("test_ops_errors");
    MPI_Finalize();
    return rc;
}
