/*
 * Neighborhood collectives (MPI-3, MPI standard sec. 8.6) and Alltoallw,
 * blocking and non-blocking, the ones OSU (osu_neighbor_*) and IMB-NBC
 * measure. A neighborhood collective needs a communicator with a topology;
 * the measured communicator has none, so each operation builds its own in
 * set-up (collective, not timed) and frees it in teardown, and the topology
 * is part of the operation's name:
 *   _cart   a 2-D Cartesian grid from MPI_Dims_create(p, 2), periodic only
 *           in dimensions of 3 or more ranks (a periodic dimension of 1 or 2
 *           makes a rank its own or its neighbour's neighbour twice, where
 *           MPI-3.0 and MPI-4 order the blocks differently); neighbours in
 *           the standard's order: for each dimension the rank at -1, then
 *           at +1; MPI_PROC_NULL at an open edge moves nothing;
 *   _graph  a distributed graph (MPI_Dist_graph_create_adjacent): rank r
 *           sends to r+1 and r+2 and receives from r-1 and r-2 (mod p), so
 *           every rank has in- and out-degree 2 (at p = 2 one edge is a
 *           self-loop).
 * alltoallw and ialltoallw run on the measured communicator with a
 * datatype and a byte displacement per peer (uniform blocks, as IMB does).
 * Data: the alltoall family sends block j of its pattern (pattern.c, rank r,
 * elements j*n..) to out-neighbour j, and receives in slot i what in-neighbour
 * i sent there: block i^1 of a Cartesian neighbour (the -1 neighbour's +1
 * block), block i of a graph neighbour, block `rank` of every peer of
 * alltoallw; the allgather family sends its n elements to every
 * out-neighbour. validate() checks every element of every slot with a real
 * neighbour.
 * Persistent forms (MPI-4 sec. 6.13 / 8.6.5, issue 18), as persist.c makes
 * them for the other collectives (shared helpers and library detection in
 * pcoll.h): alltoallw_persistent / alltoallw_init and, for each blocking
 * neighbourhood operation X_cart, X_graph, the pair X_cart_persistent,
 * X_cart_init ...: _persistent makes MPI_X_init's request on the topology in
 * set-up and runs MPI_Start + MPI_Wait; _init runs MPI_X_init +
 * MPI_Request_free and validates on a request made, started and waited.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/pcoll.h"

enum { TOPO_CART, TOPO_GRAPH, TOPO_ALL };
enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

typedef struct {
    isochron_ops_state_t base; /* first: ISOCHRON_OPS_ST works */
    int topo, what;
    MPI_Comm tcomm;            /* the topology communicator (TOPO_ALL: ctx->comm) */
    int indeg, outdeg;
    int *src, *blk;            /* in-neighbour i and the block of its send buffer that lands in slot i */
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sdw, *rdw;       /* byte displacements of the neighbourhood alltoallw */
    MPI_Datatype *stypes, *rtypes;
} nb_state_t;

#define NST(c) ((nb_state_t *)(c)->state)

static int degree(int topo, int p) { return topo == TOPO_CART ? 4 : topo == TOPO_GRAPH ? 2 : p; }

static int sends_blocks(int what) { return what != NB_ALLGATHER && what != NB_ALLGATHERV; }

static size_t memory_of(int topo, int what, const isochron_op_ctx_t *c)
{
    size_t d = (size_t)degree(topo, c->size > 0 ? c->size : 1), per = c->count * (size_t)c->dtype_size;
    size_t blocks = d + (sends_blocks(what) ? d : 1);
    return per && blocks > SIZE_MAX / per ? SIZE_MAX : blocks * per;
}

static void teardown_nb(isochron_op_ctx_t *c)
{
    nb_state_t *st = NST(c);
    if (c->req != MPI_REQUEST_NULL) MPI_Wait(&c->req, MPI_STATUS_IGNORE); /* posted, never waited */
    if (st) {
        if (st->tcomm != MPI_COMM_NULL && st->topo != TOPO_ALL) MPI_Comm_free(&st->tcomm);
        void *arrs[] = { st->src, st->blk, st->scounts, st->sdispls, st->rcounts, st->rdispls, st->sdw, st->rdw,
                         st->stypes, st->rtypes };
        for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) free(arrs[i]);
    }
    free(c->sbuf);
    free(c->rbuf);
    free(st);
    c->sbuf = c->rbuf = NULL;
    c->state = NULL;
}

