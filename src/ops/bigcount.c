/*
 * Large counts (MPI-4.0 sec. 2.5.8 and the "_c" bindings of every
 * communication call): the same operation with its counts passed as
 * MPI_Count, so one message may hold 2^31 elements and more. Each is an
 * operation of its own, named after the call with the MPI-4 suffix
 * (bcast_c calls MPI_Bcast_c) and in the family of the plain call, so a
 * sweep puts bcast and bcast_c side by side at the sizes both accept, and
 * bcast_c alone beyond 2 GiB - what a user tuning an MPI 4 library compares:
 * whether the _c path costs anything at small sizes, and what the large
 * messages cost. The plain operations keep refusing counts above INT_MAX.
 * Buffers, patterns and validation are the kind's (kind.c, which computes
 * elements in size_t), so a large message is checked element by element like
 * any other; the memory check of set-up (setup.c) refuses a point whose
 * buffers exceed what a process may use before anything is allocated.
 * Covered: the blocking collectives with uniform counts (the v-forms take
 * count and displacement arrays of MPI_Count/MPI_Aint: not here) and the
 * ping-pong. Built where mpi.h declares the _c functions (MPI_VERSION >= 4:
 * MPICH 4); elsewhere (Open MPI 4.1 and 5.0, which have no large-count
 * bindings) the operations stay listed, flagged ISOCHRON_OP_MISSING, and
 * set-up refuses with a sentence naming the library and its version.
 */
#include <stdio.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

#if MPI_VERSION >= 4
#define HAVE_C 1
#else
#define HAVE_C 0
#endif

#define NC ((MPI_Count)c->count)
#define DT (c->dtype)
#define CM (c->comm)
#define SA (ISOCHRON_OPS_ST(c)->sarg)
#define RA (ISOCHRON_OPS_ST(c)->rarg)

#if HAVE_C
#define CKIND(id, sem)                                                                                      \
    static int setup_##id(isochron_op_ctx_t *c)                                                             \
    {                                                                                                       \
        return isochron_ops_kind_setup_c(c, (isochron_ops_kind_t){ sem, ALG_MPI }, #id);                    \
    }
#else
#define CKIND(id, sem)                                                                                      \
    static int setup_##id(isochron_op_ctx_t *c)                                                             \
    {                                                                                                       \
        (void)c;                                                                                            \
        return missing(#id);                                                                                \
    }
static int missing(const char *name)
{
    char lib[256];
    isochron_mpi_library_name(lib, sizeof lib);
    return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                              "%s: this MPI library (%s) has no large-count functions (MPI_*_c with MPI_Count counts: "
                              "MPI-4.0; in MPICH 4, not in Open MPI 4.1 or 5.0); isochron was built against its mpi.h, "
                              "which lacks them",
                              name, lib);
}
#endif
#define CMEM(id, sem)                                                                                       \
    static size_t memory_##id(const isochron_op_ctx_t *c)                                                   \
    {                                                                                                       \
        return isochron_ops_kind_memory(c, (isochron_ops_kind_t){ sem, ALG_MPI });                          \
    }

CKIND(bcast_c, SEM_BCAST) CMEM(bcast_c, SEM_BCAST)
CKIND(reduce_c, SEM_REDUCE) CMEM(reduce_c, SEM_REDUCE)
CKIND(allreduce_c, SEM_ALLREDUCE) CMEM(allreduce_c, SEM_ALLREDUCE)
CKIND(allgather_c, SEM_ALLGATHER) CMEM(allgather_c, SEM_ALLGATHER)
CKIND(alltoall_c, SEM_ALLTOALL) CMEM(alltoall_c, SEM_ALLTOALL)
CKIND(gather_c, SEM_GATHER) CMEM(gather_c, SEM_GATHER)
CKIND(scatter_c, SEM_SCATTER) CMEM(scatter_c, SEM_SCATTER)
CKIND(reduce_scatter_block_c, SEM_REDUCE_SCATTER_BLOCK) CMEM(reduce_scatter_block_c, SEM_REDUCE_SCATTER_BLOCK)
CKIND(pingpong_c, SEM_PINGPONG) CMEM(pingpong_c, SEM_PINGPONG)

#if HAVE_C
static int run_bcast_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Bcast_c(c->rbuf, NC, DT, c->root, CM), c, "MPI_Bcast_c");
    return ISOCHRON_OK;
}
static int run_reduce_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Reduce_c(SA, RA, NC, DT, c->op, c->root, CM), c, "MPI_Reduce_c");
    return ISOCHRON_OK;
}
static int run_allreduce_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Allreduce_c(SA, RA, NC, DT, c->op, CM), c, "MPI_Allreduce_c");
    return ISOCHRON_OK;
}
static int run_allgather_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Allgather_c(SA, NC, DT, RA, NC, DT, CM), c, "MPI_Allgather_c");
    return ISOCHRON_OK;
}
static int run_alltoall_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Alltoall_c(SA, NC, DT, RA, NC, DT, CM), c, "MPI_Alltoall_c");
    return ISOCHRON_OK;
}
static int run_gather_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Gather_c(SA, NC, DT, RA, NC, DT, c->root, CM), c, "MPI_Gather_c");
    return ISOCHRON_OK;
}
static int run_scatter_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Scatter_c(SA, NC, DT, RA, NC, DT, c->root, CM), c, "MPI_Scatter_c");
    return ISOCHRON_OK;
}
static int run_reduce_scatter_block_c(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Reduce_scatter_block_c(SA, RA, NC, DT, c->op, CM), c, "MPI_Reduce_scatter_block_c");
    return ISOCHRON_OK;
}
static int run_pingpong_c(isochron_op_ctx_t *c)
{
    if (c->rank < 2) ISOCHRON_OPS_ROUND_TRIP(c, MPI_Send_c, MPI_Recv_c, NC, 1 - c->rank, c->rank == 0);
    return ISOCHRON_OK;
}
#else
/* a run is required of every descriptor (isochron_ops_register); set-up refuses before any */
static int run_missing(isochron_op_ctx_t *c) { (void)c; return isochron_set_error(ISOCHRON_EUNSUPPORTED, "large-count operations not built"); }
#define run_bcast_c run_missing
#define run_reduce_c run_missing
#define run_allreduce_c run_missing
#define run_allgather_c run_missing
#define run_alltoall_c run_missing
#define run_gather_c run_missing
#define run_scatter_c run_missing
#define run_reduce_scatter_block_c run_missing
#define run_pingpong_c run_missing
#endif

