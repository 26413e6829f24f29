/*
 * One-sided basics (MPI-3.1 ch. 11), the two synchronization styles a
 * benchmark must tell apart: active target (a fence epoch around the access,
 * collective) and passive target (an exclusive lock of the target around it,
 * only origin and target involved). Every rank accesses its right ring
 * neighbour's window, so every rank is origin once and target once per run:
 *   put_*         MPI_Put of `bytes` into the neighbour's window;
 *   get_*         MPI_Get of `bytes` from it;
 *   accumulate_*  MPI_Accumulate with the reduction op (sum, prod, max, min);
 *   get_accumulate_*    MPI_Get_accumulate: the same, the old target values
 *                       returned to a result buffer (osu_get_acc_latency);
 *   fetch_and_op_*      one MPI_Fetch_and_op per element (osu_fop_latency at
 *                       one element: 8 B of long);
 *   compare_and_swap_*  one MPI_Compare_and_swap per element, the compare
 *                       value equal to the target's so every swap happens
 *                       (osu_cas_latency); integer types only.
 * The atomics are checked on both sides: the result buffer holds the target's
 * values from before the access, the window the updated ones.
 * IMB-RMA's one-to-all and all-to-all sets, under lock_all with one
 * MPI_Win_flush_all for all targets:
 *   put_one_to_all / get_one_to_all  the root puts its block into every other
 *       window, or gets every other window's block (the others stay passive);
 *   put_all_to_all / get_all_to_all  every rank does so, targets visited from
 *       its right neighbour on (rank j's block lands in block j of a window).
 * One run = one complete epoch (fence, access, fence; lock, access,
 * unlock; lock_all, access, flush, unlock_all; or post, start, access,
 * complete, wait, the generalized active target of PSCW). The window (MPI_Win_allocate, `bytes` per rank) is created in
 * set-up and freed in teardown; prepare and validate synchronize the window
 * contents outside the timed part (kind.c).
 */
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

#define N ((int)c->count)
#define DT (c->dtype)

#define FENCE(c) ISOCHRON_OPS_MPI(MPI_Win_fence(0, (c)->win), c, "MPI_Win_fence")
#define LOCK(c, t) ISOCHRON_OPS_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, (c)->win), c, "MPI_Win_lock")
#define UNLOCK(c, t) ISOCHRON_OPS_MPI(MPI_Win_unlock(t, (c)->win), c, "MPI_Win_unlock")
#define PUT(c, t) ISOCHRON_OPS_MPI(MPI_Put(c->sbuf, N, DT, t, 0, N, DT, c->win), c, "MPI_Put")
#define GET(c, t) ISOCHRON_OPS_MPI(MPI_Get(c->rbuf, N, DT, t, 0, N, DT, c->win), c, "MPI_Get")
#define ACC(c, t) ISOCHRON_OPS_MPI(MPI_Accumulate(c->sbuf, N, DT, t, 0, N, DT, c->op, c->win), c, "MPI_Accumulate")
#define GACC(c, t)                                                                                  \
    ISOCHRON_OPS_MPI(MPI_Get_accumulate(c->sbuf, N, DT, c->rbuf, N, DT, t, 0, N, DT, c->op, c->win), c,  \
                     "MPI_Get_accumulate")
#define ELEM(buf, e) ((char *)(buf) + (size_t)(e) * (size_t)c->dtype_size)
#define FOP(c, t)                                                                                   \
    for (int e_ = 0; e_ < N; e_++)                                                                  \
    ISOCHRON_OPS_MPI(MPI_Fetch_and_op(ELEM(c->sbuf, e_), ELEM(c->rbuf, e_), DT, t, e_, c->op, c->win), c, \
                     "MPI_Fetch_and_op")
#define CAS(c, t)                                                                                   \
    for (int e_ = 0; e_ < N; e_++)                                                                  \
    ISOCHRON_OPS_MPI(MPI_Compare_and_swap(ELEM(c->sbuf, e_), ELEM(ISOCHRON_OPS_ST(c)->tmp, e_), ELEM(c->rbuf, e_), \
                                          DT, t, e_, c->win), c, "MPI_Compare_and_swap")

/* One run = one epoch of a synchronization style around one access of the right neighbour's window:
 * STYLE_OPEN(c, st), ACCESS(c, STYLE_T(c, st)), STYLE_CLOSE(c, st), with STYLE_T the right neighbour
 * and ALG_<STYLE> the kind's implementation. The styles: a fence epoch; an exclusive lock of the
 * target; lock_all + flush (a shared lock on every window, the access completed at its target by
 * MPI_Win_flush, then unlock_all, one epoch per run; OSU's -w lockall -s flush instead opens one
 * lock_all for its whole loop and times access + flush inside it, see bench/peers.sh); PSCW (expose this
 * window to the left neighbour, access the right one's: generalized active target). Each style reads
 * the target where its own run did before the fold, so the timed code is the same instruction for
 * instruction. */
