/*
 * test_root_rotate: --root rotate of isochron-bench, i.e. the engine option
 * rotate_root (include/isochron/bench.h): a rooted operation gets root
 * k mod p at repetition k inside one point (MPIBlib, paper 001 sec. 3).
 *  - a rooted user operation logs the root of every run and checks in
 *    validate that repetition k ran with root k mod p: the runs follow
 *    0,1,..,p-1,0,.. through the warm-up and again from repetition 0, every
 *    validation passes, every root was set up once and torn down once, and the
 *    point's root is -1;
 *  - the built-in bcast and gather, validated every repetition, deliver the
 *    right data with the root changing under them;
 *  - the root and ack methods (a correction measured for one root) refuse it.
 * At 3 ranks (an odd count) and 4.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "check.h"
#include "check_clock.h"

static int setups[16], teardowns[16], log_root[256], nlog, bad_validate;

static int u_setup(isochron_op_ctx_t *c) { setups[c->root]++; return ISOCHRON_OK; }
static void u_teardown(isochron_op_ctx_t *c) { teardowns[c->root]++; }
static int u_run(isochron_op_ctx_t *c)
{
    if (nlog < 256) log_root[nlog++] = c->root;
    return MPI_Bcast(&c->rep, 1, MPI_INT, c->root, c->comm) == MPI_SUCCESS ? ISOCHRON_OK : ISOCHRON_EMPI;
}
static int u_validate(isochron_op_ctx_t *c)
{
    if (c->root != c->rep % c->size) { bad_validate++; return ISOCHRON_EVALIDATE; }
    return ISOCHRON_OK;
}

static int measure(isochron_clock_t *g, const char *method, const isochron_op_t *op, isochron_point_t *pt, int create_only)
{
    isochron_bench_opts_t o;
    isochron_bench_opts_default(&o);
    snprintf(o.scheme, sizeof o.scheme, "barrier");
    snprintf(o.method, sizeof o.method, "%s", method);
    snprintf(o.timing, sizeof o.timing, "global"); /* one run per repetition (no loop, no probe): the log counts them */
    o.min_reps = o.max_reps = 12;
    o.rel_ci = 0;
    o.warmup = 2;
    o.validate = 2;
    o.rotate_root = 1;
    o.track = 0;
    isochron_bench_t *b;
    int rc = isochron_bench_create(MPI_COMM_WORLD, g, &o, &b);
    if (rc || create_only) { if (!rc) isochron_bench_destroy(b); return rc; }
    isochron_op_ctx_t c;
    memset(&c, 0, sizeof c);
    c.bytes = 64;
    c.dtype = MPI_DATATYPE_NULL;
    c.op = MPI_SUM;
    rc = isochron_bench_measure(b, op, &c, pt);
    isochron_bench_destroy(b);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_quiet = rank != 0;
    check_clock_t clk;
    check_clock_sync(&clk, "hca3/20/skampi/10,span=0.02");
    isochron_clock_t *g = clk.g;

    isochron_op_t u = {0};
    u.name = "rooted_probe";
    u.family = "bcast";
    u.flags = ISOCHRON_OP_ROOTED | ISOCHRON_OP_USER;
    u.setup = u_setup;
    u.run = u_run;
    u.validate = u_validate;
    u.teardown = u_teardown;
    isochron_point_t pt;
    CHECK_RC(measure(g, "global", &u, &pt, 0), ISOCHRON_OK, "rank %d: user op with the root rotating", rank);
    int seq = nlog == 2 + pt.reps, once = 1;
    for (int k = 0; k < nlog && k < 2; k++) if (log_root[k] != k % size) seq = 0;               /* warm-up */
    for (int k = 2; k < nlog; k++) if (log_root[k] != (k - 2) % size) seq = 0;                  /* repetitions */
    for (int r = 0; r < size; r++) if (setups[r] != 1 || teardowns[r] != 1) once = 0;
    CHECK(seq, "rank %d: %d runs with roots k mod %d (warm-up, then repetitions 0..%d)", rank, nlog, size, pt.reps - 1);
    CHECK(bad_validate == 0 && pt.validated == pt.reps, "rank %d: every repetition validated with its own root (%d)", rank, pt.validated);
    CHECK(once, "rank %d: every root set up once and torn down once", rank);
    CHECK(pt.root == -1, "rank %d: the point's root is -1 (rotating)", rank);
    isochron_point_free(&pt);

    isochron_ops_t *ops;
    isochron_ops_create(&ops);
    const char *names[2] = {"bcast", "gather_binomial"};
    for (int i = 0; i < 2; i++) {
        const isochron_op_t *op;
        isochron_ops_find(ops, names[i], &op);
        CHECK_RC(measure(g, "max", op, &pt, 0), ISOCHRON_OK, "rank %d: %s rotating, every repetition's data validated", rank, names[i]);
        isochron_point_free(&pt);
    }
    isochron_ops_destroy(ops);
    CHECK_RC(measure(g, "root", &u, &pt, 1), ISOCHRON_EINVAL, "rank %d: the root method refuses rotation", rank);
    CHECK(strstr(isochron_last_error(), "--root all") != NULL, "rank %d: and says what to use instead", rank);
    CHECK_RC(measure(g, "ack", &u, &pt, 1), ISOCHRON_EINVAL, "rank %d: the ack method refuses rotation", rank);
    check_clock_free(&clk);
    int rc = check_report("test_root_rotate");
    MPI_Finalize();
    return rc;
}
