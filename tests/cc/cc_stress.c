/* cc_stress: randomized, seeded, reproducible stress program for the
 * collective-clock checkpoint protocol of libisochron-cc.so (paper 003,
 * sections 4.2-4.3: SEQ/TARGET per group, safe state with no rank inside a
 * collective, pending non-blocking collectives completed, no point-to-point
 * message in flight; contract in include/isochron/cc.h).
 *
 * Design. From --seed every rank derives the same global program: first a list
 * of communicator creations (dups, splits with random colours and keys,
 * MPI_Comm_create_group of random ordered subsets of the world), then a flat
 * list of --ops operations: blocking collectives, non-blocking collective
 * initiations whose Wait/Waitall/Waitany/Test/Testall come later (per rank, at
 * its own random later index), and point-to-point pairs (Sendrecv, or
 * Sendrecv_replace for every third operation index; Send/Recv with or without
 * a probe, Probe or Mprobe + Mrecv by the index's parity; Isend/Irecv
 * completed later: the variants are chosen from the index, not drawn, so a
 * seed's program is the one it was before they existed). Every rank walks
 * the whole list in order and executes the operations it takes part in. A
 * total order shared by all ranks makes the program deadlock-free for every
 * interleaving: the first operation some participant has not finished has
 * every participant at it (all their earlier operations are finished).
 * Every received value is folded into a per-rank checksum in a region
 * registered with isochron_cc_register, together with the index of the next
 * operation: a checkpoint is taken inside an MPI wrapper before the call runs,
 * so the saved region means "about to execute operation idx". Buffers of
 * non-blocking operations live in the registered region too (the contract says
 * a request pending at the checkpoint is complete after a restart and its
 * buffer holds the data if registered). Checkpoint requests fire at random
 * indices from random ranks, by isochron_cc_request() or raise(SIGUSR1); a
 * request fired before the saved point is not fired again after a restart.
 * --kill makes a seed-chosen rank end the job (MPI_Abort or _exit) at a
 * seed-chosen index once a checkpoint has completed; a restart
 * (ISOCHRON_CC_RESTART=DIR) resumes at the saved index and must end with the
 * same checksums as a native run. Output: one "checksum" line per rank and a
 * summary line on rank 0; "FAIL" on any detected inconsistency.
 *
 * The checkpoint API is referenced weakly, so the program also runs against a
 * library that has only the bookkeeping (then it runs without requests). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "isochron/cc.h"

#pragma weak isochron_cc_register
#pragma weak isochron_cc_request
#pragma weak isochron_cc_checkpoints
#pragma weak isochron_cc_restarted
#pragma weak isochron_cc_on_checkpoint

#define MAXNP 4
#define MAXCOMM 48
#define MAXWAIT 8
#define NSLOT 12
#define SLOT (64 * 1024)          /* bytes: send half + receive half */
#define HALF_INTS (SLOT / 2 / 4)
#define BIG_INTS (64 * 1024)

enum {
    K_BARRIER, K_BCAST, K_ALLREDUCE, K_REDUCE, K_ALLGATHER, K_ALLTOALL, K_SCAN, /* blocking */
    K_IBARRIER, K_IBCAST, K_IALLREDUCE, K_IREDUCE, K_IALLGATHER, K_IALLTOALL, K_ISCAN,
    K_SENDRECV, K_SEND, K_ISEND,       /* p2p pairs: a -> b (Sendrecv both ways) */
    K_WAIT, K_WAITALL, K_WAITANY, K_TESTLOOP, K_TESTALL, K_TEST1, /* completions, one rank */
    K_COMPUTE,                         /* rank a computes (sleeps) count microseconds, no MPI */
    K_NKINDS
};
static const char *const kind_names[K_NKINDS] = {
    "Barrier", "Bcast", "Allreduce", "Reduce", "Allgather", "Alltoall", "Scan",
    "Ibarrier", "Ibcast", "Iallreduce", "Ireduce", "Iallgather", "Ialltoall", "Iscan",
    "Sendrecv", "Send", "Isend", "Wait", "Waitall", "Waitany", "Testloop", "Testall", "Test1", "Compute" };
#define IS_NB(k) ((k) >= K_IBARRIER && (k) <= K_ISCAN)
#define IS_COMPL(k) ((k) >= K_WAIT && (k) <= K_TEST1)

