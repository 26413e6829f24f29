/*
 * The MPI-3 collectives, blocking and non-blocking, as operation
 * descriptors. Each run/post is the bare MPI call on buffers prepared in
 * set-up (kind.c), so what is timed is the library's collective and nothing
 * else; a non-blocking form's run is post + MPI_Wait, and the engine may
 * call post and wait separately to measure overlap. Message size per the
 * convention of isochron/ops.h (one block per peer for the gather/scatter
 * family, as OSU and IMB count); the v-variants use uniform counts, as IMB
 * does. MPI_IN_PLACE is offered wherever the standard allows it (MPI-3.1
 * sec. 5.2.3): allgather(v), allreduce, alltoall(v), exscan, scan,
 * reduce_scatter(_block) on every rank, gather(v), reduce, scatter(v) at
 * the root. Family = the blocking name, so ibcast is compared with bcast and
 * the bcast_* algorithms (MPIBlib, paper 001: alternative implementations of
 * one operation measured side by side).
 */
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

#define N ((int)c->count)
#define DT (c->dtype)
#define CM (c->comm)
#define RT (c->root)
#define OP (c->op)
#define SA (st->sarg)
#define RA (st->rarg)

/* One collective in both forms: the blocking one (kind wrappers + run) and the non-blocking one I<ID>
 * (kind wrappers + post, run = post + wait), both given the same arguments (the non-blocking call takes
 * &c->req after them). */
