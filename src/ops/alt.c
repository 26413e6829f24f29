/*
 * Alternative implementations of four collectives on point-to-point, the
 * ones MPIBlib offers to be measured side by side with the library's own
 * (paper 001, sec. 4: "linear and binomial MPI_Scatter/MPI_Gather", and the
 * linear/binomial broadcast of its operation-specific timing method):
 *   linear    the root sends to / receives from every other rank in turn
 *             (rank order after the root), with blocking calls;
 *   binomial  the usual binomial tree over ranks relative to the root: rank
 *             vr's parent is vr with its lowest set bit cleared, its children
 *             are vr + 2^j for 2^j below that bit, and its subtree holds the
 *             ranks vr .. vr + lowbit(vr) - 1 (clipped to p). Scatter and
 *             gather move a whole subtree's blocks in one message, staged in
 *             a buffer in relative order (the root of a tree not rooted at 0
 *             rotates its blocks, inside the timed run as any library must);
 *             reduce combines with MPI_Reduce_local on the way up.
 * Any root and any number of processes. Family = the MPI operation, and the
 * result must be exactly the MPI operation's (validated by the same code).
 */
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

/* memcpy that accepts a zero-byte copy from or to a NULL buffer (size-0 points
 * allocate nothing; memcpy's pointers must be valid even for 0 bytes) */
static void copy_bytes(void *dst, const void *src, size_t n) { if (n) memcpy(dst, src, n); }

#define DT (c->dtype)
#define CM (c->comm)

#define F_RO ISOCHRON_OP_ROOTED
#define F_RED (ISOCHRON_OP_ROOTED | ISOCHRON_OP_REDUCTION)
/* The four collectives, each in a linear and a binomial form: id (= family), semantics, flags, the two
 * descriptions. The kind wrappers and the descriptors of both forms come from this one list. */
#define ALTS(X)                                                                                              \
    X(bcast, SEM_BCAST, F_RO, "root sends the buffer to every rank in turn (MPI_Send/MPI_Recv)",              \
      "binomial tree broadcast on MPI_Send/MPI_Recv")                                                         \
    X(scatter, SEM_SCATTER, F_RO, "root sends each rank its block in turn",                                   \
      "binomial tree scatter, a subtree's blocks per message")                                                \
    X(gather, SEM_GATHER, F_RO, "root receives each rank's block in turn",                                    \
      "binomial tree gather, a subtree's blocks per message")                                                 \
    X(reduce, SEM_REDUCE, F_RED, "root receives every rank's buffer in turn, MPI_Reduce_local",               \
      "binomial tree reduction, MPI_Reduce_local at each level")

