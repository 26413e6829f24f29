/* libisochron-cc.so, cc mode: the checkpoint protocol of paper 003
 * (Algorithms 2-3, the safe state of 4.1 and 4.3.2) with an MPI-only global
 * agreement in place of the paper's DMTCP coordinator and checkpoint thread.
 * Its rooms (cc_ckpt.h): this file (requests, targets, agreement, the poll of both modes), the
 * state and control messages (cc_ckpt.c), checkpoint files and restart (cc_ckpt_file.c), 2pc
 * mode (cc_2pc.c), settings, ticker, init and finalize (cc_ckpt_settings.c).
 *
 *
 * Design.
 *  Requests. SIGUSR1 (the handler only sets two flags), isochron_cc_request()
 *  or, on rank 0, ISOCHRON_CC_INTERVAL seconds after the start or the last
 *  checkpoint. The requesting rank sends
 *  REQ(epoch) to every rank on icomm (this library's PMPI_Comm_dup of
 *  MPI_COMM_WORLD). A ticker thread that never calls MPI sets icc_attn every
 *  ISOCHRON_CC_POLL_MS (default 10) ms, so the next wrapper looks at icomm: the
 *  fast path stays one flag load per call and a rank learns of a request within
 *  a tick of its next MPI call. Requests during a checkpoint join it. The
 *  epoch of a checkpoint is its number (isochron_cc_checkpoints() + 1).
 *  Targets (Algorithm 2). A rank that learns of epoch E sets TARGET[g] = SEQ[g]
 *  for every group it knows and sends TGT(E, members, TARGET) to the group's
 *  other members; a receiver maps the member list to its own ggid (creating
 *  the entry if it has not built that communicator yet: its SEQ is 0) and keeps
 *  the maximum. While E is pending, a rank whose SEQ[g] passes TARGET[g] at a
 *  collective entry raises TARGET[g] and sends it to the members. Until every
 *  rank has learned (seen in the first agreement round whose pending count is
 *  the world size) raised targets are sent at the next contribution only (no
 *  message per collective); after that they are sent at once, as in the paper.
 *  Nobody stops until a round shows that every rank has switched to sending
 *  at once (a rank stuck in a collective must not hold back a raise).
 *  Stopping (Algorithm 3). After that, a rank stays at the
 *  entry of a collective while all its targets are reached (SEQ == TARGET for
 *  every group it is a member of), progressing the protocol; a raise received
 *  there lets it go on. Blocking point-to-point/probe/wait calls poll
 *  (cc_p2p.c), so no rank stays blocked in MPI out of the protocol's reach
 *  except inside a blocking collective, which the others will enter (their
 *  targets are at least its SEQ).
 *  Agreement. Rounds of PMPI_Iallreduce(SUM) on icomm of the vector
 *    [not ready, moved, unfrozen, ctl sent - ctl received,
 *     app sent - app received, pending, finalizing, learned, open receives]
 *  contributed at protocol progress points, one round open per rank at a time
 *  (all ranks run the same sequence of rounds, so results are equal
 *  everywhere). "moved": the rank's protocol-relevant state (SEQ, targets,
 *  message counts, requests) changed since its previous contribution (always
 *  1 for the first of an epoch); "unfrozen": the rank will not stay at this
 *  point until the round completes (it is at a non-blocking call, or not
 *  ready). A frozen rank leaves the round open only when a target raise
 *  arrives. Safe iff every rank is pending and ready, nobody moved, nobody
 *  unfrozen, both balances are 0 and no receive or non-blocking collective
 *  is posted and incomplete (the contract: a request pending at a checkpoint is complete after a
 *  restart, so none may wait for data). A rank inside a blocking call that
 *  sends (Send, Sendrecv...) never counts as stopped there: the checkpoint
 *  must not fall between its message and its return.
 *  Why safe. moved = 0 everywhere means every rank's state was constant from
 *  its contribution to round r-1 until its contribution to round r; each
 *  r-1 contribution happens before every rank's r contribution (the r-1
 *  reduction completed first), so one consistent cut C exists with every rank
 *  in its constant state. At a consistent cut received <= sent on every
 *  channel, so zero sums mean no control and no application message is in
 *  flight at C. Every rank at C is at a wrapper (not inside a collective) with
 *  SEQ == TARGET; targets agree among members because every raise is sent to
 *  all members and none is in flight. After C no rank can move before it sees
 *  the result: frozen ranks move only on a raise, and a raise needs a message
 *  that was in flight at C or sent by a rank that moved first. Theorem 4.2.4
 *  (no cycle of happens-before among blocking collectives) gives the rest:
 *  SEQ == TARGET on all members with nobody inside a collective is the paper's
 *  safe state. The paper completes pending non-blocking collectives after it
 *  (4.3.2), arguing every member has initiated them; with one SEQ shared by
 *  several communicators of a set that does not follow (two of them started
 *  in different orders), so here they must be complete before it: open
 *  counts them, and a round that sees them open with nobody moving is a
 *  stall that releases the stopped ranks (docs/collective-clocks.md, "ggid").
 *  Why it terminates. Targets only grow, and by the theorem a raise is caused
 *  by a collective that happens before an existing target, so finitely many
 *  raises occur (4.2.4); after the last raise every rank runs to its targets
 *  and then stops at a collective entry or blocks in a polled call. Point-to-
 *  point traffic can make that stop a stall the paper does not discuss: a
 *  rank not yet at its targets (or a message, or a posted receive) waits for
 *  a message that a stopped rank sends only after its next collective, e.g.
 *  on a group the waiting rank is not in. A round in which somebody is not
 *  ready or something is in flight, yet nobody moved since the previous
 *  round, is such a stall: every rank stopped at a collective entry then goes
 *  through that one collective (raising its target, so its members follow)
 *  and stops again at the next. Each release advances the stopped ranks by
 *  one collective of the original program, which (being deadlock-free)
 *  eventually sends what the blocked rank waits for; a collective on a group
 *  of one stops a rank only until the round it contributed to as stopped
 *  completes (it used to leave at once, breaking that contribution's promise
 *  not to move before the result: stress seed 34 at 2 ranks decided a safe
 *  state with a message sent after the contribution and counted in flight
 *  by the state log). When nobody is left to move, two consecutive
 *  rounds see no change and decide. That needs rounds, and a round needs
 *  every rank: one inside a blocking collective contributes nothing until
 *  the collective returns. Stress seed 236 at 4 ranks: rank 0 ran past its
 *  target into MPI_Bcast on {3,0} (raising it to 9); rank 3, at SEQ 8, was
 *  in MPI_Sendrecv with rank 2; ranks 1 and 2 were stopped at the entry of
 *  an MPI_Alltoall on {1,2} that comes before rank 2's Sendrecv, all their
 *  targets reached. Only a stall release lets them go, no round could
 *  complete without rank 0, and rank 0 waited for rank 3: a cycle.
 *  Needs break it without a round. A rank that is not at its targets (or is
 *  itself needed) and finds the operation of a blocking call or a completion
 *  test incomplete sends NEED(E, k), k = rounds it has completed, to the
 *  ranks that operation waits for (a receive's source, a send's destination,
 *  a non-blocking collective's members; every rank when not known, e.g. an
 *  Isend's request), at most once per peer per completed round. A needed rank
 *  (until round k+1 has completed) does not stop at collective entries, does
 *  not stay frozen in a blocking call, contributes "unfrozen", and forwards
 *  needs from its own blocked operation. Why it is safe: a need is a control
 *  message (counted in the balance, its receipt is movement), and a needed
 *  rank is unfrozen, so a deciding round has none in flight at C and no
 *  needed rank; after C every rank is at its targets and not needed, so none
 *  sends one before it has seen the result, and the argument above ("nobody
 *  moves after C") holds with needs as one more kind of control message.
 *  Why it helps: the rank a not-ready rank waits for goes on only while that
 *  rank is still waiting (the need expires one round later, and is renewed
 *  after every round that completes meanwhile); when rounds have stopped
 *  completing (the cycle above) it goes on until it has sent what the blocked
 *  rank waits for, that rank reaches the collective, and rounds resume. Like
 *  a stall release, each such step advances the original program, so it
 *  cannot repeat forever. What is not guaranteed: a cycle through a call the
 *  layer cannot watch (an application busy loop without MPI calls).
 *  Finalize. MPI_Finalize is a stop point; rounds continue until every rank
 *  is finalizing with no checkpoint pending, so a request can never be lost
 *  by a rank that left.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "cc/cc_ckpt.h"

static void log_target(int g)
{
    if (!ck->icc_log) return;
    icc_group_t *G = &icc->groups[g];
    fprintf(ck->icc_log, "{\"ev\":\"target\",\"rank\":%d,\"ckpt\":%d,\"ggid\":\"%016llx\",\"members\":", icc->rank, ck->epoch,
            (unsigned long long)G->hash);
    icc_log_members(G->members, G->size);
    fprintf(ck->icc_log, ",\"seq\":%lld,\"target\":%lld,\"t\":%.6f}\n", G->seq, G->target, PMPI_Wtime());
    fflush(ck->icc_log);
}

static void send_target(int g)
{
    icc_group_t *G = &icc->groups[g];
    G->dirty = 0;
    log_target(g);
    if (G->size < 2) return;
    long long *m = icc_xmalloc((size_t)(G->size + 3) * sizeof *m);
    m[0] = ck->epoch;
    m[1] = G->target;
    m[2] = G->size;
    for (int i = 0; i < G->size; i++) m[3 + i] = G->members[i];
    for (int i = 0; i < G->size; i++)
        if (G->members[i] != icc->rank) icc_ctl_send(m, G->size + 3, G->members[i], TAG_TGT);
    free(m);
}

static void flush_targets(void)
{
    for (int g = 0; g < icc->ngroups; g++)
        if (icc->groups[g].dirty) send_target(g);
}

static void learn(int origin)
{
    if (icc->pending) return;
    icc->pending = 1;
    icc->attn = 1;
    ck->t_learn = PMPI_Wtime();
    ck->all_learned = ck->freeze_ok = 0;
    ck->rfirst = 1;
    ck->rounds_this_epoch = ck->stalls = 0;
    ck->released = 0;
    icc->version++;
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"request\",\"rank\":%d,\"from\":%d,\"ckpt\":%d,\"t\":%.6f}\n", icc->rank, origin, ck->epoch,
                ck->t_learn);
        fflush(ck->icc_log);
    }
    for (int g = 0; g < icc->ngroups; g++) {
        if (!icc->groups[g].me) continue;
        icc->groups[g].target = icc->groups[g].seq;
        icc->groups[g].dirty = 1;
    }
}

void icc_seq_bumped(int g)
{
    icc_group_t *G = &icc->groups[g];
    /* A group of one: nobody else's target depends on its SEQ and its
     * collectives never stop the rank, so they are not movement for the
     * agreement (a rank looping on a one-rank communicator while it waits for
     * the checkpoint kept every round "moved": cc_latency recv at 2 ranks). */
    if (G->size == 1) {
        if (G->seq > G->target) G->target = G->seq;
        return;
    }
    icc->version++;
    if (G->seq <= G->target) return;
    G->target = G->seq;       /* Algorithm 2: ran past the target: raise it, tell the members */
    G->dirty = 1;
    if (ck->all_learned) send_target(g);
}


