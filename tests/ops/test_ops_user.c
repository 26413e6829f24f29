/*
 * test_ops_user: an application registers its own operation and it is
 * treated like a built-in (MPIBlib's open set of operations, paper 001).
 *  - "my_bcast", built on MPI_Bcast with its own set-up, prepare, validate
 *    and teardown, is registered, found case-insensitively, flagged
 *    ISOCHRON_OP_USER, and runs 3 validated repetitions through
 *    isochron_op_setup at every root; the descriptor and its strings are
 *    copies (the caller's buffers are overwritten after registration);
 *  - its validate() catches a wrong element;
 *  - the same name again, a built-in's name, an invalid name, no run
 *    function, NONBLOCKING without post/wait are refused;
 *  - a user set-up that fails on one rank only makes isochron_op_setup fail
 *    on every rank with that rank's code (and teardown runs everywhere), so
 *    no rank goes on to a run the others will never join;
 *  - the memory check applies to user operations (2 x bytes assumed without
 *    a memory function, or the operation's own answer).
 * Runs at 2 and 3 processes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;
static int teardowns;

static int my_setup(isochron_op_ctx_t *c)
{
    c->rbuf = malloc(c->bytes ? c->bytes : 1);
    c->rbuf_bytes = c->bytes;
    return c->rbuf ? ISOCHRON_OK : ISOCHRON_ENOMEM;
}

static unsigned char val(int rep, size_t i) { return (unsigned char)(rep * 31 + i * 7 + 1); }

static int my_prepare(isochron_op_ctx_t *c)
{
    unsigned char *b = c->rbuf;
    for (size_t i = 0; i < c->count; i++) b[i] = c->rank == c->root ? val(c->rep, i) : 0xEE;
    return ISOCHRON_OK;
}

static int my_run(isochron_op_ctx_t *c)
{
    return MPI_Bcast(c->rbuf, (int)c->count, c->dtype, c->root, c->comm) == MPI_SUCCESS ? ISOCHRON_OK : ISOCHRON_EMPI;
}

static int my_validate(isochron_op_ctx_t *c)
{
    const unsigned char *b = c->rbuf;
    for (size_t i = 0; i < c->count; i++)
        if (b[i] != val(c->rep, i)) return ISOCHRON_EVALIDATE;
    return ISOCHRON_OK;
}

static void my_teardown(isochron_op_ctx_t *c)
{
    free(c->rbuf);
    c->rbuf = NULL;
    teardowns++;
}

/* fails on the last rank only */
static int bad_setup(isochron_op_ctx_t *c)
{
    int rc = my_setup(c);
    if (rc) return rc;
    return c->rank == c->size - 1 ? ISOCHRON_ENOMEM : ISOCHRON_OK;
}

