/* libisochron-cc.so: message counting, request tracking and what a blocked call waits for (paper 003
 * 4.2.5 and 4.3.2; the design paragraph of cc_p2p.c) -- above the ggid table (cc_groups.c), below the
 * protocol (cc_ckpt.c, which reads the counts and requests) and the wrappers (cc_p2p.c, cc.c, which
 * fill them); it calls neither. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi/pmpi.h"
#include "cc/cc_internal.h"

int icc_peer_view(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL) return -1;
    PMPI_Comm_test_inter(comm, &inter);
    return inter ? -1 : icc_lookup_view(comm);
}

void icc_count_sent(MPI_Comm comm, int dest)
{
    if (!icc->inited || dest == MPI_PROC_NULL) return;
    icc->app_sent++;
    icc->version++;
    int v = icc_peer_view(comm);
    if (v >= 0 && dest >= 0 && dest < icc->views[v].size) icc->sent_to[icc->views[v].world[dest]]++;
}

void icc_count_recvd_status(int v, const MPI_Status *st)
{
    if (!icc->inited || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) return;
    icc->app_recvd++;
    icc->version++;
    if (v >= 0 && st->MPI_SOURCE < icc->views[v].size) icc->recvd_from[icc->views[v].world[st->MPI_SOURCE]]++;
}

/* ---- request table */
typedef struct { MPI_Request h; int used; int kind; int g; int counted; int peer; } icc_req_t;
static icc_req_t *reqs;
static int reqcap;   /* open addressing, linear probing, at most half full: an empty slot ends every probe */

