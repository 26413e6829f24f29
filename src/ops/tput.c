/*
 * Throughput and multi-pair point-to-point operations, the ones OSU
 * Micro-Benchmarks (osu_bw, osu_bibw, osu_mbw_mr, osu_multi_lat,
 * osu_bw_fan_in/out) and IMB (Uniband, Biband, PingPing) measure:
 *   bw          rank 0 posts a window of W MPI_Isend to rank 1, which posts W
 *               MPI_Irecv; after both complete, rank 1 sends a zero-byte
 *               acknowledgement that rank 0 receives (osu_bw, IMB Uniband);
 *   bibw        ranks 0 and 1 each post W receives and W sends to the other
 *               and wait for all 2W (osu_bibw, IMB Biband; no acknowledgement);
 *   mbw_mr      p/2 pairs i -> i + p/2 at once, each a bw window + ack
 *               (osu_mbw_mr; with an odd p the last rank only joins);
 *   bw_fan_in   every rank r > 0 sends a window to rank 0, which acknowledges
 *               each sender once its (p-1) W receives completed;
 *   bw_fan_out  rank 0 sends a window to every rank r > 0, each acknowledges;
 *   pingping    ranks 0 and 1 each MPI_Isend to the other, MPI_Recv from it,
 *               wait for the send (IMB PingPing: one message time);
 *   multi_lat   p/2 pairs i <-> i + p/2 ping-pong at once (osu_multi_lat);
 *   bw_persistent  bw on persistent requests (osu_bw_persistent): the W
 *               MPI_Send_init / MPI_Recv_init requests are made once in set-up
 *               (not timed) and freed in teardown; one run = MPI_Startall of
 *               the window + MPI_Waitall, then the same ack as bw (a plain
 *               zero-byte message, as OSU's).
 * One run (one repetition of the engine) is one window with its ack, so the
 * engine's statistics are times per window; moved() gives the payload bytes
 * and messages of one window (all senders), and the reporters turn times
 * into bytes/s and messages/s (a monotone map: median rate = moved / median
 * time, the CI bounds swap). Unlike osu_bw, which times a loop of windows
 * and divides, every window here is timed on the global clock by the chosen
 * method, so its spread is visible.
 * Every message of a window lands in its own slot of the receive buffer
 * (OSU reuses one buffer for all W, which MPI leaves undefined), so
 * validation checks every element of every message; the sender's buffer
 * holds the movement pattern of its rank for the repetition (pattern.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

enum { T_BW, T_BIBW, T_MBW, T_FANIN, T_FANOUT, T_PINGPING, T_MULTILAT, T_BW_PERS };

typedef struct {
    isochron_ops_state_t base; /* first: ISOCHRON_OPS_ST works */
    int id, w;                 /* operation, messages per window and peer */
    int nsend, nrecv;          /* peers this rank sends windows to / receives windows from */
    int *sendto, *recvfrom;
    int ack;                   /* receivers acknowledge each sender after the window */
    MPI_Request *q;
    MPI_Status *sts;
    MPI_Request *pq;           /* bw_persistent: the window's requests, made once */
    int npq;
} tput_state_t;

#define TST(c) ((tput_state_t *)(c)->state)

static int window_of(int id, const isochron_op_ctx_t *c)
{
    if (id == T_PINGPING || id == T_MULTILAT) return 1;
    return c->window > 0 ? c->window : ISOCHRON_OP_WINDOW_DEFAULT;
}

/* Peers of rank r of p for operation id; arrays may be NULL (counts only). */
static void plan(int id, int p, int r, int *sendto, int *ns, int *recvfrom, int *nr)
{
    int h = p / 2;
    *ns = *nr = 0;
#define ADD(arr, n, v) do { if (arr) (arr)[*(n)] = (v); (*(n))++; } while (0)
    switch (id) {
    case T_BW: case T_BW_PERS:
        if (r == 0) ADD(sendto, ns, 1);
        if (r == 1) ADD(recvfrom, nr, 0);
        break;
    case T_BIBW: case T_PINGPING:
        if (r < 2) { ADD(sendto, ns, 1 - r); ADD(recvfrom, nr, 1 - r); }
        break;
    case T_MBW:
        if (r < h) ADD(sendto, ns, r + h);
        else if (r < 2 * h) ADD(recvfrom, nr, r - h);
        break;
    case T_MULTILAT:
        if (r < h) { ADD(sendto, ns, r + h); ADD(recvfrom, nr, r + h); }
        else if (r < 2 * h) { ADD(sendto, ns, r - h); ADD(recvfrom, nr, r - h); }
        break;
    case T_FANIN:
        if (r == 0) for (int j = 1; j < p; j++) ADD(recvfrom, nr, j);
        else ADD(sendto, ns, 0);
        break;
    case T_FANOUT:
        if (r == 0) for (int j = 1; j < p; j++) ADD(sendto, ns, j);
        else ADD(recvfrom, nr, 0);
        break;
    }
#undef ADD
}