typedef struct {
    int kind, comm, root, count, redop, probe;
    int a, b;                    /* p2p world ranks; completion: a = the rank */
    int nwait, wait[MAXWAIT];    /* completion: the operations completed */
    int slot[MAXNP];             /* non-blocking: arena slot per world rank */
} op_t;

typedef struct { int n, members[MAXNP], crank[MAXNP]; } lcomm_t;
typedef struct { int type, parent, child[3], color[MAXNP], key[MAXNP], tag; } create_t; /* 0 dup 1 split 2 group */

static int np, me, nops, ncomm, ncreate;
static op_t *ops;
static lcomm_t lc[MAXCOMM];
static create_t cr[MAXCOMM];
static MPI_Comm h[MAXCOMM];
typedef struct { int idx, rank, signal; } creq_t;
static creq_t creqs[16];
static int ncreqs, kill_rank = -1, kill_op = -1;
static int comm_kinds = 7;
/* --p2p-heavy: more point-to-point and collectives mostly on sub-communicators, so a
 * rank often stops at a collective its senders are not part of while their eager
 * messages are in flight (the case the message-count invariant is there for) */
static int p2p_heavy = 0, coll_pct = 62;     /* bit 0 dup, 1 split, 2 create_group (--comm-kinds) */

/* the registered state */
static struct {
    uint64_t magic, seed;
    int64_t idx, reqmark, nmine, before, after;
    uint64_t cs;
    unsigned char arena[NSLOT * SLOT];
} st;

