/*
 * Thread-multiple latency: osu_latency_mt's question (what does a round trip
 * cost when several threads of a process call MPI at the same time, MPI-3.1
 * sec. 12.4 MPI_THREAD_MULTIPLE) measured isochron's way.
 *   latency_mt  T threads on rank 0 and T on rank 1 (ctx->threads, recorded
 *               in the result); thread t of rank 0 pairs with thread t of
 *               rank 1 on its own tag (ISOCHRON_TAG_THREAD + t): MPI_Send +
 *               MPI_Recv against MPI_Recv + MPI_Send. One run = all T round
 *               trips at once, from the release of the threads to the last
 *               one's return, so the result is the time of T concurrent
 *               round trips (T = 1: a ping-pong under MPI_THREAD_MULTIPLE,
 *               i.e. what the library's thread safety costs one thread).
 * OSU differs in three ways: it times a loop of iterations split among its
 * threads and divides the summed time by twice the iterations per thread
 * (a one-way figure), its default is 1 sender thread against 2 receiver
 * threads sharing tags, and its threads run unsynchronised. Here each run
 * starts all threads of both ranks on the engine's schedule (the scheme and
 * method of the global clock time it like any pair operation), and every
 * thread's message is validated: thread t sends elements t*n .. t*n+n-1 of
 * its rank's movement pattern (pattern.c), so a message delivered to the
 * wrong thread is caught, not only a corrupted one.
 * Threads: T - 1 workers are created in set-up and joined in teardown (the
 * caller's thread is thread 0), never per run. Between runs they sleep on a
 * condition variable; prepare (not timed) wakes them into a yielding spin,
 * so run releases them with one atomic increment instead of a futex wake,
 * and run's end puts them back to sleep, so they do not compete with the
 * clock synchronisation and validation in between. Ranks other than 0 and 1
 * return from run at once. Set-up (setup.c) refuses with EUNSUPPORTED,
 * naming the level provided, unless MPI_Query_thread gives
 * MPI_THREAD_MULTIPLE.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

typedef struct lmt lmt_t;

typedef struct {
    lmt_t *L;
    int t;          /* 1 .. T-1; the caller's thread is 0 */
    int rc;         /* of its last round trip */
    char err[512];  /* its message (errors are thread-local) */
    pthread_t tid;
} worker_t;

struct lmt {
    isochron_ops_state_t base; /* first: ISOCHRON_OPS_ST works */
    isochron_op_ctx_t *c;      /* set by run before the release */
    int nthreads, peer;        /* peer -1: not in the pair */
    worker_t *w;
    int nworkers;              /* started */
    int sync_ok;               /* mu and cv initialised */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_uint gen;           /* run bumps it: one round trip per worker */
    atomic_int armed;          /* prepare sets it: workers spin (yielding) instead of sleeping */
    atomic_int stop;
    atomic_int done;           /* workers done with the current generation */
};

#define LST(c) ((lmt_t *)(c)->state)

static int nthreads_of(const isochron_op_ctx_t *c) { return c->threads > 0 ? c->threads : ISOCHRON_OP_THREADS_DEFAULT; }

/* Ranks 0 and 1: T messages to send and T slots to receive into. */
static size_t memory_latency_mt(const isochron_op_ctx_t *c)
{
    size_t per = c->count * (size_t)c->dtype_size, t2 = 2 * (size_t)nthreads_of(c);
    if (per && t2 > SIZE_MAX / per) return SIZE_MAX;
    return per * t2;
}

