/*
 * Point-to-point patterns, the ones IMB and OSU measure and MPIBlib's
 * point-to-point benchmark builds on (paper 001, sec. 4):
 *   pingpong           rank 0 <-> 1 with MPI_Send/MPI_Recv; one run = one
 *                      round trip (a message each way, one after the other);
 *   pingpong_isend     the same round trip with MPI_Isend/MPI_Irecv and waits;
 *   pingpong_sendrecv  ranks 0 and 1 exchange one message each way at once
 *                      with MPI_Sendrecv (IMB's Sendrecv on two ranks);
 *   exchange           every rank sends `bytes` to both ring neighbours and
 *                      receives from both (IMB Exchange), non-blocking;
 *   ringshift          every rank sends to its right neighbour and receives
 *                      from its left with MPI_Sendrecv.
 * Every rank of the communicator calls run; ranks outside the pattern
 * (ranks >= 2 in the ping-pongs) return at once. All need 2 ranks; at 2 the
 * two ring neighbours are the same rank, and the exchange's two messages are
 * told apart by their tags.
 */
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

#define N ((int)c->count)
#define DT (c->dtype)
#define CM (c->comm)

#define F_P2P (ISOCHRON_OP_P2P | ISOCHRON_OP_MIN2)
#define F_PAIR (F_P2P | ISOCHRON_OP_PAIR)
/* The table: id, family, semantics, flags, description; the kind wrappers and the descriptors come from it. */
#define P2PS(X)                                                                                                \
    X(pingpong, "pingpong", SEM_PINGPONG, F_PAIR, "rank 0 <-> 1 round trip, MPI_Send/MPI_Recv")                 \
    X(pingpong_isend, "pingpong", SEM_PINGPONG, F_PAIR, "rank 0 <-> 1 round trip, MPI_Isend/MPI_Irecv + waits") \
    X(pingpong_sendrecv, "pingpong", SEM_PINGPONG, F_PAIR,                                                      \
      "ranks 0 and 1 exchange a message each way at once, MPI_Sendrecv")                                       \
    X(exchange, "exchange", SEM_EXCHANGE, F_P2P,                                                               \
      "every rank sends to and receives from both ring neighbours, non-blocking")                              \
    X(ringshift, "ringshift", SEM_RINGSHIFT, F_P2P, "every rank sends right and receives from the left, MPI_Sendrecv")

#define KINDS(id, fam, sem, fl, desc) ISOCHRON_OPS_KIND(id, sem, ALG_MPI)
P2PS(KINDS)

static int run_pingpong(isochron_op_ctx_t *c)
{
    if (c->rank < 2) ISOCHRON_OPS_ROUND_TRIP(c, MPI_Send, MPI_Recv, N, 1 - c->rank, c->rank == 0);
    return ISOCHRON_OK;
}

static int run_pingpong_isend(isochron_op_ctx_t *c)
{
    MPI_Request q[2];
    MPI_Status sts[2]; /* not MPI_STATUSES_IGNORE: MPICH's header annotations make gcc warn */
    if (c->rank == 0) {
        ISOCHRON_OPS_MPI(MPI_Irecv(c->rbuf, N, DT, 1, ISOCHRON_TAG_PONG, CM, &q[0]), c, "MPI_Irecv");
        ISOCHRON_OPS_MPI(MPI_Isend(c->sbuf, N, DT, 1, ISOCHRON_TAG_PING, CM, &q[1]), c, "MPI_Isend");
        ISOCHRON_OPS_MPI(MPI_Waitall(2, q, sts), c, "MPI_Waitall");
    } else if (c->rank == 1) {
        ISOCHRON_OPS_MPI(MPI_Irecv(c->rbuf, N, DT, 0, ISOCHRON_TAG_PING, CM, &q[0]), c, "MPI_Irecv");
        ISOCHRON_OPS_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE), c, "MPI_Wait");
        ISOCHRON_OPS_MPI(MPI_Isend(c->sbuf, N, DT, 0, ISOCHRON_TAG_PONG, CM, &q[1]), c, "MPI_Isend");
        ISOCHRON_OPS_MPI(MPI_Wait(&q[1], MPI_STATUS_IGNORE), c, "MPI_Wait");
    }
    return ISOCHRON_OK;
}

static int run_pingpong_sendrecv(isochron_op_ctx_t *c)
{
    if (c->rank < 2) {
        int peer = 1 - c->rank;
        ISOCHRON_OPS_MPI(MPI_Sendrecv(c->sbuf, N, DT, peer, ISOCHRON_TAG_PING, c->rbuf, N, DT, peer,
                                      ISOCHRON_TAG_PING, CM, MPI_STATUS_IGNORE),
                         c, "MPI_Sendrecv");
    }
    return ISOCHRON_OK;
}

static int run_exchange(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    MPI_Request q[4];
    MPI_Status sts[4];
    char *second = (char *)c->rbuf + c->count * (size_t)c->dtype_size;
    /* a message travelling right carries TAG_EXR, one travelling left TAG_EXL */
    ISOCHRON_OPS_MPI(MPI_Irecv(c->rbuf, N, DT, st->left, ISOCHRON_TAG_EXR, CM, &q[0]), c, "MPI_Irecv");
    ISOCHRON_OPS_MPI(MPI_Irecv(second, N, DT, st->right, ISOCHRON_TAG_EXL, CM, &q[1]), c, "MPI_Irecv");
    ISOCHRON_OPS_MPI(MPI_Isend(c->sbuf, N, DT, st->left, ISOCHRON_TAG_EXL, CM, &q[2]), c, "MPI_Isend");
    ISOCHRON_OPS_MPI(MPI_Isend(c->sbuf, N, DT, st->right, ISOCHRON_TAG_EXR, CM, &q[3]), c, "MPI_Isend");
    ISOCHRON_OPS_MPI(MPI_Waitall(4, q, sts), c, "MPI_Waitall");
    return ISOCHRON_OK;
}

static int run_ringshift(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    ISOCHRON_OPS_MPI(MPI_Sendrecv(c->sbuf, N, DT, st->right, ISOCHRON_TAG_RING, c->rbuf, N, DT, st->left,
                                  ISOCHRON_TAG_RING, CM, MPI_STATUS_IGNORE),
                     c, "MPI_Sendrecv");
    return ISOCHRON_OK;
}

#define ROW(id, fam, sem, fl, desc)                                                                   \
    { #id, fam, desc, fl, setup_##id, isochron_ops_kind_prepare, run_##id, NULL, NULL,                  \
      isochron_ops_kind_validate, isochron_ops_kind_teardown, memory_##id, NULL, NULL },

static const isochron_op_t p2p_ops[] = { P2PS(ROW) };

const isochron_op_t *isochron_ops_builtin_p2p(int *n)
{
    *n = (int)(sizeof p2p_ops / sizeof p2p_ops[0]);
    return p2p_ops;
}