/* Bytes rank r allocates: one message to send, nrecv x w to receive; SIZE_MAX on overflow. */
static size_t rank_bytes(int id, const isochron_op_ctx_t *c, int p, int r)
{
    int ns, nr;
    plan(id, p, r, NULL, &ns, NULL, &nr);
    size_t per = c->count * (size_t)c->dtype_size, w = (size_t)window_of(id, c), slots = (size_t)nr * w;
    if (slots && per > SIZE_MAX / slots) return SIZE_MAX;
    size_t rb = per * slots;
    size_t sb = ns ? per : 0;
    return rb > SIZE_MAX - sb ? SIZE_MAX : rb + sb;
}

static size_t memory_of(int id, const isochron_op_ctx_t *c)
{
    int p = c->size > 0 ? c->size : 1, cand[3] = { 0, p > 1 ? 1 : 0, p / 2 };
    size_t m = 0;
    for (int i = 0; i < 3; i++) {
        size_t b = rank_bytes(id, c, p, cand[i]);
        if (b > m) m = b;
    }
    return m;
}

/* Messages one run carries, all senders (acks not counted). */
static double msgs_of(int id, const isochron_op_ctx_t *c)
{
    int p = c->size, w = window_of(id, c);
    switch (id) {
    case T_BW: case T_BW_PERS: return w;
    case T_BIBW: return 2.0 * w;
    case T_MBW: return (double)(p / 2) * w;
    case T_FANIN: case T_FANOUT: return (double)(p - 1) * w;
    default: return 2;
    }
}

static double moved_of(int id, const isochron_op_ctx_t *c, double *msgs)
{
    double m = msgs_of(id, c);
    if (msgs) *msgs = m;
    return m * (double)c->bytes;
}

static void teardown_tput(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    if (st) {
        for (int i = 0; st->pq && i < st->npq; i++)
            if (st->pq[i] != MPI_REQUEST_NULL) MPI_Request_free(&st->pq[i]); /* inactive: every start was waited */
        free(st->pq);
        free(st->sendto);
        free(st->recvfrom);
        free(st->q);
        free(st->sts);
    }
    free(c->sbuf);
    free(c->rbuf);
    free(st);
    c->sbuf = c->rbuf = NULL;
    c->state = NULL;
}

static int setup_of(int id, isochron_op_ctx_t *c, const char *name)
{
    tput_state_t init = { .id = id, .w = window_of(id, c),
                          .ack = id == T_BW || id == T_BW_PERS || id == T_MBW || id == T_FANIN || id == T_FANOUT };
    int rc = isochron_ops_state_new(c, &init, sizeof init, name);
    if (rc) return rc;
    tput_state_t *st = c->state;
    int p = c->size;
    st->sendto = malloc((size_t)p * sizeof(int));
    st->recvfrom = malloc((size_t)p * sizeof(int));
    if (!st->sendto || !st->recvfrom) return isochron_set_error(ISOCHRON_ENOMEM, "%s: out of memory for %d peers", name, p);
    plan(id, p, c->rank, st->sendto, &st->nsend, st->recvfrom, &st->nrecv);
    size_t per = c->count * (size_t)c->dtype_size;
    size_t nreq = ((size_t)st->nsend + (size_t)st->nrecv) * (size_t)st->w + 1;
    c->sbuf_bytes = st->nsend ? per : 0;
    c->rbuf_bytes = per * (size_t)st->nrecv * (size_t)st->w; /* memory() checked the product */
    c->sbuf = isochron_ops_alloc(c->sbuf_bytes);
    c->rbuf = isochron_ops_alloc(c->rbuf_bytes);
    st->q = malloc(nreq * sizeof *st->q);
    st->sts = malloc(nreq * sizeof *st->sts);
    if (!c->sbuf || !c->rbuf || !st->q || !st->sts)
        return isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate %zu + %zu bytes on rank %d", name, c->sbuf_bytes,
                                  c->rbuf_bytes, c->rank);
    if (id == T_BW_PERS) { /* the window's requests, in run_window's order: receives, then sends */
        int k = 0, n = (int)c->count;
        st->pq = malloc(nreq * sizeof *st->pq);
        if (!st->pq) return isochron_set_error(ISOCHRON_ENOMEM, "%s: out of memory for %zu requests", name, nreq);
        for (size_t i = 0; i < nreq; i++) st->pq[i] = MPI_REQUEST_NULL;
        st->npq = (int)nreq;
        for (int i = 0; i < st->nrecv; i++)
            for (int j = 0; j < st->w; j++, k++)
                if (MPI_Recv_init((char *)c->rbuf + (size_t)k * per, n, c->dtype, st->recvfrom[i], ISOCHRON_TAG_WIN, c->comm,
                                  &st->pq[k]) != MPI_SUCCESS)
                    return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Recv_init failed on rank %d", name, c->rank);
        for (int i = 0; i < st->nsend; i++)
            for (int j = 0; j < st->w; j++, k++)
                if (MPI_Send_init(c->sbuf, n, c->dtype, st->sendto[i], ISOCHRON_TAG_WIN, c->comm, &st->pq[k]) != MPI_SUCCESS)
                    return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Send_init failed on rank %d", name, c->rank);
        st->npq = k;
    }
    return ISOCHRON_OK;
}