/* Thread t's round trip with thread t of the other rank. */
static int round_trip(isochron_op_ctx_t *c, int peer, int t)
{
    size_t per = c->count * (size_t)c->dtype_size;
    char *s = (char *)c->sbuf + (size_t)t * per, *r = (char *)c->rbuf + (size_t)t * per;
    int n = (int)c->count, tag = ISOCHRON_TAG_THREAD + t;
    if (c->rank == 0) {
        ISOCHRON_OPS_MPI(MPI_Send(s, n, c->dtype, peer, tag, c->comm), c, "MPI_Send");
        ISOCHRON_OPS_MPI(MPI_Recv(r, n, c->dtype, peer, tag, c->comm, MPI_STATUS_IGNORE), c, "MPI_Recv");
    } else {
        ISOCHRON_OPS_MPI(MPI_Recv(r, n, c->dtype, peer, tag, c->comm, MPI_STATUS_IGNORE), c, "MPI_Recv");
        ISOCHRON_OPS_MPI(MPI_Send(s, n, c->dtype, peer, tag, c->comm), c, "MPI_Send");
    }
    return ISOCHRON_OK;
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    lmt_t *L = w->L;
    unsigned seen = 0;
    for (;;) {
        unsigned g;
        for (;;) {
            g = atomic_load_explicit(&L->gen, memory_order_acquire);
            if (g != seen || atomic_load(&L->stop)) break;
            if (atomic_load(&L->armed)) {
                sched_yield();
                continue;
            }
            pthread_mutex_lock(&L->mu);
            while (atomic_load(&L->gen) == seen && !atomic_load(&L->armed) && !atomic_load(&L->stop))
                pthread_cond_wait(&L->cv, &L->mu);
            pthread_mutex_unlock(&L->mu);
        }
        if (g == seen) break; /* stop */
        seen = g;
        w->rc = round_trip(L->c, L->peer, w->t);
        if (w->rc) snprintf(w->err, sizeof w->err, "%s (thread %d)", isochron_last_error(), w->t);
        atomic_fetch_add_explicit(&L->done, 1, memory_order_release);
    }
    return NULL;
}

static void teardown_latency_mt(isochron_op_ctx_t *c)
{
    lmt_t *L = LST(c);
    if (L && L->sync_ok) {
        pthread_mutex_lock(&L->mu);
        atomic_store(&L->stop, 1);
        pthread_cond_broadcast(&L->cv);
        pthread_mutex_unlock(&L->mu);
        for (int i = 0; i < L->nworkers; i++) pthread_join(L->w[i].tid, NULL);
        pthread_cond_destroy(&L->cv);
        pthread_mutex_destroy(&L->mu);
    }
    if (L) free(L->w);
    free(c->sbuf);
    free(c->rbuf);
    free(L);
    c->sbuf = c->rbuf = NULL;
    c->state = NULL;
}

static int setup_latency_mt(isochron_op_ctx_t *c)
{
    lmt_t init = { .nthreads = nthreads_of(c), .peer = c->rank < 2 ? 1 - c->rank : -1 };
    int rc = isochron_ops_state_new(c, &init, sizeof init, "latency_mt");
    if (rc) return rc;
    lmt_t *L = c->state;
    if (L->peer < 0) return ISOCHRON_OK;
    size_t total = memory_latency_mt(c) / 2; /* setup.c checked it against the memory available */
    c->sbuf_bytes = c->rbuf_bytes = total;
    c->sbuf = isochron_ops_alloc(total);
    c->rbuf = isochron_ops_alloc(total);
    L->w = calloc((size_t)L->nthreads, sizeof *L->w);
    if (!c->sbuf || !c->rbuf || !L->w)
        return isochron_set_error(ISOCHRON_ENOMEM, "latency_mt: cannot allocate 2 x %zu bytes for %d threads on rank %d",
                                  total, L->nthreads, c->rank);
    if (pthread_mutex_init(&L->mu, NULL)) return isochron_set_error(ISOCHRON_ENOMEM, "latency_mt: pthread_mutex_init failed");
    if (pthread_cond_init(&L->cv, NULL)) {
        pthread_mutex_destroy(&L->mu);
        return isochron_set_error(ISOCHRON_ENOMEM, "latency_mt: pthread_cond_init failed");
    }
    L->sync_ok = 1;
    for (int i = 0; i < L->nthreads - 1; i++) {
        worker_t *w = &L->w[i];
        w->L = L;
        w->t = i + 1;
        int e = pthread_create(&w->tid, NULL, worker_main, w);
        if (e)
            return isochron_set_error(e == EAGAIN ? ISOCHRON_ENOMEM : ISOCHRON_EUNSUPPORTED,
                                      "latency_mt: cannot start thread %d of %d on rank %d: %s", i + 1, L->nthreads,
                                      c->rank, strerror(e));
        L->nworkers++;
    }
    return ISOCHRON_OK;
}