static uint64_t rng;
static uint64_t next64(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int rnd(int n) { return (int)(next64() % (uint64_t)n); }
static uint64_t mix(uint64_t h0, uint64_t x)
{
    uint64_t z = h0 ^ (x + 0x9e3779b97f4a7c15ull + (h0 << 6) + (h0 >> 2));
    z = (z ^ (z >> 31)) * 0x7fb5d329728ea185ull;
    return z ^ (z >> 27);
}
static int val(uint64_t seed, int op, int src, int e)
{
    return (int)(mix(mix(mix(seed, (uint64_t)op), (uint64_t)src), (uint64_t)e) & 0xfffff);
}
static void fold(int i, const int *v, int n)
{
    st.cs = mix(st.cs, (uint64_t)i);
    for (int e = 0; e < n; e++) st.cs = mix(st.cs, (uint64_t)(uint32_t)v[e]);
}

static int member(int c, int r) { return lc[c].crank[r] >= 0; }

/* ---- generation (identical on every rank) ---- */
static int new_lcomm(void) { lc[ncomm].n = 0; for (int r = 0; r < MAXNP; r++) lc[ncomm].crank[r] = -1; return ncomm++; }
static void add_member(int c, int r) { lc[c].crank[r] = lc[c].n; lc[c].members[lc[c].n++] = r; }

static void gen_comms(void)
{
    ncomm = 0; ncreate = 0;
    int w = new_lcomm();
    for (int r = 0; r < np; r++) add_member(w, r);
    int steps = 3 + rnd(6);
    for (int s = 0; s < steps && ncomm + 3 <= MAXCOMM; s++) {
        create_t *c = &cr[ncreate++];
        do c->type = rnd(3); while (!(comm_kinds >> c->type & 1));
        c->parent = rnd(ncomm);
        c->tag = 100 + s;
        if (c->type == 0) {
            int k = new_lcomm();
            for (int i = 0; i < lc[c->parent].n; i++) add_member(k, lc[c->parent].members[i]);
            c->child[0] = k;
        } else if (c->type == 1) {
            int nc = 1 + rnd(2);
            for (int i = 0; i < 3; i++) c->child[i] = -1;
            for (int r = 0; r < np; r++) { c->color[r] = -1; c->key[r] = 0; }
            for (int i = 0; i < lc[c->parent].n; i++) {
                int r = lc[c->parent].members[i];
                c->color[r] = rnd(8) == 0 ? -1 : rnd(nc);
                c->key[r] = rnd(4);
            }
            for (int col = 0; col < nc; col++) {
                int k = -1;
                for (int key = 0; key < 4; key++)            /* order: key, then parent rank */
                    for (int i = 0; i < lc[c->parent].n; i++) {
                        int r = lc[c->parent].members[i];
                        if (c->color[r] == col && c->key[r] == key) {
                            if (k < 0) k = new_lcomm();
                            add_member(k, r);
                        }
                    }
                c->child[col] = k;
            }
        } else {
            int perm[MAXNP], n = 1 + rnd(np);
            for (int r = 0; r < np; r++) perm[r] = r;
            for (int r = np - 1; r > 0; r--) { int j = rnd(r + 1), t = perm[r]; perm[r] = perm[j]; perm[j] = t; }
            c->parent = 0;
            int k = new_lcomm();
            for (int i = 0; i < n; i++) add_member(k, perm[i]);
            c->child[0] = k;
        }
    }
}

static int slotfree[MAXNP][NSLOT];
static int npend[MAXNP], pend[MAXNP][64];

static int alloc_slot(int r)
{
    for (int s = 0; s < NSLOT; s++) if (slotfree[r][s]) { slotfree[r][s] = 0; return s; }
    return -1;
}

/* a completion operation for rank r over a random subset of its pending ops */
static void gen_completion(op_t *o, int r, int all)
{
    memset(o, 0, sizeof *o);
    o->a = r;
    int n = all ? npend[r] : 1 + rnd(npend[r]);
    if (n > MAXWAIT) n = MAXWAIT;
    o->kind = n == 1 ? (rnd(2) ? K_WAIT : K_TESTLOOP) : (int[]){ K_WAITALL, K_WAITANY, K_TESTALL }[rnd(3)];
    for (int i = 0; i < n; i++) {
        int j = rnd(npend[r]);
        o->wait[o->nwait++] = pend[r][j];
        pend[r][j] = pend[r][--npend[r]];
    }
    for (int i = 0; i < o->nwait; i++) slotfree[r][ops[o->wait[i]].slot[r]] = 1;
}

static void gen_ops(int nwanted)
{
    for (int r = 0; r < MAXNP; r++) { npend[r] = 0; for (int s = 0; s < NSLOT; s++) slotfree[r][s] = 1; }
    int cap = nwanted + 64 * MAXNP;
    ops = calloc((size_t)cap, sizeof *ops);
    nops = 0;
    while (nops < nwanted) {
        op_t *o = &ops[nops];
        memset(o, 0, sizeof *o);
        for (int r = 0; r < MAXNP; r++) o->slot[r] = -1;
        int x = rnd(100), busy = -1;
        for (int r = 0; r < np; r++) if (npend[r] >= 8) busy = r;
        if (busy >= 0 || (x < 15 && (npend[x % np] > 0))) {
            int r = busy >= 0 ? busy : x % np;
            if (busy < 0 && rnd(4) == 0) { /* a single MPI_Test, completion later */
                o->kind = K_TEST1; o->a = r; o->nwait = 1; o->wait[0] = pend[r][rnd(npend[r])];
                for (int s = 0; s < MAXNP; s++) o->slot[s] = -1;
            } else {
                gen_completion(o, r, 0);
                for (int s = 0; s < MAXNP; s++) o->slot[s] = -1;
            }
            nops++;
            continue;
        }
        if (x >= 88) {                 /* computation between MPI calls, on one rank */
            o->kind = K_COMPUTE;
            o->a = rnd(np);
            o->count = 100 + rnd(1900);
        } else if (x < coll_pct) {     /* collective */
            int c;
            do c = rnd(ncomm); while (lc[c].n == 0 || (p2p_heavy && lc[c].n == np && rnd(4) != 0));
            int nb = rnd(100) < 40;
            o->kind = (nb ? K_IBARRIER : K_BARRIER) + rnd(7);
            o->comm = c;
            o->root = rnd(lc[c].n);
            o->redop = rnd(3);
            int big = !nb && rnd(10) == 0;
            int maxc = nb ? HALF_INTS / MAXNP : BIG_INTS / MAXNP;
            o->count = big ? maxc / 2 + rnd(maxc / 2) : 1 + rnd(64);
            if (nb) {
                int ok = 1;
                for (int i = 0; i < lc[c].n; i++) if (npend[lc[c].members[i]] >= 8) ok = 0;
                if (!ok) continue;
                for (int i = 0; i < lc[c].n; i++) {
                    int r = lc[c].members[i];
                    o->slot[r] = alloc_slot(r);
                    pend[r][npend[r]++] = nops;
                }
            }
        } else {                       /* point-to-point pair */
            o->a = rnd(np);
            o->b = (o->a + 1 + rnd(np - 1)) % np;
            int c;
            do c = rnd(ncomm); while (!member(c, o->a) || !member(c, o->b));
            o->comm = c;
            int y = rnd(3);
            o->kind = y == 0 ? K_SENDRECV : y == 1 ? K_SEND : K_ISEND;
            o->probe = rnd(3) == 0;
            int big = rnd(8) == 0;
            int maxc = o->kind == K_ISEND ? HALF_INTS : BIG_INTS;
            o->count = big ? maxc / 2 + rnd(maxc / 2) : 1 + rnd(128);
            if (o->kind == K_ISEND) {
                if (npend[o->a] >= 8 || npend[o->b] >= 8) continue;
                o->slot[o->a] = alloc_slot(o->a);
                o->slot[o->b] = alloc_slot(o->b);
                pend[o->a][npend[o->a]++] = nops;
                pend[o->b][npend[o->b]++] = nops;
            }
        }
        nops++;
    }
    for (int r = 0; r < np; r++)
        while (npend[r] > 0) {
            op_t *o = &ops[nops++];
            gen_completion(o, r, 1);
            for (int s = 0; s < MAXNP; s++) o->slot[s] = -1;
        }
}

static int participates(const op_t *o, int r)
{
    if (IS_COMPL(o->kind) || o->kind == K_COMPUTE) return o->a == r;
    if (o->kind >= K_SENDRECV) return o->a == r || o->b == r;
    return member(o->comm, r);
}

/* ---- execution ---- */
static MPI_Request *reqs;
static int bufA[BIG_INTS], bufB[BIG_INTS];
static uint64_t seed;

/* MPI_STATUSES_IGNORE read through a volatile: MPICH defines it as (MPI_Status *)1, and GCC's
 * -Wstringop-overflow took that for a status array of size 0 that MPI_Waitall/MPI_Testall write */
static MPI_Status *volatile statuses_ignore = MPI_STATUSES_IGNORE;

static MPI_Op redop(int k) { return k == 0 ? MPI_SUM : k == 1 ? MPI_MAX : MPI_BXOR; }
static int *sendhalf(const op_t *o) { return (int *)(st.arena + (size_t)o->slot[me] * SLOT); }
static int *recvhalf(const op_t *o) { return (int *)(st.arena + (size_t)o->slot[me] * SLOT + SLOT / 2); }

static void fill(int *b, int i, int src, int n) { for (int e = 0; e < n; e++) b[e] = val(seed, i, src, e); }

/* the number of received ints op i leaves in its receive buffer on this rank */
static int result_len(const op_t *o)
{
    int n = lc[o->comm].n, k = o->kind;
    if (IS_NB(k)) k -= K_IBARRIER;
    switch (k) {
    case K_BARRIER: return 0;
    case K_BCAST: case K_ALLREDUCE: case K_SCAN: return o->count;
    case K_REDUCE: return lc[o->comm].crank[me] == o->root ? o->count : 0;
    case K_ALLGATHER: case K_ALLTOALL: return o->count * n;
    }
    return 0;
}

static void start_coll(int i, const op_t *o, int *sb, int *rb, MPI_Request *rq)
{
    MPI_Comm c = h[o->comm];
    int k = o->kind, n = lc[o->comm].n, cr_ = lc[o->comm].crank[me];
    int nb = IS_NB(k);
    if (nb) k -= K_IBARRIER;
    int sn = k == K_ALLTOALL ? o->count * n : o->count;
    fill(sb, i, me, sn);
    switch (k) {
    case K_BARRIER: nb ? MPI_Ibarrier(c, rq) : MPI_Barrier(c); break;
    case K_BCAST:
        if (cr_ == o->root) memcpy(rb, sb, (size_t)o->count * sizeof *rb);
        nb ? MPI_Ibcast(rb, o->count, MPI_INT, o->root, c, rq) : MPI_Bcast(rb, o->count, MPI_INT, o->root, c);
        break;
    case K_ALLREDUCE:
        nb ? MPI_Iallreduce(sb, rb, o->count, MPI_INT, redop(o->redop), c, rq)
           : MPI_Allreduce(sb, rb, o->count, MPI_INT, redop(o->redop), c);
        break;
    case K_REDUCE:
        nb ? MPI_Ireduce(sb, rb, o->count, MPI_INT, redop(o->redop), o->root, c, rq)
           : MPI_Reduce(sb, rb, o->count, MPI_INT, redop(o->redop), o->root, c);
        break;
    case K_ALLGATHER:
        nb ? MPI_Iallgather(sb, o->count, MPI_INT, rb, o->count, MPI_INT, c, rq)
           : MPI_Allgather(sb, o->count, MPI_INT, rb, o->count, MPI_INT, c);
        break;
    case K_ALLTOALL:
        nb ? MPI_Ialltoall(sb, o->count, MPI_INT, rb, o->count, MPI_INT, c, rq)
           : MPI_Alltoall(sb, o->count, MPI_INT, rb, o->count, MPI_INT, c);
        break;
    case K_SCAN:
        nb ? MPI_Iscan(sb, rb, o->count, MPI_INT, MPI_SUM, c, rq) : MPI_Scan(sb, rb, o->count, MPI_INT, MPI_SUM, c);
        break;
    }
}

/* fold the result of a finished non-blocking op j into the checksum */
static void finish_nb(int j)
{
    const op_t *o = &ops[j];
    if (o->kind == K_ISEND) {
        if (o->b == me) fold(j, recvhalf(o), o->count);
        else fold(j, NULL, 0);
    } else {
        fold(j, recvhalf(o), result_len(o));
    }
}

static void exec_op(int i)
{
    op_t *o = &ops[i];
    MPI_Comm c = h[o->comm];
    int tag = 1 + i % 30000;
    if (o->kind == K_COMPUTE) {
        struct timespec ts = { 0, o->count * 1000L };
        nanosleep(&ts, NULL);
    } else if (o->kind <= K_SCAN) {
        start_coll(i, o, bufA, bufB, NULL);
        fold(i, bufB, result_len(o));
    } else if (IS_NB(o->kind)) {
        start_coll(i, o, sendhalf(o), recvhalf(o), &reqs[i]);
    } else if (o->kind == K_SENDRECV) {
        int other = o->a == me ? o->b : o->a;
        if (i % 3 == 0) {
            fill(bufB, i, me, o->count);
            MPI_Sendrecv_replace(bufB, o->count, MPI_INT, lc[o->comm].crank[other], tag, lc[o->comm].crank[other], tag, c,
                                 MPI_STATUS_IGNORE);
        } else {
            fill(bufA, i, me, o->count);
            MPI_Sendrecv(bufA, o->count, MPI_INT, lc[o->comm].crank[other], tag,
                         bufB, o->count, MPI_INT, lc[o->comm].crank[other], tag, c, MPI_STATUS_IGNORE);
        }
        fold(i, bufB, o->count);
    } else if (o->kind == K_SEND) {
        if (o->a == me) {
            fill(bufA, i, me, o->count);
            MPI_Send(bufA, o->count, MPI_INT, lc[o->comm].crank[o->b], tag, c);
            fold(i, NULL, 0);
        } else {
            MPI_Status s;
            int src = lc[o->comm].crank[o->a], n = o->count;
            if (o->probe && i % 2) {
                MPI_Message m;
                MPI_Mprobe(src, tag, c, &m, &s);
                MPI_Get_count(&s, MPI_INT, &n);
                MPI_Mrecv(bufB, n, MPI_INT, &m, &s);
            } else {
                if (o->probe) {
                    MPI_Probe(src, tag, c, &s);
                    MPI_Get_count(&s, MPI_INT, &n);
                }
                MPI_Recv(bufB, n, MPI_INT, src, tag, c, &s);
            }
            fold(i, bufB, n);
        }
    } else if (o->kind == K_ISEND) {
        if (o->a == me) {
            fill(sendhalf(o), i, me, o->count);
            MPI_Isend(sendhalf(o), o->count, MPI_INT, lc[o->comm].crank[o->b], tag, c, &reqs[i]);
        } else {
            MPI_Irecv(recvhalf(o), o->count, MPI_INT, lc[o->comm].crank[o->a], tag, c, &reqs[i]);
        }
    } else if (o->kind == K_TEST1) {
        int flag = 0;
        MPI_Test(&reqs[o->wait[0]], &flag, MPI_STATUS_IGNORE);
    } else {
        MPI_Request rq[MAXWAIT];
        int n = o->nwait, flag = 0, idx;
        for (int w = 0; w < n; w++) rq[w] = reqs[o->wait[w]];
        switch (o->kind) {
        case K_WAIT: MPI_Wait(&rq[0], MPI_STATUS_IGNORE); break;
        case K_TESTLOOP: do MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE); while (!flag); break;
        case K_WAITALL: MPI_Waitall(n, rq, statuses_ignore); break;
        case K_WAITANY:
            for (;;) {
                MPI_Waitany(n, rq, &idx, MPI_STATUS_IGNORE);
                if (idx == MPI_UNDEFINED) break;
            }
            break;
        case K_TESTALL: do MPI_Testall(n, rq, &flag, statuses_ignore); while (!flag); break;
        }
        for (int w = 0; w < n; w++) {
            if (rq[w] != MPI_REQUEST_NULL) { printf("FAIL rank %d: op %d left request of op %d active\n", me, i, o->wait[w]); }
            reqs[o->wait[w]] = MPI_REQUEST_NULL;
            finish_nb(o->wait[w]);
        }
    }
}

