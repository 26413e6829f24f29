/*
 * test_ops_validate: validation catches wrong data, and small and odd sizes
 * are right.
 *  1. Corruption: for allreduce, bcast, gather, alltoall, pingpong,
 *     put_fence, bcast_binomial and the fence atomics, after a correct run one receiving rank
 *     changes one received element (the last one, then the first one; for the atomics also
 *     one element of its window, which the left neighbour updated): its
 *     validate() must return ISOCHRON_EVALIDATE with a sentence naming the
 *     operation, the rank and the element; every other rank must pass.
 *  2. Stale data, for every built-in operation that moves data: after a
 *     correct run, validating against the next repetition's pattern without
 *     running again must fail on some rank (so every validate() really
 *     compares, and every pattern depends on the repetition); and prepare
 *     followed by validate without a run must fail too (receive buffers are
 *     poisoned).
 *  3. 16-byte allreduce and iallreduce for every arithmetic datatype (int,
 *     long, float, double) and every reduction op (a peer benchmark fails
 *     there), plus 4, 8, 12, 20, 24 and 40 bytes where they divide; byte and
 *     char refused for reductions.
 *  4. Odd sizes: every data-movement operation at 1, 3 and 7 bytes of bytes.
 *  5. Points needing more than 1 MiB per process (set-up then asks the node
 *     for its memory): allgather, binomial scatter/gather, allreduce,
 *     accumulate_lock (double max) and put_fence at 0.5-1 MiB.
 *  6. c->no_fill (set by the engine before an unvalidated one-sided epoch):
 *     the prepare of put_bibw_pscw, get_bibw_fence, get_lockall, put_lockall and
 *     put/get_one_to_all and put/get_all_to_all leaves the received data
 *     and the source as they are (no poison, no rewrite), and a full prepare
 *     and run afterwards validate.
 * Runs at 2, 3 and 4 processes.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;
static MPI_Comm comm;
static isochron_ops_t *ops;

static const isochron_op_t *find(const char *name)
{
    const isochron_op_t *op = NULL;
    CHECK_RC(isochron_ops_find(ops, name, &op), ISOCHRON_OK, "find %s", name);
    return op;
}

static int setup(const isochron_op_t *op, isochron_op_ctx_t *c, size_t bytes, MPI_Datatype dt, MPI_Op rop, int root)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->bytes = bytes;
    c->dtype = dt;
    c->op = rop;
    c->root = root;
    int ts = 1;
    MPI_Type_size(dt == MPI_DATATYPE_NULL ? MPI_BYTE : dt, &ts);
    size_t n = bytes / (size_t)ts; /* partitioned operations: 4, 2 or 1 partitions, whichever divides the count */
    c->partitions = n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
    int rc = isochron_op_setup(op, c);
    if (rc == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), "pmodels/mpich#")) return rc; /* a known library bug, refused */
    CHECK_RC(rc, ISOCHRON_OK, "rank %d: setup %s %zu B", rank, op->name, bytes);
    return rc;
}

static int one_rep(const isochron_op_t *op, isochron_op_ctx_t *c, int k)
{
    c->rep = k;
    int rc = op->prepare ? op->prepare(c) : ISOCHRON_OK;
    if (!rc) rc = op->run(c);
    return rc;
}

/* ---------------------------------------------------------------- 1 */

/* The atomics' window (this rank's, updated by its left neighbour), the other half of their check
 * beside the result buffer: after a correct fence epoch the victim changes one element of its window
 * (reached through MPI_WIN_BASE), the last one, then the first one. */
static void window_corruption(const char *name, int victim)
{
    const isochron_op_t *op = find(name);
    isochron_op_ctx_t c;
    if (!op || setup(op, &c, 1000, MPI_INT, MPI_SUM, 0)) return;
    size_t where[2] = { c.count - 1, 0 };
    for (int k = 0; k < 2; k++) {
        CHECK_RC(one_rep(op, &c, k), ISOCHRON_OK, "rank %d: %s rep %d runs", rank, name, k);
        int *base = NULL, flag = 0;
        MPI_Win_get_attr(c.win, MPI_WIN_BASE, &base, &flag);
        CHECK(flag && base, "rank %d: %s window base known", rank, name);
        if (rank == victim && flag && base) base[where[k]] += 1;
        int rc = op->validate(&c);
        if (rank == victim) {
            CHECK_RC(rc, ISOCHRON_EVALIDATE, "rank %d: %s with window element %zu changed fails validation", rank, name,
                     where[k]);
            char want_elem[48];
            snprintf(want_elem, sizeof want_elem, "element %zu", where[k]);
            CHECK(strstr(isochron_last_error(), want_elem) != NULL, "rank %d: message names the element: \"%s\"", rank,
                  isochron_last_error());
        } else {
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: %s untouched window still validates", rank, name);
        }
    }
    isochron_op_teardown(op, &c);
}