/* a control message of cc mode (icc_drain_ctl drops stale ones) */
static void handle_ctl(int src, int tag, const long long *m, int n)
{
    if (tag == TAG_REQ) {
        learn((int)m[1]);
        return;
    }
    if (tag == TAG_NEED) {
        learn(src);
        if (m[1] + 1 > ck->need_until) ck->need_until = m[1] + 1;
        return;
    }
    if (n < 3 || m[2] != n - 3) icc_die("%s%s", "malformed target message on the internal communicator", "");
    learn(src);
    int *w = icc_xmalloc((size_t)m[2] * sizeof *w);
    for (int i = 0; i < m[2]; i++) w[i] = (int)m[3 + i];
    int g = icc_group_of_members(w, (int)m[2]);
    free(w);
    if (m[1] > icc->groups[g].target) {
        icc->groups[g].target = m[1];
        log_target(g);
    }
}

static void local_request(void)
{
    if (icc->pending) {
        if (ck->icc_log) {
            fprintf(ck->icc_log, "{\"ev\":\"request\",\"rank\":%d,\"from\":%d,\"ckpt\":%d,\"joined\":true,\"t\":%.6f}\n",
                    icc->rank, icc->rank, ck->epoch, PMPI_Wtime());
            fflush(ck->icc_log);
        }
        return;
    }
    long long m[2] = { ck->epoch, icc->rank };
    for (int r = 0; r < icc->size; r++)
        if (r != icc->rank) icc_ctl_send(m, 2, r, TAG_REQ);
    learn(icc->rank);
}

