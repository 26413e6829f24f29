/*
 * Private interface of the operations module. A built-in operation is a
 * descriptor (isochron/ops.h) whose set-up, prepare, validate, teardown and
 * memory functions are shared by every operation with the same semantics:
 * what matters to them is the "kind", the MPI operation whose result the
 * operation must deliver (sem) and how it is implemented (alg: the MPI call,
 * a linear or binomial algorithm on point-to-point, a fence or lock epoch).
 * Only run/post/wait are specific to each operation, so the timed code is a
 * direct MPI call with no dispatch in front of it.
 */
#ifndef ISOCHRON_OPS_IMPL_H
#define ISOCHRON_OPS_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/ops.h"

/* Memory needs up to this are accepted without asking the node (no process
 * anywhere gets less than 1 MiB). */
#define ISOCHRON_OPS_MEMORY_FLOOR ((size_t)1 << 20)

/* Semantics: which result must arrive where. */
enum isochron_ops_sem {
    SEM_ALLGATHER, SEM_ALLGATHERV, SEM_ALLREDUCE, SEM_ALLTOALL, SEM_ALLTOALLV,
    SEM_BARRIER, SEM_BCAST, SEM_EXSCAN, SEM_GATHER, SEM_GATHERV, SEM_REDUCE,
    SEM_REDUCE_SCATTER, SEM_REDUCE_SCATTER_BLOCK, SEM_SCAN, SEM_SCATTER, SEM_SCATTERV,
    SEM_PINGPONG, SEM_EXCHANGE, SEM_RINGSHIFT, SEM_PUT, SEM_GET, SEM_ACC,
    SEM_GACC, SEM_FOP, SEM_CAS, /* get_accumulate, fetch_and_op, compare_and_swap: a result buffer beside the window */
    SEM_PUT_1ALL, SEM_GET_1ALL, SEM_PUT_AALL, SEM_GET_AALL /* one-to-all and all-to-all put/get (IMB-RMA) */
};
/* Implementation. */
enum isochron_ops_alg { ALG_MPI, ALG_LINEAR, ALG_BINOMIAL, ALG_FENCE, ALG_LOCK, ALG_LOCKALL, ALG_PSCW };

/* Element types the patterns know (the six of isochron_op_dtype_find). */
enum isochron_ops_tkind { TK_BYTE, TK_CHAR, TK_INT, TK_LONG, TK_FLOAT, TK_DOUBLE, TK_OTHER };
/* Reduction ops the patterns know. */
enum isochron_ops_rkind { RK_SUM, RK_PROD, RK_MAX, RK_MIN, RK_OTHER };

typedef struct {
    int sem, alg;
} isochron_ops_kind_t;

/* What one process allocates, in elements. */
typedef struct {
    size_t s, r, tmp, win;
} isochron_ops_elems_t;

/* ctx->state of a built-in operation. */
typedef struct {
    isochron_ops_kind_t kind;
    const char *name;     /* for messages */
    int tk, rk;
    void *sarg, *rarg;    /* what run passes to MPI: MPI_IN_PLACE or the buffer */
    void *tmp;            /* linear/binomial algorithms: staging / accumulator */
    size_t tmp_bytes;
    void *win_base;       /* one-sided: window memory (MPI_Win_allocate) */
    int left, right;      /* ring neighbours */
    int vr;               /* rank relative to the root (binomial trees) */
    MPI_Group gleft, gright; /* one-sided PSCW: the origin that accesses this window, the target this rank accesses */
    int pactive;          /* persistent c->req started and not yet waited (pcoll.h) */
} isochron_ops_state_t;

/* 1 and the version if the library is MPICH (MPI_Get_library_version), else 0 (setup.c). */
int isochron_ops_mpich_version(int *major, int *minor, int *patch);
/* MPI_Win_allocate(wbytes, disp_unit) on c->comm, errors returned rather than fatal: a failure becomes one
 * sentence naming the operation, MPI's error string and, where known, the cause and the remedy (Open MPI
 * 4.1's default osc component on ranks that span nodes). Collective; on failure *win is MPI_WIN_NULL. */
