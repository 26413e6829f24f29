/*
 * Persistent operations (MPI-4, MPI standard sec. 6.13 persistent collectives
 * and sec. 3.9 persistent point-to-point), as OSU (osu_*_persistent) and
 * IMB-MPI4 (*_persist) measure them. A persistent operation pays its set-up
 * once (MPI_Allreduce_init ...) and then runs as MPI_Start + MPI_Wait, so the
 * two costs are measured apart, as two operations of the same family:
 *   X_persistent  the request is made in set-up (not timed) and freed in
 *                 teardown; one run = MPI_Start + MPI_Wait (post = Start,
 *                 wait = Wait for the overlap method);
 *   X_init        one run = MPI_X_init + MPI_Request_free: what creating and
 *                 releasing the persistent request costs. Its validate makes a
 *                 request the same way, starts, waits and frees it, and
 *                 checks the data, so a library whose init builds a wrong
 *                 schedule is caught.
 * pingpong_persistent is the ping-pong of p2p.c on MPI_Send_init /
 * MPI_Recv_init requests (both ranks: receive started before the send).
 * The helpers both forms use are shared with neighbor.c's persistent
 * alltoallw and neighbourhood collectives (pcoll.h).
 * Libraries: MPI_X_init where MPI_VERSION >= 4 (MPICH 4) or in Open MPI 5 (which declares
 * MPI_VERSION 3 but has them); Open MPI 4.x has
 * them as MPIX_X_init in its pcollreq extension (mpi-ext.h); elsewhere the
 * collective operations refuse in set-up with EUNSUPPORTED naming what is
 * missing. Buffers, patterns and validation are the kind's (kind.c).
 * MPICH before 4.3: gather, allgather and scatter persistent requests send
 * the send buffer's contents at init time on every start (pmodels/mpich#7078,
 * seen here on 4.0 as stale data from the second start); those three refuse
 * there with EUNSUPPORTED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/pcoll.h"

#define HAVE_PCOLL ISOCHRON_HAVE_PCOLL
#define PC(x) ISOCHRON_PC(x)

#define N ((int)c->count)
#define DT (c->dtype)
#define CM (c->comm)
#define SA (ISOCHRON_OPS_ST(c)->sarg)
#define RA (ISOCHRON_OPS_ST(c)->rarg)

typedef isochron_ops_pinit_fn pinit_fn;

#if HAVE_PCOLL
static int i_allreduce(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Allreduce)(SA, RA, N, DT, c->op, CM, MPI_INFO_NULL, q); }
static int i_bcast(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Bcast)(c->rbuf, N, DT, c->root, CM, MPI_INFO_NULL, q); }
static int i_reduce(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Reduce)(SA, RA, N, DT, c->op, c->root, CM, MPI_INFO_NULL, q); }
static int i_allgather(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Allgather)(SA, N, DT, RA, N, DT, CM, MPI_INFO_NULL, q); }
static int i_alltoall(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Alltoall)(SA, N, DT, RA, N, DT, CM, MPI_INFO_NULL, q); }
static int i_gather(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Gather)(SA, N, DT, RA, N, DT, c->root, CM, MPI_INFO_NULL, q); }
static int i_scatter(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Scatter)(SA, N, DT, RA, N, DT, c->root, CM, MPI_INFO_NULL, q); }
static int i_barrier(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Barrier)(CM, MPI_INFO_NULL, q); }
/* the v-forms with uniform counts (kind.c fills counts and displs), the reduce-scatters and the scans */
static int i_allgatherv(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Allgatherv)(SA, N, DT, RA, c->counts, c->displs, DT, CM, MPI_INFO_NULL, q); }
static int i_alltoallv(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Alltoallv)(SA, c->counts, c->displs, DT, RA, c->counts, c->displs, DT, CM, MPI_INFO_NULL, q); }
static int i_gatherv(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Gatherv)(SA, N, DT, RA, c->counts, c->displs, DT, c->root, CM, MPI_INFO_NULL, q); }
static int i_scatterv(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Scatterv)(SA, c->counts, c->displs, DT, RA, N, DT, c->root, CM, MPI_INFO_NULL, q); }
static int i_reduce_scatter(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Reduce_scatter)(SA, RA, c->counts, DT, c->op, CM, MPI_INFO_NULL, q); }
static int i_reduce_scatter_block(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Reduce_scatter_block)(SA, RA, N, DT, c->op, CM, MPI_INFO_NULL, q); }
static int i_scan(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Scan)(SA, RA, N, DT, c->op, CM, MPI_INFO_NULL, q); }
static int i_exscan(isochron_op_ctx_t *c, MPI_Request *q) { return PC(Exscan)(SA, RA, N, DT, c->op, CM, MPI_INFO_NULL, q); }
#else
#define i_allreduce NULL
#define i_bcast NULL
#define i_reduce NULL
#define i_allgather NULL
#define i_alltoall NULL
#define i_gather NULL
#define i_scatter NULL
#define i_barrier NULL
#define i_allgatherv NULL
#define i_alltoallv NULL
#define i_gatherv NULL
#define i_scatterv NULL
#define i_reduce_scatter NULL
#define i_reduce_scatter_block NULL
#define i_scan NULL
#define i_exscan NULL
#endif