static void create_comms(void)
{
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int c = 0; c < MAXCOMM; c++) h[c] = MPI_COMM_NULL;
    h[0] = MPI_COMM_WORLD;
    for (int s = 0; s < ncreate; s++) {
        create_t *c = &cr[s];
        if (c->type == 0) {
            if (member(c->parent, me)) MPI_Comm_dup(h[c->parent], &h[c->child[0]]);
        } else if (c->type == 1) {
            if (member(c->parent, me)) {
                MPI_Comm out;
                MPI_Comm_split(h[c->parent], c->color[me] < 0 ? MPI_UNDEFINED : c->color[me], c->key[me], &out);
                if (c->color[me] >= 0) h[c->child[c->color[me]]] = out;
                else if (out != MPI_COMM_NULL) printf("FAIL rank %d: split gave a communicator for MPI_UNDEFINED\n", me);
            }
        } else {
            int k = c->child[0];
            if (member(k, me)) {
                MPI_Group g;
                MPI_Group_incl(wg, lc[k].n, lc[k].members, &g);
                MPI_Comm_create_group(MPI_COMM_WORLD, g, c->tag, &h[k]);
                MPI_Group_free(&g);
            }
        }
    }
    MPI_Group_free(&wg);
    for (int k = 0; k < ncomm; k++) {
        if (!member(k, me)) continue;
        int r = -1, n = 0;
        MPI_Comm_rank(h[k], &r);
        MPI_Comm_size(h[k], &n);
        if (r != lc[k].crank[me] || n != lc[k].n)
            printf("FAIL rank %d: communicator %d is rank %d of %d, expected %d of %d\n", me, k, r, n, lc[k].crank[me], lc[k].n);
    }
}