int isochron_ops_win_allocate(const char *name, isochron_op_ctx_t *c, size_t wbytes, int disp_unit, void *base, MPI_Win *win);
/* ISOCHRON_EUNSUPPORTED naming the library defect and its remedy when c->win's component crashes in a
 * compare-and-swap of c->dtype (Open MPI 4's osc rdma, 8-byte integers, 2+ processes), else OK (setup.c). */
int isochron_ops_cas_defect(const char *name, const isochron_op_ctx_t *c);

/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE" for a thread level (thread.c). */
const char *isochron_ops_thread_level_name(int level);

/* A page-aligned buffer of n bytes (64 when n is 0, so every pointer is valid); free() releases it (kind.c). */
void *isochron_ops_alloc(size_t n);

/* A state of BYTES (an isochron_ops_state_t first) as c->state: a copy of INIT (the operation's own fields
 * set, the rest zero), or zeroed when INIT is NULL, with NAME and the element kind of c->dtype filled in;
 * ENOMEM with a sentence naming the operation (kind.c). */
int isochron_ops_state_new(isochron_op_ctx_t *c, const void *init, size_t bytes, const char *name);

/* Shared implementation of a kind (kind.c). */
int isochron_ops_kind_setup(isochron_op_ctx_t *c, isochron_ops_kind_t k, const char *name);
/* The same for the large-count (_c) operations: no INT_MAX limit on counts (no v-forms: their int arrays stay unset) */
int isochron_ops_kind_setup_c(isochron_op_ctx_t *c, isochron_ops_kind_t k, const char *name);
size_t isochron_ops_kind_memory(const isochron_op_ctx_t *c, isochron_ops_kind_t k);
size_t isochron_ops_kind_max_elems(const isochron_op_ctx_t *c, isochron_ops_kind_t k);
int isochron_ops_kind_prepare(isochron_op_ctx_t *c);
int isochron_ops_kind_validate(isochron_op_ctx_t *c);
void isochron_ops_kind_teardown(isochron_op_ctx_t *c);
int isochron_ops_wait_request(isochron_op_ctx_t *c);

/* Patterns (pattern.c). Values are exact integers in every element type. */
int isochron_ops_tkind(MPI_Datatype dt);
int isochron_ops_rkind(MPI_Op op);
long long isochron_ops_mv(int tk, int rank, size_t i, int rep);
long long isochron_ops_rv(int rk, int rank, size_t i, int rep, int size);
long long isochron_ops_fold(int rk, long long a, long long b);
void isochron_ops_fill_mv(void *buf, int tk, int rank, size_t first, size_t n, int rep);
void isochron_ops_fill_rv(void *buf, int tk, int rk, int rank, size_t first, size_t n, int rep, int size);
void isochron_ops_poison(void *buf, size_t bytes);
int isochron_ops_elem_equal(const void *buf, size_t idx, int tk, long long v);
void isochron_ops_elem_format(const void *buf, size_t idx, int tk, char *out, size_t n);
/* Checking received blocks of the movement pattern: the first wrong element and how many are wrong. */
typedef struct {
    size_t bad, first, total;
    long long expected;
    int from;
    char got[64];
} isochron_ops_vstate_t;
/* Elements off..off+n-1 of buf must be rank from's pattern elements first..first+n-1 of repetition rep. */
void isochron_ops_vblock(isochron_ops_vstate_t *v, const void *buf, size_t off, size_t n, int tk, int from, size_t first,
                         int rep);
/* Elements off..off+n-1 of buf must be the reduction rk over ranks lo..hi of pattern elements first..first+n-1. */
void isochron_ops_rblock(isochron_ops_vstate_t *v, const void *buf, size_t off, size_t n, int tk, int rk, int lo, int hi,
                         size_t first, int rep, int size);

/* Tables of built-in descriptors, one per source file (isochron_ops_builtin_<file>), in the order the
 * registry lists them (registry.c): declared and gathered from this one list. */
