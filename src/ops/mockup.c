/*
 * Mock-ups: a collective built from other collectives with the same result,
 * the right-hand sides of the self-consistent performance guidelines
 * (key traff-guidelines, docs/references.md) (checked by ReproMPI's guideline checker and used by
 * PGMPITuneLib (key pgmpitunelib) to replace a collective that is
 * slower than its mock-up):
 *   allgather_mockup             MPI_Gather to rank 0 + MPI_Bcast of the p blocks
 *   allreduce_mockup             MPI_Reduce to rank 0 + MPI_Bcast
 *   reduce_scatter_block_mockup  MPI_Reduce of the p blocks to rank 0 + MPI_Scatter
 *   bcast_mockup                 MPI_Scatterv of the buffer in p pieces + MPI_Allgatherv
 *                                (pieces of count/p elements, the first count%p one more)
 *   gather_mockup                MPI_Allgather (every rank receives what the root needs)
 *   scan_mockup                  MPI_Exscan + MPI_Reduce_local of the own buffer
 *                                (rank 0 copies; the built-in ops are commutative)
 * Each has the semantics (kind) of the collective it stands for, so set-up,
 * prepare and validate are the collective's: a mock-up must deliver exactly
 * the collective's result on every rank, checked like every operation.
 * Where the composition needs more memory than the collective (the reduced
 * p blocks at rank 0, the p blocks gather_mockup delivers on every rank),
 * set-up adds a temporary and memory() counts it.
 *
 * A/A controls (`<coll>_alias`): the collective itself under a second name,
 * a plain MPI call like the original, so that a guideline check run on the
 * pair measures how often two identical operations are called different
 * (the false-violation rate).
 */
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

#define DT (c->dtype)
#define CM (c->comm)
#define RS ISOCHRON_OPS_ST(c)

/* Extra elements of the temporary a mock-up needs on rank RANK (root ROOT, P ranks, count N). */
static size_t mock_tmp_elems(int sem, int rank, int root, int p, size_t n)
{
    switch (sem) {
    case SEM_REDUCE_SCATTER_BLOCK: return rank == 0 ? (size_t)p * n : 0; /* the reduced p blocks */
    case SEM_GATHER: return rank == root ? 0 : (size_t)p * n;           /* the allgather's result */
    default: return 0;
    }
}

static int mock_setup(isochron_op_ctx_t *c, int sem, const char *name)
{
    int rc = isochron_ops_kind_setup(c, (isochron_ops_kind_t){ sem, ALG_MPI }, name);
    if (rc) return rc;
    isochron_ops_state_t *st = RS;
    size_t t = mock_tmp_elems(sem, c->rank, c->root, c->size, c->count) * (size_t)c->dtype_size;
    if (t) {
        st->tmp = isochron_ops_alloc(t);
        if (!st->tmp)
            return isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate %zu bytes on rank %d", name, t, c->rank);
        st->tmp_bytes = t;
    }
    if (sem == SEM_BCAST) { /* the pieces of the scatter + allgather */
        int p = c->size;
        c->counts = malloc((size_t)p * sizeof(int));
        c->displs = malloc((size_t)p * sizeof(int));
        if (!c->counts || !c->displs)
            return isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate counts for %d ranks", name, p);
        size_t q = c->count / (size_t)p, extra = c->count % (size_t)p, off = 0;
        for (int j = 0; j < p; j++) {
            size_t k = q + ((size_t)j < extra);
            c->counts[j] = (int)k; /* <= count <= INT_MAX: checked by the kind's set-up */
            c->displs[j] = (int)off;
            off += k;
        }
    }
    return ISOCHRON_OK;
}

static size_t mock_memory(const isochron_op_ctx_t *c, int sem)
{
    size_t most = 0;
    for (int r = 0; r < c->size; r++) {
        size_t t = mock_tmp_elems(sem, r, c->root, c->size, c->count);
        if (t > most) most = t;
    }
    return isochron_ops_kind_memory(c, (isochron_ops_kind_t){ sem, ALG_MPI }) + most * (size_t)c->dtype_size;
}

/* The six collectives, one line each: id, semantics, flags, what the mock-up composes, the MPI call its
 * A/A alias makes. Both operations of a line (id_mockup, id_alias) and their descriptors come from it. */
#define MOCKUPS(X)                                                                                            \
    X(allgather, SEM_ALLGATHER, 0, "MPI_Gather to rank 0 + MPI_Bcast of all blocks", "MPI_Allgather")        \
    X(allreduce, SEM_ALLREDUCE, F_RED, "MPI_Reduce to rank 0 + MPI_Bcast", "MPI_Allreduce")                   \
    X(reduce_scatter_block, SEM_REDUCE_SCATTER_BLOCK, F_RED, "MPI_Reduce of all blocks to rank 0 + MPI_Scatter", \
      "MPI_Reduce_scatter_block")                                                                             \
    X(bcast, SEM_BCAST, F_RO, "MPI_Scatterv of count/p pieces + MPI_Allgatherv", "MPI_Bcast")                 \
    X(gather, SEM_GATHER, F_RO, "MPI_Allgather (every rank receives all blocks)", "MPI_Gather")               \
    X(scan, SEM_SCAN, F_RED, "MPI_Exscan + MPI_Reduce_local of the own buffer", "MPI_Scan")

