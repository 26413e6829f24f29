/*
 * test_ops_threads: the threaded operation latency_mt (src/ops/thread.c), in
 * a program initialised with MPI_Init_thread(MPI_THREAD_MULTIPLE).
 *  1. threads 1, 2 and 4 x sizes 0, 1003, 65536 x byte, double:
 *     set-up, 3 repetitions of prepare / run / validate, and one run that
 *     follows another without prepare (the workers are asleep then and must
 *     be woken), teardown; ctx->threads is kept, 0 becomes the default 2.
 *  2. Corruption: one element of thread 1's message changed on rank 0 fails
 *     validation with a sentence naming the operation, rank, element and
 *     thread; rank 1 with thread 0's and thread 1's messages swapped fails
 *     too (each thread's message is its own, so crossed pairs are caught).
 *  3. Stale data (validating against the next repetition) and a missing run
 *     (prepare, then validate) fail.
 *  4. Threads per rank -1 and 65 are refused (EINVAL naming 1..64).
 *  5. The threads' round trips overlap in time (2 threads, 8 B): one rank
 *     runs the operation, the other plays its peer by hand with a protocol
 *     only concurrent threads can finish. Rank 1 by hand receives both
 *     threads' messages before it answers either, so rank 0's thread 1 must
 *     send while thread 0 still waits for its reply; rank 0 by hand sends
 *     thread 1's message alone and waits for its answer, then thread 0's
 *     (and the reverse order once), so rank 1's thread 1 must receive and
 *     answer while thread 0 still waits in its receive. Threads whose round
 *     trips ran one after another would leave the hand-played side waiting:
 *     it gives up after 5 s, reports it and aborts. Both sides validate.
 * test_ops_run checks the refusal under plain MPI_Init (MPI_THREAD_SINGLE).
 * If the library does not provide MPI_THREAD_MULTIPLE here, the refusal
 * naming the level provided is checked instead and the rest is skipped.
 * Runs at 2 and 3 processes (rank 2 only joins).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/ops.h"
#include "check.h"

static int rank, size;
static MPI_Comm comm;
static const isochron_op_t *op;

static int setup(isochron_op_ctx_t *c, size_t bytes, MPI_Datatype dt, int threads)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->bytes = bytes;
    c->dtype = dt;
    c->threads = threads;
    return isochron_op_setup(op, c);
}

static int rep(isochron_op_ctx_t *c, int k)
{
    c->rep = k;
    int rc = op->prepare(c);
    return rc ? rc : op->run(c);
}

/* Thread t's tag (ISOCHRON_TAG_THREAD + t, src/ops/ops_impl.h). */
#define TAG_THREAD 0x1600
#define OVERLAP_WAIT 5.0