#define KINDS(id, sem, fl, linear, binomial)                                                                  \
    ISOCHRON_OPS_KIND(id##_linear, sem, ALG_LINEAR)                                                           \
    ISOCHRON_OPS_KIND(id##_binomial, sem, ALG_BINOMIAL)
ALTS(KINDS)

static char *blk(void *buf, size_t b, const isochron_op_ctx_t *c)
{
    return (char *)buf + b * c->count * (size_t)c->dtype_size;
}

static int sub_size(int vr, int p)
{
    if (vr == 0) return p;
    int lb = vr & -vr;
    return lb < p - vr ? lb : p - vr;
}

/* ------------------------------------------------------------ broadcast */

static int run_bcast_linear(isochron_op_ctx_t *c)
{
    int n = (int)c->count, p = c->size, root = c->root;
    if (c->rank == root) {
        for (int i = 1; i < p; i++)
            ISOCHRON_OPS_MPI(MPI_Send(c->rbuf, n, DT, (root + i) % p, ISOCHRON_TAG_BCAST, CM), c, "MPI_Send");
    } else {
        ISOCHRON_OPS_MPI(MPI_Recv(c->rbuf, n, DT, root, ISOCHRON_TAG_BCAST, CM, MPI_STATUS_IGNORE), c, "MPI_Recv");
    }
    return ISOCHRON_OK;
}

static int run_bcast_binomial(isochron_op_ctx_t *c)
{
    int n = (int)c->count, p = c->size, r = c->rank, vr = ISOCHRON_OPS_ST(c)->vr;
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            ISOCHRON_OPS_MPI(MPI_Recv(c->rbuf, n, DT, (r - mask + p) % p, ISOCHRON_TAG_BCAST, CM, MPI_STATUS_IGNORE),
                             c, "MPI_Recv");
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            ISOCHRON_OPS_MPI(MPI_Send(c->rbuf, n, DT, (r + mask) % p, ISOCHRON_TAG_BCAST, CM), c, "MPI_Send");
    return ISOCHRON_OK;
}

/* ------------------------------------------------------------ scatter and gather, linear */

/* The linear scatter and gather are one exchange in two directions: the root moves block i of its p blocks
 * to (scatter) or from (gather) rank i, one rank after the other from root + 1 on, and copies its own block;
 * every other rank sends or receives its one block. */
static int linear_blocks(isochron_op_ctx_t *c, int gather)
{
    int n = (int)c->count, p = c->size, root = c->root, tag = gather ? ISOCHRON_TAG_GATHER : ISOCHRON_TAG_SCATTER;
    void *one = gather ? c->sbuf : c->rbuf, *many = gather ? c->rbuf : c->sbuf;
    if (c->rank != root) {
        if (gather) ISOCHRON_OPS_MPI(MPI_Send(one, n, DT, root, tag, CM), c, "MPI_Send");
        else ISOCHRON_OPS_MPI(MPI_Recv(one, n, DT, root, tag, CM, MPI_STATUS_IGNORE), c, "MPI_Recv");
        return ISOCHRON_OK;
    }
    for (int i = 1; i < p; i++) {
        int peer = (root + i) % p;
        void *b = blk(many, (size_t)peer, c);
        if (gather) ISOCHRON_OPS_MPI(MPI_Recv(b, n, DT, peer, tag, CM, MPI_STATUS_IGNORE), c, "MPI_Recv");
        else ISOCHRON_OPS_MPI(MPI_Send(b, n, DT, peer, tag, CM), c, "MPI_Send");
    }
    size_t bytes = c->count * (size_t)c->dtype_size;
    if (gather) copy_bytes(blk(many, (size_t)root, c), one, bytes);
    else copy_bytes(one, blk(many, (size_t)root, c), bytes);
    return ISOCHRON_OK;
}

static int run_scatter_linear(isochron_op_ctx_t *c) { return linear_blocks(c, 0); }
static int run_gather_linear(isochron_op_ctx_t *c) { return linear_blocks(c, 1); }

/* ------------------------------------------------------------ scatter, binomial */

/* Blocks b..p-1 of src, then 0..b-1: absolute order -> relative to rank b. */
static void rotate_from(void *dst, void *src, int b, const isochron_op_ctx_t *c)
{
    size_t bb = c->count * (size_t)c->dtype_size;
    copy_bytes(dst, blk(src, (size_t)b, c), (size_t)(c->size - b) * bb);
    copy_bytes(blk(dst, (size_t)(c->size - b), c), src, (size_t)b * bb);
}

static int run_scatter_binomial(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int n = (int)c->count, p = c->size, r = c->rank, vr = st->vr, sub = sub_size(vr, p);
    void *buf; /* my subtree's blocks in relative order, mine first */
    if (vr == 0) {
        if (c->root == 0) buf = c->sbuf;
        else {
            rotate_from(st->tmp, c->sbuf, c->root, c);
            buf = st->tmp;
        }
    } else {
        buf = sub > 1 ? st->tmp : c->rbuf;
    }
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            ISOCHRON_OPS_MPI(MPI_Recv(buf, sub * n, DT, (r - mask + p) % p, ISOCHRON_TAG_SCATTER, CM,
                                      MPI_STATUS_IGNORE),
                             c, "MPI_Recv");
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p) {
            int cnt = mask < p - vr - mask ? mask : p - vr - mask;
            ISOCHRON_OPS_MPI(MPI_Send(blk(buf, (size_t)mask, c), cnt * n, DT, (r + mask) % p, ISOCHRON_TAG_SCATTER,
                                      CM),
                             c, "MPI_Send");
        }
    if (buf != c->rbuf) copy_bytes(c->rbuf, buf, c->count * (size_t)c->dtype_size);
    return ISOCHRON_OK;
}

/* ------------------------------------------------------------ gather, binomial */

static int run_gather_binomial(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int n = (int)c->count, p = c->size, r = c->rank, vr = st->vr, sub = sub_size(vr, p);
    void *buf;
    if (vr == 0) buf = c->root == 0 ? c->rbuf : st->tmp;
    else buf = sub > 1 ? st->tmp : c->sbuf;
    if (buf != c->sbuf) copy_bytes(buf, c->sbuf, c->count * (size_t)c->dtype_size);
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            ISOCHRON_OPS_MPI(MPI_Send(buf, sub * n, DT, (r - mask + p) % p, ISOCHRON_TAG_GATHER, CM), c, "MPI_Send");
            break;
        }
        if (vr + mask < p) {
            int cnt = mask < p - vr - mask ? mask : p - vr - mask;
            ISOCHRON_OPS_MPI(MPI_Recv(blk(buf, (size_t)mask, c), cnt * n, DT, (r + mask) % p, ISOCHRON_TAG_GATHER,
                                      CM, MPI_STATUS_IGNORE),
                             c, "MPI_Recv");
        }
    }
    if (vr == 0 && c->root != 0) { /* relative block j belongs to rank (j + root) % p */
        size_t bb = c->count * (size_t)c->dtype_size;
        copy_bytes(blk(c->rbuf, (size_t)c->root, c), buf, (size_t)(p - c->root) * bb);
        copy_bytes(c->rbuf, blk(buf, (size_t)(p - c->root), c), (size_t)c->root * bb);
    }
    return ISOCHRON_OK;
}