static unsigned req_home(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return (unsigned)(((k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull) >> 32) & (unsigned)(reqcap - 1);
}

static icc_req_t *req_find(MPI_Request r)
{
    if (!icc->reqlive) return NULL;
    unsigned m = (unsigned)reqcap - 1;
    for (unsigned i = req_home(r); reqs[i].used; i = (i + 1) & m)
        if (reqs[i].h == r) return &reqs[i];
    return NULL;
}

static void req_insert(MPI_Request r, int kind, int g, int peer)
{
    if (2 * (icc->reqlive + 1) > reqcap) {
        icc_req_t *old = reqs;
        int oldcap = reqcap;
        reqcap = reqcap ? 2 * reqcap : 64;
        reqs = calloc((size_t)reqcap, sizeof *reqs);
        if (!reqs) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
        icc->reqlive = 0;
        for (int i = 0; i < oldcap; i++)
            if (old[i].used) req_insert(old[i].h, old[i].kind, old[i].g, old[i].peer);
        free(old);
    }
    unsigned m = (unsigned)reqcap - 1, i = req_home(r);
    while (reqs[i].used) i = (i + 1) & m;
    reqs[i] = (icc_req_t){ r, 1, kind, g, 0, peer };
    icc->reqlive++;
}

/* Removal without tombstones (backward shift): the entries after the hole
 * that may live there (their home slot is not cyclically between the hole
 * and themselves) move back one by one, so every probe still ends at the
 * first empty slot and a table emptied by Waits is empty again. */
static void req_remove(icc_req_t *e)
{
    unsigned m = (unsigned)reqcap - 1, i = (unsigned)(e - reqs), j = i;
    for (;;) {
        j = (j + 1) & m;
        if (!reqs[j].used) break;
        unsigned k = req_home(reqs[j].h);
        if (((j - k) & m) >= ((j - i) & m)) {
            reqs[i] = reqs[j];
            i = j;
        }
    }
    reqs[i].used = 0;
    icc->reqlive--;
}

void icc_req_track(MPI_Request r, int kind, int g, int peer)
{
    if (!icc->inited || r == MPI_REQUEST_NULL) return;
    req_insert(r, kind, g, peer);
}

/* ---- matched messages: the group and source a probe matched, for the
 * Mrecv/Imrecv that receives it (the message handle carries no communicator;
 * counting those receives in the totals only made the state log's per-pair
 * counts disagree: cc_latency --call mprobe). Few are ever outstanding. */
typedef struct { MPI_Message m; int g, src; } icc_msg_t;
static icc_msg_t *msgs;
static int nmsgs, msgcap;

void icc_msg_remember(MPI_Message m, int g, int src)
{
    if (!icc->inited || m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC) return;
    if (nmsgs == msgcap) {
        int cap = msgcap ? 2 * msgcap : 8;
        icc_msg_t *n = realloc(msgs, (size_t)cap * sizeof *n);
        if (!n) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
        msgs = n, msgcap = cap;
    }
    msgs[nmsgs++] = (icc_msg_t){ m, g, src };
}

/* the group (or -1) of matched message m, forgotten: its handle may be reused once received */
int icc_msg_take(MPI_Message m, int *src)
{
    *src = MPI_ANY_SOURCE;
    for (int i = 0; i < nmsgs; i++)
        if (msgs[i].m == m) {
            int g = msgs[i].g;
            *src = msgs[i].src;
            msgs[i] = msgs[--nmsgs];
            return g;
        }
    return -1;
}

/* ---- what a blocked call waits for (cc_internal.h) */

static void mark_all(unsigned char *mark)
{
    memset(mark, 1, (size_t)icc->size);
}

/* rank r of view v (MPI_ANY_SOURCE: every member; v < 0: the communicator is not known, any rank) */
static void mark_peer(unsigned char *mark, int v, int r)
{
    if (r == MPI_PROC_NULL) return;
    if (v < 0) { mark_all(mark); return; }
    const icc_view_t *V = &icc->views[v];
    if (r >= 0 && r < V->size) { mark[V->world[r]] = 1; return; }
    for (int i = 0; i < V->size; i++) mark[V->world[i]] = 1;
}

/* every member of group g (g < 0: any rank) */
static void mark_group(unsigned char *mark, int g)
{
    if (g < 0) { mark_all(mark); return; }
    for (int i = 0; i < icc->groups[g].size; i++) mark[icc->groups[g].members[i]] = 1;
}

void icc_waitfor_peers(unsigned char *mark)
{
    if (icc->waitfor.comm != MPI_COMM_NULL) {
        int v = icc_peer_view(icc->waitfor.comm);
        mark_peer(mark, v, icc->waitfor.r1);
        mark_peer(mark, v, icc->waitfor.r2);
        return;
    }
    if (icc->waitfor.nreqs == 0) { mark_all(mark); return; }
    for (int i = 0; i < icc->waitfor.nreqs; i++) {
        if (icc->waitfor.reqs[i] == MPI_REQUEST_NULL) continue;
        const icc_req_t *e = req_find(icc->waitfor.reqs[i]);
        if (!e) mark_all(mark);                      /* a send or an untracked request: its peer is not known */
        else if (e->kind == ICC_REQ_ICOLL) mark_group(mark, e->g);
        else mark_peer(mark, e->g, e->peer);
    }
}

/* h (its value before the completion call) completed with status st */
void icc_req_done(MPI_Request h, const MPI_Status *st)
{
    icc_req_t *e = req_find(h);
    if (!e) return;
    if (e->kind == ICC_REQ_RECV && !e->counted && st) icc_count_recvd_status(e->g, st);
    req_remove(e);
}

void icc_req_forget(MPI_Request h) { icc_req_done(h, NULL); }

int icc_req_pending_icoll(void)
{
    int n = 0;
    for (int i = 0; i < reqcap && icc->reqlive; i++)
        if (reqs[i].used == 1 && reqs[i].kind == ICC_REQ_ICOLL) {
            int flag = 0;
            PMPI_Request_get_status(reqs[i].h, &flag, MPI_STATUS_IGNORE);
            n += !flag;
        }
    return n;
}

void icc_req_complete_icolls(void)
{
    for (int i = 0; i < reqcap && icc->reqlive; i++)
        if (reqs[i].used == 1 && reqs[i].kind == ICC_REQ_ICOLL) {
            int flag = 0;
            while (!flag) PMPI_Request_get_status(reqs[i].h, &flag, MPI_STATUS_IGNORE);
        }
}

int icc_req_count_arrived(void)
{
    int open = 0;
    for (int i = 0; i < reqcap && icc->reqlive; i++)
        if (reqs[i].used == 1 && reqs[i].kind == ICC_REQ_RECV && !reqs[i].counted) {
            int flag = 0;
            MPI_Status st;
            PMPI_Request_get_status(reqs[i].h, &flag, &st);
            if (flag) {
                icc_count_recvd_status(reqs[i].g, &st);
                reqs[i].counted = 1;
            } else {
                open++;
            }
        }
    return open;
}