static int prepare_tput(isochron_op_ctx_t *c)
{
    isochron_ops_poison(c->rbuf, c->rbuf_bytes);
    if (c->sbuf_bytes) isochron_ops_fill_mv(c->sbuf, TST(c)->base.tk, c->rank, 0, c->count, c->rep);
    return ISOCHRON_OK;
}

static int validate_tput(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    size_t n = c->count, w = (size_t)st->w;
    isochron_ops_vstate_t v;
    memset(&v, 0, sizeof v);
    for (int i = 0; i < st->nrecv; i++)
        for (size_t j = 0; j < w; j++)
            isochron_ops_vblock(&v, c->rbuf, ((size_t)i * w + j) * n, n, st->base.tk, st->recvfrom[i], 0, c->rep);
    if (!v.bad) return ISOCHRON_OK;
    return isochron_set_error(ISOCHRON_EVALIDATE,
                              "%s: wrong data on rank %d, element %zu (message %zu of the window from rank %d): expected %lld, "
                              "got %s (%s, %zu bytes, repetition %d; %zu of %zu elements wrong)",
                              st->base.name, c->rank, v.first, n ? v.first / n % w : 0, v.from, v.expected, v.got,
                              isochron_op_dtype_name(c->dtype), c->bytes, c->rep, v.bad, v.total);
}

#define N ((int)c->count)
#define DT (c->dtype)
#define CM (c->comm)

/* The acks: every receiver to each of its senders, after the window. */
static int run_acks(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    int k = 0;
    for (int i = 0; i < st->nsend; i++, k++)
        ISOCHRON_OPS_MPI(MPI_Irecv(NULL, 0, MPI_BYTE, st->sendto[i], ISOCHRON_TAG_ACK, CM, &st->q[k]), c, "MPI_Irecv (ack)");
    for (int i = 0; i < st->nrecv; i++, k++)
        ISOCHRON_OPS_MPI(MPI_Isend(NULL, 0, MPI_BYTE, st->recvfrom[i], ISOCHRON_TAG_ACK, CM, &st->q[k]), c, "MPI_Isend (ack)");
    if (k) ISOCHRON_OPS_MPI(MPI_Waitall(k, st->q, st->sts), c, "MPI_Waitall (ack)");
    return ISOCHRON_OK;
}

/* bw_persistent: the window's persistent requests started at once, completed, then the ack. */
static int run_window_persistent(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    if (!st->npq) return ISOCHRON_OK;
    ISOCHRON_OPS_MPI(MPI_Startall(st->npq, st->pq), c, "MPI_Startall");
    ISOCHRON_OPS_MPI(MPI_Waitall(st->npq, st->pq, st->sts), c, "MPI_Waitall");
    return run_acks(c);
}

/* A window: every receive posted, then every send, then all completed; then the acks. */
static int run_window(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    int k = 0;
    size_t per = c->count * (size_t)c->dtype_size;
    for (int i = 0; i < st->nrecv; i++)
        for (int j = 0; j < st->w; j++, k++)
            ISOCHRON_OPS_MPI(MPI_Irecv((char *)c->rbuf + (size_t)k * per, N, DT, st->recvfrom[i], ISOCHRON_TAG_WIN, CM, &st->q[k]),
                             c, "MPI_Irecv");
    for (int i = 0; i < st->nsend; i++)
        for (int j = 0; j < st->w; j++, k++)
            ISOCHRON_OPS_MPI(MPI_Isend(c->sbuf, N, DT, st->sendto[i], ISOCHRON_TAG_WIN, CM, &st->q[k]), c, "MPI_Isend");
    if (k) ISOCHRON_OPS_MPI(MPI_Waitall(k, st->q, st->sts), c, "MPI_Waitall");
    return st->ack ? run_acks(c) : ISOCHRON_OK;
}