/* ---------------------------------------------------------------- agreement */
static int ready(void)
{
    if (!icc->pending || !ck->freeze_ok) return 0;
    for (int g = 0; g < icc->ngroups; g++)
        if (icc->groups[g].me && icc->groups[g].seq < icc->groups[g].target) return 0;
    return 1;
}

/* Needs: see the design paragraph */
static int needed(void) { return icc->pending && ck->rounds_total < ck->need_until; }

static void send_needs(void)
{
    if (!icc->pending || !ck->freeze_ok || (ready() && !needed())) return;
    memset(ck->need_mark, 0, (size_t)icc->size);
    icc_waitfor_peers(ck->need_mark);
    long long m[2] = { ck->epoch, ck->rounds_total };
    for (int r = 0; r < icc->size; r++)
        if (ck->need_mark[r] && r != icc->rank && ck->need_sent[r] != ck->rounds_total + 1) {
            ck->need_sent[r] = ck->rounds_total + 1;
            icc_ctl_send(m, 2, r, TAG_NEED);
        }
}

void icc_need_check(void)
{
    if (!icc->inited || ck->in_poll) return;
    ck->in_poll = 1;
    send_needs();
    ck->in_poll = 0;
}

static void contribute(int kind)
{
    int open = 0;
    if (icc->pending) {
        flush_targets();
        /* a non-blocking collective not yet complete is open too: one started by only some of its
           members (two communicators of one ggid, started in different orders) must not be in a safe
           state (docs/collective-clocks.md, "ggid"); a stall release lets the others start it */
        open = icc_req_count_arrived() + icc->open_recvs + icc_req_pending_icoll();
    }
    int rd = ready();
    ck->rin[V_NOTREADY] = !rd;
    ck->rin[V_MOVED] = ck->rfirst || icc->version != ck->rversion;
    /* stopped: a promise not to move before this round's result; a rank released by a stall (it
       leaves its next collective entry at once, however many rounds later) or needed does not make it */
    ck->rin[V_UNFROZEN] = !(rd && kind != ICC_PASS && !icc->nofreeze && !needed() && !(kind == ICC_COLL && ck->released));
    ck->rin[V_OPEN] = open;
    ck->rin[V_CTL] = ck->ctl_sent - ck->ctl_recvd;
    ck->rin[V_APP] = icc->app_sent - icc->app_recvd;
    ck->rin[V_PENDING] = icc->pending;
    ck->rin[V_FINAL] = ck->finalizing;
    ck->rin[V_LEARNED] = ck->all_learned;
    PMPI_Iallreduce(ck->rin, ck->rout, V_N, MPI_LONG_LONG, MPI_SUM, ck->icomm, &ck->rreq);
    ck->rfrozen = !ck->rin[V_UNFROZEN];
    ck->rfirst = 0;
    ck->rversion = icc->version;
}