static size_t huge_memory(const isochron_op_ctx_t *c) { return (size_t)1 << 50; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    isochron_ops_t *ops = NULL;
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "create registry");
    int n0 = isochron_ops_count(ops);

    char name[32], family[32], desc[64];
    strcpy(name, "my_bcast");
    strcpy(family, "bcast");
    strcpy(desc, "application broadcast on MPI_Bcast");
    isochron_op_t mine = { name, family, desc, ISOCHRON_OP_ROOTED, my_setup, my_prepare, my_run, NULL, NULL,
                           my_validate, my_teardown, NULL, NULL, NULL };
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_OK, "register my_bcast");
    CHECK(isochron_ops_count(ops) == n0 + 1, "count grew by one");
    strcpy(name, "clobbered"); /* the registry holds copies */
    strcpy(family, "zzz");
    mine.run = NULL;

    const isochron_op_t *op = NULL;
    CHECK_RC(isochron_ops_find(ops, "MY_BCAST", &op), ISOCHRON_OK, "find MY_BCAST (case-insensitive)");
    CHECK(op && strcmp(op->name, "my_bcast") == 0 && strcmp(op->family, "bcast") == 0 && op->run == my_run,
          "the registered copy is intact");
    CHECK(op && (op->flags & ISOCHRON_OP_USER) && (op->flags & ISOCHRON_OP_ROOTED), "flags USER | ROOTED");
    CHECK(op && isochron_ops_get(ops, n0) == op, "it is the last entry");

    /* run it like a built-in */
    for (int root = 0; op && root < size; root++) {
        isochron_op_ctx_t c;
        memset(&c, 0, sizeof c);
        c.comm = MPI_COMM_WORLD;
        c.bytes = 1000;
        c.root = root;
        CHECK_RC(isochron_op_setup(op, &c), ISOCHRON_OK, "rank %d: setup my_bcast root %d", rank, root);
        CHECK(c.dtype == MPI_BYTE && c.count == 1000, "default datatype byte for a user data-movement op");
        for (int k = 0; k < 3; k++) {
            c.rep = k;
            CHECK_RC(op->prepare(&c), ISOCHRON_OK, "prepare");
            CHECK_RC(op->run(&c), ISOCHRON_OK, "rank %d: run my_bcast root %d rep %d", rank, root, k);
            CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: validate my_bcast root %d rep %d", rank, root, k);
        }
        if (rank != root) ((unsigned char *)c.rbuf)[999] ^= 1;
        CHECK_RC(op->validate(&c), rank != root ? ISOCHRON_EVALIDATE : ISOCHRON_OK,
                 "rank %d: a changed element fails my_bcast's validate", rank);
        isochron_op_teardown(op, &c);
    }

    /* refusals */
    mine.name = "my_bcast";
    mine.run = my_run;
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_ENAME, "same name again");
    CHECK(strstr(isochron_last_error(), "my_bcast") != NULL, "message names it: \"%s\"", isochron_last_error());
    mine.name = "ALLREDUCE";
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_ENAME, "a built-in's name (other case)");
    mine.name = "bad name";
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_EINVAL, "name with a space");
    mine.name = "";
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_EINVAL, "empty name");
    mine.name = "no_run";
    mine.run = NULL;
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_EINVAL, "no run function");
    mine.run = my_run;
    mine.name = "no_post";
    mine.flags = ISOCHRON_OP_NONBLOCKING;
    CHECK_RC(isochron_ops_register(ops, &mine), ISOCHRON_EINVAL, "NONBLOCKING without post/wait");
    CHECK(isochron_ops_count(ops) == n0 + 1, "refusals added nothing");

    /* set-up failing on one rank: all ranks fail, all tear down */
    isochron_op_t bad = { "half_broken", "bcast", "fails on the last rank", 0, bad_setup, my_prepare, my_run, NULL,
                          NULL, my_validate, my_teardown, NULL, NULL, NULL };
    CHECK_RC(isochron_ops_register(ops, &bad), ISOCHRON_OK, "register half_broken");
    CHECK_RC(isochron_ops_find(ops, "half_broken", &op), ISOCHRON_OK, "find half_broken");
    {
        isochron_op_ctx_t c;
        memset(&c, 0, sizeof c);
        c.comm = MPI_COMM_WORLD;
        c.bytes = 64;
        teardowns = 0;
        CHECK_RC(isochron_op_setup(op, &c), ISOCHRON_ENOMEM, "rank %d: setup failing on rank %d fails here too", rank,
                 size - 1);
        char want[32];
        snprintf(want, sizeof want, "rank %d", size - 1);
        CHECK(rank == size - 1 || strstr(isochron_last_error(), want), "rank %d: message points at %s: \"%s\"", rank,
              want, isochron_last_error());
        CHECK(teardowns == 1 && c.rbuf == NULL, "rank %d: torn down after the failed set-up", rank);
    }

    /* memory check for user ops */
    isochron_op_t greedy = { "greedy", NULL, NULL, 0, my_setup, NULL, my_run, NULL, NULL, my_validate, my_teardown,
                             huge_memory, NULL, NULL };
    CHECK_RC(isochron_ops_register(ops, &greedy), ISOCHRON_OK, "register greedy (family defaults to its name)");
    CHECK_RC(isochron_ops_find(ops, "greedy", &op), ISOCHRON_OK, "find greedy");
    CHECK(op && strcmp(op->family, "greedy") == 0 && op->description && !op->description[0], "defaults for family/description");
    {
        isochron_op_ctx_t c;
        memset(&c, 0, sizeof c);
        c.comm = MPI_COMM_WORLD;
        c.bytes = 16;
        teardowns = 0;
        CHECK_RC(isochron_op_setup(op, &c), ISOCHRON_EINVAL, "greedy's 1 PiB refused");
        CHECK(strstr(isochron_last_error(), "greedy needs 1125899906842624 bytes per process, more than the"),
              "message: \"%s\"", isochron_last_error());
        CHECK(teardowns == 0 && c.rbuf == NULL, "greedy's set-up never ran");
        CHECK_RC(isochron_ops_find(ops, "my_bcast", &op), ISOCHRON_OK, "find my_bcast");
        c.bytes = (size_t)1 << 42;
        CHECK(isochron_op_memory_needed(op, &c) == (size_t)1 << 43, "no memory function: 2 x bytes assumed");
        CHECK_RC(isochron_op_setup(op, &c), ISOCHRON_EINVAL, "4 TiB my_bcast refused");
    }

    isochron_ops_destroy(ops);
    int rc = check_report("test_ops_user");
    MPI_Finalize();
    return rc;
}