#define ISOCHRON_OPS_BUILTINS(X) \
    X(coll) X(p2p) X(rma) X(alt) X(tput) X(neighbor) X(persist) X(thread) X(rmabw) X(part) X(bigcount) X(mockup)
#define ISOCHRON_OPS_BUILTIN_DECL(file) const isochron_op_t *isochron_ops_builtin_##file(int *n);
ISOCHRON_OPS_BUILTINS(ISOCHRON_OPS_BUILTIN_DECL)

/* The shared functions of a kind, wrapped once per operation (the run
 * functions stay individual): the kind is one constant both wrappers read. */
#define ISOCHRON_OPS_KIND(id, sem, alg)                                                                      \
    static const isochron_ops_kind_t kind_##id = { sem, alg };                                                 \
    static int setup_##id(isochron_op_ctx_t *c) { return isochron_ops_kind_setup(c, kind_##id, #id); }         \
    static size_t memory_##id(const isochron_op_ctx_t *c) { return isochron_ops_kind_memory(c, kind_##id); }

#define ISOCHRON_OPS_ST(c) ((isochron_ops_state_t *)(c)->state)

/* MPI failure inside run/post/wait: an error sentence naming the call. */
#define ISOCHRON_OPS_MPI(call, c, what)                                                   \
    do {                                                                                  \
        if ((call) != MPI_SUCCESS)                                                        \
            return isochron_set_error(ISOCHRON_EMPI, "%s: %s failed on rank %d",          \
                                      ISOCHRON_OPS_ST(c)->name, what, (c)->rank);         \
    } while (0)

/* One round trip of a ping-pong between this rank and PEER (p2p.c pingpong, bigcount.c pingpong_c, tput.c
 * multi_lat): the rank where STARTS is true sends PING and receives PONG, its peer receives PING and sends
 * PONG. SEND and RECV are the MPI calls (MPI_Send/MPI_Recv or their large-count _c forms), N the count in
 * the type they take. Returns from the enclosing run function on an MPI failure. */
#define ISOCHRON_OPS_ROUND_TRIP(c, SEND, RECV, N, peer, starts)                                           \
    do {                                                                                                  \
        if (starts) {                                                                                     \
            ISOCHRON_OPS_MPI(SEND((c)->sbuf, N, (c)->dtype, peer, ISOCHRON_TAG_PING, (c)->comm), c, #SEND);   \
            ISOCHRON_OPS_MPI(RECV((c)->rbuf, N, (c)->dtype, peer, ISOCHRON_TAG_PONG, (c)->comm, MPI_STATUS_IGNORE), \
                             c, #RECV);                                                                   \
        } else {                                                                                          \
            ISOCHRON_OPS_MPI(RECV((c)->rbuf, N, (c)->dtype, peer, ISOCHRON_TAG_PING, (c)->comm, MPI_STATUS_IGNORE), \
                             c, #RECV);                                                                   \
            ISOCHRON_OPS_MPI(SEND((c)->sbuf, N, (c)->dtype, peer, ISOCHRON_TAG_PONG, (c)->comm), c, #SEND);   \
        }                                                                                                 \
    } while (0)

/* Tags of the point-to-point based operations (on the measured communicator;
 * the engine sends nothing of its own there while an operation runs). */
enum {
    ISOCHRON_TAG_PING = 0x1501, ISOCHRON_TAG_PONG, ISOCHRON_TAG_EXL, ISOCHRON_TAG_EXR,
    ISOCHRON_TAG_RING, ISOCHRON_TAG_BCAST, ISOCHRON_TAG_SCATTER, ISOCHRON_TAG_GATHER,
    ISOCHRON_TAG_REDUCE, ISOCHRON_TAG_WIN, ISOCHRON_TAG_ACK
};
/* Threaded operations (thread.c): thread t of a rank uses tag ISOCHRON_TAG_THREAD + t. */
#define ISOCHRON_TAG_THREAD 0x1600

#endif