static void corruption(const char *name, int victim, int root)
{
    const isochron_op_t *op = find(name);
    isochron_op_ctx_t c;
    if (!op || setup(op, &c, 1000, MPI_INT, MPI_SUM, root)) return;
    size_t n = c.count;
    size_t where[2] = { n - 1, 0 };
    if (strcmp(name, "gather") == 0 || strcmp(name, "alltoall") == 0) where[0] = (size_t)size * n - 1;
    if (op->flags & ISOCHRON_OP_WINDOWED) where[0] = c.rbuf_bytes / sizeof(int) - 1; /* last message of the window */
    for (int k = 0; k < 2; k++) {
        CHECK_RC(one_rep(op, &c, k), ISOCHRON_OK, "rank %d: %s rep %d runs", rank, name, k);
        if (rank == victim) ((int *)c.rbuf)[where[k]] += 1;
        int rc = op->validate(&c);
        if (rank == victim) {
            CHECK_RC(rc, ISOCHRON_EVALIDATE, "rank %d: %s with element %zu changed fails validation", rank, name,
                     where[k]);
            char want_rank[32], want_elem[48];
            snprintf(want_rank, sizeof want_rank, "rank %d", rank);
            snprintf(want_elem, sizeof want_elem, "element %zu", where[k]);
            const char *msg = isochron_last_error();
            CHECK(strstr(msg, name) && strstr(msg, want_rank) && strstr(msg, want_elem) && strstr(msg, "expected") &&
                      strstr(msg, "got") && strstr(msg, "1 of"),
                  "rank %d: message names op, rank, element, expected, got, count: \"%s\"", rank, msg);
        } else {
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: %s untouched data still validates", rank, name);
        }
    }
    isochron_op_teardown(op, &c);
}

/* ---------------------------------------------------------------- 2 */

static void stale(const isochron_op_t *op)
{
    int red = (op->flags & ISOCHRON_OP_REDUCTION) != 0;
    isochron_op_ctx_t c;
    int root = (op->flags & ISOCHRON_OP_ROOTED) ? size - 1 : 0;
    if (setup(op, &c, 1000, MPI_INT, red ? MPI_SUM : MPI_OP_NULL, root)) return;
    CHECK_RC(one_rep(op, &c, 0), ISOCHRON_OK, "rank %d: %s runs", rank, op->name);
    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s validates", rank, op->name);
    c.rep = 1; /* what rep 1 would deliver differs from what rep 0 did */
    int rc = op->validate(&c), bad = rc == ISOCHRON_EVALIDATE, nbad = 0;
    CHECK(rc == ISOCHRON_OK || rc == ISOCHRON_EVALIDATE, "rank %d: %s stale validate returns OK or EVALIDATE", rank,
          op->name);
    MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, comm);
    CHECK(nbad >= 1, "rank %d: %s: stale data caught on %d rank(s)", rank, op->name, nbad);
    /* prepare without run: receive buffers hold poison, not data. Not for the X_init operations
     * (persist.c): their timed run only makes and frees a request, and their validate starts one
     * itself, so it checks that the init call yields a working operation, not that run moved data. */
    size_t ln = strlen(op->name);
    int init_cost = ln > 5 && strcmp(op->name + ln - 5, "_init") == 0;
    c.rep = 2;
    if (op->prepare) CHECK_RC(op->prepare(&c), ISOCHRON_OK, "rank %d: %s prepare", rank, op->name);
    rc = op->validate(&c);
    bad = rc == ISOCHRON_EVALIDATE;
    MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, comm);
    CHECK(init_cost ? nbad == 0 : nbad >= 1, "rank %d: %s: missing run caught on %d rank(s)", rank, op->name, nbad);
    /* a real run repairs it */
    CHECK_RC(one_rep(op, &c, 3), ISOCHRON_OK, "rank %d: %s runs again", rank, op->name);
    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s validates again", rank, op->name);
    isochron_op_teardown(op, &c);
}

/* ---------------------------------------------------------------- 6 */

