/*
 * Bidirectional one-sided bandwidth, osu_put_bibw's idea (and the same for
 * get, which OSU measures only one way, osu_get_bw): ranks 0 and 1 each
 * access the other's window with a window of W = ctx->window puts (gets) at
 * once, message j at displacement j*n of the target window (MPI-3.1 ch. 11),
 * inside one synchronization epoch:
 *   *_fence    MPI_Win_fence, the W accesses, MPI_Win_fence (OSU's -s fence;
 *              collective: the ranks outside the pair join both fences);
 *   *_pscw     post/start to the peer, the W accesses, complete/wait (OSU's
 *              default for osu_put_bibw; ranks outside the pair do nothing);
 *   *_lockall  MPI_Win_lock_all, the W accesses, MPI_Win_flush of the peer,
 *              MPI_Win_unlock_all (passive target; both ranks are origins at
 *              once, which OSU's bibw does not offer, as its lock modes time
 *              one origin).
 * One way (osu_put_bw, osu_get_bw): put_bw_* and get_bw_*, rank 0 the only
 * origin, rank 1 the target (passive under lock_all; its post/wait under
 * PSCW, its fences under fence), moved() W bytes and W messages.
 * One run = one epoch: moved() gives 2 W bytes and 2 W messages, so the
 * reporters turn the time of each epoch into B/s (OSU divides the bytes of all
 * its iterations by their total time: a mean, where this reports the median
 * epoch with its CI). Every message has its own source slot (elements j*n ..
 * j*n+n-1 of the rank's movement pattern, pattern.c) and its own target
 * slot, so validation checks each element of each message and a message put
 * at the wrong displacement is caught. Synchronization of the window contents
 * outside the timed part follows kind.c: under lock_all, prepare writes the
 * local window inside an exclusive self-lock between two barriers, and put's
 * validate reads it under a shared self-lock after a barrier.
 * The engine prepares one-sided operations before every epoch (for their
 * locks and barriers); before an epoch that is not validated it sets
 * c->no_fill and prepare leaves the source and target buffers as they are,
 * as the other operations' buffers are between unvalidated repetitions.
 * Rewriting them every time (2 x W x n bytes, the target's by its owner)
 * made each epoch's puts write into lines dirty in the other core's cache:
 * put_bibw_pscw at 1 KiB, 2 ranks, ran at about 0.39x OSU's osu_put_bibw,
 * and at about 0.89x without the rewrite (bench/peers.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

typedef struct {
    isochron_ops_state_t base; /* first: ISOCHRON_OPS_ST works; base.win_base is the window memory */
    int get, alg;              /* alg: ALG_FENCE, ALG_PSCW, ALG_LOCKALL */
    int uni;                   /* one way: rank 0 the only origin (put_bw_*, get_bw_*) */
    int peer, w;               /* peer -1: outside the pair */
    MPI_Group gpeer;
} rbw_t;

#define RST(c) ((rbw_t *)(c)->state)

static int window_of(const isochron_op_ctx_t *c) { return c->window > 0 ? c->window : ISOCHRON_OP_WINDOW_DEFAULT; }

/* Ranks 0 and 1: W messages of source (put) or destination (get) and a window of W messages. */
static size_t memory_rbw(const isochron_op_ctx_t *c)
{
    size_t per = c->count * (size_t)c->dtype_size, w2 = 2 * (size_t)window_of(c);
    if (per && w2 > SIZE_MAX / per) return SIZE_MAX;
    return per * w2 + 64;
}

static double moved_rbw(const isochron_op_ctx_t *c, double *msgs)
{
    double m = (RST(c)->uni ? 1.0 : 2.0) * window_of(c);
    if (msgs) *msgs = m;
    return m * (double)c->bytes;
}

static void teardown_rbw(isochron_op_ctx_t *c)
{
    rbw_t *st = RST(c);
    if (c->win != MPI_WIN_NULL) MPI_Win_free(&c->win);
    if (st && st->gpeer != MPI_GROUP_NULL) MPI_Group_free(&st->gpeer);
    free(c->sbuf);
    if (st && st->get) free(c->rbuf); /* put: rbuf is the window */
    free(st);
    c->sbuf = c->rbuf = NULL;
    c->state = NULL;
    c->win = MPI_WIN_NULL;
}

