/*
 * What every built-in operation shares, by kind (ops_impl.h): the buffers a
 * process needs, their allocation, the pattern written before each run and
 * the check after it. One table of buffer shapes (elems_of) serves three
 * purposes, so they can never disagree: the memory check before anything is
 * allocated (the maximum over the ranks), the INT_MAX check of MPI counts,
 * and the allocation itself (this rank's share).
 *
 * Validation follows the result definitions of the MPI standard for each
 * operation and compares every element that must have arrived on this rank
 * (pattern.c explains why the expected values are exact). A failure names
 * the operation, rank, element, expected and received value, the rank the
 * element came from where that is one rank, and how many elements differ.
 *
 * One-sided kinds: the window is allocated with MPI_Win_allocate (lets the
 * library place it in shared memory), its size padded to 64 bytes (see the
 * MPICH note in set-up); PSCW variants need nothing more than fence (the
 * target's wait ends every access of a run, its post comes after prepare);
 * lock and lock_all variants bracket prepare with
 * barriers so no neighbour's access of the previous or next repetition
 * overlaps the local writes, and validate waits on a barrier for the
 * neighbour's unlock before reading the window inside a lock on itself (valid
 * in the separate memory model too).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

/* ------------------------------------------------------------------ sizes */

static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

static int add_ok(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

static int lowbit(int v) { return v & -v; }

/* Ranks in the subtree of relative rank vr of a binomial tree over p ranks. */
static int subtree(int vr, int p)
{
    if (vr == 0) return p;
    int lb = lowbit(vr);
    return lb < p - vr ? lb : p - vr;
}

/* The temporary of a binomial gather or scatter, in elements (c a block, pc all p blocks): the root
 * reorders the whole buffer unless it is rank 0; another rank holds its subtree's blocks when the
 * subtree has more than itself. 0 on overflow. */
static int subtree_tmp(int is_root, int root, int vr, int p, size_t c, size_t pc, size_t *tmp)
{
    int st = subtree(vr, p);
    if (is_root) *tmp = root != 0 ? pc : 0;
    else if (st > 1 && !mul_ok((size_t)st, c, tmp)) return 0;
    return 1;
}

/* Elements one rank allocates; 0 on overflow. */
static int elems_of(isochron_ops_kind_t k, int p, int rank, int root, size_t c, int in_place,
                    isochron_ops_elems_t *e)
{
    size_t pc;
    memset(e, 0, sizeof *e);
    if (!mul_ok((size_t)p, c, &pc)) return 0;
    int is_root = rank == root;
    int vr = (rank - root + p) % p;
    switch (k.sem) {
    case SEM_ALLGATHER: case SEM_ALLGATHERV:
        e->s = in_place ? 0 : c; e->r = pc; break;
    case SEM_ALLREDUCE: case SEM_SCAN: case SEM_EXSCAN:
        e->s = in_place ? 0 : c; e->r = c; break;
    case SEM_ALLTOALL: case SEM_ALLTOALLV:
        e->s = in_place ? 0 : pc; e->r = pc; break;
    case SEM_BARRIER:
        break;
    case SEM_BCAST:
        e->r = c; break;
    case SEM_GATHER: case SEM_GATHERV:
        e->s = (is_root && in_place) ? 0 : c;
        e->r = is_root ? pc : 0;
        if (k.alg == ALG_BINOMIAL && !subtree_tmp(is_root, root, vr, p, c, pc, &e->tmp)) return 0;
        break;
    case SEM_REDUCE:
        e->s = (is_root && in_place) ? 0 : c;
        e->r = is_root ? c : 0;
        if (k.alg == ALG_LINEAR) e->tmp = (is_root && p > 1) ? c : 0;
        if (k.alg == ALG_BINOMIAL) {
            if (is_root) e->tmp = p > 1 ? c : 0;
            else if (subtree(vr, p) > 1 && !mul_ok(2, c, &e->tmp)) return 0;
        }
        break;
    case SEM_REDUCE_SCATTER: case SEM_REDUCE_SCATTER_BLOCK:
        e->s = in_place ? 0 : pc; e->r = in_place ? pc : c; break;
    case SEM_SCATTER: case SEM_SCATTERV:
        e->s = is_root ? pc : 0;
        e->r = (is_root && in_place) ? 0 : c;
        if (k.alg == ALG_BINOMIAL && !subtree_tmp(is_root, root, vr, p, c, pc, &e->tmp)) return 0;
        break;
    case SEM_PINGPONG:
        if (rank < 2) { e->s = c; e->r = c; }
        break;
    case SEM_EXCHANGE:
        e->s = c;
        if (!mul_ok(2, c, &e->r)) return 0;
        break;
    case SEM_RINGSHIFT:
        e->s = c; e->r = c; break;
    case SEM_PUT: case SEM_ACC:
        e->s = c; e->win = c; break;
    case SEM_GET:
        e->r = c; e->win = c; break;
    case SEM_GACC: case SEM_FOP:
        e->s = c; e->r = c; e->win = c; break;
    case SEM_CAS: /* tmp: the compare buffer */
        e->s = c; e->r = c; e->tmp = c; e->win = c; break;
    case SEM_PUT_1ALL: /* the root's block lands at displacement 0 of every other window */
        e->s = is_root ? c : 0; e->win = c; break;
    case SEM_GET_1ALL: /* the root gathers every other window's block into block j of its result */
        e->r = is_root ? pc : 0; e->win = c; break;
    case SEM_PUT_AALL: /* rank j's block lands in block j of every other window */
        e->s = c; e->win = pc; break;
    case SEM_GET_AALL:
        e->r = pc; e->win = c; break;
    }
    return 1;
}

/* The ranks whose share can be the largest: 0, 1, the root, and in binomial
 * trees the relative ranks 2^j (largest subtree for their lowest bit). */
typedef int (*rank_visit_fn)(isochron_ops_kind_t k, const isochron_op_ctx_t *c, int p, int rank,
                             size_t *acc);

static int visit_candidates(isochron_ops_kind_t k, const isochron_op_ctx_t *c, int p, rank_visit_fn f,
                            size_t *acc)
{
    int root = (c->root >= 0 && c->root < p) ? c->root : 0;
    int cand[3] = { 0, p > 1 ? 1 : 0, root };
    for (int i = 0; i < 3; i++)
        if (!f(k, c, p, cand[i], acc)) return 0;
    if (k.alg == ALG_BINOMIAL)
        for (long m = 1; m < p; m <<= 1)
            if (!f(k, c, p, (int)((root + m) % p), acc)) return 0;
    return 1;
}

static int visit_bytes(isochron_ops_kind_t k, const isochron_op_ctx_t *c, int p, int rank, size_t *acc)
{
    isochron_ops_elems_t e;
    int root = (c->root >= 0 && c->root < p) ? c->root : 0;
    size_t n, b;
    if (!elems_of(k, p, rank, root, c->count, c->in_place, &e)) return 0;
    if (!add_ok(e.s, e.r, &n) || !add_ok(n, e.tmp, &n) || !add_ok(n, e.win, &n)) return 0;
    if (!mul_ok(n, (size_t)c->dtype_size, &b)) return 0;
    if (b > *acc) *acc = b;
    return 1;
}

static int visit_elems(isochron_ops_kind_t k, const isochron_op_ctx_t *c, int p, int rank, size_t *acc)
{
    isochron_ops_elems_t e;
    int root = (c->root >= 0 && c->root < p) ? c->root : 0;
    if (!elems_of(k, p, rank, root, c->count, c->in_place, &e)) return 0;
    size_t m = e.s;
    if (e.r > m) m = e.r;
    if (e.tmp > m) m = e.tmp;
    if (e.win > m) m = e.win;
    if (m > *acc) *acc = m;
    return 1;
}

size_t isochron_ops_kind_memory(const isochron_op_ctx_t *c, isochron_ops_kind_t k)
{
    size_t acc = 0;
    int p = c->size > 0 ? c->size : 1;
    return visit_candidates(k, c, p, visit_bytes, &acc) ? acc : SIZE_MAX;
}

size_t isochron_ops_kind_max_elems(const isochron_op_ctx_t *c, isochron_ops_kind_t k)
{
    size_t acc = 0;
    int p = c->size > 0 ? c->size : 1;
    return visit_candidates(k, c, p, visit_elems, &acc) ? acc : SIZE_MAX;
}

/* ------------------------------------------------------------------ set-up */

void *isochron_ops_alloc(size_t n)
{
    void *p = NULL;
    /* page-aligned like the usual benchmarks; never 0 bytes so every buffer
     * pointer is valid even for empty messages */
    if (posix_memalign(&p, 4096, n ? n : 64)) return NULL;
    return p;
}

/* atomics: the old target values arrive in a result buffer (rbuf), the window is updated */
static int is_atomic(int sem) { return sem == SEM_GACC || sem == SEM_FOP || sem == SEM_CAS; }
static int is_spread(int sem) { return sem == SEM_PUT_1ALL || sem == SEM_GET_1ALL || sem == SEM_PUT_AALL || sem == SEM_GET_AALL; }
static int is_rma(int sem) { return sem == SEM_PUT || sem == SEM_GET || sem == SEM_ACC || is_atomic(sem) || is_spread(sem); }
/* rbuf is a buffer of its own, not the window */
static int own_rbuf(int sem) { return !is_rma(sem) || sem == SEM_GET || is_atomic(sem) || sem == SEM_GET_1ALL || sem == SEM_GET_AALL; }

int isochron_ops_state_new(isochron_op_ctx_t *c, const void *init, size_t bytes, const char *name)
{
    isochron_ops_state_t *st = calloc(1, bytes);
    if (!st) return isochron_set_error(ISOCHRON_ENOMEM, "%s: out of memory for its state", name);
    if (init) memcpy(st, init, bytes);
    c->state = st;
    st->name = name;
    st->tk = isochron_ops_tkind(c->dtype);
    return ISOCHRON_OK;
}

/* LIMIT: the most elements an MPI count of the operation holds (INT_MAX, or SIZE_MAX for the MPI_Count of the _c calls) */
static int kind_setup(isochron_op_ctx_t *c, isochron_ops_kind_t k, const char *name, size_t limit)
{
    int p = c->size, r = c->rank, ts = c->dtype_size;
    /* every MPI count, displacement and window size of the kind must fit an int */
    size_t maxel = isochron_ops_kind_max_elems(c, k);
    if (maxel > limit)
        return isochron_set_error(ISOCHRON_EINVAL,
                                  "%s: %zu bytes of %s make a buffer of %zu elements on %d processes, "
                                  "more than an MPI count can hold (%d)",
                                  name, c->bytes, isochron_op_dtype_name(c->dtype), maxel, p, INT_MAX);
    int rc = isochron_ops_state_new(c, NULL, sizeof(isochron_ops_state_t), name);
    if (rc) return rc;
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    st->kind = k;
    st->rk = isochron_ops_rkind(c->op);
    st->left = (r - 1 + p) % p;
    st->right = (r + 1) % p;
    st->vr = (r - c->root + p) % p;
    st->gleft = st->gright = MPI_GROUP_NULL;

    isochron_ops_elems_t e;
    if (!elems_of(k, p, r, c->root, c->count, c->in_place, &e))
        rc = isochron_set_error(ISOCHRON_EINVAL, "%s: buffer size overflows", name);
    if (rc == ISOCHRON_OK) {
        c->sbuf_bytes = e.s * (size_t)ts;
        c->rbuf_bytes = e.r * (size_t)ts;
        st->tmp_bytes = e.tmp * (size_t)ts;
        c->sbuf = isochron_ops_alloc(c->sbuf_bytes);
        if (own_rbuf(k.sem)) c->rbuf = isochron_ops_alloc(c->rbuf_bytes);
        if (st->tmp_bytes) st->tmp = isochron_ops_alloc(st->tmp_bytes);
        if (!c->sbuf || (!c->rbuf && own_rbuf(k.sem)) || (st->tmp_bytes && !st->tmp))
            rc = isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate %zu + %zu + %zu bytes on rank %d",
                                    name, c->sbuf_bytes, c->rbuf_bytes, st->tmp_bytes, r);
    }
    int uses_counts = k.sem == SEM_ALLGATHERV || k.sem == SEM_ALLTOALLV || k.sem == SEM_GATHERV ||
                      k.sem == SEM_SCATTERV || k.sem == SEM_REDUCE_SCATTER;
    if (rc == ISOCHRON_OK && uses_counts) {
        c->counts = malloc((size_t)p * sizeof(int));
        c->displs = malloc((size_t)p * sizeof(int));
        if (!c->counts || !c->displs)
            rc = isochron_set_error(ISOCHRON_ENOMEM, "%s: cannot allocate counts for %d ranks", name, p);
        else
            for (int j = 0; j < p; j++) {
                c->counts[j] = (int)c->count;          /* uniform blocks, as IMB does */
                c->displs[j] = (int)((size_t)j * c->count); /* <= INT_MAX: checked in setup */
            }
    }
    if (rc == ISOCHRON_OK) {
        int root_ip = c->in_place && r == c->root;
        switch (k.sem) {
        case SEM_GATHER: case SEM_GATHERV: case SEM_REDUCE:
            st->sarg = root_ip ? MPI_IN_PLACE : c->sbuf; st->rarg = c->rbuf; break;
        case SEM_SCATTER: case SEM_SCATTERV:
            st->sarg = c->sbuf; st->rarg = root_ip ? MPI_IN_PLACE : c->rbuf; break;
        default:
            st->sarg = c->in_place ? MPI_IN_PLACE : c->sbuf; st->rarg = c->rbuf; break;
        }
    }
    if (is_rma(k.sem)) {
        /* the window is collective: agree first so no rank waits for one that failed */
        int all = rc;
        if (isochron_allreduce_polite(&rc, &all, 1, MPI_INT, MPI_MIN, c->comm) != ISOCHRON_OK)
            return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Iallreduce failed in set-up", name);
        if (all != ISOCHRON_OK) {
            if (rc == ISOCHRON_OK)
                rc = isochron_set_error(all, "%s: set-up failed on another rank", name);
            return rc;
        }
        void *base = NULL;
        /* MPICH 4.0.2 (ch4) lays shared-memory windows out as if every size
         * were a multiple of 16 bytes: a 1000-byte window receives puts 8
         * bytes off (reproduced outside isochron). Padding to a cache line
         * costs nothing and keeps every library right. */
        size_t wbytes = (e.win * (size_t)ts + 63) / 64 * 64;
        /* a 0-byte window gets one cache line too: Open MPI 4.1 returns an
         * uninitialised base pointer for size 0 (valgrind), which teardown
         * and prepare would then compare */
        if (wbytes == 0) wbytes = 64;
        if ((rc = isochron_ops_win_allocate(name, c, wbytes, ts, &base, &c->win))) return rc;
        st->win_base = base;
        /* a known library crash is refused before the first swap; teardown frees the window */
        if (k.sem == SEM_CAS && (rc = isochron_ops_cas_defect(name, c))) return rc;
        if (k.alg == ALG_PSCW) {
            /* the groups of post (who accesses this window: the left neighbour) and start (the right) */
            MPI_Group all;
            MPI_Comm_group(c->comm, &all);
            MPI_Group_incl(all, 1, &st->left, &st->gleft);
            MPI_Group_incl(all, 1, &st->right, &st->gright);
            MPI_Group_free(&all);
        }
        if (!own_rbuf(k.sem)) {
            c->rbuf = base; /* data arrives in the window */
            c->rbuf_bytes = e.win * (size_t)ts;
        }
    }
    return rc;
}