static void no_fill(const char *name)
{
    const isochron_op_t *op = find(name);
    isochron_op_ctx_t c;
    if (!op || setup(op, &c, 1000, MPI_INT, MPI_OP_NULL, 0)) return;
    CHECK_RC(one_rep(op, &c, 0), ISOCHRON_OK, "rank %d: %s runs", rank, name);
    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s validates", rank, name);
    static char rcopy[1 << 20], scopy[1 << 20];
    int fits = c.rbuf_bytes <= sizeof rcopy && c.sbuf_bytes <= sizeof scopy;
    CHECK(fits, "rank %d: %s buffers fit the copies", rank, name);
    if (fits) {
        if (c.rbuf_bytes) memcpy(rcopy, c.rbuf, c.rbuf_bytes);
        if (c.sbuf_bytes) memcpy(scopy, c.sbuf, c.sbuf_bytes);
        c.rep = 1;
        c.no_fill = 1;
        CHECK_RC(op->prepare(&c), ISOCHRON_OK, "rank %d: %s prepare with no_fill", rank, name);
        c.no_fill = 0;
        CHECK((!c.rbuf_bytes || memcmp(rcopy, c.rbuf, c.rbuf_bytes) == 0) &&
                  (!c.sbuf_bytes || memcmp(scopy, c.sbuf, c.sbuf_bytes) == 0),
              "rank %d: %s prepare with no_fill leaves the buffers as they were", rank, name);
    }
    CHECK_RC(one_rep(op, &c, 2), ISOCHRON_OK, "rank %d: %s runs after", rank, name);
    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s validates after", rank, name);
    isochron_op_teardown(op, &c);
}

/* ---------------------------------------------------------------- 3 */

static void small_reductions(const char *name)
{
    const isochron_op_t *op = find(name);
    if (!op) return;
    static const char *types[] = { "int", "long", "float", "double" };
    static const char *rops[] = { "sum", "prod", "max", "min" };
    static const size_t bytes[] = { 16, 4, 8, 12, 20, 24, 40 };
    int failed_before = check_failures;
    for (int t = 0; t < 4; t++)
        for (int o = 0; o < 4; o++)
            for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
                MPI_Datatype dt;
                MPI_Op rop;
                int ts;
                isochron_op_dtype_find(types[t], &dt, &ts);
                isochron_op_reduce_find(rops[o], &rop);
                if (bytes[b] % (size_t)ts) continue;
                isochron_op_ctx_t c;
                if (setup(op, &c, bytes[b], dt, rop, 0)) continue;
                for (int k = 0; k < 3; k++) {
                    CHECK_RC(one_rep(op, &c, k), ISOCHRON_OK, "rank %d: %s %zu B %s %s rep %d runs", rank, name,
                             bytes[b], types[t], rops[o], k);
                    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s %zu B %s %s rep %d", rank, name, bytes[b],
                             types[t], rops[o], k);
                }
                isochron_op_teardown(op, &c);
            }
    static const char *bad[] = { "byte", "char" };
    for (int t = 0; t < 2; t++) {
        MPI_Datatype dt;
        isochron_op_dtype_find(bad[t], &dt, NULL);
        CHECK_RC(isochron_op_accepts(op, dt, MPI_SUM, 0), ISOCHRON_EINVAL, "%s refuses %s", name, bad[t]);
    }
    if (rank == 0)
        printf("%s %s: 16 B and small sizes, int/long/float/double x sum/prod/max/min\n",
               check_failures == failed_before ? "ok  " : "FAIL", name);
}

/* ---------------------------------------------------------------- 4 */