static void on_ckpt(int phase, void *arg)
{
    (void)arg;
    if (phase == ISOCHRON_CC_BEFORE_SAVE) st.before++;
    else if (phase == ISOCHRON_CC_AFTER_SAVE) st.after++;
}

static void usage(void)
{
    fprintf(stderr, "usage: cc_stress --seed S [--ops N] [--requests R] [--method api|signal|mix]\n"
                    "                 [--kill] [--kill-mode abort|exit] [--plan] [--trace] [--only I,J,..]\n"
                    "                 [--comm-kinds dup,split,group] [--p2p-heavy]\n"
                    "  --plan prints the program (rank 0), --trace each operation as it starts (stderr)\n");
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int nwanted = 300, nreq = -1, kill = 0, kill_exit = 0, plan = 0, method = 2, trace = 0;
    seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--ops") && i + 1 < argc) nwanted = atoi(argv[++i]);
        else if (!strcmp(a, "--requests") && i + 1 < argc) nreq = atoi(argv[++i]);
        else if (!strcmp(a, "--kill")) kill = 1;
        else if (!strcmp(a, "--plan")) plan = 1;
        else if (!strcmp(a, "--trace")) trace = 1;
        else if (!strcmp(a, "--p2p-heavy")) { p2p_heavy = 1; coll_pct = 35; }
        else if (!strcmp(a, "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(a, "--comm-kinds") && i + 1 < argc) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            comm_kinds = 0;
            for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
                int k = !strcmp(t, "dup") ? 1 : !strcmp(t, "split") ? 2 : !strcmp(t, "group") ? 4 : 0;
                if (!k) { fprintf(stderr, "cc_stress: --comm-kinds: '%s' is not a kind; valid: dup, split, group\n", t); return 2; }
                comm_kinds |= k;
            }
        }
        else if (!strcmp(a, "--kill-mode") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "exit")) kill_exit = 1;
            else if (strcmp(m, "abort")) { fprintf(stderr, "cc_stress: --kill-mode %s is not a mode; valid: abort, exit\n", m); return 2; }
        } else if (!strcmp(a, "--method") && i + 1 < argc) {
            const char *m = argv[++i];
            method = !strcmp(m, "api") ? 0 : !strcmp(m, "signal") ? 1 : !strcmp(m, "mix") ? 2 : -1;
            if (method < 0) { fprintf(stderr, "cc_stress: --method %s is not a method; valid: api, signal, mix\n", m); return 2; }
        } else { usage(); return 2; }
    }
    if (nwanted < 10 || nwanted > 20000) { fprintf(stderr, "cc_stress: --ops must be 10..20000\n"); return 2; }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || np > MAXNP) {
        if (me == 0) fprintf(stderr, "cc_stress: needs 2..%d ranks, got %d\n", MAXNP, np);
        MPI_Finalize();
        return 2;
    }
    rng = mix(seed, (uint64_t)np);
    gen_comms();
    gen_ops(nwanted);
    /* requests and the kill point, from the seed */
    ncreqs = nreq >= 0 ? (nreq > 16 ? 16 : nreq) : 1 + rnd(3);
    for (int q = 0; q < ncreqs; q++) {
        creqs[q].idx = rnd(nops * 8 / 10);
        creqs[q].rank = rnd(np);
        creqs[q].signal = method == 2 ? rnd(2) : method;
    }
    int first = nops;
    for (int q = 0; q < ncreqs; q++) if (creqs[q].idx < first) first = creqs[q].idx;
    if (ncreqs > 0) {
        kill_rank = rnd(np);
        kill_op = first + 1 + rnd(nops - first - 1);
    }
    if (plan && me == 0) {
        for (int k = 0; k < ncomm; k++) {
            printf("comm %d:", k);
            for (int i = 0; i < lc[k].n; i++) printf(" %d", lc[k].members[i]);
            printf("\n");
        }
        for (int i = 0; i < nops; i++) {
            const op_t *o = &ops[i];
            printf("%4d %-10s", i, kind_names[o->kind]);
            if (o->kind == K_COMPUTE) printf(" rank %d %d us", o->a, o->count);
            else if (IS_COMPL(o->kind)) { printf(" rank %d ops", o->a); for (int w = 0; w < o->nwait; w++) printf(" %d", o->wait[w]); }
            else if (o->kind >= K_SENDRECV) printf(" %d->%d comm %d count %d%s", o->a, o->b, o->comm, o->count, o->probe ? " probe" : "");
            else printf(" comm %d root %d count %d", o->comm, o->root, o->count);
            printf("\n");
        }
        for (int q = 0; q < ncreqs; q++) printf("request at op %d from rank %d by %s\n", creqs[q].idx, creqs[q].rank, creqs[q].signal ? "SIGUSR1" : "api");
        printf("kill rank %d at op >= %d\n", kill_rank, kill_op);
    }
    /* --only I,J,..: run only those operations (for minimizing a failing seed). Any subset is
     * a valid program: a dropped initiation leaves MPI_REQUEST_NULL for its completions. */
    char *keep = calloc((size_t)nops, 1);
    if (!only) memset(keep, 1, (size_t)nops);
    for (const char *p = only; p && *p; ) {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p || v < 0 || v >= nops) { if (me == 0) fprintf(stderr, "cc_stress: --only wants op indices 0..%d, comma-separated\n", nops - 1); MPI_Abort(MPI_COMM_WORLD, 2); }
        keep[v] = 1;
        p = *e == ',' ? e + 1 : e;
    }
    reqs = malloc((size_t)nops * sizeof *reqs);
    for (int i = 0; i < nops; i++) reqs[i] = MPI_REQUEST_NULL;
    create_comms();

    const char *mode = isochron_cc_mode();
    int native = strcmp(mode, "native") == 0;
    int have_api = isochron_cc_register && isochron_cc_request && isochron_cc_checkpoints && isochron_cc_restarted;
    memset(&st, 0, sizeof st);
    st.magic = 0x63637374726573ull;
    st.seed = seed;
    int restarted = 0, filled = 0;
    if (have_api) {
        filled = isochron_cc_register("cc_stress", &st, sizeof st);
        if (filled < 0) { printf("FAIL rank %d: isochron_cc_register failed\n", me); MPI_Abort(MPI_COMM_WORLD, 1); }
        if (isochron_cc_on_checkpoint && isochron_cc_on_checkpoint(on_ckpt, NULL) != 0)
            printf("FAIL rank %d: isochron_cc_on_checkpoint failed\n", me);
        restarted = isochron_cc_restarted();
    }
    if (restarted) {
        if (filled != 1 || st.magic != 0x63637374726573ull || st.seed != seed) {
            printf("FAIL rank %d: restarted from checkpoint %d but the region was %s (seed %" PRIu64 ")\n",
                   me, restarted, filled == 1 ? "restored with other content" : "not restored", st.seed);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (isochron_cc_on_checkpoint && (st.before != restarted || st.after != restarted - 1))
            printf("FAIL rank %d: restarted from checkpoint %d with %" PRId64 " before-save and %" PRId64
                   " after-save callbacks saved (expected %d and %d)\n", me, restarted, st.before, st.after, restarted, restarted - 1);
        printf("cc_stress rank %d restarted from checkpoint %d at op %" PRId64 "\n", me, restarted, st.idx);
    }
    int can_request = have_api && !native;
    if (!have_api && strcmp(mode, "cc") == 0 && ncreqs > 0 && me == 0)
        printf("FAIL rank 0: libisochron-cc has no checkpoint API (isochron_cc_register/request/checkpoints/restarted); %d requests not issued\n", ncreqs);
    int fired = 0, mpi_since = 1;
    double t_loop = MPI_Wtime();
    for (int i = (int)st.idx; i < nops; i = (int)st.idx) {
        for (int q = 0; q < ncreqs; q++)
            if (can_request && creqs[q].idx == i && creqs[q].rank == me && i >= st.reqmark) {
                st.reqmark = i + 1;
                /* requests with no MPI call between them on this rank reach the library as one */
                if (mpi_since) fired++;
                mpi_since = 0;
                struct sigaction sa;
                if (creqs[q].signal && sigaction(SIGUSR1, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
                    printf("FAIL rank %d: mode %s installed no SIGUSR1 handler; op %d requests by isochron_cc_request()\n", me, mode, i);
                    isochron_cc_request();
                } else if (creqs[q].signal) raise(SIGUSR1);
                else isochron_cc_request();
            }
        if (kill && !restarted && me == kill_rank && i >= kill_op && have_api && isochron_cc_checkpoints() >= 1) {
            printf("cc_stress rank %d killed at op %d after %d checkpoints\n", me, i, isochron_cc_checkpoints());
            fflush(stdout);
            /* give the launcher time to forward the line: MPICH's mpirun lost it once at MPI_Abort */
            nanosleep(&(struct timespec){ 0, 200000000L }, NULL);
            if (kill_exit) _exit(3);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (keep[i] && participates(&ops[i], me)) {
            if (trace) { fprintf(stderr, "cc_stress rank %d op %d %s\n", me, i, kind_names[ops[i].kind]); fflush(stderr); }
            exec_op(i);
            st.nmine++;
            if (ops[i].kind != K_COMPUTE) mpi_since = 1;
        }
        st.idx = i + 1;
    }
    t_loop = MPI_Wtime() - t_loop;
    if (kill && !restarted && have_api) {
        /* no checkpoint completed before the last operation (a slow protocol or a loaded machine):
         * every rank polls in Allreduces until one has, then the kill rank ends the job here */
        int mine, lo = 0;
        for (int it = 0; it < 20000 && lo < 1; it++) {
            struct timespec ts = { 0, 1000000L };
            nanosleep(&ts, NULL);
            mine = isochron_cc_checkpoints();
            MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        }
        if (me == kill_rank && lo >= 1) {
            printf("cc_stress rank %d killed at op %d (after the last) after %d checkpoints\n", me, nops, isochron_cc_checkpoints());
            fflush(stdout);
            nanosleep(&(struct timespec){ 0, 200000000L }, NULL);
            if (kill_exit) _exit(3);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    if (kill && !restarted && me == kill_rank)
        printf("FAIL rank %d: not killed: no checkpoint had completed by op %d (kill op %d)\n", me, nops, kill_op);
    for (int k = 1; k < ncomm; k++) if (h[k] != MPI_COMM_NULL) MPI_Comm_free(&h[k]);
    int nck = have_api ? isochron_cc_checkpoints() : 0;
    printf("cc_stress rank %d checksum %016" PRIx64 " ops %" PRId64 "\n", me, st.cs, st.nmine);
    int tot = 0;
    MPI_Reduce(&fired, &tot, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("cc_stress seed %" PRIu64 " np %d ops %d comms %d mode %s requests %d checkpoints %d restarted %d time %.3f s: done\n",
               seed, np, nops, ncomm, mode, tot, nck, restarted, t_loop);
    free(reqs);
    free(keep);
    free(ops);
    MPI_Finalize();
    return 0;
}