#define F_BIG (ISOCHRON_OP_BIGCOUNT | (HAVE_C ? 0 : ISOCHRON_OP_MISSING))
#define F_R ISOCHRON_OP_ROOTED
#define F_RED ISOCHRON_OP_REDUCTION
#define F_IP ISOCHRON_OP_INPLACE
#define CDESC(id, fam, fl, desc)                                                                             \
    { #id, fam, desc, F_BIG | (fl), setup_##id, isochron_ops_kind_prepare, run_##id, NULL, NULL,             \
      isochron_ops_kind_validate, isochron_ops_kind_teardown, memory_##id, NULL, NULL }

static const isochron_op_t big_ops[] = {
    CDESC(bcast_c, "bcast", F_R, "MPI_Bcast_c: the broadcast with an MPI_Count count (MPI-4 large counts)"),
    CDESC(reduce_c, "reduce", F_R | F_RED | F_IP, "MPI_Reduce_c (MPI-4 large counts)"),
    CDESC(allreduce_c, "allreduce", F_RED | F_IP, "MPI_Allreduce_c (MPI-4 large counts)"),
    CDESC(allgather_c, "allgather", F_IP, "MPI_Allgather_c (MPI-4 large counts)"),
    CDESC(alltoall_c, "alltoall", F_IP, "MPI_Alltoall_c (MPI-4 large counts)"),
    CDESC(gather_c, "gather", F_R | F_IP, "MPI_Gather_c (MPI-4 large counts)"),
    CDESC(scatter_c, "scatter", F_R | F_IP, "MPI_Scatter_c (MPI-4 large counts)"),
    CDESC(reduce_scatter_block_c, "reduce_scatter_block", F_RED | F_IP, "MPI_Reduce_scatter_block_c (MPI-4 large counts)"),
    CDESC(pingpong_c, "pingpong", ISOCHRON_OP_P2P | ISOCHRON_OP_MIN2 | ISOCHRON_OP_PAIR,
          "rank 0 <-> 1 round trip, MPI_Send_c/MPI_Recv_c (MPI-4 large counts)"),
};

const isochron_op_t *isochron_ops_builtin_bigcount(int *n)
{
    *n = (int)(sizeof big_ops / sizeof big_ops[0]);
    return big_ops;
}