static int setup_rbw(isochron_op_ctx_t *c, const char *name, int get, int alg, int uni)
{
    rbw_t init = { .get = get, .alg = alg, .uni = uni, .peer = c->rank < 2 ? 1 - c->rank : -1, .w = window_of(c),
                   .gpeer = MPI_GROUP_NULL };
    int rc = isochron_ops_state_new(c, &init, sizeof init, name);
    if (rc) return rc;
    rbw_t *st = c->state;
    size_t per = c->count * (size_t)c->dtype_size, total = st->peer >= 0 ? per * (size_t)st->w : 0;
    if (st->peer >= 0) {
        if (get) c->rbuf = isochron_ops_alloc(total);
        else c->sbuf = isochron_ops_alloc(total);
        if (!(get ? c->rbuf : c->sbuf))
            rc = isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate %zu bytes on rank %d", name, total, c->rank);
    }
    /* the window is collective: agree first so no rank waits for one that failed */
    int all = rc;
    if (isochron_allreduce_polite(&rc, &all, 1, MPI_INT, MPI_MIN, c->comm) != ISOCHRON_OK)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Iallreduce failed in set-up", name);
    if (all != ISOCHRON_OK) return rc != ISOCHRON_OK ? rc : isochron_set_error(all, "%s: set-up failed on another rank", name);
    void *base = NULL;
    size_t wbytes = (total + 63) / 64 * 64; /* padded as in kind.c (MPICH 4.0 shared-memory windows); never 0 */
    if (wbytes == 0) wbytes = 64;
    if ((rc = isochron_ops_win_allocate(name, c, wbytes, c->dtype_size, &base, &c->win))) return rc;
    st->base.win_base = base;
    if (!get) c->rbuf = base; /* data arrives in the window */
    c->rbuf_bytes = total;
    c->sbuf_bytes = get ? 0 : total;
    if (alg == ALG_PSCW && st->peer >= 0) {
        MPI_Group g;
        MPI_Comm_group(c->comm, &g);
        MPI_Group_incl(g, 1, &st->peer, &st->gpeer);
        MPI_Group_free(&g);
    }
    return ISOCHRON_OK;
}