#define FENCE_OPEN(c, st) FENCE(c)
#define FENCE_T(c, st) ISOCHRON_OPS_ST(c)->right
#define FENCE_CLOSE(c, st) FENCE(c)
#define LOCK_OPEN(c, st)                                                                              \
    int t_ = ISOCHRON_OPS_ST(c)->right;                                                              \
    LOCK(c, t_)
#define LOCK_T(c, st) t_
#define LOCK_CLOSE(c, st) UNLOCK(c, t_)
#define LOCKALL_OPEN(c, st)                                                                           \
    int t_ = ISOCHRON_OPS_ST(c)->right;                                                              \
    ISOCHRON_OPS_MPI(MPI_Win_lock_all(0, c->win), c, "MPI_Win_lock_all")
#define LOCKALL_T(c, st) t_
#define LOCKALL_CLOSE(c, st)                                                                          \
    ISOCHRON_OPS_MPI(MPI_Win_flush(t_, c->win), c, "MPI_Win_flush");                                  \
    ISOCHRON_OPS_MPI(MPI_Win_unlock_all(c->win), c, "MPI_Win_unlock_all")
#define PSCW_OPEN(c, st)                                                                              \
    ISOCHRON_OPS_MPI(MPI_Win_post((st)->gleft, 0, c->win), c, "MPI_Win_post");                        \
    ISOCHRON_OPS_MPI(MPI_Win_start((st)->gright, 0, c->win), c, "MPI_Win_start")
#define PSCW_T(c, st) (st)->right
#define PSCW_CLOSE(c, st)                                                                             \
    ISOCHRON_OPS_MPI(MPI_Win_complete(c->win), c, "MPI_Win_complete");                                \
    ISOCHRON_OPS_MPI(MPI_Win_wait(c->win), c, "MPI_Win_wait")
/* k back to back (the engine's loop timing, isochron_op_t.run_n): under lock_all one epoch around k
 * accesses, each completed by MPI_Win_flush; the other styles repeat the whole epoch (run_n NULL). */
#define LOCKALL_RUNN(id, ACCESS)                                                                      \
    static int runn_##id(isochron_op_ctx_t *c, int k)                                                \
    {                                                                                                \
        int t_ = ISOCHRON_OPS_ST(c)->right;                                                          \
        ISOCHRON_OPS_MPI(MPI_Win_lock_all(0, c->win), c, "MPI_Win_lock_all");                         \
        for (int i_ = 0; i_ < k; i_++) {                                                             \
            ACCESS(c, t_);                                                                           \
            ISOCHRON_OPS_MPI(MPI_Win_flush(t_, c->win), c, "MPI_Win_flush");                          \
        }                                                                                            \
        ISOCHRON_OPS_MPI(MPI_Win_unlock_all(c->win), c, "MPI_Win_unlock_all");                        \
        return ISOCHRON_OK;                                                                          \
    }