/* The topology communicator and the in-neighbours in the order MPI uses. */
static int make_topology(isochron_op_ctx_t *c, nb_state_t *st)
{
    int p = c->size, r = c->rank;
    if (st->topo == TOPO_ALL) {
        st->tcomm = c->comm;
        for (int j = 0; j < p; j++) { st->src[j] = j; st->blk[j] = r; }
        return ISOCHRON_OK;
    }
    if (st->topo == TOPO_CART) {
        int dims[2] = { 0, 0 }, periods[2];
        if (MPI_Dims_create(p, 2, dims) != MPI_SUCCESS) return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Dims_create failed", st->base.name);
        for (int d = 0; d < 2; d++) periods[d] = dims[d] >= 3;
        if (MPI_Cart_create(c->comm, 2, dims, periods, 0, &st->tcomm) != MPI_SUCCESS) {
            st->tcomm = MPI_COMM_NULL;
            return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Cart_create of %d x %d failed", st->base.name, dims[0], dims[1]);
        }
        for (int d = 0; d < 2; d++) {
            int lo, hi;
            if (MPI_Cart_shift(st->tcomm, d, 1, &lo, &hi) != MPI_SUCCESS)
                return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Cart_shift failed", st->base.name);
            st->src[2 * d] = lo; st->blk[2 * d] = 2 * d + 1;     /* the -1 neighbour sent its +1 block */
            st->src[2 * d + 1] = hi; st->blk[2 * d + 1] = 2 * d; /* the +1 neighbour sent its -1 block */
        }
        return ISOCHRON_OK;
    }
    int srcs[2] = { (r - 1 + p) % p, (r - 2 + 2 * p) % p }, dsts[2] = { (r + 1) % p, (r + 2) % p };
    int wts[2] = { 1, 1 }; /* unit weights: Open MPI's MPI_UNWEIGHTED sentinel makes gcc warn */
    if (MPI_Dist_graph_create_adjacent(c->comm, 2, srcs, wts, 2, dsts, wts, MPI_INFO_NULL, 0,
                                       &st->tcomm) != MPI_SUCCESS) {
        st->tcomm = MPI_COMM_NULL;
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Dist_graph_create_adjacent failed", st->base.name);
    }
    for (int i = 0; i < 2; i++) { st->src[i] = srcs[i]; st->blk[i] = i; }
    return ISOCHRON_OK;
}