#define COLL(id, sem, bcall, icall, ...)                                              \
    ISOCHRON_OPS_KIND(id, sem, ALG_MPI)                                               \
    static int run_##id(isochron_op_ctx_t *c)                                         \
    {                                                                                 \
        isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);                                \
        (void)st;                                                                     \
        ISOCHRON_OPS_MPI(bcall(__VA_ARGS__), c, #bcall);                              \
        return ISOCHRON_OK;                                                           \
    }                                                                                 \
    ISOCHRON_OPS_KIND(i##id, sem, ALG_MPI)                                            \
    static int post_i##id(isochron_op_ctx_t *c)                                       \
    {                                                                                 \
        isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);                                \
        (void)st;                                                                     \
        ISOCHRON_OPS_MPI(icall(__VA_ARGS__, &c->req), c, #icall);                     \
        return ISOCHRON_OK;                                                           \
    }                                                                                 \
    static int run_i##id(isochron_op_ctx_t *c)                                        \
    {                                                                                 \
        int rc = post_i##id(c);                                                       \
        return rc ? rc : isochron_ops_wait_request(c);                                \
    }

COLL(allgather, SEM_ALLGATHER, MPI_Allgather, MPI_Iallgather, SA, N, DT, RA, N, DT, CM)
COLL(allgatherv, SEM_ALLGATHERV, MPI_Allgatherv, MPI_Iallgatherv, SA, N, DT, RA, c->counts, c->displs, DT, CM)
COLL(allreduce, SEM_ALLREDUCE, MPI_Allreduce, MPI_Iallreduce, SA, RA, N, DT, OP, CM)
COLL(alltoall, SEM_ALLTOALL, MPI_Alltoall, MPI_Ialltoall, SA, N, DT, RA, N, DT, CM)
COLL(alltoallv, SEM_ALLTOALLV, MPI_Alltoallv, MPI_Ialltoallv, SA, c->counts, c->displs, DT, RA, c->counts, c->displs, DT, CM)
COLL(barrier, SEM_BARRIER, MPI_Barrier, MPI_Ibarrier, CM)
COLL(bcast, SEM_BCAST, MPI_Bcast, MPI_Ibcast, c->rbuf, N, DT, RT, CM)
COLL(exscan, SEM_EXSCAN, MPI_Exscan, MPI_Iexscan, SA, RA, N, DT, OP, CM)
COLL(gather, SEM_GATHER, MPI_Gather, MPI_Igather, SA, N, DT, RA, N, DT, RT, CM)
COLL(gatherv, SEM_GATHERV, MPI_Gatherv, MPI_Igatherv, SA, N, DT, RA, c->counts, c->displs, DT, RT, CM)
COLL(reduce, SEM_REDUCE, MPI_Reduce, MPI_Ireduce, SA, RA, N, DT, OP, RT, CM)
COLL(reduce_scatter, SEM_REDUCE_SCATTER, MPI_Reduce_scatter, MPI_Ireduce_scatter, SA, RA, c->counts, DT, OP, CM)
COLL(reduce_scatter_block, SEM_REDUCE_SCATTER_BLOCK, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, SA, RA, N, DT, OP, CM)
COLL(scan, SEM_SCAN, MPI_Scan, MPI_Iscan, SA, RA, N, DT, OP, CM)
COLL(scatter, SEM_SCATTER, MPI_Scatter, MPI_Iscatter, SA, N, DT, RA, N, DT, RT, CM)
COLL(scatterv, SEM_SCATTERV, MPI_Scatterv, MPI_Iscatterv, SA, c->counts, c->displs, DT, RA, N, DT, RT, CM)

#define F_IP ISOCHRON_OP_INPLACE
#define F_RO ISOCHRON_OP_ROOTED
#define F_RED ISOCHRON_OP_REDUCTION
#define F_NB ISOCHRON_OP_NONBLOCKING

/* The table, one line per collective: id, flags, the blocking form's description, what the non-blocking
 * one adds after "MPI_I<id> + MPI_Wait". Family = id for both forms. A barrier moves no data: no pattern to
 * prepare or check. */
#define COLLS(X)                                                                                        \
    X(allgather, F_IP, "MPI_Allgather: every rank gets every rank's block", "")                          \
    X(allgatherv, F_IP, "MPI_Allgatherv with uniform counts", ", uniform counts")                        \
    X(allreduce, F_IP | F_RED, "MPI_Allreduce of the buffer", "")                                        \
    X(alltoall, F_IP, "MPI_Alltoall: one block from every rank to every rank", "")                       \
    X(alltoallv, F_IP, "MPI_Alltoallv with uniform counts", ", uniform counts")                          \
    X(barrier, ISOCHRON_OP_NODATA, "MPI_Barrier", "")                                                    \
    X(bcast, F_RO, "MPI_Bcast of the buffer from the root", "")                                          \
    X(exscan, F_IP | F_RED, "MPI_Exscan: reduction over the lower ranks (undefined on rank 0)", "")      \
    X(gather, F_RO | F_IP, "MPI_Gather: one block from every rank to the root", "")                      \
    X(gatherv, F_RO | F_IP, "MPI_Gatherv with uniform counts", ", uniform counts")                       \
    X(reduce, F_RO | F_IP | F_RED, "MPI_Reduce of the buffer to the root", "")                           \
    X(reduce_scatter, F_IP | F_RED, "MPI_Reduce_scatter, one block of the result per rank", "")          \
    X(reduce_scatter_block, F_IP | F_RED, "MPI_Reduce_scatter_block, one block per rank", "")            \
    X(scan, F_IP | F_RED, "MPI_Scan: reduction over ranks 0..self", "")                                  \
    X(scatter, F_RO | F_IP, "MPI_Scatter: one block from the root to every rank", "")                    \
    X(scatterv, F_RO | F_IP, "MPI_Scatterv with uniform counts", ", uniform counts")

#define DATA(fl, fn) (((fl) & ISOCHRON_OP_NODATA) ? NULL : (fn))
#define ROW(id, fl, desc, nbmore)                                                                       \
    { #id, #id, desc, fl, setup_##id, DATA(fl, isochron_ops_kind_prepare), run_##id, NULL, NULL,        \
      DATA(fl, isochron_ops_kind_validate), isochron_ops_kind_teardown, memory_##id, NULL, NULL },
#define ROW_NB(id, fl, desc, nbmore)                                                                    \
    { "i" #id, #id, "MPI_I" #id " + MPI_Wait" nbmore, (fl) | F_NB, setup_i##id,                        \
      DATA(fl, isochron_ops_kind_prepare), run_i##id, post_i##id, isochron_ops_wait_request,              \
      DATA(fl, isochron_ops_kind_validate), isochron_ops_kind_teardown, memory_i##id, NULL, NULL },

static const isochron_op_t coll_ops[] = { COLLS(ROW) COLLS(ROW_NB) };

const isochron_op_t *isochron_ops_builtin_coll(int *n)
{
    *n = (int)(sizeof coll_ops / sizeof coll_ops[0]);
    return coll_ops;
}