/* Set-up: the kind's buffers, agreement (the init is collective), the request. */
static int psetup(isochron_op_ctx_t *c, isochron_ops_kind_t k, const char *name, pinit_fn fn, int make)
{
    if (!fn) return isochron_ops_pcoll_missing(name);
    int major, minor, patch;
    if (make && (k.sem == SEM_GATHER || k.sem == SEM_ALLGATHER || k.sem == SEM_SCATTER) &&
        isochron_ops_mpich_version(&major, &minor, &patch) && (major < 4 || (major == 4 && minor < 3)))
        return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                                  "%s: MPICH %d.%d.%d sends what the buffer held at MPI_*_init on every later MPI_Start "
                                  "(pmodels/mpich#7078, fixed by #7081 in 2024; refused before 4.3): the data would be "
                                  "stale; the _init form and the non-persistent forms are unaffected",
                                  name, major, minor, patch);
    int rc = isochron_ops_kind_setup(c, k, name), all = rc;
    if (isochron_allreduce_polite(&rc, &all, 1, MPI_INT, MPI_MIN, c->comm) != ISOCHRON_OK)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Iallreduce failed in set-up", name);
    if (all != ISOCHRON_OK) return rc != ISOCHRON_OK ? rc : isochron_set_error(all, "%s: set-up failed on another rank", name);
    if (make && fn(c, &c->req) != MPI_SUCCESS) {
        c->req = MPI_REQUEST_NULL;
        return isochron_set_error(ISOCHRON_EMPI, "%s: the persistent request's init call failed on rank %d", name, c->rank);
    }
    return ISOCHRON_OK;
}

int isochron_ops_pcoll_missing(const char *name)
{
    return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                              "%s: this MPI library has no persistent collectives (MPI_*_init is MPI-4; Open MPI 4.x "
                              "offers them as MPIX_*_init in its pcollreq extension, not built here)", name);
}

void isochron_ops_pfree(isochron_op_ctx_t *c)
{
    /* a persistent request stays allocated after its wait; one started and not waited must complete
     * before it may be freed (not waited otherwise: see pcoll.h) */
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    if (c->req != MPI_REQUEST_NULL && st && st->pactive) MPI_Wait(&c->req, MPI_STATUS_IGNORE);
    if (st) st->pactive = 0;
    if (c->req != MPI_REQUEST_NULL) MPI_Request_free(&c->req);
}

static void pteardown(isochron_op_ctx_t *c)
{
    isochron_ops_pfree(c);
    isochron_ops_kind_teardown(c);
}

int isochron_ops_pstart(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Start(&c->req), c, "MPI_Start");
    ISOCHRON_OPS_ST(c)->pactive = 1;
    return ISOCHRON_OK;
}

int isochron_ops_pwait(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_ST(c)->pactive = 0;
    return isochron_ops_wait_request(c);
}

int isochron_ops_prun(isochron_op_ctx_t *c)
{
    int rc = isochron_ops_pstart(c);
    return rc ? rc : isochron_ops_pwait(c);
}

/* One init + free (timed), and a validation on a request made the same way. */
int isochron_ops_pinit_cycle(isochron_op_ctx_t *c, pinit_fn fn, int start)
{
    MPI_Request q = MPI_REQUEST_NULL;
    ISOCHRON_OPS_MPI(fn(c, &q), c, "the persistent init call");
    if (start) {
        ISOCHRON_OPS_MPI(MPI_Start(&q), c, "MPI_Start");
        ISOCHRON_OPS_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE), c, "MPI_Wait");
    }
    ISOCHRON_OPS_MPI(MPI_Request_free(&q), c, "MPI_Request_free");
    return ISOCHRON_OK;
}

