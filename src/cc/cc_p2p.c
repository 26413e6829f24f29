/* libisochron-cc.so, cc mode: the hand-written point-to-point, probe and
 * request-completion wrappers (the generator skips them, CMakeLists.txt).
 *
 * Design (paper 003, sections 4.2.5 and 4.3.2; issue 14's safe state).
 *  - Message counting: every send is counted at initiation (icc_app_sent, and
 *    per destination world rank), every receive when its completion is seen
 *    (icc_app_recvd, per source), so at a consistent cut "no message in
 *    flight" is "total sent == total received" (per pair received <= sent).
 *    Sends to/receives from MPI_PROC_NULL are not messages (decided from the
 *    argument: MPICH's Sendrecv leaves the status alone for MPI_PROC_NULL).
 *    Per-peer numbers
 *    need the peer's world rank: intracommunicators translate through the ggid
 *    table's member list; a matched message (Mprobe/Improbe, then
 *    Mrecv/Imrecv) carries no communicator, so the probe remembers its group
 *    and source for the receive (msg_remember); intercommunicator traffic is
 *    counted in the totals only.
 *  - Request tracking: the requests of non-blocking collectives (and
 *    Comm_idup) and of Irecv/Imrecv live in a small hash table keyed by the
 *    handle (linear probing, removal by backward shift: no tombstones).
 *    Completion calls remove what completed (and count receives).
 *    While a checkpoint is in progress the protocol counts receives that have
 *    arrived with MPI_Request_get_status, which does not free the request, and
 *    at the safe state completes pending non-blocking collectives the same way:
 *    the application's later Wait/Test then returns their real status, so no
 *    status is stashed and no freed handle value can be confused with a new one.
 *  - Blocking calls: with no checkpoint in progress each receive (Recv,
 *    Mrecv, Sendrecv, Sendrecv_replace), Probe, Mprobe, Wait, Waitall, Waitany
 *    and Waitsome is its non-blocking form tested in a loop that joins the
 *    protocol as soon as a request arrives (wait_joining); Send, Ssend and
 *    Rsend are the PMPI call itself plus the counting. Why a blocking send
 *    may stay out of the protocol's reach: a rank that has not learned of
 *    the request contributes to no agreement round, no round can complete
 *    without it (they are reductions over every rank), and no rank stops
 *    before a round has completed; so the send's receiver runs on and posts
 *    its receive as it would without the layer, and the send returns and
 *    learns of the request at its next call. Joining from inside the send
 *    could not bring the checkpoint earlier: its message is in flight until
 *    received, and no safe state has a message in flight. A rank that knows
 *    of the request sends with Isend and polls (below), so a send entered
 *    after the request never blocks the rounds. With a checkpoint in progress Send/Ssend/Rsend/Recv/
 *    Sendrecv(_replace)/Mrecv become their non-blocking forms and every
 *    blocking completion or probe becomes a loop of the Test/Iprobe form with
 *    icc_poll(ICC_BLOCKED) between tests, so a process blocked in MPI takes
 *    part in the protocol (Algorithm 3 for processes outside collectives).
 *    Receives in progress count as open (no checkpoint while one waits for
 *    data) and a call that sends is never a stop point (icc_nofreeze).
 *    Persistent requests (Send_init/Recv_init/Start) are not counted or
 *    tracked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi/pmpi.h"
#include "cc/cc_internal.h"

#define FAST (icc->bypass || !icc->inited)

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
static int reqcap, reqlive;   /* open addressing, linear probing, at most half full: an empty slot ends every probe */