#define FENCE_RUNN(id, ACCESS) enum { runn_##id##_none_ };
#define LOCK_RUNN(id, ACCESS) enum { runn_##id##_none_ };
#define PSCW_RUNN(id, ACCESS) enum { runn_##id##_none_ };
#define EPOCH_OP(id, sem, STYLE, ACCESS)                                                              \
    ISOCHRON_OPS_KIND(id, sem, ALG_##STYLE)                                                           \
    static int run_##id(isochron_op_ctx_t *c)                                                        \
    {                                                                                                \
        isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);                                                \
        (void)st;                                                                                    \
        STYLE##_OPEN(c, st);                                                                         \
        ACCESS(c, STYLE##_T(c, st));                                                                 \
        STYLE##_CLOSE(c, st);                                                                        \
        return ISOCHRON_OK;                                                                          \
    }                                                                                                \
    STYLE##_RUNN(id, ACCESS)
EPOCH_OP(put_fence, SEM_PUT, FENCE, PUT)
EPOCH_OP(get_fence, SEM_GET, FENCE, GET)
EPOCH_OP(accumulate_fence, SEM_ACC, FENCE, ACC)
EPOCH_OP(put_lock, SEM_PUT, LOCK, PUT)
EPOCH_OP(get_lock, SEM_GET, LOCK, GET)
EPOCH_OP(accumulate_lock, SEM_ACC, LOCK, ACC)
EPOCH_OP(put_lockall, SEM_PUT, LOCKALL, PUT)
EPOCH_OP(get_lockall, SEM_GET, LOCKALL, GET)
EPOCH_OP(accumulate_lockall, SEM_ACC, LOCKALL, ACC)
EPOCH_OP(put_pscw, SEM_PUT, PSCW, PUT)
EPOCH_OP(get_pscw, SEM_GET, PSCW, GET)
EPOCH_OP(accumulate_pscw, SEM_ACC, PSCW, ACC)
EPOCH_OP(get_accumulate_fence, SEM_GACC, FENCE, GACC)
EPOCH_OP(get_accumulate_lock, SEM_GACC, LOCK, GACC)
EPOCH_OP(get_accumulate_lockall, SEM_GACC, LOCKALL, GACC)
EPOCH_OP(fetch_and_op_fence, SEM_FOP, FENCE, FOP)
EPOCH_OP(fetch_and_op_lock, SEM_FOP, LOCK, FOP)
EPOCH_OP(fetch_and_op_lockall, SEM_FOP, LOCKALL, FOP)
EPOCH_OP(compare_and_swap_fence, SEM_CAS, FENCE, CAS)
EPOCH_OP(compare_and_swap_lock, SEM_CAS, LOCK, CAS)
EPOCH_OP(compare_and_swap_lockall, SEM_CAS, LOCKALL, CAS)

/* lock_all, an access to every other rank (from the right neighbour on), one flush_all, unlock_all;
 * one_to_all: only the root accesses. ACCESS(c, target, j) with j the target's rank. */
#define SPREAD_OP(id, sem, one, ACCESS)                                                               \
    ISOCHRON_OPS_KIND(id, sem, ALG_LOCKALL)                                                           \
    static int run_##id(isochron_op_ctx_t *c)                                                        \
    {                                                                                                \
        if ((one) && c->rank != c->root) return ISOCHRON_OK;                                         \
        ISOCHRON_OPS_MPI(MPI_Win_lock_all(0, c->win), c, "MPI_Win_lock_all");                         \
        for (int o_ = 1; o_ < c->size; o_++) {                                                       \
            int j_ = (c->rank + o_) % c->size;                                                       \
            ACCESS(c, j_);                                                                           \
        }                                                                                            \
        ISOCHRON_OPS_MPI(MPI_Win_flush_all(c->win), c, "MPI_Win_flush_all");                          \
        ISOCHRON_OPS_MPI(MPI_Win_unlock_all(c->win), c, "MPI_Win_unlock_all");                        \
        return ISOCHRON_OK;                                                                          \
    }
#define PUT_AT0(c, j) ISOCHRON_OPS_MPI(MPI_Put(c->sbuf, N, DT, j, 0, N, DT, c->win), c, "MPI_Put")
#define PUT_MINE(c, j) \
    ISOCHRON_OPS_MPI(MPI_Put(c->sbuf, N, DT, j, (MPI_Aint)c->rank * N, N, DT, c->win), c, "MPI_Put")
#define GET_INTO(c, j) ISOCHRON_OPS_MPI(MPI_Get(ELEM(c->rbuf, (size_t)(j) * (size_t)N), N, DT, j, 0, N, DT, c->win), c, "MPI_Get")
SPREAD_OP(put_one_to_all, SEM_PUT_1ALL, 1, PUT_AT0)
SPREAD_OP(get_one_to_all, SEM_GET_1ALL, 1, GET_INTO)
SPREAD_OP(put_all_to_all, SEM_PUT_AALL, 0, PUT_MINE)
SPREAD_OP(get_all_to_all, SEM_GET_AALL, 0, GET_INTO)

#define F_RMA (ISOCHRON_OP_RMA | ISOCHRON_OP_MIN2)
#define DESC(id, fam, desc, fl)                                                                       \
    { #id, fam, desc, F_RMA | (fl), setup_##id, isochron_ops_kind_prepare, run_##id, NULL, NULL,    \
      isochron_ops_kind_validate, isochron_ops_kind_teardown, memory_##id, NULL, NULL }
#define DESC_N(id, fam, desc, fl)                                                                     \
    { #id, fam, desc, F_RMA | (fl), setup_##id, isochron_ops_kind_prepare, run_##id, NULL, NULL,    \
      isochron_ops_kind_validate, isochron_ops_kind_teardown, memory_##id, NULL, runn_##id }

/* active target (fence, PSCW): the engine never loops their epochs on its own (ISOCHRON_OP_ACTIVE_TARGET) */
#define F_ACT ISOCHRON_OP_ACTIVE_TARGET
static const isochron_op_t rma_ops[] = {
    DESC(put_fence, "put", "MPI_Put to the right neighbour inside MPI_Win_fence", F_ACT),
    DESC(get_fence, "get", "MPI_Get from the right neighbour inside MPI_Win_fence", F_ACT),
    DESC(accumulate_fence, "accumulate", "MPI_Accumulate to the right neighbour inside MPI_Win_fence", ISOCHRON_OP_REDUCTION | F_ACT),
    DESC(put_lock, "put", "MPI_Put to the right neighbour under an exclusive MPI_Win_lock", 0),
    DESC(get_lock, "get", "MPI_Get from the right neighbour under an exclusive MPI_Win_lock", 0),
    DESC(accumulate_lock, "accumulate", "MPI_Accumulate to the right neighbour under an exclusive MPI_Win_lock",
         ISOCHRON_OP_REDUCTION),
    DESC_N(put_lockall, "put", "MPI_Win_lock_all, MPI_Put to the right neighbour, MPI_Win_flush, MPI_Win_unlock_all", 0),
    DESC_N(get_lockall, "get", "MPI_Win_lock_all, MPI_Get from the right neighbour, MPI_Win_flush, MPI_Win_unlock_all", 0),
    DESC_N(accumulate_lockall, "accumulate", "MPI_Win_lock_all, MPI_Accumulate to the right neighbour, flush, unlock_all",
         ISOCHRON_OP_REDUCTION),
    DESC(put_pscw, "put", "MPI_Put to the right neighbour in a post/start/complete/wait epoch", F_ACT),
    DESC(get_pscw, "get", "MPI_Get from the right neighbour in a post/start/complete/wait epoch", F_ACT),
    DESC(accumulate_pscw, "accumulate", "MPI_Accumulate to the right neighbour in a post/start/complete/wait epoch", ISOCHRON_OP_REDUCTION | F_ACT),
    DESC(get_accumulate_fence, "get_accumulate", "MPI_Get_accumulate on the right neighbour inside MPI_Win_fence", ISOCHRON_OP_REDUCTION | F_ACT),
    DESC(get_accumulate_lock, "get_accumulate", "MPI_Get_accumulate on the right neighbour under an exclusive MPI_Win_lock",
         ISOCHRON_OP_REDUCTION),
    DESC_N(get_accumulate_lockall, "get_accumulate", "MPI_Win_lock_all, MPI_Get_accumulate on the right neighbour, flush, unlock_all",
         ISOCHRON_OP_REDUCTION),
    DESC(fetch_and_op_fence, "fetch_and_op", "one MPI_Fetch_and_op per element on the right neighbour inside MPI_Win_fence", ISOCHRON_OP_REDUCTION | F_ACT),
    DESC(fetch_and_op_lock, "fetch_and_op", "one MPI_Fetch_and_op per element on the right neighbour under an exclusive lock",
         ISOCHRON_OP_REDUCTION),
    DESC_N(fetch_and_op_lockall, "fetch_and_op", "lock_all, one MPI_Fetch_and_op per element on the right neighbour, flush, unlock_all",
         ISOCHRON_OP_REDUCTION),
    DESC(put_one_to_all, "put", "the root puts its block into every other rank's window (lock_all, one flush_all; IMB-RMA One_put_all)",
         ISOCHRON_OP_ROOTED),
    DESC(get_one_to_all, "get", "the root gets a block from every other rank's window (lock_all, one flush_all; IMB-RMA One_get_all)",
         ISOCHRON_OP_ROOTED),
    DESC(put_all_to_all, "put", "every rank puts its block into every other window (lock_all, one flush_all; IMB-RMA All_put_all)", 0),
    DESC(get_all_to_all, "get", "every rank gets a block from every other window (lock_all, one flush_all; IMB-RMA All_get_all)", 0),
    DESC(compare_and_swap_fence, "compare_and_swap", "one MPI_Compare_and_swap per element on the right neighbour inside MPI_Win_fence", ISOCHRON_OP_INTEGER | F_ACT),
    DESC(compare_and_swap_lock, "compare_and_swap", "one MPI_Compare_and_swap per element on the right neighbour under an exclusive lock", ISOCHRON_OP_INTEGER),
    DESC_N(compare_and_swap_lockall, "compare_and_swap", "lock_all, one MPI_Compare_and_swap per element on the right neighbour, flush, unlock_all", ISOCHRON_OP_INTEGER),
};

const isochron_op_t *isochron_ops_builtin_rma(int *n)
{
    *n = (int)(sizeof rma_ops / sizeof rma_ops[0]);
    return rma_ops;
}
