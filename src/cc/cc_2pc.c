/* libisochron-cc.so, 2pc mode (ISOCHRON_CC_MODE=2pc): the checkpoint protocol of [mana] that paper 003
 * replaces, the baseline its cc mode (cc_agree.c) is measured against.
 *
 * Design.
 * MANA's two-phase commit (paper 003 2.2, [GPC19]) with rank 0 as the coordinator, on icomm.
 * Request: any rank (API, SIGUSR1, ISOCHRON_CC_INTERVAL on rank 0) sends REQ(epoch, origin) to rank 0.
 * Prepare: rank 0 sends PREP(epoch, attempt, origin) to every rank. A prepared rank votes at its next
 * stop point and, if the vote is yes, holds there (polling only icomm) until the decision:
 *   - the entry of a collective, before its Ibarrier (ICC_STOP): yes;
 *   - the Ibarrier's test loop with the barrier incomplete (ICC_BARRIER): yes; a rank whose barrier
 *     has completed is not stopped: it goes into the collective and votes at a later stop point;
 *   - a blocking point-to-point call or completion (ICC_BLOCKED, ICC_RECV): yes unless a receive is
 *     posted and incomplete or the call sends (a message in flight cannot be in a checkpoint);
 *   - MPI_Finalize: yes;
 *   and "no" anywhere while one of its non-blocking collectives is incomplete. Calls that do not block
 *   (ICC_PASS) are no stop points: the rank runs on. A vote carries the rank's application messages
 *   sent and received.
 * Decide: rank 0 commits when every rank voted yes and the sums of sent and received messages are
 * equal (nothing in flight between ranks that all hold); it aborts on a "no", on BUSY (a holding
 * rank's barrier completed: every member of that collective entered its barrier, and one of them may be
 * inside the collective waiting for this rank, which holds: the abort lets it go in -- MANA's "if all
 * processes have entered the barrier, wait until they have completed the collective") and after 0.5 s
 * without all votes; DECIDE(epoch, attempt, commit) goes to every rank. An aborted attempt is retried
 * (PREP with attempt + 1) after ISOCHRON_CC_POLL_MS. Why a commit is consistent: every rank voted yes
 * and holds from its vote until it receives the decision, so at the moment rank 0 decides all ranks
 * hold at once, none inside a collective (a rank votes only at a wrapper, outside the real call), and
 * with no message in flight. A rank that held in a barrier loop is saved there: after a restart the
 * program redoes the collective from its registered state, and its wrapper posts the barrier again
 * (MANA: "if one had entered the barrier loop prior to checkpoint, then one again calls
 * MPI_Ibarrier"). Commit: the same files, command, marker and callbacks as cc mode (take_checkpoint),
 * with no groups; restart (ISOCHRON_CC_RESTART) is the same too. Finalize: each rank sends FIN to rank
 * 0 and serves checkpoints (voting yes) until rank 0, with every FIN and no checkpoint pending,
 * sends DONE. A request that reaches rank 0 after DONE is dropped (logged). */
#define _GNU_SOURCE
#include <stdio.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "cc/cc_ckpt.h"


static void log_request_2pc(int origin, int joined)
{
    if (!ck->icc_log) return;
    fprintf(ck->icc_log, "{\"ev\":\"request\",\"rank\":%d,\"from\":%d,\"ckpt\":%d,%s\"t\":%.6f}\n", icc->rank, origin,
            ck->epoch, joined ? "\"joined\":true," : "", PMPI_Wtime());
    fflush(ck->icc_log);
}

static void log_abort_2pc(int attempt, const char *why)
{
    if (!ck->icc_log) return;
    fprintf(ck->icc_log, "{\"ev\":\"abort\",\"rank\":%d,\"ckpt\":%d,\"attempt\":%d,\"why\":\"%s\",\"t\":%.6f}\n", icc->rank,
            ck->epoch, attempt, why, PMPI_Wtime());
    fflush(ck->icc_log);
}

/* this rank learns of attempt a of the current epoch */
static void prepare_2pc(int a, int origin)
{
    if (!icc->pending) {
        icc->pending = 1;
        ck->t_learn = PMPI_Wtime();
        if (ck->p_logged != ck->epoch) log_request_2pc(origin, 0);
        ck->p_logged = ck->epoch;
    }
    icc->attn = 1;
    ck->p_attempt = a;
    ck->p_voted = ck->p_ok = ck->p_busy = 0;
    ck->p_decision = -1;
}