static int prepare_latency_mt(isochron_op_ctx_t *c)
{
    lmt_t *L = LST(c);
    if (L->peer < 0) return ISOCHRON_OK;
    isochron_ops_poison(c->rbuf, c->rbuf_bytes);
    isochron_ops_fill_mv(c->sbuf, L->base.tk, c->rank, 0, (size_t)L->nthreads * c->count, c->rep);
    if (L->nworkers) { /* wake the workers into their spin: run releases them without a futex wake */
        pthread_mutex_lock(&L->mu);
        atomic_store(&L->armed, 1);
        pthread_cond_broadcast(&L->cv);
        pthread_mutex_unlock(&L->mu);
    }
    return ISOCHRON_OK;
}

static int run_latency_mt(isochron_op_ctx_t *c)
{
    lmt_t *L = LST(c);
    if (L->peer < 0) return ISOCHRON_OK;
    int nw = L->nworkers;
    if (nw) {
        L->c = c;
        atomic_store_explicit(&L->done, 0, memory_order_relaxed);
        if (atomic_load(&L->armed)) {
            /* every worker spins on gen or is leaving its wait (prepare's broadcast): no wake-up needed */
            atomic_fetch_add_explicit(&L->gen, 1, memory_order_release);
        } else { /* run without prepare: wake them */
            pthread_mutex_lock(&L->mu);
            atomic_fetch_add_explicit(&L->gen, 1, memory_order_release);
            pthread_cond_broadcast(&L->cv);
            pthread_mutex_unlock(&L->mu);
        }
    }
    int rc = round_trip(c, L->peer, 0);
    while (atomic_load_explicit(&L->done, memory_order_acquire) < nw) sched_yield();
    atomic_store(&L->armed, 0); /* back to sleep until the next prepare */
    if (rc) return rc;
    for (int i = 0; i < nw; i++)
        if (L->w[i].rc) return isochron_set_error(L->w[i].rc, "%s", L->w[i].err);
    return ISOCHRON_OK;
}

static int validate_latency_mt(isochron_op_ctx_t *c)
{
    lmt_t *L = LST(c);
    if (L->peer < 0) return ISOCHRON_OK;
    size_t n = c->count;
    isochron_ops_vstate_t v;
    memset(&v, 0, sizeof v);
    for (int t = 0; t < L->nthreads; t++)
        isochron_ops_vblock(&v, c->rbuf, (size_t)t * n, n, L->base.tk, L->peer, (size_t)t * n, c->rep);
    if (!v.bad) return ISOCHRON_OK;
    return isochron_set_error(ISOCHRON_EVALIDATE,
                              "latency_mt: wrong data on rank %d, element %zu (thread %zu's message from rank %d): expected "
                              "%lld, got %s (%s, %zu bytes, %d threads, repetition %d; %zu of %zu elements wrong)",
                              c->rank, v.first, n ? v.first / n : 0, v.from, v.expected, v.got,
                              isochron_op_dtype_name(c->dtype), c->bytes, L->nthreads, c->rep, v.bad, v.total);
}

static const isochron_op_t thread_ops[] = {
    { "latency_mt", "latency_mt",
      "--threads T threads on ranks 0 and 1, thread t <-> thread t Send/Recv round trips all at once (osu_latency_mt; "
      "needs MPI_THREAD_MULTIPLE)",
      ISOCHRON_OP_P2P | ISOCHRON_OP_MIN2 | ISOCHRON_OP_PAIR | ISOCHRON_OP_THREADED, setup_latency_mt, prepare_latency_mt,
      run_latency_mt, NULL, NULL, validate_latency_mt, teardown_latency_mt, memory_latency_mt, NULL, NULL },
};

const isochron_op_t *isochron_ops_builtin_thread(int *n)
{
    *n = (int)(sizeof thread_ops / sizeof thread_ops[0]);
    return thread_ops;
}
