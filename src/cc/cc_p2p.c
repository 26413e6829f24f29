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
    int src, g = icc_msg_take(*message, &src);
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
    int src, g = icc_msg_take(*message, &src);
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
        if (rc == MPI_SUCCESS && flag) icc_msg_remember(*message, icc_peer_view(comm), sp->MPI_SOURCE);
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
    if (rc == MPI_SUCCESS && *flag) icc_msg_remember(*message, icc_peer_view(comm), sp->MPI_SOURCE);
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
    if (rc == MPI_SUCCESS) icc_req_done(h, sp);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (FAST) return PMPI_Test(request, flag, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Test", -1);
    if (!icc->reqlive && !icc->pending) return PMPI_Test(request, flag, status);
    MPI_Request h = *request;
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    int rc = PMPI_Test(request, flag, sp);
    if (rc == MPI_SUCCESS && *flag) icc_req_done(h, sp);
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
        for (int i = 0; i < count; i++) icc_req_done(a.h[i], &a.s[i]);
    arr_close(&a, array_of_statuses);
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    if (FAST) return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Testall", -1);
    if (!icc->reqlive && !icc->pending) return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    icc_arr_t a;
    arr_open(&a, count, array_of_requests, array_of_statuses);
    int rc = PMPI_Testall(count, array_of_requests, flag, a.s);
    if (rc == MPI_SUCCESS && *flag)
        for (int i = 0; i < count; i++) icc_req_done(a.h[i], &a.s[i]);
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
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) icc_req_done(a.h[*index], sp);
    arr_close(&a, MPI_STATUSES_IGNORE);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    if (FAST) return PMPI_Testany(count, array_of_requests, index, flag, status);
    if (icc->attn) icc_poll(ICC_PASS, "MPI_Testany", -1);
    if (!icc->reqlive && !icc->pending) return PMPI_Testany(count, array_of_requests, index, flag, status);
    icc_arr_t a;
    MPI_Status s, *sp = status == MPI_STATUS_IGNORE ? &s : status;
    arr_open(&a, count, array_of_requests, MPI_STATUSES_IGNORE);
    int rc = PMPI_Testany(count, array_of_requests, index, flag, sp);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) icc_req_done(a.h[*index], sp);
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
        for (int i = 0; i < *outcount; i++) icc_req_done(a.h[array_of_indices[i]], &a.s[i]);
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
    if (!icc->reqlive && !icc->pending) return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    return some_common(0, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int MPI_Request_free(MPI_Request *request)
{
    if (FAST) return PMPI_Request_free(request);
    MPI_Request h = *request;
    int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS) icc_req_forget(h);
    return rc;
}
