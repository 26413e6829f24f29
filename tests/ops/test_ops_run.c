/*
 * test_ops_run: every built-in operation delivers exactly the data the MPI
 * standard says it must, at every combination a benchmark may ask for.
 * For each built-in operation of the registry: sizes {0, 16, 1003, 65536}
 * bytes (1003 rounded down to a multiple of the datatype: an odd size for
 * bytes, 1000 for int and double), roots {0, size-1} for rooted operations,
 * in_place off and on where allowed, datatypes {byte, int, double} for data
 * movement and {int, double} x {sum, max, min, prod} for reductions:
 * isochron_op_setup, 3 repetitions of prepare / run / validate (each
 * repetition writes a different pattern, so stale data fails), and for
 * non-blocking operations a 4th repetition through post + wait, then
 * teardown. validate() compares every element on every receiving rank
 * (test_ops_validate proves it can fail). The only refusal tolerated is
 * EUNSUPPORTED for reduce in place at a non-zero root under MPICH 4.0-4.1.2,
 * which crashes there (printed as "skip"). Threaded operations (latency_mt)
 * must be refused here, naming MPI_THREAD_SINGLE: this program calls
 * MPI_Init (test_ops_threads runs them). Runs at 2, 3 and 4 processes (odd
 * counts matter for trees, rings and round-robin schedules). Prints one line
 * per operation on rank 0; any failing point is printed by the rank it
 * failed on.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;
static MPI_Comm comm;
static int skipped; /* points refused as known MPI library bugs */

static const size_t sizes[] = { 0, 16, 1003, 65536 };
static const char *move_types[] = { "byte", "int", "double" };
static const char *red_types[] = { "int", "double" };
static const char *red_ops[] = { "sum", "max", "min", "prod" };

/* The variants of issue 18 (persistent and init-cost forms, lock_all and PSCW epochs, neighbourhood
 * collectives, windowed throughput, the one-sided atomics) run through the same MPI datatypes and reductions as the operations
 * they vary, which get the full grid: they skip the 16-byte size (the one-sided ones and the X_init
 * forms 64 KiB too: a window per point is what costs) and reduce with sum and max only, and at 3 and 4
 * processes they run one datatype (byte, or int for reductions; all three at 2), to keep the test's time
 * (MPICH busy-polls at 3 and 4 ranks on 2 cores: a fence epoch took 40 ms on the loaded machine). */
static int lean_grid(const isochron_op_t *op)
{
    const char *n = op->name;
    size_t l = strlen(n);
    return strstr(n, "_persistent") || (l > 5 && !strcmp(n + l - 5, "_init")) || strstr(n, "_lockall") ||
           strstr(n, "_pscw") || strstr(n, "neighbor_") || strstr(n, "get_accumulate_") || strstr(n, "fetch_and_op_") ||
           strstr(n, "compare_and_swap_") || strstr(n, "_to_all") || (op->flags & ISOCHRON_OP_WINDOWED);
}

/* The X_init forms (persist.c): their run makes and frees a request; the data path they validate is
 * X_persistent's, which keeps 64 KiB, so they skip it like the one-sided ones (test time). */
static int init_form(const isochron_op_t *op)
{
    size_t l = strlen(op->name);
    return l > 5 && !strcmp(op->name + l - 5, "_init");
}