#define POP(id, sem, fn)                                                                                          \
    static int setup_##id##_persistent(isochron_op_ctx_t *c)                                                      \
    {                                                                                                             \
        return psetup(c, (isochron_ops_kind_t){ sem, ALG_MPI }, #id "_persistent", fn, 1);                         \
    }                                                                                                             \
    static int setup_##id##_init(isochron_op_ctx_t *c)                                                            \
    {                                                                                                             \
        return psetup(c, (isochron_ops_kind_t){ sem, ALG_MPI }, #id "_init", fn, 0);                               \
    }                                                                                                             \
    static size_t memory_##id(const isochron_op_ctx_t *c)                                                         \
    {                                                                                                             \
        return isochron_ops_kind_memory(c, (isochron_ops_kind_t){ sem, ALG_MPI });                                \
    }                                                                                                             \
    static int run_##id##_init(isochron_op_ctx_t *c) { return isochron_ops_pinit_cycle(c, fn, 0); }               \
    static int validate_##id##_init(isochron_op_ctx_t *c)                                                         \
    {                                                                                                             \
        int rc = isochron_ops_pinit_cycle(c, fn, 1);                                                              \
        return rc ? rc : isochron_ops_kind_validate(c);                                                           \
    }

POP(allreduce, SEM_ALLREDUCE, i_allreduce)
POP(bcast, SEM_BCAST, i_bcast)
POP(reduce, SEM_REDUCE, i_reduce)
POP(allgather, SEM_ALLGATHER, i_allgather)
POP(alltoall, SEM_ALLTOALL, i_alltoall)
POP(gather, SEM_GATHER, i_gather)
POP(scatter, SEM_SCATTER, i_scatter)
POP(barrier, SEM_BARRIER, i_barrier)
POP(allgatherv, SEM_ALLGATHERV, i_allgatherv)
POP(alltoallv, SEM_ALLTOALLV, i_alltoallv)
POP(gatherv, SEM_GATHERV, i_gatherv)
POP(scatterv, SEM_SCATTERV, i_scatterv)
POP(reduce_scatter, SEM_REDUCE_SCATTER, i_reduce_scatter)
POP(reduce_scatter_block, SEM_REDUCE_SCATTER_BLOCK, i_reduce_scatter_block)
POP(scan, SEM_SCAN, i_scan)
POP(exscan, SEM_EXSCAN, i_exscan)

/* ---- persistent ping-pong: four requests made once */
typedef struct {
    MPI_Request q[2]; /* [0] receive, [1] send */
} pp_t;

static int pp_init(isochron_op_ctx_t *c, MPI_Request *q)
{
    /* q = c->req is unused: the two requests live in tmp; this only makes them */
    (void)q;
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    pp_t *pp = st->tmp;
    if (c->rank > 1) return MPI_SUCCESS;
    int peer = 1 - c->rank;
    int tin = c->rank == 0 ? ISOCHRON_TAG_PONG : ISOCHRON_TAG_PING, tout = c->rank == 0 ? ISOCHRON_TAG_PING : ISOCHRON_TAG_PONG;
    int rc = MPI_Recv_init(c->rbuf, N, DT, peer, tin, CM, &pp->q[0]);
    return rc != MPI_SUCCESS ? rc : MPI_Send_init(c->sbuf, N, DT, peer, tout, CM, &pp->q[1]);
}

static int setup_pingpong_persistent(isochron_op_ctx_t *c)
{
    int rc = isochron_ops_kind_setup(c, (isochron_ops_kind_t){ SEM_PINGPONG, ALG_MPI }, "pingpong_persistent");
    if (rc) return rc;
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    pp_t *pp = calloc(1, sizeof *pp);
    if (!pp) return isochron_set_error(ISOCHRON_ENOMEM, "pingpong_persistent: out of memory");
    pp->q[0] = pp->q[1] = MPI_REQUEST_NULL;
    st->tmp = pp; /* freed by the kind's teardown */
    if (pp_init(c, NULL) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "pingpong_persistent: MPI_Send_init/MPI_Recv_init failed on rank %d", c->rank);
    return ISOCHRON_OK;
}

static size_t memory_pingpong_persistent(const isochron_op_ctx_t *c)
{
    return isochron_ops_kind_memory(c, (isochron_ops_kind_t){ SEM_PINGPONG, ALG_MPI });
}

static void teardown_pingpong_persistent(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    pp_t *pp = st ? st->tmp : NULL;
    for (int i = 0; pp && i < 2; i++)
        if (pp->q[i] != MPI_REQUEST_NULL) MPI_Request_free(&pp->q[i]);
    isochron_ops_kind_teardown(c);
}

static int run_pingpong_persistent(isochron_op_ctx_t *c)
{
    if (c->rank > 1) return ISOCHRON_OK;
    pp_t *pp = ISOCHRON_OPS_ST(c)->tmp;
    MPI_Status sts[2];
    if (c->rank == 0) {
        ISOCHRON_OPS_MPI(MPI_Startall(2, pp->q), c, "MPI_Startall");
        ISOCHRON_OPS_MPI(MPI_Waitall(2, pp->q, sts), c, "MPI_Waitall");
    } else {
        ISOCHRON_OPS_MPI(MPI_Start(&pp->q[0]), c, "MPI_Start");
        ISOCHRON_OPS_MPI(MPI_Wait(&pp->q[0], MPI_STATUS_IGNORE), c, "MPI_Wait");
        ISOCHRON_OPS_MPI(MPI_Start(&pp->q[1]), c, "MPI_Start");
        ISOCHRON_OPS_MPI(MPI_Wait(&pp->q[1], MPI_STATUS_IGNORE), c, "MPI_Wait");
    }
    return ISOCHRON_OK;
}

#define F_R ISOCHRON_OP_ROOTED
#define F_RED ISOCHRON_OP_REDUCTION
#define F_IP ISOCHRON_OP_INPLACE
#define PERS(id, fl, what)                                                                                       \
    { #id "_persistent", #id, what " persistent: made once in set-up, one run = MPI_Start + MPI_Wait",             \
      ISOCHRON_OP_NONBLOCKING | (fl), setup_##id##_persistent, isochron_ops_kind_prepare, isochron_ops_prun, isochron_ops_pstart, \
      isochron_ops_pwait, (fl) & ISOCHRON_OP_NODATA ? NULL : isochron_ops_kind_validate, pteardown,       \
      memory_##id, NULL, NULL },                                                                                        \
    { #id "_init", #id, what " set-up cost: one run = " what " + MPI_Request_free (validated on a started one)",  \
      (fl), setup_##id##_init, isochron_ops_kind_prepare, run_##id##_init, NULL, NULL, validate_##id##_init,     \
      pteardown, memory_##id, NULL, NULL }

static const isochron_op_t persist_ops[] = {
    PERS(allreduce, F_RED | F_IP, "MPI_Allreduce_init"),
    PERS(bcast, F_R, "MPI_Bcast_init"),
    PERS(reduce, F_R | F_RED, "MPI_Reduce_init"),
    PERS(allgather, F_IP, "MPI_Allgather_init"),
    PERS(alltoall, F_IP, "MPI_Alltoall_init"),
    PERS(gather, F_R | F_IP, "MPI_Gather_init"),
    PERS(scatter, F_R | F_IP, "MPI_Scatter_init"),
    PERS(barrier, ISOCHRON_OP_NODATA, "MPI_Barrier_init"),
    PERS(allgatherv, F_IP, "MPI_Allgatherv_init"),
    PERS(alltoallv, F_IP, "MPI_Alltoallv_init"),
    PERS(gatherv, F_R | F_IP, "MPI_Gatherv_init"),
    PERS(scatterv, F_R | F_IP, "MPI_Scatterv_init"),
    PERS(reduce_scatter, F_RED | F_IP, "MPI_Reduce_scatter_init"),
    PERS(reduce_scatter_block, F_RED | F_IP, "MPI_Reduce_scatter_block_init"),
    PERS(scan, F_RED | F_IP, "MPI_Scan_init"),
    PERS(exscan, F_RED | F_IP, "MPI_Exscan_init"),
    { "pingpong_persistent", "pingpong", "rank 0 <-> 1 round trip on MPI_Send_init/MPI_Recv_init requests made once, "
      "MPI_Start(all) + waits", ISOCHRON_OP_P2P | ISOCHRON_OP_MIN2 | ISOCHRON_OP_PAIR, setup_pingpong_persistent,
      isochron_ops_kind_prepare, run_pingpong_persistent, NULL, NULL, isochron_ops_kind_validate,
      teardown_pingpong_persistent, memory_pingpong_persistent, NULL, NULL },
};

const isochron_op_t *isochron_ops_builtin_persist(int *n)
{
    *n = (int)(sizeof persist_ops / sizeof persist_ops[0]);
    return persist_ops;
}