static int setup_of(int topo, int what, isochron_op_ctx_t *c, const char *name)
{
    nb_state_t init = { .topo = topo, .what = what, .tcomm = MPI_COMM_NULL };
    int rc = isochron_ops_state_new(c, &init, sizeof init, name);
    if (rc) return rc;
    nb_state_t *st = c->state;
    int d = degree(topo, c->size), ts = c->dtype_size;
    st->indeg = st->outdeg = d;
    size_t per = c->count * (size_t)ts;
    /* byte displacements (alltoallw) and element displacements must fit an int */
    if ((size_t)d * per > (size_t)INT_MAX)
        return isochron_set_error(ISOCHRON_EINVAL, "%s: %d blocks of %zu bytes exceed the %d bytes an MPI displacement can address",
                                  name, d, per, INT_MAX);
    size_t nd = (size_t)d;
    st->src = malloc(nd * sizeof(int));
    st->blk = malloc(nd * sizeof(int));
    st->scounts = malloc(nd * sizeof(int));
    st->sdispls = malloc(nd * sizeof(int));
    st->rcounts = malloc(nd * sizeof(int));
    st->rdispls = malloc(nd * sizeof(int));
    st->sdw = malloc(nd * sizeof(MPI_Aint));
    st->rdw = malloc(nd * sizeof(MPI_Aint));
    st->stypes = malloc(nd * sizeof(MPI_Datatype));
    st->rtypes = malloc(nd * sizeof(MPI_Datatype));
    c->sbuf_bytes = sends_blocks(what) ? nd * per : per;
    c->rbuf_bytes = nd * per;
    c->sbuf = isochron_ops_alloc(c->sbuf_bytes);
    c->rbuf = isochron_ops_alloc(c->rbuf_bytes);
    if (!st->src || !st->blk || !st->scounts || !st->sdispls || !st->rcounts || !st->rdispls || !st->sdw || !st->rdw ||
        !st->stypes || !st->rtypes || !c->sbuf || !c->rbuf)
        rc = isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate %zu + %zu bytes on rank %d", name, c->sbuf_bytes,
                                c->rbuf_bytes, c->rank);
    else
        for (int j = 0; j < d; j++) {
            st->scounts[j] = st->rcounts[j] = (int)c->count;
            st->sdispls[j] = st->rdispls[j] = (int)((size_t)j * c->count);
            st->stypes[j] = st->rtypes[j] = c->dtype;
            st->sdw[j] = st->rdw[j] = (MPI_Aint)((size_t)j * per);
        }
    /* the topology is collective: agree first so no rank waits for one that failed */
    int all = rc;
    if (isochron_allreduce_polite(&rc, &all, 1, MPI_INT, MPI_MIN, c->comm) != ISOCHRON_OK)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Iallreduce failed in set-up", name);
    if (all != ISOCHRON_OK) return rc != ISOCHRON_OK ? rc : isochron_set_error(all, "%s: set-up failed on another rank", name);
    if (topo == TOPO_ALL) {
        /* alltoallw takes int byte displacements */
        for (int j = 0; j < d; j++) { st->sdispls[j] = st->rdispls[j] = (int)st->sdw[j]; }
    }
    return make_topology(c, st);
}

static int prepare_nb(isochron_op_ctx_t *c)
{
    isochron_ops_poison(c->rbuf, c->rbuf_bytes);
    isochron_ops_fill_mv(c->sbuf, NST(c)->base.tk, c->rank, 0, c->sbuf_bytes / (size_t)c->dtype_size, c->rep);
    return ISOCHRON_OK;
}

static int validate_nb(isochron_op_ctx_t *c)
{
    nb_state_t *st = NST(c);
    size_t n = c->count;
    int blocks = sends_blocks(st->what);
    isochron_ops_vstate_t v;
    memset(&v, 0, sizeof v);
    for (int i = 0; i < st->indeg; i++)
        if (st->src[i] != MPI_PROC_NULL) /* an open edge of the grid: nothing arrives */
            isochron_ops_vblock(&v, c->rbuf, (size_t)i * n, n, st->base.tk, st->src[i], blocks ? (size_t)st->blk[i] * n : 0,
                                c->rep);
    if (!v.bad) return ISOCHRON_OK;
    return isochron_set_error(ISOCHRON_EVALIDATE,
                              "%s: wrong data on rank %d, element %zu (slot %zu, from rank %d): expected %lld, got %s "
                              "(%s, %zu bytes, repetition %d; %zu of %zu elements wrong)",
                              st->base.name, c->rank, v.first, n ? v.first / n : 0, v.from, v.expected, v.got,
                              isochron_op_dtype_name(c->dtype), c->bytes, c->rep, v.bad, v.total);
}

#define N ((int)c->count)
#define DT (c->dtype)
#define S NST(c)
#define TC (NST(c)->tcomm)

/* The MPI call of each operation: blocking, non-blocking (into *req) or the persistent init (into *req). */
enum { M_BLOCK, M_NB, M_PINIT };
#if ISOCHRON_HAVE_PCOLL
#define PINIT(b, ...) ISOCHRON_PC(b)(__VA_ARGS__, MPI_INFO_NULL, req)
#else
#define PINIT(b, ...) MPI_ERR_OTHER /* never reached: set-up refuses (isochron_ops_pcoll_missing) */
#endif
#define CALL3(b, i, ...) (mode == M_BLOCK ? MPI_##b(__VA_ARGS__) : mode == M_NB ? MPI_##i(__VA_ARGS__, req) : PINIT(b, __VA_ARGS__))