/* ------------------------------------------------------------ reduce */

static int run_reduce_linear(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int n = (int)c->count, p = c->size, root = c->root;
    if (c->rank != root) {
        ISOCHRON_OPS_MPI(MPI_Send(c->sbuf, n, DT, root, ISOCHRON_TAG_REDUCE, CM), c, "MPI_Send");
        return ISOCHRON_OK;
    }
    copy_bytes(c->rbuf, c->sbuf, c->count * (size_t)c->dtype_size);
    for (int i = 1; i < p; i++) {
        ISOCHRON_OPS_MPI(MPI_Recv(st->tmp, n, DT, (root + i) % p, ISOCHRON_TAG_REDUCE, CM, MPI_STATUS_IGNORE), c,
                         "MPI_Recv");
        ISOCHRON_OPS_MPI(MPI_Reduce_local(st->tmp, c->rbuf, n, DT, c->op), c, "MPI_Reduce_local");
    }
    return ISOCHRON_OK;
}

static int run_reduce_binomial(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int n = (int)c->count, p = c->size, r = c->rank, vr = st->vr;
    size_t bb = c->count * (size_t)c->dtype_size;
    void *acc, *in;
    if (vr == 0) { acc = c->rbuf; in = st->tmp; }
    else if (sub_size(vr, p) > 1) { acc = st->tmp; in = (char *)st->tmp + bb; }
    else { acc = c->sbuf; in = NULL; } /* a leaf sends its own data */
    if (acc != c->sbuf) copy_bytes(acc, c->sbuf, bb);
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            ISOCHRON_OPS_MPI(MPI_Send(acc, n, DT, (r - mask + p) % p, ISOCHRON_TAG_REDUCE, CM), c, "MPI_Send");
            break;
        }
        if (vr + mask < p) {
            ISOCHRON_OPS_MPI(MPI_Recv(in, n, DT, (r + mask) % p, ISOCHRON_TAG_REDUCE, CM, MPI_STATUS_IGNORE), c,
                             "MPI_Recv");
            ISOCHRON_OPS_MPI(MPI_Reduce_local(in, acc, n, DT, c->op), c, "MPI_Reduce_local");
        }
    }
    return ISOCHRON_OK;
}

#define DESC(id, fam, desc, fl)                                                                       \
    { #id, fam, desc, fl, setup_##id, isochron_ops_kind_prepare, run_##id, NULL, NULL,              \
      isochron_ops_kind_validate, isochron_ops_kind_teardown, memory_##id, NULL, NULL }
#define ROWS(id, sem, fl, linear, binomial) DESC(id##_linear, #id, linear, fl), DESC(id##_binomial, #id, binomial, fl),

static const isochron_op_t alt_ops[] = { ALTS(ROWS) };

const isochron_op_t *isochron_ops_builtin_alt(int *n)
{
    *n = (int)(sizeof alt_ops / sizeof alt_ops[0]);
    return alt_ops;
}