static void odd_sizes(const isochron_op_t *op)
{
    static const size_t bytes[] = { 1, 3, 7 };
    for (size_t b = 0; b < 3; b++) {
        isochron_op_ctx_t c;
        int root = (op->flags & ISOCHRON_OP_ROOTED) ? size - 1 : 0;
        if (setup(op, &c, bytes[b], MPI_BYTE, MPI_OP_NULL, root)) continue;
        for (int k = 0; k < 2; k++) {
            CHECK_RC(one_rep(op, &c, k), ISOCHRON_OK, "rank %d: %s %zu B runs", rank, op->name, bytes[b]);
            CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s %zu B validates", rank, op->name, bytes[b]);
        }
        isochron_op_teardown(op, &c);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "create registry");

    /* 1: the victim is a rank that receives data */
    corruption("allreduce", size - 1, 0);
    corruption("bcast", size - 1, 0);
    corruption("gather", size - 1, size - 1);
    corruption("alltoall", size - 1, 0);
    corruption("pingpong", 0, 0);
    corruption("put_fence", size - 1, 0);
    corruption("bcast_binomial", size - 1, 0);
    corruption("bw", 1, 0);
    corruption("bibw", 0, 0);
    corruption("mbw_mr", size / 2, 0);
    corruption("bw_fan_in", 0, 0);
    corruption("bw_fan_out", size - 1, 0);
    corruption("pingping", 1, 0);
    corruption("multi_lat", 0, 0);
    corruption("alltoallw", size - 1, 0);
    corruption("ineighbor_alltoall_cart", size - 1, 0); /* slot 0: the -1 neighbour in dimension 0 */
    corruption("neighbor_alltoallw_graph", 0, 0);
    corruption("neighbor_allgatherv_graph", size - 1, 0);
    corruption("allreduce_persistent", size - 1, 0);
    corruption("pingpong_persistent", 1, 0);
    corruption("bw_persistent", 1, 0);                 /* the last message of the persistent window */
    corruption("reduce_scatter_persistent", size - 1, 0);
    corruption("allgatherv_persistent", 0, 0);
    corruption("alltoallw_persistent", size - 1, 0);
    corruption("neighbor_alltoall_cart_persistent", size - 1, 0); /* slot 0: the -1 neighbour in dimension 0 */
    corruption("neighbor_allgatherv_graph_persistent", 0, 0);
    corruption("neighbor_alltoallw_graph_persistent", size - 1, 0);
    corruption("put_bibw_fence", 1, 0);                /* the last message of the window put into rank 1 */
    corruption("get_bibw_pscw", 0, 0);
    corruption("put_pscw", size - 1, 0);
    corruption("get_accumulate_fence", size - 1, 0); /* the atomics' result buffer (old target values) */
    corruption("fetch_and_op_fence", 0, 0);
    corruption("compare_and_swap_fence", size - 1, 0);
    window_corruption("get_accumulate_fence", 0);
    window_corruption("fetch_and_op_fence", size - 1);
    window_corruption("compare_and_swap_fence", 0);
    no_fill("put_bibw_pscw");
    no_fill("get_bibw_fence");
    no_fill("get_lockall");
    no_fill("put_lockall");
    no_fill("put_one_to_all");
    no_fill("get_one_to_all");
    no_fill("put_all_to_all");
    no_fill("get_all_to_all");
    /* not the passive-target ones: the neighbour's put may land after this test's store (validate's barrier orders them in a benchmark) */

    check_quiet = 1;
    int before = check_failures, n = 0;
    for (int i = 0; i < isochron_ops_count(ops); i++) {
        const isochron_op_t *op = isochron_ops_get(ops, i);
        if (op->flags & (ISOCHRON_OP_NODATA | ISOCHRON_OP_USER | ISOCHRON_OP_THREADED | ISOCHRON_OP_MISSING)) continue; /* threaded: test_ops_threads; missing: test_ops_mpi4 */
        stale(op);
        n++;
    }
    if (rank == 0)
        printf("%s stale data and missing runs caught by all %d data-moving operations\n",
               check_failures == before ? "ok  " : "FAIL", n);

    small_reductions("allreduce");
    small_reductions("iallreduce");

    before = check_failures;
    n = 0;
    for (int i = 0; i < isochron_ops_count(ops); i++) {
        const isochron_op_t *op = isochron_ops_get(ops, i);
        if (op->flags & (ISOCHRON_OP_NODATA | ISOCHRON_OP_USER | ISOCHRON_OP_REDUCTION | ISOCHRON_OP_THREADED | ISOCHRON_OP_MISSING)) continue;
        odd_sizes(op);
        n++;
    }
    if (rank == 0)
        printf("%s %d data-movement operations at 1, 3 and 7 bytes\n", check_failures == before ? "ok  " : "FAIL", n);

    /* 5: points above 1 MiB per process take the node-memory query path */
    before = check_failures;
    static const struct { const char *name; size_t bytes; int dt; } big[] = {
        { "allgather", 1 << 20, 0 }, { "scatter_binomial", 1 << 19, 0 }, { "gather_binomial", 1 << 19, 0 },
        { "allreduce", 1 << 20, 1 }, { "accumulate_lock", 1 << 20, 1 }, { "put_fence", 1 << 20, 0 },
    };
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
        const isochron_op_t *op = find(big[b].name);
        isochron_op_ctx_t c;
        CHECK(op && isochron_op_memory_needed(op, &(isochron_op_ctx_t){ .comm = comm, .bytes = big[b].bytes,
                                                                        .dtype = big[b].dt ? MPI_DOUBLE : MPI_BYTE,
                                                                        .op = MPI_MAX, .root = size - 1 }) > (1u << 20),
              "%s %zu B needs more than 1 MiB", big[b].name, big[b].bytes);
        if (!op || setup(op, &c, big[b].bytes, big[b].dt ? MPI_DOUBLE : MPI_BYTE, MPI_MAX, size - 1)) continue;
        for (int k = 0; k < 2; k++) {
            CHECK_RC(one_rep(op, &c, k), ISOCHRON_OK, "rank %d: %s %zu B runs", rank, op->name, big[b].bytes);
            CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: %s %zu B validates", rank, op->name, big[b].bytes);
        }
        isochron_op_teardown(op, &c);
    }
    if (rank == 0) printf("%s points above 1 MiB per process\n", check_failures == before ? "ok  " : "FAIL");

    isochron_ops_destroy(ops);
    int rc = check_report("test_ops_validate");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