static int run_pingping(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    if (!st->nsend) return ISOCHRON_OK;
    int peer = st->sendto[0];
    ISOCHRON_OPS_MPI(MPI_Isend(c->sbuf, N, DT, peer, ISOCHRON_TAG_PING, CM, &st->q[0]), c, "MPI_Isend");
    ISOCHRON_OPS_MPI(MPI_Recv(c->rbuf, N, DT, peer, ISOCHRON_TAG_PING, CM, MPI_STATUS_IGNORE), c, "MPI_Recv");
    ISOCHRON_OPS_MPI(MPI_Wait(&st->q[0], MPI_STATUS_IGNORE), c, "MPI_Wait");
    return ISOCHRON_OK;
}

static int run_multi_lat(isochron_op_ctx_t *c)
{
    tput_state_t *st = TST(c);
    if (!st->nsend) return ISOCHRON_OK;
    int peer = st->sendto[0];
    ISOCHRON_OPS_ROUND_TRIP(c, MPI_Send, MPI_Recv, N, peer, c->rank < peer);
    return ISOCHRON_OK;
}

#define TPUT(name, id)                                                                                       \
    static int setup_##name(isochron_op_ctx_t *c) { return setup_of(id, c, #name); }                        \
    static size_t memory_##name(const isochron_op_ctx_t *c) { return memory_of(id, c); }                     \
    static double moved_##name(const isochron_op_ctx_t *c, double *m) { return moved_of(id, c, m); }
#define LAT(name, id)                                                                                        \
    static int setup_##name(isochron_op_ctx_t *c) { return setup_of(id, c, #name); }                        \
    static size_t memory_##name(const isochron_op_ctx_t *c) { return memory_of(id, c); }

TPUT(bw, T_BW)
TPUT(bibw, T_BIBW)
TPUT(bw_persistent, T_BW_PERS)
TPUT(mbw_mr, T_MBW)
TPUT(bw_fan_in, T_FANIN)
TPUT(bw_fan_out, T_FANOUT)
LAT(pingping, T_PINGPING)
LAT(multi_lat, T_MULTILAT)

#define F_P2P (ISOCHRON_OP_P2P | ISOCHRON_OP_MIN2)
#define F_WIN (F_P2P | ISOCHRON_OP_WINDOWED)
#define DESC(id, fam, desc, fl, run, moved)                                                                   \
    { #id, fam, desc, fl, setup_##id, prepare_tput, run, NULL, NULL, validate_tput, teardown_tput, memory_##id, moved, NULL }

static const isochron_op_t tput_ops[] = {
    DESC(bw, "bw", "bandwidth: rank 0 sends a window of --msg-window Isends to rank 1, zero-byte ack (osu_bw, IMB Uniband); B/s",
         F_WIN | ISOCHRON_OP_PAIR, run_window, moved_bw),
    DESC(bw_persistent, "bw", "bw on MPI_Send_init/MPI_Recv_init requests made once in set-up: one run = MPI_Startall of the "
         "window + MPI_Waitall, zero-byte ack (osu_bw_persistent); B/s", F_WIN | ISOCHRON_OP_PAIR, run_window_persistent,
         moved_bw_persistent),
    DESC(bibw, "bibw", "bidirectional bandwidth: ranks 0 and 1 each send a window to the other (osu_bibw, IMB Biband); B/s",
         F_WIN | ISOCHRON_OP_PAIR, run_window, moved_bibw),
    DESC(mbw_mr, "mbw_mr", "multi-pair bandwidth and message rate: pairs i -> i+p/2 each send a window + ack (osu_mbw_mr); B/s, msg/s",
         F_WIN, run_window, moved_mbw_mr),
    DESC(bw_fan_in, "bw_fan", "fan-in bandwidth: every rank > 0 sends a window to rank 0, which acks each (osu_bw_fan_in); B/s",
         F_WIN, run_window, moved_bw_fan_in),
    DESC(bw_fan_out, "bw_fan", "fan-out bandwidth: rank 0 sends a window to every rank > 0, each acks (osu_bw_fan_out); B/s",
         F_WIN, run_window, moved_bw_fan_out),
    DESC(pingping, "pingping", "ranks 0 and 1 Isend to each other, Recv, Wait: one message time under contention (IMB PingPing)",
         F_P2P | ISOCHRON_OP_PAIR, run_pingping, NULL),
    DESC(multi_lat, "multi_lat", "pairs i <-> i+p/2 ping-pong at once, Send/Recv; one round trip (osu_multi_lat)", F_P2P,
         run_multi_lat, NULL),
};

const isochron_op_t *isochron_ops_builtin_tput(int *n)
{
    *n = (int)(sizeof tput_ops / sizeof tput_ops[0]);
    return tput_ops;
}