/* a round completed: returns 1 when it decided the checkpoint (taken) */
static int evaluate(const char *call)
{
    memcpy(ck->rlast, ck->rout, sizeof ck->rlast);
    ck->rounds_this_epoch++;
    ck->rounds_total++;
    if (ck->rout[V_PENDING] == icc->size && icc->pending && !ck->all_learned) {
        ck->all_learned = 1;            /* everybody has learned: targets are sent at once from now on */
        flush_targets();
    }
    if (ck->rout[V_LEARNED] == icc->size && icc->pending) ck->freeze_ok = 1;
    if (ck->finalizing && ck->rout[V_FINAL] == icc->size && ck->rout[V_PENDING] == 0 && ck->rout[V_CTL] == 0) ck->final_done = 1;
    /* a stall: some rank must still run, or a message is still to be
       received, yet nobody moved since the previous round (those not ready
       are blocked, e.g. on a message a stopped rank sends after its next
       collective; or a message waits for a receive posted after a
       collective): ranks stopped at collective entries go on through one
       collective (raising its target) */
    if (ck->freeze_ok && ck->rout[V_PENDING] == icc->size && ck->rout[V_MOVED] == 0 &&
        (ck->rout[V_NOTREADY] > 0 || ck->rout[V_APP] != 0 || ck->rout[V_OPEN] != 0)) {
        ck->released = 1;
        ck->stalls++;
    }
    if (ck->rout[V_PENDING] == icc->size && ck->rout[V_NOTREADY] == 0 && ck->rout[V_MOVED] == 0 && ck->rout[V_UNFROZEN] == 0 &&
        ck->rout[V_CTL] == 0 && ck->rout[V_APP] == 0 && ck->rout[V_OPEN] == 0) {
        if (!ready()) icc_die("%s%s", "internal error: agreement decided a safe state this rank is not in", "");
        icc_take_checkpoint(call);
        return 1;
    }
    return 0;
}