/* Wait for the requests with a deadline; on expiry the other side's threads are stuck in MPI: abort. */
static void wait_or_abort(int n, MPI_Request *r, const char *what)
{
    double t0 = MPI_Wtime();
    int flag = 0;
    while (MPI_Testall(n, r, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && !flag)
        if (MPI_Wtime() - t0 > OVERLAP_WAIT) {
            CHECK(0, "rank %d: %s did not come within %.0f s: the other rank's threads ran one after another", rank, what,
                  OVERLAP_WAIT);
            check_report("test_ops_threads");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void overlap(isochron_op_ctx_t *c)
{
    int before = check_failures;
    /* round 0: rank 0 runs the operation; rounds 1 and 2: rank 1 does, thread 1's message first, then thread 0's first */
    for (int round = 0; round < 3; round++) {
        if (setup(c, 8, MPI_BYTE, 2) != ISOCHRON_OK) {
            CHECK(0, "rank %d: setup 2 threads: %s", rank, isochron_last_error());
            return;
        }
        size_t per = c->bytes;
        char *s = c->sbuf, *r = c->rbuf;
        int runs = round == 0 ? 0 : 1, peer = 1 - rank;
        if (rank == runs || rank > 1) { /* rank 2 only joins */
            CHECK_RC(rep(c, round), ISOCHRON_OK, "rank %d: overlap round %d run", rank, round);
        } else {
            c->rep = round;
            CHECK_RC(op->prepare(c), ISOCHRON_OK, "rank %d: prepare (fills this rank's messages)", rank);
            if (rank == 1) { /* both messages before either answer */
                MPI_Request q[2];
                for (int t = 0; t < 2; t++) MPI_Irecv(r + t * per, (int)per, MPI_BYTE, peer, TAG_THREAD + t, comm, &q[t]);
                wait_or_abort(2, q, "thread 1's message while thread 0 waited for its answer (rank 0)");
                for (int t = 1; t >= 0; t--) MPI_Send(s + t * per, (int)per, MPI_BYTE, peer, TAG_THREAD + t, comm);
            } else { /* one thread's round trip, alone, then the other's */
                int first = round == 1 ? 1 : 0;
                for (int k = 0; k < 2; k++) {
                    int t = k ? 1 - first : first;
                    MPI_Request q;
                    MPI_Irecv(r + t * per, (int)per, MPI_BYTE, peer, TAG_THREAD + t, comm, &q);
                    MPI_Send(s + t * per, (int)per, MPI_BYTE, peer, TAG_THREAD + t, comm);
                    char what[96];
                    snprintf(what, sizeof what, "thread %d's answer while thread %d waited in its receive (rank 1)", t, 1 - t);
                    wait_or_abort(1, &q, k ? "the second answer" : what);
                }
            }
        }
        CHECK_RC(op->validate(c), ISOCHRON_OK, "rank %d: overlap round %d validates", rank, round);
        isochron_op_teardown(op, c);
    }
    if (rank == 0)
        printf("%s latency_mt: the 2 threads' round trips overlap in time on rank 0 and on rank 1\n",
               check_failures == before ? "ok  " : "FAIL");
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    check_quiet = 1;
    isochron_ops_t *ops = NULL;
    CHECK_RC(isochron_ops_create(&ops), ISOCHRON_OK, "create registry");
    CHECK_RC(isochron_ops_find(ops, "latency_mt", &op), ISOCHRON_OK, "latency_mt is registered");
    if (!op) return check_report("test_ops_threads");
    CHECK(op->flags & ISOCHRON_OP_THREADED, "latency_mt is flagged threaded");
    isochron_op_ctx_t c;

    if (provided != MPI_THREAD_MULTIPLE) {
        int rc = setup(&c, 8, MPI_BYTE, 2);
        CHECK(rc == ISOCHRON_EUNSUPPORTED && strstr(isochron_last_error(), "MPI_THREAD_MULTIPLE") &&
                  strstr(isochron_last_error(), "provides MPI_THREAD_"),
              "rank %d: refused naming the level provided: %s", rank, isochron_last_error());
        if (rank == 0) printf("skip: this MPI library provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
        goto done;
    }

    /* 1 */
    static const size_t sizes[] = { 0, 1003, 65536 };
    static const char *types[] = { "byte", "double" };
    static const int nthreads[] = { 1, 2, 4 };
    int before = check_failures, points = 0;
    double t0 = MPI_Wtime();
    for (int t = 0; t < 3; t++)
        for (size_t s = 0; s < 3; s++)
            for (int d = 0; d < 2; d++) {
                MPI_Datatype dt;
                int ts;
                isochron_op_dtype_find(types[d], &dt, &ts);
                size_t bytes = sizes[s] - sizes[s] % (size_t)ts;
                int rc = setup(&c, bytes, dt, nthreads[t]);
                CHECK_RC(rc, ISOCHRON_OK, "rank %d: setup %d threads %zu B %s", rank, nthreads[t], bytes, types[d]);
                if (rc) continue;
                CHECK(c.threads == nthreads[t], "rank %d: ctx keeps %d threads", rank, nthreads[t]);
                for (int k = 0; k < 3; k++) {
                    CHECK_RC(rep(&c, k), ISOCHRON_OK, "rank %d: run %d threads %zu B %s rep %d", rank, nthreads[t], bytes,
                             types[d], k);
                    CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: validate %d threads %zu B %s rep %d", rank,
                             nthreads[t], bytes, types[d], k);
                }
                /* a run right after a run: no prepare armed the workers */
                CHECK_RC(op->run(&c), ISOCHRON_OK, "rank %d: run again without prepare, %d threads", rank, nthreads[t]);
                CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: validates after it", rank);
                isochron_op_teardown(op, &c);
                CHECK(c.sbuf == NULL && c.rbuf == NULL && c.state == NULL, "rank %d: teardown cleared", rank);
                points++;
            }
    if (rank == 0)
        printf("%s latency_mt: %d points (threads 1, 2, 4 x 3 sizes x 2 types) run and validate (%.2f s)\n",
               check_failures == before ? "ok  " : "FAIL", points, MPI_Wtime() - t0);

    /* default */
    if (setup(&c, 8, MPI_BYTE, 0) == ISOCHRON_OK) {
        CHECK(c.threads == ISOCHRON_OP_THREADS_DEFAULT, "rank %d: threads 0 becomes the default %d (got %d)", rank,
              ISOCHRON_OP_THREADS_DEFAULT, c.threads);
        isochron_op_teardown(op, &c);
    } else
        CHECK(0, "rank %d: setup with the default threads: %s", rank, isochron_last_error());

    /* 2: corruption of one element, then crossed threads */
    before = check_failures;
    if (setup(&c, 1000, MPI_INT, 2) == ISOCHRON_OK) {
        size_t n = c.count;
        CHECK_RC(rep(&c, 0), ISOCHRON_OK, "rank %d: corruption run", rank);
        if (rank == 0) ((int *)c.rbuf)[2 * n - 1] += 1; /* last element of thread 1's message */
        int rc = op->validate(&c);
        if (rank == 0) {
            char elem[48];
            snprintf(elem, sizeof elem, "element %zu", 2 * n - 1);
            const char *m = isochron_last_error();
            CHECK(rc == ISOCHRON_EVALIDATE && strstr(m, "latency_mt") && strstr(m, "rank 0") && strstr(m, elem) &&
                      strstr(m, "thread 1") && strstr(m, "1 of"),
                  "rank 0: a changed element of thread 1's message is caught and named: %s", m);
        } else
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: untouched data validates", rank);
        CHECK_RC(rep(&c, 1), ISOCHRON_OK, "rank %d: crossed run", rank);
        if (rank == 1) { /* thread 0's and thread 1's messages swapped (250 ints each) */
            int *r = c.rbuf;
            for (size_t e = 0; e < n; e++) {
                int x = r[e];
                r[e] = r[n + e];
                r[n + e] = x;
            }
        }
        rc = op->validate(&c);
        if (rank == 1)
            CHECK(rc == ISOCHRON_EVALIDATE && strstr(isochron_last_error(), "thread 0") &&
                      strstr(isochron_last_error(), "500 of 500"),
                  "rank 1: messages delivered to the wrong threads are caught: %s", isochron_last_error());
        else
            CHECK_RC(rc, ISOCHRON_OK, "rank %d: untouched data validates", rank);

        /* 3: stale and missing */
        CHECK_RC(rep(&c, 2), ISOCHRON_OK, "rank %d: run", rank);
        CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: validates", rank);
        c.rep = 3;
        int bad = op->validate(&c) == ISOCHRON_EVALIDATE, nbad = 0;
        MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, comm);
        CHECK(nbad == 2, "rank %d: stale data caught on ranks 0 and 1 (%d ranks)", rank, nbad);
        c.rep = 4;
        CHECK_RC(op->prepare(&c), ISOCHRON_OK, "rank %d: prepare", rank);
        bad = op->validate(&c) == ISOCHRON_EVALIDATE;
        MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, comm);
        CHECK(nbad == 2, "rank %d: a missing run is caught on ranks 0 and 1 (%d ranks)", rank, nbad);
        CHECK_RC(op->run(&c), ISOCHRON_OK, "rank %d: run after all", rank);
        CHECK_RC(op->validate(&c), ISOCHRON_OK, "rank %d: and validates", rank);
        isochron_op_teardown(op, &c);
    } else
        CHECK(0, "rank %d: setup 1000 B int: %s", rank, isochron_last_error());
    if (rank == 0)
        printf("%s latency_mt: corrupted, crossed, stale and missing data caught\n", check_failures == before ? "ok  " : "FAIL");

    /* 4 */
    static const int badt[] = { -1, ISOCHRON_OP_THREADS_MAX + 1 };
    for (int i = 0; i < 2; i++) {
        int rc = setup(&c, 8, MPI_BYTE, badt[i]);
        CHECK(rc == ISOCHRON_EINVAL && strstr(isochron_last_error(), "1..64"), "rank %d: %d threads refused: %s", rank,
              badt[i], isochron_last_error());
        if (rc == ISOCHRON_OK) isochron_op_teardown(op, &c);
    }

    /* 5 */
    overlap(&c);

done:
    isochron_ops_destroy(ops);
    int rc = check_report("test_ops_threads");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return rc;
}