int isochron_ops_kind_setup(isochron_op_ctx_t *c, isochron_ops_kind_t k, const char *name)
{
    return kind_setup(c, k, name, (size_t)INT_MAX);
}

int isochron_ops_kind_setup_c(isochron_op_ctx_t *c, isochron_ops_kind_t k, const char *name)
{
    return kind_setup(c, k, name, SIZE_MAX);
}

int isochron_ops_wait_request(isochron_op_ctx_t *c)
{
    if (MPI_Wait(&c->req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Wait failed on rank %d",
                                  c->state ? ISOCHRON_OPS_ST(c)->name : "operation", c->rank);
    return ISOCHRON_OK;
}

void isochron_ops_kind_teardown(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    if (c->req != MPI_REQUEST_NULL) MPI_Wait(&c->req, MPI_STATUS_IGNORE); /* posted, never waited */
    if (c->win != MPI_WIN_NULL) MPI_Win_free(&c->win);
    if (st && st->gleft != MPI_GROUP_NULL && st->gleft) MPI_Group_free(&st->gleft);
    if (st && st->gright != MPI_GROUP_NULL && st->gright) MPI_Group_free(&st->gright);
    if (!st || c->rbuf != st->win_base) free(c->rbuf);
    free(c->sbuf);
    free(c->counts);
    free(c->displs);
    if (st) free(st->tmp);
    free(st);
    c->sbuf = c->rbuf = NULL;
    c->counts = c->displs = NULL;
    c->state = NULL;
    c->win = MPI_WIN_NULL;
}

/* ------------------------------------------------------------------ prepare */

static int lock_self(isochron_op_ctx_t *c, int type)
{
    if (MPI_Win_lock(type, c->rank, 0, c->win) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Win_lock on itself failed on rank %d",
                                  ISOCHRON_OPS_ST(c)->name, c->rank);
    return ISOCHRON_OK;
}

static int unlock_self(isochron_op_ctx_t *c)
{
    if (MPI_Win_unlock(c->rank, c->win) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "%s: MPI_Win_unlock on itself failed on rank %d",
                                  ISOCHRON_OPS_ST(c)->name, c->rank);
    return ISOCHRON_OK;
}

static char *at(void *buf, size_t elem, int ts) { return (char *)buf + elem * (size_t)ts; }

int isochron_ops_kind_prepare(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int r = c->rank, p = c->size, k = c->rep, tk = st->tk, rk = st->rk, ts = c->dtype_size;
    size_t n = c->count;
    int is_root = r == c->root, ip = c->in_place;
    int rc;
    switch (st->kind.sem) {
    case SEM_ALLGATHER: case SEM_ALLGATHERV:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        isochron_ops_fill_mv(ip ? at(c->rbuf, (size_t)r * n, ts) : c->sbuf, tk, r, 0, n, k);
        break;
    case SEM_ALLREDUCE: case SEM_SCAN: case SEM_EXSCAN:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        isochron_ops_fill_rv(ip ? c->rbuf : c->sbuf, tk, rk, r, 0, n, k, p);
        break;
    case SEM_ALLTOALL: case SEM_ALLTOALLV:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        isochron_ops_fill_mv(ip ? c->rbuf : c->sbuf, tk, r, 0, (size_t)p * n, k);
        break;
    case SEM_BARRIER:
        break;
    case SEM_BCAST:
        if (is_root) isochron_ops_fill_mv(c->rbuf, tk, r, 0, n, k);
        else isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        break;
    case SEM_GATHER: case SEM_GATHERV:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        isochron_ops_fill_mv((is_root && ip) ? at(c->rbuf, (size_t)r * n, ts) : c->sbuf, tk, r, 0, n, k);
        break;
    case SEM_REDUCE:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        isochron_ops_fill_rv((is_root && ip) ? c->rbuf : c->sbuf, tk, rk, r, 0, n, k, p);
        break;
    case SEM_REDUCE_SCATTER: case SEM_REDUCE_SCATTER_BLOCK:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        isochron_ops_fill_rv(ip ? c->rbuf : c->sbuf, tk, rk, r, 0, (size_t)p * n, k, p);
        break;
    case SEM_SCATTER: case SEM_SCATTERV:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        if (is_root) isochron_ops_fill_mv(c->sbuf, tk, r, 0, (size_t)p * n, k);
        break;
    case SEM_PINGPONG: case SEM_EXCHANGE: case SEM_RINGSHIFT:
        isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        if (c->sbuf_bytes) isochron_ops_fill_mv(c->sbuf, tk, r, 0, n, k);
        break;
    case SEM_PUT_1ALL: case SEM_GET_1ALL: case SEM_PUT_AALL: case SEM_GET_AALL: {
        /* passive target (lock_all): nobody accesses a window while its owner writes it */
        size_t wn = st->kind.sem == SEM_PUT_AALL ? (size_t)p * n : n;
        if ((rc = isochron_barrier_polite(c->comm))) return rc;
        if (c->no_fill) break; /* an unvalidated epoch rewrites nothing (engine.c); the barrier keeps repetitions apart */
        if ((rc = lock_self(c, MPI_LOCK_EXCLUSIVE))) return rc;
        if (st->kind.sem == SEM_PUT_1ALL || st->kind.sem == SEM_PUT_AALL) {
            if (c->sbuf_bytes) isochron_ops_fill_mv(c->sbuf, tk, r, 0, n, k);
            isochron_ops_poison(st->win_base, wn * (size_t)ts);
        } else {
            isochron_ops_fill_mv(st->win_base, tk, r, 0, n, k);
            isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        }
        if ((rc = unlock_self(c))) return rc;
        if ((rc = isochron_barrier_polite(c->comm))) return rc;
        break;
    }
    case SEM_PUT: case SEM_GET: case SEM_ACC: case SEM_GACC: case SEM_FOP: case SEM_CAS:
        if (st->kind.alg == ALG_LOCK || st->kind.alg == ALG_LOCKALL) {
            /* nobody may still be reading or writing the previous repetition */
            if ((rc = isochron_barrier_polite(c->comm))) return rc;
            if ((rc = lock_self(c, MPI_LOCK_EXCLUSIVE))) return rc;
        }
        if (c->no_fill && (st->kind.sem == SEM_PUT || st->kind.sem == SEM_GET)) {
            /* an unvalidated epoch: put/get rewrite nothing, the buffers stay as warm as OSU's (engine.c) */
        } else if (st->kind.sem == SEM_PUT) {
            isochron_ops_fill_mv(c->sbuf, tk, r, 0, n, k);
            isochron_ops_poison(st->win_base, n * (size_t)ts);
        } else if (st->kind.sem == SEM_GET) {
            isochron_ops_fill_mv(st->win_base, tk, r, 0, n, k);
            isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        } else if (st->kind.sem == SEM_CAS) {
            /* this rank's window holds its values; the left neighbour compares with them and swaps its own in */
            isochron_ops_fill_mv(st->win_base, tk, r, 0, n, k);
            isochron_ops_fill_mv(st->tmp, tk, st->right, 0, n, k);
            isochron_ops_fill_mv(c->sbuf, tk, r, 0, n, k);
            isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        } else {
            isochron_ops_fill_rv(c->sbuf, tk, rk, r, 0, n, k, p);
            isochron_ops_fill_rv(st->win_base, tk, rk, r, 0, n, k, p);
            if (is_atomic(st->kind.sem)) isochron_ops_poison(c->rbuf, c->rbuf_bytes);
        }
        if (st->kind.alg == ALG_LOCK || st->kind.alg == ALG_LOCKALL) {
            if ((rc = unlock_self(c))) return rc;
            /* every window holds this repetition's data before anyone accesses it */
            if ((rc = isochron_barrier_polite(c->comm))) return rc;
        }
        break;
    }
    return ISOCHRON_OK;
}

/* ------------------------------------------------------------------ validate */

/* The checks below go block by block (isochron_ops_vblock / _rblock, typed
 * loops at memory speed); vc() is the element-wise check of the few patterns
 * that are neither (a fold of two ranks' values, atomics' results). */
typedef struct {
    isochron_op_ctx_t *c;
    isochron_ops_vstate_t s;
} vcheck_t;

static void vc(vcheck_t *v, const void *buf, size_t idx, long long expected, int from)
{
    int tk = ISOCHRON_OPS_ST(v->c)->tk;
    if (isochron_ops_elem_equal(buf, idx, tk, expected)) return;
    if (v->s.bad++ == 0) {
        v->s.first = idx;
        v->s.expected = expected;
        v->s.from = from;
        isochron_ops_elem_format(buf, idx, tk, v->s.got, sizeof v->s.got);
    }
}

static int vfinish(vcheck_t *v, size_t total)
{
    if (!v->s.bad) return ISOCHRON_OK;
    isochron_op_ctx_t *c = v->c;
    char from[48] = "";
    if (v->s.from >= 0) snprintf(from, sizeof from, " (from rank %d)", v->s.from);
    return isochron_set_error(ISOCHRON_EVALIDATE,
                              "%s: wrong data on rank %d, element %zu%s: expected %lld, got %s "
                              "(%s, %zu bytes, repetition %d; %zu of %zu elements wrong)",
                              ISOCHRON_OPS_ST(c)->name, c->rank, v->s.first, from, v->s.expected, v->s.got,
                              isochron_op_dtype_name(c->dtype), c->bytes, c->rep, v->s.bad, total);
}

/* This rank's window WIN after the left neighbour's access in this repetition: the neighbour's movement
 * pattern where the access replaces the values (REPLACE: put, and compare_and_swap, whose every swap
 * happens), else this rank's reduction pattern folded with the neighbour's (accumulate, get_accumulate,
 * fetch_and_op). Under lock and lock_all it is read inside a shared lock on itself, after a barrier: the
 * left neighbour's unlock completed its access at this target. */
static int check_window(vcheck_t *v, const void *win, int replace)
{
    isochron_op_ctx_t *c = v->c;
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int r = c->rank, p = c->size, k = c->rep, tk = st->tk, rk = st->rk, rc;
    int locked = st->kind.alg == ALG_LOCK || st->kind.alg == ALG_LOCKALL;
    if (locked) {
        if ((rc = isochron_barrier_polite(c->comm))) return rc;
        if ((rc = lock_self(c, MPI_LOCK_SHARED))) return rc;
    }
    for (size_t e = 0; e < c->count; e++) {
        long long ex = replace ? isochron_ops_mv(tk, st->left, e, k)
                               : isochron_ops_fold(rk, isochron_ops_rv(rk, r, e, k, p),
                                                   isochron_ops_rv(rk, st->left, e, k, p));
        vc(v, win, e, ex, st->left);
    }
    return locked ? unlock_self(c) : ISOCHRON_OK;
}

int isochron_ops_kind_validate(isochron_op_ctx_t *c)
{
    isochron_ops_state_t *st = ISOCHRON_OPS_ST(c);
    int r = c->rank, p = c->size, k = c->rep, tk = st->tk, rk = st->rk;
    size_t n = c->count, total = 0;
    int is_root = r == c->root;
    vcheck_t v = { c, { 0, 0, 0, 0, -1, "" } };
    int rc;
    switch (st->kind.sem) {
    case SEM_ALLGATHER: case SEM_ALLGATHERV:
        for (int j = 0; j < p; j++)
            isochron_ops_vblock(&v.s, c->rbuf, (size_t)j * n, n, tk, j, 0, k);
        total = (size_t)p * n;
        break;
    case SEM_ALLREDUCE:
        isochron_ops_rblock(&v.s, c->rbuf, 0, n, tk, rk, 0, p - 1, 0, k, p);
        total = n;
        break;
    case SEM_SCAN:
        isochron_ops_rblock(&v.s, c->rbuf, 0, n, tk, rk, 0, r, 0, k, p);
        total = n;
        break;
    case SEM_EXSCAN: /* undefined on rank 0 */
        if (r > 0) {
            isochron_ops_rblock(&v.s, c->rbuf, 0, n, tk, rk, 0, r - 1, 0, k, p);
            total = n;
        }
        break;
    case SEM_ALLTOALL: case SEM_ALLTOALLV:
        for (int j = 0; j < p; j++)
            isochron_ops_vblock(&v.s, c->rbuf, (size_t)j * n, n, tk, j, (size_t)r * n, k);
        total = (size_t)p * n;
        break;
    case SEM_BARRIER:
        break;
    case SEM_BCAST:
        isochron_ops_vblock(&v.s, c->rbuf, 0, n, tk, c->root, 0, k);
        total = n;
        break;
    case SEM_GATHER: case SEM_GATHERV:
        if (is_root) {
            for (int j = 0; j < p; j++)
                isochron_ops_vblock(&v.s, c->rbuf, (size_t)j * n, n, tk, j, 0, k);
            total = (size_t)p * n;
        }
        break;
    case SEM_REDUCE:
        if (is_root) {
            isochron_ops_rblock(&v.s, c->rbuf, 0, n, tk, rk, 0, p - 1, 0, k, p);
            total = n;
        }
        break;
    case SEM_REDUCE_SCATTER: case SEM_REDUCE_SCATTER_BLOCK:
        isochron_ops_rblock(&v.s, c->rbuf, 0, n, tk, rk, 0, p - 1, (size_t)r * n, k, p);
        total = n;
        break;
    case SEM_SCATTER: case SEM_SCATTERV:
        if (!(is_root && c->in_place)) {
            isochron_ops_vblock(&v.s, c->rbuf, 0, n, tk, c->root, (size_t)r * n, k);
            total = n;
        }
        break;
    case SEM_PINGPONG:
        if (r < 2) {
            isochron_ops_vblock(&v.s, c->rbuf, 0, n, tk, 1 - r, 0, k);
            total = n;
        }
        break;
    case SEM_EXCHANGE:
        isochron_ops_vblock(&v.s, c->rbuf, 0, n, tk, st->left, 0, k);
        isochron_ops_vblock(&v.s, c->rbuf, n, n, tk, st->right, 0, k);
        total = 2 * n;
        break;
    case SEM_RINGSHIFT:
        isochron_ops_vblock(&v.s, c->rbuf, 0, n, tk, st->left, 0, k);
        total = n;
        break;
    case SEM_GET:
        isochron_ops_vblock(&v.s, c->rbuf, 0, n, tk, st->right, 0, k);
        total = n;
        break;
    case SEM_PUT: case SEM_ACC: /* rbuf is the window */
        if ((rc = check_window(&v, c->rbuf, st->kind.sem == SEM_PUT))) return rc;
        total = n;
        break;
    case SEM_PUT_1ALL: case SEM_PUT_AALL: /* this window: the root's block, or every other rank's in its block */
        if ((rc = isochron_barrier_polite(c->comm))) return rc;
        if ((rc = lock_self(c, MPI_LOCK_SHARED))) return rc;
        for (int j = 0; j < p; j++) {
            if (j == r || (st->kind.sem == SEM_PUT_1ALL && j != c->root)) continue;
            size_t at0 = st->kind.sem == SEM_PUT_AALL ? (size_t)j * n : 0;
            isochron_ops_vblock(&v.s, st->win_base, at0, n, tk, j, 0, k);
            total += n;
        }
        if ((rc = unlock_self(c))) return rc;
        break;
    case SEM_GET_1ALL: case SEM_GET_AALL: /* block j of the result: rank j's window */
        if (st->kind.sem == SEM_GET_1ALL && !is_root) break;
        for (int j = 0; j < p; j++) {
            if (j == r) continue;
            isochron_ops_vblock(&v.s, c->rbuf, (size_t)j * n, n, tk, j, 0, k);
            total += n;
        }
        break;
    case SEM_GACC: case SEM_FOP: case SEM_CAS:
        /* the result buffer: the right neighbour's values before this rank's access */
        for (size_t e = 0; e < n; e++)
            vc(&v, c->rbuf, e, st->kind.sem == SEM_CAS ? isochron_ops_mv(tk, st->right, e, k)
                                                       : isochron_ops_rv(rk, st->right, e, k, p), st->right);
        /* this rank's window: updated by the left neighbour */
        if ((rc = check_window(&v, st->win_base, st->kind.sem == SEM_CAS))) return rc;
        total = 2 * n;
        break;
    }
    return vfinish(&v, total);
}