void icc_poll(int kind, const char *call, int g)
{
    if (icc->mode == ICC_2PC) {
        icc_poll_2pc(kind, call);
        return;
    }
    int g_solo = g >= 0 && icc->groups[g].size == 1;   /* a collective nobody else takes part in never blocks */
    if (!icc->inited || ck->in_poll) return;
    ck->in_poll = 1;
    ck->cur_call = call;
    if (!icc->pending && !ck->finalizing) icc->attn = 0;   /* cleared before looking: a new request sets it again */
    for (;;) {
        icc_drain_ctl(handle_ctl);
        if (ck->req_flag) {
            ck->req_flag = 0;
            local_request();
        }
        if (!icc->pending && !ck->finalizing) break;
        icc_watchdog();
        icc_reap_sends(0);
        if (kind == ICC_BLOCKED || kind == ICC_RECV) send_needs();
        if (ck->rreq != MPI_REQUEST_NULL) {
            int done = 0;
            PMPI_Test(&ck->rreq, &done, MPI_STATUS_IGNORE);
            if (done) {
                if (evaluate(call)) break;
                if (ck->final_done) break;
                if (kind == ICC_BLOCKED || kind == ICC_RECV) break;   /* let the caller test its operation before the next round */
                if (g_solo) break;   /* a collective on a group of one: stays only until the round it promised in completes */
                continue;
            }
        } else {
            contribute(kind);
        }
        if (kind == ICC_PASS || kind == ICC_RECV) break;
        if (kind == ICC_COLL && (!ready() || ck->released || needed() || (g_solo && !ck->rfrozen))) {
            ck->released = 0;
            break;
        }
        if (kind == ICC_BLOCKED && !(ck->rfrozen && ready() && !needed())) break;
        /* ICC_COLL with every target reached (Algorithm 3), a frozen
           blocked call, or MPI_Finalize: stay */
    }
    ck->in_poll = 0;
}