/* rank 0: the decision of the current attempt, to every rank */
static void decide_2pc(int commit, const char *why)
{
    ck->c_decided = 1;
    long long m[3] = { ck->epoch, ck->c_attempt, commit };
    for (int r = 1; r < icc->size; r++) icc_ctl_send(m, 3, r, TAG_DECIDE);
    if (!commit) {
        ck->c_aborts++;
        log_abort_2pc(ck->c_attempt, why);
        ck->c_attempt = 0;
        ck->c_retry_at = icc_now_s() + 1e-3 * ck->poll_ms;
    }
    if (ck->p_attempt) ck->p_decision = commit;
}

static void vote_recorded(int ok, long long sent, long long recvd)
{
    ck->c_votes++;
    ck->c_ok += ok;
    ck->c_sent += sent;
    ck->c_recvd += recvd;
    if (!ok && !ck->c_decided) decide_2pc(0, "no");
}

/* rank 0: start the epoch (a request), run attempts, decide, finish MPI_Finalize */
static void coordinate_2pc(void)
{
    if (icc->pending && !ck->c_attempt && icc_now_s() >= ck->c_retry_at) {
        ck->c_attempt = ++ck->c_attempts;
        ck->c_votes = ck->c_ok = ck->c_decided = 0;
        ck->c_sent = ck->c_recvd = 0;
        ck->c_t0 = icc_now_s();
        long long m[3] = { ck->epoch, ck->c_attempt, ck->c_origin };
        for (int r = 1; r < icc->size; r++) icc_ctl_send(m, 3, r, TAG_PREP);
        prepare_2pc(ck->c_attempt, ck->c_origin);
    }
    if (icc->pending && ck->c_attempt && !ck->c_decided) {
        if (ck->c_votes == icc->size)
            decide_2pc(ck->c_ok == icc->size && ck->c_sent == ck->c_recvd, ck->c_sent == ck->c_recvd ? "no" : "in flight");
        else if (icc_now_s() - ck->c_t0 > 0.5)
            decide_2pc(0, "timeout");
    }
    if (ck->finalizing && !icc->pending && ck->c_fins == icc->size && !ck->final_done) {
        long long m[2] = { ck->epoch, 0 };   /* two numbers: drain_ctl ignores shorter messages */
        for (int r = 1; r < icc->size; r++) icc_ctl_send(m, 2, r, TAG_DONE);
        ck->final_done = 1;
    }
}

/* rank 0 starts a checkpoint for a request (its own or a REQ) */
static void request_at_root_2pc(int origin)
{
    if (icc->pending || ck->final_done) {
        if (ck->final_done) fprintf(stderr, "isochron-cc: rank 0: a checkpoint request from rank %d came after every "
                                    "rank entered MPI_Finalize; dropped\n", origin);
        else if (ck->icc_log && origin == 0) log_request_2pc(origin, 1);
        return;
    }
    ck->c_origin = origin;
    ck->c_attempt = 0;
    ck->c_attempts = ck->c_aborts = 0;
    ck->c_retry_at = 0;
    log_request_2pc(origin, 0);   /* rank 0 learns of the checkpoint here (the others at PREP) */
    ck->p_logged = ck->epoch;
    icc->pending = 1;
    ck->t_learn = PMPI_Wtime();
    icc->attn = 1;
}

static void local_request_2pc(void)
{
    if (icc->rank == 0) {
        request_at_root_2pc(0);
        return;
    }
    log_request_2pc(icc->rank, icc->pending);
    if (icc->pending) return;                    /* joins the checkpoint in progress */
    ck->p_logged = ck->epoch;
    long long m[2] = { ck->epoch, icc->rank };
    icc_ctl_send(m, 2, 0, TAG_REQ);
}