static int mpi_call(isochron_op_ctx_t *c, int mode, MPI_Request *req)
{
    nb_state_t *st = S;
    void *sb = c->sbuf, *rb = c->rbuf;
    switch (st->what) {
    case NB_ALLGATHER: return CALL3(Neighbor_allgather, Ineighbor_allgather, sb, N, DT, rb, N, DT, TC);
    case NB_ALLGATHERV:
        return CALL3(Neighbor_allgatherv, Ineighbor_allgatherv, sb, N, DT, rb, st->rcounts, st->rdispls, DT, TC);
    case NB_ALLTOALL: return CALL3(Neighbor_alltoall, Ineighbor_alltoall, sb, N, DT, rb, N, DT, TC);
    case NB_ALLTOALLV:
        return CALL3(Neighbor_alltoallv, Ineighbor_alltoallv, sb, st->scounts, st->sdispls, DT, rb, st->rcounts,
                     st->rdispls, DT, TC);
    default:
        if (st->topo == TOPO_ALL)
            return CALL3(Alltoallw, Ialltoallw, sb, st->scounts, st->sdispls, st->stypes, rb, st->rcounts, st->rdispls,
                         st->rtypes, TC);
        return CALL3(Neighbor_alltoallw, Ineighbor_alltoallw, sb, st->scounts, st->sdw, st->stypes, rb, st->rcounts,
                     st->rdw, st->rtypes, TC);
    }
}