static unsigned req_home(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return (unsigned)(((k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull) >> 32) & (unsigned)(reqcap - 1);
}

static icc_req_t *req_find(MPI_Request r)
{
    if (!reqlive) return NULL;
    unsigned m = (unsigned)reqcap - 1;
    for (unsigned i = req_home(r); reqs[i].used; i = (i + 1) & m)
        if (reqs[i].h == r) return &reqs[i];
    return NULL;
}

static void req_insert(MPI_Request r, int kind, int g, int peer)
{
    if (2 * (reqlive + 1) > reqcap) {
        icc_req_t *old = reqs;
        int oldcap = reqcap;
        reqcap = reqcap ? 2 * reqcap : 64;
        reqs = calloc((size_t)reqcap, sizeof *reqs);
        if (!reqs) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
        reqlive = 0;
        for (int i = 0; i < oldcap; i++)
            if (old[i].used) req_insert(old[i].h, old[i].kind, old[i].g, old[i].peer);
        free(old);
    }
    unsigned m = (unsigned)reqcap - 1, i = req_home(r);
    while (reqs[i].used) i = (i + 1) & m;
    reqs[i] = (icc_req_t){ r, 1, kind, g, 0, peer };
    reqlive++;
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
    reqlive--;
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

static void msg_remember(MPI_Message m, int g, int src)
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
static int msg_take(MPI_Message m, int *src)
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

static void waitfor_ranks(MPI_Comm comm, int r1, int r2)
{
    icc->waitfor.comm = comm;
    icc->waitfor.r1 = r1;
    icc->waitfor.r2 = r2;
    icc->waitfor.nreqs = 0;
}

static void waitfor_reqs(const MPI_Request *h, int n)
{
    icc->waitfor.comm = MPI_COMM_NULL;
    icc->waitfor.reqs = h;
    icc->waitfor.nreqs = n;
}

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
static void req_done(MPI_Request h, const MPI_Status *st)
{
    icc_req_t *e = req_find(h);
    if (!e) return;
    if (e->kind == ICC_REQ_RECV && !e->counted && st) icc_count_recvd_status(e->g, st);
    req_remove(e);
}

static void req_forget(MPI_Request h) { req_done(h, NULL); }

int icc_req_pending_icoll(void)
{
    int n = 0;
    for (int i = 0; i < reqcap && reqlive; i++)
        if (reqs[i].used == 1 && reqs[i].kind == ICC_REQ_ICOLL) {
            int flag = 0;
            PMPI_Request_get_status(reqs[i].h, &flag, MPI_STATUS_IGNORE);
            n += !flag;
        }
    return n;
}

void icc_req_complete_icolls(void)
{
    for (int i = 0; i < reqcap && reqlive; i++)
        if (reqs[i].used == 1 && reqs[i].kind == ICC_REQ_ICOLL) {
            int flag = 0;
            while (!flag) PMPI_Request_get_status(reqs[i].h, &flag, MPI_STATUS_IGNORE);
        }
}

int icc_req_count_arrived(void)
{
    int open = 0;
    for (int i = 0; i < reqcap && reqlive; i++)
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

/* ---- blocking helpers */
static int block_on(MPI_Request *r, MPI_Status *st, const char *name)
{
    for (;;) {
        int flag = 0, rc = PMPI_Test(r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        icc_poll(ICC_BLOCKED, name, -1);
    }
}

static int block_on_all(int n, MPI_Request *r, MPI_Status *st, const char *name)
{
    for (;;) {
        int flag = 0, rc = PMPI_Testall(n, r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        icc_poll(ICC_BLOCKED, name, -1);
    }
}

/* The blocking calls' path with no checkpoint in progress: test until done,
 * and if a request arrives meanwhile (the ticker thread sets icc_attn) poll
 * the protocol between tests, so a process that entered a long MPI_Recv,
 * Wait or Probe before it learned of the request still takes part (with the
 * plain PMPI call it joined only when the call returned; the stress test's
 * cc_latency --scenario recv never completed a checkpoint). */
static int wait_joining(MPI_Request *r, MPI_Status *st, const char *name)
{
    for (;;) {
        int flag = 0, rc = PMPI_Test(r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (icc->attn) icc_poll(ICC_BLOCKED, name, -1);
    }
}

/* A blocking receive: only an application message completes it, so while the
 * rank waits here it counts as stopped for the agreement (ICC_RECV), yet it
 * tests its receive after every protocol step instead of staying in the
 * protocol until the round completes. Staying (ICC_BLOCKED) deadlocked when a
 * round could not complete because another rank had entered a blocking
 * collective whose members waited, through a chain of messages, for this
 * receive (stress seed 1403 at 4 ranks under MPICH: rank 1 frozen in
 * MPI_Recv from rank 3 with the data there, rank 0 in Sendrecv with rank 1,
 * rank 2 in MPI_Alltoall with rank 0). Why this is still safe: a decided
 * round had no message in flight and every other rank stopped, so the
 * receive cannot complete before every rank has seen the decision. */
static int recv_joining(MPI_Request *r, MPI_Status *st, const char *name)
{
    for (;;) {
        int flag = 0, rc = PMPI_Test(r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (icc->pending || icc->attn) icc_poll(ICC_RECV, name, -1);
    }
}

static int wait_all_joining(int n, MPI_Request *r, MPI_Status *st, const char *name)
{
    for (;;) {
        int flag = 0, rc = PMPI_Testall(n, r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (icc->attn) icc_poll(ICC_BLOCKED, name, -1);
    }
}

enum { SEND_STD, SEND_SYNC, SEND_READY };
static int send_common(int mode, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                       const char *name)
{
    if (icc->attn) icc_poll(ICC_PASS, name, -1);
    int rc;
    if (!icc->pending) {
        rc = mode == SEND_STD ? PMPI_Send(buf, count, dt, dest, tag, comm)
           : mode == SEND_SYNC ? PMPI_Ssend(buf, count, dt, dest, tag, comm)
           : PMPI_Rsend(buf, count, dt, dest, tag, comm);
        if (rc == MPI_SUCCESS) icc_count_sent(comm, dest);
        return rc;
    }
    MPI_Request r;
    rc = mode == SEND_STD ? PMPI_Isend(buf, count, dt, dest, tag, comm, &r)
       : mode == SEND_SYNC ? PMPI_Issend(buf, count, dt, dest, tag, comm, &r)
       : PMPI_Irsend(buf, count, dt, dest, tag, comm, &r);
    if (rc != MPI_SUCCESS) return rc;
    icc_count_sent(comm, dest);
    icc->nofreeze++;
    waitfor_ranks(comm, dest, MPI_PROC_NULL);
    rc = block_on(&r, MPI_STATUS_IGNORE, name);
    icc->nofreeze--;
    return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (FAST) return PMPI_Send(buf, count, datatype, dest, tag, comm);
    return send_common(SEND_STD, buf, count, datatype, dest, tag, comm, "MPI_Send");
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (FAST) return PMPI_Ssend(buf, count, datatype, dest, tag, comm);
    return send_common(SEND_SYNC, buf, count, datatype, dest, tag, comm, "MPI_Ssend");
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (FAST) return PMPI_Rsend(buf, count, datatype, dest, tag, comm);
    return send_common(SEND_READY, buf, count, datatype, dest, tag, comm, "MPI_Rsend");
}

/* A receive and nothing else (MPI_Recv, and MPI_Sendrecv/_replace whose
 * destination is MPI_PROC_NULL: their send half is not a message).
 * Not an open receive for the agreement (unlike the application's own
 * Irecv): a checkpoint taken while this rank waits here saves the state
 * "about to execute this call", no message can match the internal request
 * meanwhile (none is in flight at a safe state), and a restart executes the
 * call again. Counting it as open deferred the checkpoint until the message
 * came, which never happens when the sender sends only after the checkpoint
 * (cc_latency --scenario recv). */
static int recv_only(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status,
                     const char *name)
{
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    int g = icc_peer_view(comm), rc;
    if (icc->attn) icc_poll(ICC_PASS, name, -1);
    MPI_Request r;
    rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, &r);
    waitfor_ranks(comm, source, MPI_PROC_NULL);
    if (rc == MPI_SUCCESS) rc = recv_joining(&r, sp, name);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) icc_count_recvd_status(g, sp);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (FAST) return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    return recv_only(buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}

/* The send + receive pair of Sendrecv and Sendrecv_replace, both posted (r[0]
 * the send, r[1] the receive): count the send, keep the state unsafe while the
 * receive is open, wait (joining the protocol, or blocking when a checkpoint is
 * pending), and give the receive's status to *sp. */
static int pair_wait(MPI_Comm comm, int source, int dest, MPI_Request *r, MPI_Status *st, MPI_Status *sp, const char *name)
{
    icc_count_sent(comm, dest);
    icc->open_recvs++, icc->nofreeze++;
    waitfor_ranks(comm, source, dest);
    int rc = icc->pending ? block_on_all(2, r, st, name) : wait_all_joining(2, r, st, name);
    icc->open_recvs--, icc->nofreeze--;
    if (sp != &st[1]) *sp = st[1];
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (FAST) return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                                   recvtag, comm, status);
    if (dest == MPI_PROC_NULL) return recv_only(recvbuf, recvcount, recvtype, source, recvtag, comm, status, "MPI_Sendrecv");
    MPI_Status st[2], *sp = status == MPI_STATUS_IGNORE ? &st[1] : status;
    int g = icc_peer_view(comm), rc;
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Sendrecv", -1);
    {
        MPI_Request r[2];
        rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[1]);
        if (rc == MPI_SUCCESS) rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[0]);
        if (rc != MPI_SUCCESS) return rc;
        rc = pair_wait(comm, source, dest, r, st, sp, "MPI_Sendrecv");
    }
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) icc_count_recvd_status(g, sp);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status)
{
    if (FAST) return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    if (dest == MPI_PROC_NULL) return recv_only(buf, count, datatype, source, recvtag, comm, status, "MPI_Sendrecv_replace");
    MPI_Status st[2], *sp = status == MPI_STATUS_IGNORE ? &st[1] : status;
    int g = icc_peer_view(comm), rc;
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Sendrecv_replace", -1);
    /* Always the non-blocking pair, pending or not: PMPI_Sendrecv_replace
     * itself blocked in its receive half out of the protocol's reach (as
     * MPI_Recv did before fault 4). The outgoing data is packed aside, then
     * Isend + Irecv into buf. */
    int size = 0, pos = 0;
    PMPI_Pack_size(count, datatype, comm, &size);
    unsigned char small[256];
    void *tmp = size <= (int)sizeof small ? small : malloc((size_t)size);
    if (!tmp) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    PMPI_Pack(buf, count, datatype, tmp, size, &pos, comm);
    MPI_Request r[2];
    rc = PMPI_Isend(tmp, pos, MPI_PACKED, dest, sendtag, comm, &r[0]);
    if (rc == MPI_SUCCESS) rc = PMPI_Irecv(buf, count, datatype, source, recvtag, comm, &r[1]);
    if (rc == MPI_SUCCESS) rc = pair_wait(comm, source, dest, r, st, sp, "MPI_Sendrecv_replace");
    if (tmp != small) free(tmp);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) icc_count_recvd_status(g, sp);
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    if (FAST) return PMPI_Mrecv(buf, count, datatype, message, status);
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Mrecv", -1);
    /* The message is matched already, so it is in flight (counted sent, not
     * yet received): an open receive, and nobody else must act for it. */
    MPI_Request r;
    int src, g = msg_take(*message, &src);
    int rc = PMPI_Imrecv(buf, count, datatype, message, &r);
    icc->open_recvs++;
    waitfor_ranks(MPI_COMM_WORLD, MPI_PROC_NULL, MPI_PROC_NULL);
    if (rc == MPI_SUCCESS) rc = icc->pending ? block_on(&r, sp, "MPI_Mrecv") : wait_joining(&r, sp, "MPI_Mrecv");
    icc->open_recvs--;
    if (rc == MPI_SUCCESS) icc_count_recvd_status(g, sp);
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    if (FAST) return PMPI_Imrecv(buf, count, datatype, message, request);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Imrecv", -1);
    int src, g = msg_take(*message, &src);
    int rc = PMPI_Imrecv(buf, count, datatype, message, request);
    if (rc == MPI_SUCCESS) icc_req_track(*request, ICC_REQ_RECV, g, src);
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (FAST) return PMPI_Probe(source, tag, comm, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Probe", -1);
    waitfor_ranks(comm, source, MPI_PROC_NULL);
    for (;;) {
        int flag = 0, rc = PMPI_Iprobe(source, tag, comm, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (icc->pending || icc->attn) icc_poll(ICC_RECV, "MPI_Probe", -1);
    }
}

/* Probes are stop points like a receive (recv_joining): a checkpoint while
 * one waits saves "about to probe", and a restart probes again. MPI_Mprobe
 * used to call PMPI_Mprobe when no checkpoint was pending, which blocked out
 * of the protocol's reach (cc_latency --call mprobe hung until the watchdog). */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    if (FAST) return PMPI_Mprobe(source, tag, comm, message, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Mprobe", -1);
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    waitfor_ranks(comm, source, MPI_PROC_NULL);
    for (;;) {
        int flag = 0, rc = PMPI_Improbe(source, tag, comm, &flag, message, sp);
        if (rc == MPI_SUCCESS && flag) msg_remember(*message, icc_peer_view(comm), sp->MPI_SOURCE);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (icc->pending || icc->attn) icc_poll(ICC_RECV, "MPI_Mprobe", -1);
    }
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    if (FAST) return PMPI_Improbe(source, tag, comm, flag, message, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Improbe", -1);
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    int rc = PMPI_Improbe(source, tag, comm, flag, message, sp);
    if (rc == MPI_SUCCESS && *flag) msg_remember(*message, icc_peer_view(comm), sp->MPI_SOURCE);
    return rc;
}

/* ---- completion calls */
#define SMALL 32

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (FAST) return PMPI_Wait(request, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Wait", -1);
    MPI_Request h = *request;
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    waitfor_reqs(&h, 1);
    int rc = icc->pending ? block_on(request, sp, "MPI_Wait") : wait_joining(request, sp, "MPI_Wait");
    if (rc == MPI_SUCCESS) req_done(h, sp);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (FAST) return PMPI_Test(request, flag, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Test", -1);
    if (!reqlive && !icc->pending) return PMPI_Test(request, flag, status);
    MPI_Request h = *request;
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    int rc = PMPI_Test(request, flag, sp);
    if (rc == MPI_SUCCESS && *flag) req_done(h, sp);
    else if (rc == MPI_SUCCESS && icc->pending) {
        waitfor_reqs(&h, 1);
        icc_need_check();
    }
    return rc;
}

/* copies of the handles and statuses for the array calls */
typedef struct { MPI_Request hs[SMALL]; MPI_Status ss[SMALL]; MPI_Request *h; MPI_Status *s; } icc_arr_t;

static void arr_open(icc_arr_t *a, int n, const MPI_Request *r, MPI_Status *st)
{
    a->h = n <= SMALL ? a->hs : malloc((size_t)n * sizeof *a->h);
    a->s = st != MPI_STATUSES_IGNORE ? st : n <= SMALL ? a->ss : malloc((size_t)n * sizeof *a->s);
    if (!a->h || !a->s) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    memcpy(a->h, r, (size_t)n * sizeof *r);
}

static void arr_close(icc_arr_t *a, MPI_Status *st)
{
    if (a->h != a->hs) free(a->h);
    if (a->s != a->ss && a->s != st) free(a->s);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (FAST) return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Waitall", -1);
    icc_arr_t a;
    arr_open(&a, count, array_of_requests, array_of_statuses);
    waitfor_reqs(a.h, count);
    int rc = icc->pending ? block_on_all(count, array_of_requests, a.s, "MPI_Waitall")
                         : wait_all_joining(count, array_of_requests, a.s, "MPI_Waitall");
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < count; i++) req_done(a.h[i], &a.s[i]);
    arr_close(&a, array_of_statuses);
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    if (FAST) return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Testall", -1);
    if (!reqlive && !icc->pending) return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    icc_arr_t a;
    arr_open(&a, count, array_of_requests, array_of_statuses);
    int rc = PMPI_Testall(count, array_of_requests, flag, a.s);
    if (rc == MPI_SUCCESS && *flag)
        for (int i = 0; i < count; i++) req_done(a.h[i], &a.s[i]);
    else if (rc == MPI_SUCCESS && icc->pending) {
        waitfor_reqs(a.h, count);
        icc_need_check();
    }
    arr_close(&a, array_of_statuses);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    if (FAST) return PMPI_Waitany(count, array_of_requests, index, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Waitany", -1);
    icc_arr_t a;
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    arr_open(&a, count, array_of_requests, MPI_STATUSES_IGNORE);
    int rc;
    waitfor_reqs(a.h, count);
    for (;;) {   /* tested in a loop that joins a checkpoint requested meanwhile, as MPI_Wait (wait_joining) */
        int flag = 0;
        rc = PMPI_Testany(count, array_of_requests, index, &flag, sp);
        if (rc != MPI_SUCCESS || flag) break;
        if (icc->pending || icc->attn) icc_poll(ICC_BLOCKED, "MPI_Waitany", -1);
    }
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) req_done(a.h[*index], sp);
    arr_close(&a, MPI_STATUSES_IGNORE);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    if (FAST) return PMPI_Testany(count, array_of_requests, index, flag, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Testany", -1);
    if (!reqlive && !icc->pending) return PMPI_Testany(count, array_of_requests, index, flag, status);
    icc_arr_t a;
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    arr_open(&a, count, array_of_requests, MPI_STATUSES_IGNORE);
    int rc = PMPI_Testany(count, array_of_requests, index, flag, sp);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) req_done(a.h[*index], sp);
    else if (rc == MPI_SUCCESS && !*flag && icc->pending) {
        waitfor_reqs(a.h, count);
        icc_need_check();
    }
    arr_close(&a, MPI_STATUSES_IGNORE);
    return rc;
}

static int some_common(int wait, int incount, MPI_Request array_of_requests[], int *outcount,
                       int array_of_indices[], MPI_Status array_of_statuses[])
{
    const char *name = wait ? "MPI_Waitsome" : "MPI_Testsome";
    icc_arr_t a;
    arr_open(&a, incount, array_of_requests, array_of_statuses);
    waitfor_reqs(a.h, incount);
    int rc;
    if (wait) {   /* a test loop that joins a checkpoint requested meanwhile, as MPI_Wait (wait_joining) */
        for (;;) {
            rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, a.s);
            if (rc != MPI_SUCCESS || *outcount != 0) break;
            if (icc->pending || icc->attn) icc_poll(ICC_BLOCKED, name, -1);
        }
    } else {
        rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, a.s);
    }
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int i = 0; i < *outcount; i++) req_done(a.h[array_of_indices[i]], &a.s[i]);
    if (rc == MPI_SUCCESS && *outcount == 0 && icc->pending) icc_need_check();
    arr_close(&a, array_of_statuses);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    if (FAST) return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Waitsome", -1);
    return some_common(1, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    if (FAST) return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Testsome", -1);
    if (!reqlive && !icc->pending) return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    return some_common(0, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int MPI_Request_free(MPI_Request *request)
{
    if (FAST) return PMPI_Request_free(request);
    MPI_Request h = *request;
    int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS) req_forget(h);
    return rc;
}