static void handle_2pc(int src, int tag, const long long *m, int n)
{
    switch (tag) {
    case TAG_REQ:
        if (icc->rank == 0 && n >= 2) request_at_root_2pc((int)m[1]);
        break;
    case TAG_PREP:
        if (n >= 3) prepare_2pc((int)m[1], (int)m[2]);
        break;
    case TAG_VOTE:
        if (icc->rank == 0 && n >= 5 && m[1] == ck->c_attempt && !ck->c_decided) vote_recorded((int)m[2], m[3], m[4]);
        break;
    case TAG_BUSY:
        if (icc->rank == 0 && m[1] == ck->c_attempt && !ck->c_decided) decide_2pc(0, "busy");
        break;
    case TAG_DECIDE:
        if (n >= 3 && m[1] == ck->p_attempt) {
            ck->p_decision = (int)m[2];
            if (!m[2]) log_abort_2pc((int)m[1], "decided");
        }
        break;
    case TAG_FIN:
        if (icc->rank == 0) ck->c_fins++;
        break;
    case TAG_DONE:
        ck->final_done = 1;
        break;
    default:
        (void)src;
        icc_die("%s%s", "unknown control message on the internal communicator", "");
    }
}

/* the vote of a prepared rank at this point: -1 not a stop point (run on), 0 no, 1 yes (hold) */
static int vote_here_2pc(int kind)
{
    int open = icc_req_count_arrived() + icc->open_recvs + icc_req_pending_icoll();
    switch (kind) {
    case ICC_STOP:
        return !open;
    case ICC_BARRIER: {
        int done = 0;
        PMPI_Test(icc->barrier, &done, MPI_STATUS_IGNORE);   /* a completed request stays readable as complete */
        return done ? -1 : !open;
    }
    case ICC_BLOCKED:
    case ICC_RECV:
        return !open && !icc->nofreeze;
    case ICC_COLL:   /* MPI_Finalize */
        return ck->finalizing ? !open : -1;
    default:
        return -1;
    }
}


void icc_poll_2pc(int kind, const char *call)
{
    if (!icc->inited || ck->in_poll) return;
    ck->in_poll = 1;
    ck->cur_call = call;
    if (!icc->pending && !ck->finalizing) icc->attn = 0;   /* cleared before looking: a new request sets it again */
    if (ck->finalizing && !ck->fin_sent) {
        ck->fin_sent = 1;
        if (icc->rank == 0) ck->c_fins++;
        else {
            long long m[2] = { ck->epoch, icc->rank };
            icc_ctl_send(m, 2, 0, TAG_FIN);
        }
    }
    for (;;) {
        icc_drain_ctl(handle_2pc);
        if (ck->req_flag) {
            ck->req_flag = 0;
            local_request_2pc();
        }
        icc_reap_sends(0);
        if (icc->rank == 0) coordinate_2pc();
        if (icc->pending) icc_watchdog();
        if (ck->p_attempt && ck->p_decision < 0) {
            if (!ck->p_voted) {
                int v = vote_here_2pc(kind);
                if (v >= 0) {
                    ck->p_voted = 1;
                    ck->p_ok = v;
                    ck->p_where = call;
                    long long sent = icc->app_sent, recvd = icc->app_recvd;
                    if (icc->rank == 0) vote_recorded(v, sent, recvd);
                    else {
                        long long m[5] = { ck->epoch, ck->p_attempt, v, sent, recvd };
                        icc_ctl_send(m, 5, 0, TAG_VOTE);
                    }
                }
            }
            if (ck->p_voted && ck->p_ok) {
                /* hold; a barrier that completes meanwhile may have let a member into the collective */
                if (kind == ICC_BARRIER && !ck->p_busy) {
                    int done = 0;
                    PMPI_Test(icc->barrier, &done, MPI_STATUS_IGNORE);
                    if (done) {
                        ck->p_busy = 1;
                        if (icc->rank == 0) { if (!ck->c_decided) decide_2pc(0, "busy"); }
                        else {
                            long long m[2] = { ck->epoch, ck->p_attempt };
                            icc_ctl_send(m, 2, 0, TAG_BUSY);
                        }
                    }
                }
                continue;
            }
        }
        if (ck->p_attempt && ck->p_decision == 1) {
            if (icc->rank != 0) ck->c_attempts = ck->p_attempt;   /* logged with the safe state */
            ck->p_attempt = 0;
            icc_take_checkpoint(ck->p_where);
            continue;
        }
        if (ck->p_attempt && ck->p_decision == 0) ck->p_attempt = 0;   /* aborted: run on; rank 0 retries */
        if (ck->finalizing && !ck->final_done) continue;
        break;
    }
    ck->in_poll = 0;
}