static int call(isochron_op_ctx_t *c, int mode, MPI_Request *req)
{
    if (mpi_call(c, mode, req) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: the MPI call failed on rank %d", S->base.name, c->rank);
    return ISOCHRON_OK;
}

static int run_nb(isochron_op_ctx_t *c) { return call(c, M_BLOCK, NULL); }
static int post_nb(isochron_op_ctx_t *c) { return call(c, M_NB, &c->req); }
static int run_inb(isochron_op_ctx_t *c)
{
    int rc = post_nb(c);
    return rc ? rc : isochron_ops_wait_request(c);
}

/* ---- persistent forms (pcoll.h): X_persistent makes its request in set-up, X_init makes one per run */
static int pinit_nb(isochron_op_ctx_t *c, MPI_Request *q) { return mpi_call(c, M_PINIT, q); }

static int psetup_of(int topo, int what, isochron_op_ctx_t *c, const char *name, int make)
{
    if (!ISOCHRON_HAVE_PCOLL) return isochron_ops_pcoll_missing(name);
    int rc = setup_of(topo, what, c, name); /* agreed across ranks; the init call is collective */
    if (rc || !make) return rc;
    if (pinit_nb(c, &c->req) != MPI_SUCCESS) {
        c->req = MPI_REQUEST_NULL;
        return isochron_set_error(ISOCHRON_EMPI, "%s: the persistent request's init call failed on rank %d", name, c->rank);
    }
    return ISOCHRON_OK;
}

static void teardown_pnb(isochron_op_ctx_t *c)
{
    isochron_ops_pfree(c); /* before its topology communicator goes */
    teardown_nb(c);
}

static int run_pinit(isochron_op_ctx_t *c) { return isochron_ops_pinit_cycle(c, pinit_nb, 0); }
static int validate_pinit(isochron_op_ctx_t *c)
{
    int rc = isochron_ops_pinit_cycle(c, pinit_nb, 1);
    return rc ? rc : validate_nb(c);
}

#define NBOP(name, topo, what)                                                                                 \
    static int setup_##name(isochron_op_ctx_t *c) { return setup_of(topo, what, c, #name); }                  \
    static size_t memory_##name(const isochron_op_ctx_t *c) { return memory_of(topo, what, c); }
/* a blocking operation with its persistent pair */
#define PNBOP(name, topo, what)                                                                                \
    NBOP(name, topo, what)                                                                                     \
    static int setup_##name##_persistent(isochron_op_ctx_t *c) { return psetup_of(topo, what, c, #name "_persistent", 1); } \
    static int setup_##name##_init(isochron_op_ctx_t *c) { return psetup_of(topo, what, c, #name "_init", 0); }

PNBOP(alltoallw, TOPO_ALL, NB_ALLTOALLW)
NBOP(ialltoallw, TOPO_ALL, NB_ALLTOALLW)
#define NBPAIR(what, lname)                                                                                     \
    PNBOP(neighbor_##lname##_cart, TOPO_CART, what)                                                             \
    NBOP(ineighbor_##lname##_cart, TOPO_CART, what)                                                            \
    PNBOP(neighbor_##lname##_graph, TOPO_GRAPH, what)                                                           \
    NBOP(ineighbor_##lname##_graph, TOPO_GRAPH, what)
NBPAIR(NB_ALLGATHER, allgather)
NBPAIR(NB_ALLGATHERV, allgatherv)
NBPAIR(NB_ALLTOALL, alltoall)
NBPAIR(NB_ALLTOALLV, alltoallv)
NBPAIR(NB_ALLTOALLW, alltoallw)

#define B(id, fam, desc) BF(id, fam, desc, 0)
#define BF(id, fam, desc, fl)                                                                                  \
    { #id, fam, desc, fl, setup_##id, prepare_nb, run_nb, NULL, NULL, validate_nb, teardown_nb, memory_##id, NULL, NULL }
#define I(id, fam, desc) IF(id, fam, desc, 0)
#define IF(id, fam, desc, fl)                                                                                  \
    { #id, fam, desc, ISOCHRON_OP_NONBLOCKING | (fl), setup_##id, prepare_nb, run_inb, post_nb, isochron_ops_wait_request, \
      validate_nb, teardown_nb, memory_##id, NULL, NULL }
/* the persistent pair of the blocking operation id (its memory function), made by MPI_<call>_init */
#define P(id, fam, call, on, fl)                                                                               \
    { #id "_persistent", fam, call "_init" on ", made once in set-up; one run = MPI_Start + MPI_Wait",         \
      ISOCHRON_OP_NONBLOCKING | (fl), setup_##id##_persistent, prepare_nb, isochron_ops_prun, isochron_ops_pstart, \
      isochron_ops_pwait, validate_nb, teardown_pnb, memory_##id, NULL, NULL },                               \
    { #id "_init", fam, call "_init + MPI_Request_free" on " (validated on a started one)", (fl), setup_##id##_init, \
      prepare_nb, run_pinit, NULL, NULL, validate_pinit, teardown_nb, memory_##id, NULL, NULL }
#define CART "2-D Cartesian grid (MPI_Dims_create; periodic in dims >= 3)"
#define GRAPH "distributed graph r -> r+1, r+2 (mod p)"
/* per family: blocking, non-blocking, persistent and init on each topology */
#define SIX(lname)                                                                                       \
    B(neighbor_##lname##_cart, "neighbor_" #lname, "MPI_Neighbor_" #lname " on a " CART),                     \
    I(ineighbor_##lname##_cart, "neighbor_" #lname, "MPI_Ineighbor_" #lname " + wait on a " CART),            \
    BF(neighbor_##lname##_graph, "neighbor_" #lname, "MPI_Neighbor_" #lname " on a " GRAPH, ISOCHRON_OP_MIN2),  \
    IF(ineighbor_##lname##_graph, "neighbor_" #lname, "MPI_Ineighbor_" #lname " + wait on a " GRAPH, ISOCHRON_OP_MIN2), \
    P(neighbor_##lname##_cart, "neighbor_" #lname, "MPI_Neighbor_" #lname, " on the Cartesian grid", 0),      \
    P(neighbor_##lname##_graph, "neighbor_" #lname, "MPI_Neighbor_" #lname, " on the graph", ISOCHRON_OP_MIN2)

static const isochron_op_t nb_ops[] = {
    B(alltoallw, "alltoallw", "MPI_Alltoallw: a block to every rank, a datatype and byte displacement per peer"),
    I(ialltoallw, "alltoallw", "MPI_Ialltoallw + wait"),
    P(alltoallw, "alltoallw", "MPI_Alltoallw", "", 0),
    SIX(allgather),
    SIX(allgatherv),
    SIX(alltoall),
    SIX(alltoallv),
    SIX(alltoallw),
};

const isochron_op_t *isochron_ops_builtin_neighbor(int *n)
{
    *n = (int)(sizeof nb_ops / sizeof nb_ops[0]);
    return nb_ops;
}
