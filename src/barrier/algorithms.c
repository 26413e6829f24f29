/*
 * Barrier algorithms on null point-to-point messages (p processes, rank r).
 *
 * linear       flat: every rank reports to rank 0, which then releases all.
 * tree         binomial gather to rank 0, then binomial broadcast from it.
 * butterfly    the iPSC/860 gsync (paper 004, sec. 3.1): exchange with the
 *              partner whose most significant bit differs first, then the
 *              lower bits, waiting for each reply. With p not a power of two,
 *              let q be the largest power of two <= p: rank r >= q reports to
 *              r - q before the butterfly of the first q ranks and is released
 *              by it afterwards (the usual fold, as in MPICH and Open MPI).
 * sync0        PICL (paper 004, sec. 3.2): the high half reports to its
 *              partner in the low half, the low half runs the butterfly in the
 *              reverse order (lowest bit first), then releases the high half.
 *              The low half has h = p/2 ranks for p a power of two and h = q
 *              otherwise, so the high half is r >= h and always fits.
 * dissemination  Hensgen-Finkel-Manber: in round k rank r signals
 *              (r + 2^k) mod p and waits for (r - 2^k) mod p; ceil(log2 p)
 *              rounds, any p.
 * double_ring  Open MPI's: a token goes twice around the ring from rank 0;
 *              after the first lap everyone has entered, the second releases.
 *
 * Correctness for every p: each algorithm's release of a rank is causally
 * after every rank's entry (a gather to one rank, or log2 p rounds of
 * exchanges that spread every entry to every rank).
 */
#include "isochron.h"
#include "barrier/barrier_impl.h"

#define TRY(x) do { int rc_ = (x); if (rc_) return rc_; } while (0)

static int linear_run(isochron_barrier_t *b)
{
    if (b->rank != 0) {
        TRY(isochron_bar_send(b, 0, TAG_LINEAR));
        return isochron_bar_recv(b, 0, TAG_LINEAR + 1);
    }
    for (int i = 1; i < b->size; i++) TRY(isochron_bar_recv(b, MPI_ANY_SOURCE, TAG_LINEAR));
    for (int i = 1; i < b->size; i++) TRY(isochron_bar_send(b, i, TAG_LINEAR + 1));
    return ISOCHRON_OK;
}
const barrier_alg_t isochron_bar_linear = {"linear", "flat gather to rank 0, then rank 0 releases every rank", NULL, linear_run};

static int tree_run(isochron_barrier_t *b)
{
    int r = b->rank, p = b->size, mask;
    /* gather: a rank receives from r + mask for each mask below its lowest set bit, then reports to r - lowbit */
    for (mask = 1; mask < p; mask <<= 1) {
        if (r & mask) { TRY(isochron_bar_send(b, r - mask, TAG_TREE)); break; }
        if (r + mask < p) TRY(isochron_bar_recv(b, r + mask, TAG_TREE));
    }
    /* broadcast back down the same tree */
    if (r != 0) TRY(isochron_bar_recv(b, r - mask, TAG_TREE + 1));
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < p) TRY(isochron_bar_send(b, r + mask, TAG_TREE + 1));
    return ISOCHRON_OK;
}
const barrier_alg_t isochron_bar_tree = {"tree", "binomial gather to rank 0, then binomial broadcast", NULL, tree_run};

/* The butterfly of the first q ranks (q a power of two), from the high bit
 * down (gsync) or from the low bit up (sync0), folding the ranks >= q onto
 * r - q; `tag` distinguishes the two algorithms. */
static int folded_butterfly(isochron_barrier_t *b, int q, int high_first, int tag)
{
    int r = b->rank, p = b->size;
    if (r >= q) {
        TRY(isochron_bar_send(b, r - q, tag));
        return isochron_bar_recv(b, r - q, tag + 2);
    }
    if (r + q < p) TRY(isochron_bar_recv(b, r + q, tag));
    if (high_first)
        for (int mask = q >> 1; mask > 0; mask >>= 1) TRY(isochron_bar_sendrecv(b, r ^ mask, r ^ mask, tag + 1));
    else
        for (int mask = 1; mask < q; mask <<= 1) TRY(isochron_bar_sendrecv(b, r ^ mask, r ^ mask, tag + 1));
    if (r + q < p) TRY(isochron_bar_send(b, r + q, tag + 2));
    return ISOCHRON_OK;
}

static int butterfly_run(isochron_barrier_t *b)
{
    return folded_butterfly(b, isochron_bar_pow2_floor(b->size), 1, TAG_BUTTERFLY);
}
const barrier_alg_t isochron_bar_butterfly = {"butterfly", "gsync of the iPSC/860: recursive-doubling exchanges, high bit first", NULL, butterfly_run};

static int sync0_run(isochron_barrier_t *b)
{
    int q = isochron_bar_pow2_floor(b->size);
    int h = q == b->size ? q / 2 : q; /* the low half */
    return folded_butterfly(b, h, 0, TAG_SYNC0);
}
const barrier_alg_t isochron_bar_sync0 = {"sync0", "PICL sync0: high half reports to low half, butterfly on the low half, release", NULL, sync0_run};

static int dissemination_run(isochron_barrier_t *b)
{
    int r = b->rank, p = b->size, round = 0;
    for (int k = 1; k < p; k <<= 1, round++)
        TRY(isochron_bar_sendrecv(b, (r + k) % p, (r - k + p) % p, TAG_DISSEM + round));
    return ISOCHRON_OK;
}
const barrier_alg_t isochron_bar_dissemination = {"dissemination", "ceil(log2 p) rounds: signal r+2^k, wait for r-2^k (mod p)", NULL, dissemination_run};

static int double_ring_run(isochron_barrier_t *b)
{
    int r = b->rank, p = b->size, right = (r + 1) % p, left = (r - 1 + p) % p;
    for (int lap = 0; lap < 2; lap++) {
        if (r == 0) {
            TRY(isochron_bar_send(b, right, TAG_RING + lap));
            TRY(isochron_bar_recv(b, left, TAG_RING + lap));
        } else {
            TRY(isochron_bar_recv(b, left, TAG_RING + lap));
            TRY(isochron_bar_send(b, right, TAG_RING + lap));
        }
    }
    return ISOCHRON_OK;
}
const barrier_alg_t isochron_bar_double_ring = {"double_ring", "a token twice around the ring from rank 0", NULL, double_ring_run};