#define WRAPPERS(id, sem, fl, composed, call)                                                                  \
    static int setup_##id##_mockup(isochron_op_ctx_t *c) { return mock_setup(c, sem, #id "_mockup"); }        \
    static size_t memory_##id##_mockup(const isochron_op_ctx_t *c) { return mock_memory(c, sem); }            \
    ISOCHRON_OPS_KIND(id##_alias, sem, ALG_MPI)
MOCKUPS(WRAPPERS)

/* ------------------------------------------------------------ mock-ups */

static int run_allgather_mockup(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    ISOCHRON_OPS_MPI(MPI_Gather(c->sbuf, n, DT, c->rbuf, n, DT, 0, CM), c, "MPI_Gather");
    ISOCHRON_OPS_MPI(MPI_Bcast(c->rbuf, n * c->size, DT, 0, CM), c, "MPI_Bcast");
    return ISOCHRON_OK;
}

static int run_allreduce_mockup(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    ISOCHRON_OPS_MPI(MPI_Reduce(c->sbuf, c->rbuf, n, DT, c->op, 0, CM), c, "MPI_Reduce");
    ISOCHRON_OPS_MPI(MPI_Bcast(c->rbuf, n, DT, 0, CM), c, "MPI_Bcast");
    return ISOCHRON_OK;
}

static int run_reduce_scatter_block_mockup(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    ISOCHRON_OPS_MPI(MPI_Reduce(c->sbuf, RS->tmp, n * c->size, DT, c->op, 0, CM), c, "MPI_Reduce");
    ISOCHRON_OPS_MPI(MPI_Scatter(RS->tmp, n, DT, c->rbuf, n, DT, 0, CM), c, "MPI_Scatter");
    return ISOCHRON_OK;
}

static int run_bcast_mockup(isochron_op_ctx_t *c)
{
    int r = c->rank;
    char *mine = (char *)c->rbuf + (size_t)c->displs[r] * (size_t)c->dtype_size;
    ISOCHRON_OPS_MPI(MPI_Scatterv(c->rbuf, c->counts, c->displs, DT, r == c->root ? MPI_IN_PLACE : mine,
                                  c->counts[r], DT, c->root, CM),
                     c, "MPI_Scatterv");
    ISOCHRON_OPS_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, DT, c->rbuf, c->counts, c->displs, DT, CM), c, "MPI_Allgatherv");
    return ISOCHRON_OK;
}

static int run_gather_mockup(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    void *dst = c->rank == c->root ? c->rbuf : RS->tmp;
    ISOCHRON_OPS_MPI(MPI_Allgather(c->sbuf, n, DT, dst, n, DT, CM), c, "MPI_Allgather");
    return ISOCHRON_OK;
}

static int run_scan_mockup(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    ISOCHRON_OPS_MPI(MPI_Exscan(c->sbuf, c->rbuf, n, DT, c->op, CM), c, "MPI_Exscan");
    if (c->rank == 0) {
        if (n) memcpy(c->rbuf, c->sbuf, c->count * (size_t)c->dtype_size);
    } else {
        ISOCHRON_OPS_MPI(MPI_Reduce_local(c->sbuf, c->rbuf, n, DT, c->op), c, "MPI_Reduce_local");
    }
    return ISOCHRON_OK;
}

/* ------------------------------------------------------------ A/A aliases */

static int run_allgather_alias(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    ISOCHRON_OPS_MPI(MPI_Allgather(c->sbuf, n, DT, c->rbuf, n, DT, CM), c, "MPI_Allgather");
    return ISOCHRON_OK;
}

static int run_allreduce_alias(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Allreduce(c->sbuf, c->rbuf, (int)c->count, DT, c->op, CM), c, "MPI_Allreduce");
    return ISOCHRON_OK;
}

static int run_reduce_scatter_block_alias(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Reduce_scatter_block(c->sbuf, c->rbuf, (int)c->count, DT, c->op, CM), c,
                     "MPI_Reduce_scatter_block");
    return ISOCHRON_OK;
}

static int run_bcast_alias(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Bcast(c->rbuf, (int)c->count, DT, c->root, CM), c, "MPI_Bcast");
    return ISOCHRON_OK;
}

static int run_gather_alias(isochron_op_ctx_t *c)
{
    int n = (int)c->count;
    ISOCHRON_OPS_MPI(MPI_Gather(c->sbuf, n, DT, c->rbuf, n, DT, c->root, CM), c, "MPI_Gather");
    return ISOCHRON_OK;
}

static int run_scan_alias(isochron_op_ctx_t *c)
{
    ISOCHRON_OPS_MPI(MPI_Scan(c->sbuf, c->rbuf, (int)c->count, DT, c->op, CM), c, "MPI_Scan");
    return ISOCHRON_OK;
}

#define F_RO ISOCHRON_OP_ROOTED
#define F_RED ISOCHRON_OP_REDUCTION
#define DESC(id, fam, desc, fl)                                                                       \
    { #id, fam, desc, fl, setup_##id, isochron_ops_kind_prepare, run_##id, NULL, NULL,              \
      isochron_ops_kind_validate, isochron_ops_kind_teardown, memory_##id, NULL, NULL }

#define ROW_MOCKUP(id, sem, fl, composed, call) DESC(id##_mockup, #id, "guideline mock-up: " composed, fl),
#define ROW_ALIAS(id, sem, fl, composed, call) \
    DESC(id##_alias, #id, call " under a second name (A/A control of the guidelines)", fl),

static const isochron_op_t mockup_ops[] = { MOCKUPS(ROW_MOCKUP) MOCKUPS(ROW_ALIAS) };

const isochron_op_t *isochron_ops_builtin_mockup(int *n)
{
    *n = (int)(sizeof mockup_ops / sizeof mockup_ops[0]);
    return mockup_ops;
}