/* One point: setup, reps, teardown. Returns the number of failed checks here. */
static int run_point(const isochron_op_t *op, size_t bytes, const char *tname, const char *rname, int root,
                     int in_place)
{
    int before = check_failures;
    isochron_op_ctx_t c;
    memset(&c, 0, sizeof c);
    c.comm = comm;
    int ts = 1;
    CHECK_RC(isochron_op_dtype_find(tname, &c.dtype, &ts), ISOCHRON_OK, "dtype %s", tname);
    c.op = MPI_OP_NULL;
    if (rname) CHECK_RC(isochron_op_reduce_find(rname, &c.op), ISOCHRON_OK, "reduce %s", rname);
    c.bytes = bytes - bytes % (size_t)ts;
    c.root = root;
    c.in_place = in_place;
    c.window = 8; /* throughput operations: 8 messages per window keeps the test short (the default 64: test_ops_validate) */
    char what[160];
    snprintf(what, sizeof what, "%s %zu B %s%s%s root %d%s", op->name, c.bytes, tname, rname ? " " : "",
             rname ? rname : "", root, in_place ? " in_place" : "");

    if (op->flags & ISOCHRON_OP_PARTITIONED) /* partitions of whole elements: 4, or 1 where 4 do not divide the count */
        c.partitions = (c.bytes / (size_t)ts) % 4 == 0 ? 4 : 1;
    if (op->flags & ISOCHRON_OP_MISSING) {
        /* this MPI library lacks the calls (partitioned or large-count without MPI-4's mpi.h): refused, naming it */
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, " ")] = '\0'; /* "Open", "MPICH" */
        int rc = isochron_op_setup(op, &c);
        CHECK(rc == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), "this MPI library (") &&
                  strstr(isochron_last_error(), lib) && strstr(isochron_last_error(), op->name),
              "rank %d: %s refused where the library lacks it, naming the library (%s)", rank, what, isochron_last_error());
        if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
        if (rank == 0 && !skipped++) printf("skip %s\n", isochron_last_error());
        return check_failures - before;
    }
    if (op->flags & ISOCHRON_OP_THREADED) {
        /* this program calls MPI_Init: MPI_THREAD_SINGLE (test_ops_threads runs them under MPI_THREAD_MULTIPLE) */
        int rc = isochron_op_setup(op, &c);
        CHECK(rc == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), "needs MPI_THREAD_MULTIPLE") &&
                  strstr(isochron_last_error(), "provides MPI_THREAD_SINGLE"),
              "rank %d: %s refused under MPI_Init, naming the level provided (%s)", rank, what, isochron_last_error());
        if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
        return check_failures - before;
    }
    if ((op->flags & ISOCHRON_OP_INTEGER) && !strcmp(tname, "double")) {
        /* MPI_Compare_and_swap is defined on integer, logical and byte types only: refused, setup too */
        int rc = isochron_op_accepts(op, c.dtype, c.op, in_place);
        CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "integer"),
              "rank %d: %s refused, naming the integer types (%s)", rank, what, isochron_last_error());
        rc = isochron_op_setup(op, &c);
        CHECK(rc == ISOCHRON_EINVAL, "rank %d: %s: setup refuses it too", rank, what);
        if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
        return check_failures - before;
    }
    CHECK_RC(isochron_op_accepts(op, c.dtype, c.op, in_place), ISOCHRON_OK, "rank %d: %s accepted", rank, what);
    int rc = isochron_op_setup(op, &c);
    if (rc == ISOCHRON_EUNSUPPORTED && (strcmp(op->name, "reduce") == 0 || strcmp(op->name, "reduce_c") == 0) && in_place &&
        root != 0) {
        /* the one combination refused because the MPI library crashes on it */
        if (rank == 0 && !skipped++) printf("skip %s\n", isochron_last_error());
        return check_failures - before;
    }
    if (rc == ISOCHRON_EUNSUPPORTED && (strstr(isochron_last_error(), "no persistent collectives") ||
                                        strstr(isochron_last_error(), "pmodels/mpich#7078"))) {
        /* an MPI library without MPI-4 persistent collectives (nor Open MPI's MPIX_ ones) */
        if (rank == 0 && !skipped++) printf("skip %s\n", isochron_last_error());
        return check_failures - before;
    }
    CHECK_RC(rc, ISOCHRON_OK, "rank %d: setup %s", rank, what);
    if (rc) return check_failures - before;
    CHECK(c.count == c.bytes / (size_t)ts && c.rank == rank && c.size == size, "rank %d: ctx filled for %s", rank,
          what);
    int nb = (op->flags & ISOCHRON_OP_NONBLOCKING) != 0;
    for (int k = 0; k < 3 + nb; k++) {
        c.rep = k;
        if (op->prepare) CHECK_RC(op->prepare(&c), ISOCHRON_OK, "rank %d: prepare %s rep %d", rank, what, k);
        if (k < 3) {
            CHECK_RC(op->run(&c), ISOCHRON_OK, "rank %d: run %s rep %d", rank, what, k);
        } else {
            CHECK_RC(op->post(&c), ISOCHRON_OK, "rank %d: post %s", rank, what);
            CHECK_RC(op->wait(&c), ISOCHRON_OK, "rank %d: wait %s", rank, what);
        }
        if (op->validate) CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: validate %s rep %d", rank, what, k);
        else CHECK(op->flags & ISOCHRON_OP_NODATA, "rank %d: only data-free ops lack validate (%s)", rank, what);
    }
    /* the operation's own teardown, not isochron_op_teardown (which resets these fields whatever the teardown
     * did): a persistent request stays allocated after its wait, only MPI_Request_free makes it MPI_REQUEST_NULL */
    if (op->teardown) op->teardown(&c);
    CHECK(c.sbuf == NULL && c.rbuf == NULL && c.state == NULL, "rank %d: teardown cleared %s", rank, what);
    CHECK(c.req == MPI_REQUEST_NULL, "rank %d: teardown freed the request of %s", rank, what);
    return check_failures - before;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    check_quiet = getenv("ISOCHRON_TEST_VERBOSE") == NULL; /* every check printed when set */

    isochron_ops_t *ops = NULL;
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "create registry");
    int nops = isochron_ops_count(ops), tested = 0;
    double t_start = MPI_Wtime();
    for (int i = 0; i < nops; i++) {
        const isochron_op_t *op = isochron_ops_get(ops, i);
        if (op->flags & ISOCHRON_OP_USER) continue;
        int roots[2] = { 0, size - 1 }, nroots = (op->flags & ISOCHRON_OP_ROOTED) ? 2 : 1;
        int nip = (op->flags & ISOCHRON_OP_INPLACE) ? 2 : 1;
        int red = (op->flags & ISOCHRON_OP_REDUCTION) != 0;
        int nodata = (op->flags & ISOCHRON_OP_NODATA) != 0;
        int points = 0, fails = 0;
        double t0 = MPI_Wtime();
        int lean = lean_grid(op);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (nodata && s > 1) break;
            if (lean && (sizes[s] == 16 || (sizes[s] == 65536 && ((op->flags & ISOCHRON_OP_RMA) || init_form(op))))) continue;
            int ntypes = red ? 2 : (nodata ? 1 : 3);
            if (lean && size > 2) ntypes = 1; /* the variants' datatypes are covered at 2 processes */
            for (int t = 0; t < ntypes; t++)
                for (int o = 0; o < (red ? (lean ? 2 : 4) : 1); o++)
                    for (int r = 0; r < nroots; r++)
                        for (int ip = 0; ip < nip; ip++) {
                            fails += run_point(op, sizes[s], red ? red_types[t] : move_types[t],
                                               red ? red_ops[o] : NULL, roots[r], ip);
                            points++;
                        }
        }
        int allfails = 0;
        MPI_Allreduce(&fails, &allfails, 1, MPI_INT, MPI_SUM, comm);
        if (rank == 0)
            printf("%s %-36s %3d points, %d failed checks (%.2f s)\n", allfails ? "FAIL" : "ok  ", op->name, points,
                   allfails, MPI_Wtime() - t0);
        fflush(stdout);
        tested++;
    }
    CHECK(tested >= 168, "rank %d: %d built-in operations tested (expected all 168)", rank, tested);
    if (rank == 0) printf("all operations at %d processes: %.1f s\n", size, MPI_Wtime() - t_start);
    isochron_ops_destroy(ops);
    int rc = check_report("test_ops_run");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