static int self_lock(isochron_op_ctx_t *c, int type)
{
    if (MPI_Win_lock(type, c->rank, 0, c->win) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Win_lock on itself failed on rank %d", RST(c)->base.name, c->rank);
    return ISOCHRON_OK;
}

static int self_unlock(isochron_op_ctx_t *c)
{
    if (MPI_Win_unlock(c->rank, c->win) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Win_unlock on itself failed on rank %d", RST(c)->base.name, c->rank);
    return ISOCHRON_OK;
}

static int prepare_rbw(isochron_op_ctx_t *c)
{
    rbw_t *st = RST(c);
    int rc, lk = st->alg == ALG_LOCKALL;
    size_t wn = (size_t)st->w * c->count;
    /* passive target: nobody accesses a window while its owner writes it */
    if (lk && ((rc = isochron_barrier_polite(c->comm)) || (rc = self_lock(c, MPI_LOCK_EXCLUSIVE)))) return rc;
    if (st->peer >= 0 && !c->no_fill) {
        if (st->get) {
            isochron_ops_fill_mv(st->base.win_base, st->base.tk, c->rank, 0, wn, c->rep);
            isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        } else {
            isochron_ops_fill_mv(c->sbuf, st->base.tk, c->rank, 0, wn, c->rep);
            isochron_ops_poison(st->base.win_base, c->rbuf_bytes);
        }
    }
    if (lk && ((rc = self_unlock(c)) || (rc = isochron_barrier_polite(c->comm)))) return rc;
    return ISOCHRON_OK;
}

static int validate_rbw(isochron_op_ctx_t *c)
{
    rbw_t *st = RST(c);
    int rc, lk = st->alg == ALG_LOCKALL && !st->get;
    /* put under lock_all: the peer's unlock_all completed its puts here once it reached the barrier */
    if (lk && ((rc = isochron_barrier_polite(c->comm)) || (rc = self_lock(c, MPI_LOCK_SHARED)))) return rc;
    isochron_ops_vstate_t v;
    memset(&v, 0, sizeof v);
    size_t n = c->count;
    /* one way: data arrives at rank 1 (put) or rank 0 (get) only */
    int receives = st->peer >= 0 && !(st->uni && c->rank == (st->get ? 1 : 0));
    if (receives)
        isochron_ops_vblock(&v, c->rbuf, 0, (size_t)st->w * n, st->base.tk, st->peer, 0, c->rep);
    if (lk && (rc = self_unlock(c))) return rc;
    if (!v.bad) return ISOCHRON_OK;
    return isochron_set_error(ISOCHRON_EVALIDATE,
                              "%s: wrong data on rank %d, element %zu (message %zu of the window, %s rank %d): expected %lld, "
                              "got %s (%s, %zu bytes, window %d, repetition %d; %zu of %zu elements wrong)",
                              st->base.name, c->rank, v.first, n ? v.first / n : 0, st->get ? "got from" : "put by", v.from,
                              v.expected, v.got, isochron_op_dtype_name(c->dtype), c->bytes, st->w, c->rep, v.bad, v.total);
}

/* The W accesses of this rank to its peer. */
static int accesses(isochron_op_ctx_t *c, rbw_t *st)
{
    size_t per = c->count * (size_t)c->dtype_size;
    int n = (int)c->count;
    for (int j = 0; j < st->w; j++) {
        MPI_Aint disp = (MPI_Aint)j * n;
        if (st->get)
            ISOCHRON_OPS_MPI(MPI_Get((char *)c->rbuf + (size_t)j * per, n, c->dtype, st->peer, disp, n, c->dtype, c->win), c,
                             "MPI_Get");
        else
            ISOCHRON_OPS_MPI(MPI_Put((char *)c->sbuf + (size_t)j * per, n, c->dtype, st->peer, disp, n, c->dtype, c->win), c,
                             "MPI_Put");
    }
    return ISOCHRON_OK;
}

static int run_rbw(isochron_op_ctx_t *c)
{
    rbw_t *st = RST(c);
    int rc, origin = st->peer >= 0 && !(st->uni && c->rank != 0), target = st->peer >= 0 && !(st->uni && c->rank == 0);
    switch (st->alg) {
    case ALG_FENCE:
        ISOCHRON_OPS_MPI(MPI_Win_fence(0, c->win), c, "MPI_Win_fence");
        if (origin && (rc = accesses(c, st))) return rc;
        ISOCHRON_OPS_MPI(MPI_Win_fence(0, c->win), c, "MPI_Win_fence");
        break;
    case ALG_PSCW:
        if (target) ISOCHRON_OPS_MPI(MPI_Win_post(st->gpeer, 0, c->win), c, "MPI_Win_post");
        if (origin) {
            ISOCHRON_OPS_MPI(MPI_Win_start(st->gpeer, 0, c->win), c, "MPI_Win_start");
            if ((rc = accesses(c, st))) return rc;
            ISOCHRON_OPS_MPI(MPI_Win_complete(c->win), c, "MPI_Win_complete");
        }
        if (target) ISOCHRON_OPS_MPI(MPI_Win_wait(c->win), c, "MPI_Win_wait");
        break;
    default: /* ALG_LOCKALL */
        if (!origin) break;
        ISOCHRON_OPS_MPI(MPI_Win_lock_all(0, c->win), c, "MPI_Win_lock_all");
        if ((rc = accesses(c, st))) return rc;
        ISOCHRON_OPS_MPI(MPI_Win_flush(st->peer, c->win), c, "MPI_Win_flush");
        ISOCHRON_OPS_MPI(MPI_Win_unlock_all(c->win), c, "MPI_Win_unlock_all");
        break;
    }
    return ISOCHRON_OK;
}

/* Each of the four (put or get, both ways or one) in the three synchronizations. */
#define RBW(id, get, alg, uni) \
    static int setup_##id(isochron_op_ctx_t *c) { return setup_rbw(c, #id, get, alg, uni); }
#define RBW3(base, get, uni)                   \
    RBW(base##_fence, get, ALG_FENCE, uni)     \
    RBW(base##_pscw, get, ALG_PSCW, uni)       \
    RBW(base##_lockall, get, ALG_LOCKALL, uni)
RBW3(put_bibw, 0, 0)
RBW3(get_bibw, 1, 0)
RBW3(put_bw, 0, 1)
RBW3(get_bw, 1, 1)

#define F_RBW (ISOCHRON_OP_RMA | ISOCHRON_OP_MIN2 | ISOCHRON_OP_PAIR | ISOCHRON_OP_WINDOWED)
#define DESCF(id, fam, desc, fl) \
    { #id, fam, desc, F_RBW | (fl), setup_##id, prepare_rbw, run_rbw, NULL, NULL, validate_rbw, teardown_rbw, memory_rbw, moved_rbw, NULL }
#define DESC(id, fam, desc) DESCF(id, fam, desc, 0)
/* fence and PSCW: active target, never looped by --timing auto (ISOCHRON_OP_ACTIVE_TARGET) */
#define DESC_ACT(id, fam, desc) DESCF(id, fam, desc, ISOCHRON_OP_ACTIVE_TARGET)

static const isochron_op_t rmabw_ops[] = {
    DESC_ACT(put_bibw_fence, "put_bibw", "ranks 0 and 1 each MPI_Put a window of --msg-window messages to the other between two "
         "MPI_Win_fence (osu_put_bibw -s fence); B/s"),
    DESC_ACT(put_bibw_pscw, "put_bibw", "ranks 0 and 1 each MPI_Put a window of --msg-window messages to the other in a "
         "post/start/complete/wait epoch (osu_put_bibw's default); B/s"),
    DESC(put_bibw_lockall, "put_bibw", "ranks 0 and 1 each MPI_Put a window of --msg-window messages to the other under "
         "lock_all, flush, unlock_all; B/s"),
    DESC_ACT(get_bibw_fence, "get_bibw", "ranks 0 and 1 each MPI_Get a window of --msg-window messages from the other between two "
         "MPI_Win_fence; B/s"),
    DESC_ACT(get_bibw_pscw, "get_bibw", "ranks 0 and 1 each MPI_Get a window of --msg-window messages from the other in a "
         "post/start/complete/wait epoch; B/s"),
    DESC(get_bibw_lockall, "get_bibw", "ranks 0 and 1 each MPI_Get a window of --msg-window messages from the other under "
         "lock_all, flush, unlock_all; B/s"),
    DESC_ACT(put_bw_fence, "put_bw", "rank 0 MPI_Puts a window of --msg-window messages to rank 1 between two MPI_Win_fence (osu_put_bw -s fence); B/s"),
    DESC_ACT(put_bw_pscw, "put_bw", "rank 0 MPI_Puts a window of --msg-window messages to rank 1 in a start/complete epoch, rank 1 post/wait (osu_put_bw -s pscw); B/s"),
    DESC(put_bw_lockall, "put_bw", "rank 0 MPI_Puts a window of --msg-window messages to rank 1 under lock_all, flush, unlock_all (osu_put_bw -s flush, the epoch inside the time); B/s"),
    DESC_ACT(get_bw_fence, "get_bw", "rank 0 MPI_Gets a window of --msg-window messages from rank 1 between two MPI_Win_fence (osu_get_bw -s fence); B/s"),
    DESC_ACT(get_bw_pscw, "get_bw", "rank 0 MPI_Gets a window of --msg-window messages from rank 1 in a start/complete epoch, rank 1 post/wait (osu_get_bw -s pscw); B/s"),
    DESC(get_bw_lockall, "get_bw", "rank 0 MPI_Gets a window of --msg-window messages from rank 1 under lock_all, flush, unlock_all (osu_get_bw -s flush, the epoch inside the time); B/s"),
};

const isochron_op_t *isochron_ops_builtin_rmabw(int *n)
{
    *n = (int)(sizeof rmabw_ops / sizeof rmabw_ops[0]);
    return rmabw_ops;
}
