/* libisochron-cc.so, cc mode: the checkpoint protocol of paper 003
 * (Algorithms 2-3, the safe state of 4.1 and 4.3.2) with an MPI-only global
 * agreement in place of the paper's DMTCP coordinator and checkpoint thread.
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
 *  Action. Pending non-blocking collectives are completed with
 *  PMPI_Request_get_status (the request stays valid for the application's own
 *  Wait/Test), the "safe" line is logged, ISOCHRON_CC_BEFORE_SAVE callbacks
 *  run, every registered region and the CC state go to
 *  DIR/ckpt.N/rank.R (write .tmp, fsync, rename), ISOCHRON_CC_COMMAND runs
 *  (/bin/sh -c, %r rank, %n number, %d ckpt dir, %% a percent sign), a barrier
 *  on icomm, rank 0 writes DIR/ckpt.N/complete the same way, a barrier, then
 *  ISOCHRON_CC_AFTER_SAVE callbacks and the call continues.
 *  Finalize. MPI_Finalize is a stop point; rounds continue until every rank
 *  is finalizing with no checkpoint pending, so a request can never be lost
 *  by a rank that left.
 *  Restart (ISOCHRON_CC_RESTART=DIR): DIR's newest ckpt.N with a complete
 *  marker written for the same world size; each rank reads its rank.R file at
 *  MPI_Init; regions are filled when registered; SEQ of a group is restored
 *  when its member list is seen again; checkpoint numbers continue from N.
 *  Checkpoint file (ckpt.N/rank.R, version 2), text lines and raw region bytes:
 *    isochron-cc-checkpoint 2          magic and version
 *    ckpt N / rank R / nranks P        what it belongs to
 *    groups G, then G lines            group HASH SEQ SIZE MEMBER... (members ascending: the set)
 *    regions K, then K times           region NAME BYTES, BYTES raw bytes, a newline
 *    end
 *    fnv1a64 HHHHHHHHHHHHHHHH          FNV-1a (64 bit) of every byte before this line
 *  A restart trusts nothing in it before it is checked: the file is read
 *  whole (its length from fstat), the magic, the version and the checksum
 *  are checked first, then every field in order against what is left of the
 *  file and against this run (checkpoint number, rank, world size, member
 *  ranks, each group's hash recomputed from its members, region names unique
 *  and at most ICC_MAX_REGIONS), before any count is used to allocate; region
 *  data stays in the file's buffer. A region's size is checked against the
 *  program's when it registers it. A bad file stops the job at MPI_Init on
 *  every rank, with the file and the field named (icc_settings).
 *  Watchdog: ISOCHRON_CC_TIMEOUT seconds (default 60) after a rank learned of
 *  a checkpoint it prints the rank, the MPI call it waits in, the targets it
 *  waits for (or the agreement state) and calls MPI_Abort; the ticker does the
 *  same, at 1.5 timeouts + 1 s, for a rank stuck inside a blocking call.
 *
 * State log (ISOCHRON_CC_LOG=DIR): DIR/cc-log.RANK.jsonl, one JSON object a
 * line, "t" in MPI_Wtime seconds, "ggid" the 16-hex-digit FNV-1a hash of the
 * member set (a string; equal on all ranks for the same group), "members"
 * its world ranks, ascending:
 *   {"ev":"request","rank":R,"from":ORIGIN,"ckpt":N,"t":T}
 *        this rank learned of checkpoint N, first requested by rank ORIGIN
 *        (also logged, with "joined":true, for a request made while one is
 *        already in progress: it is served by checkpoint N)
 *   {"ev":"target","rank":R,"ckpt":N,"ggid":"..","members":[..],"seq":S,"target":T,"t":T}
 *        TARGET of a group set (on learning) or raised (own SEQ, or a message)
 *   {"ev":"safe","rank":R,"ckpt":N,"groups":[{"ggid":"..","seq":S,"target":T,"members":[..]}],
 *    "pending_icoll":K,"sent":[per world rank],"recvd":[per world rank],
 *    "sent_total":A,"recvd_total":B,"in_collective":false,"call":"MPI_X",
 *    "rounds":M,"t":T}
 *        the safe state: groups this rank is a member of; pending_icoll: its
 *        non-blocking collectives not yet complete (the library completes
 *        them next); sent/recvd: application messages counted so far
 *        (intercommunicator and matched-probe traffic in the totals only);
 *        call: the wrapper the checkpoint is taken in, before that call runs
 *   {"ev":"saved","rank":R,"ckpt":N,"dir":"..","bytes":B,"t":T}
 *   {"ev":"resume","rank":R,"ckpt":N,"t":T}
 *   {"ev":"restart","rank":R,"ckpt":N,"dir":"..","t":T}   at MPI_Init of a restarted run
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "core/settings.h"

extern char **environ;

enum { TAG_REQ = 1, TAG_TGT = 2, TAG_NEED = 3, TAG_PREP = 4, TAG_VOTE = 5, TAG_BUSY = 6, TAG_DECIDE = 7, TAG_FIN = 8,
       TAG_DONE = 9 };
enum { V_NOTREADY, V_MOVED, V_UNFROZEN, V_CTL, V_APP, V_PENDING, V_FINAL, V_LEARNED, V_OPEN, V_N };
/* outstanding control sends and messages of a later epoch */
typedef struct { MPI_Request r; long long *buf; } ctl_send_t;
typedef struct stash { int src, tag, n; long long *buf; struct stash *next; } stash_t;
#define ICC_MAX_REGIONS 64
#define ICC_MAX_CALLBACKS 16
typedef struct { char name[64]; size_t bytes; unsigned char *data; } saved_region_t;

/* This file's state: one structure, one instance (ckpt_state), reached through `ck`. */
typedef struct {
    volatile sig_atomic_t req_flag;      /* a request not yet acted on (signal handler, API, ticker) */
    MPI_Comm icomm;                      /* this library's PMPI_Comm_dup of MPI_COMM_WORLD */
    int epoch, nckpt, restarted_from, finalizing, final_done, in_poll, all_learned, freeze_ok, released;
    double t_learn, timeout_s;
    const char *volatile cur_call;
    volatile int in_wait;                /* inside a polled blocking call */
    long long ctl_sent, ctl_recvd;
    int rounds_this_epoch, stalls;
    /* agreement rounds */
    long long rin[V_N], rout[V_N], rlast[V_N];
    MPI_Request rreq;
    int rfrozen, rfirst;
    unsigned long long rversion;
    long long rounds_total;              /* agreement rounds completed since MPI_Init: the same count on every rank */
    long long need_until;                /* needed (see Needs) until round need_until has completed */
    long long *need_sent;                /* per world rank: 1 + rounds_total when the last need went to it */
    unsigned char *need_mark;            /* per world rank: scratch for icc_waitfor_peers */
    /* outstanding control sends and messages of a later epoch */
    ctl_send_t *csend;
    int ncsend, capcsend;
    stash_t *stash_head, **stash_tail;
    /* regions, callbacks, restart data, log */
    struct { char name[64]; void *ptr; size_t bytes; } regions[ICC_MAX_REGIONS];
    int nregions;
    struct { void (*fn)(int, void *); void *arg; } callbacks[ICC_MAX_CALLBACKS];
    int ncallbacks;
    saved_region_t *rs_regions;
    int rs_nregions;
    char *rs_buf;                        /* the restart file, whole: rs_regions' data point into it */
    char rs_path[4200];                  /* its path */
    FILE *icc_log;
    char log_path[4200];
    /* the ticker thread */
    pthread_t ticker;
    volatile int ticker_stop, ticker_on;
    double interval_s, poll_ms;
    /* 2pc mode: this rank */
    int p_attempt;                       /* the attempt it is prepared for (0: none) */
    int p_voted, p_ok;                   /* it voted in p_attempt; its vote was "checkpoint me here" (it holds) */
    int p_busy;                          /* it told rank 0 that its barrier completed while it held */
    int p_decision;                      /* of p_attempt: -1 none yet, 0 abort, 1 commit */
    int p_logged;                        /* the epoch whose request it has logged */
    const char *p_where;                 /* the stop point it voted at */
    int fin_sent;                        /* it told rank 0 it is in MPI_Finalize */
    /* 2pc mode: rank 0, the coordinator */
    int c_origin, c_attempt, c_votes, c_ok, c_decided, c_attempts, c_aborts, c_fins;
    long long c_sent, c_recvd;
    double c_t0, c_retry_at;
} icc_ckpt_t;

static icc_ckpt_t ckpt_state = {
    .icomm = MPI_COMM_NULL, .epoch = 1, .timeout_s = 60.0, .cur_call = "", .rreq = MPI_REQUEST_NULL, .rfirst = 1,
    .stash_tail = &ckpt_state.stash_head, .poll_ms = 10.0, .p_decision = -1, .p_where = "",
};
static icc_ckpt_t *const ck = &ckpt_state;

static void die(const char *fmt, const char *a, const char *b) __attribute__((noreturn));
static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "isochron-cc: rank %d: ", icc->rank);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 2);
    _exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("%s%s", "out of memory", "");
    return p;
}

/* ---------------------------------------------------------------- log */
static void log_members(const int *m, int n)
{
    fputc('[', ck->icc_log);
    for (int i = 0; i < n; i++) fprintf(ck->icc_log, "%s%d", i ? "," : "", m[i]);
    fputc(']', ck->icc_log);
}

static void log_target(int g)
{
    if (!ck->icc_log) return;
    icc_group_t *G = &icc->groups[g];
    fprintf(ck->icc_log, "{\"ev\":\"target\",\"rank\":%d,\"ckpt\":%d,\"ggid\":\"%016llx\",\"members\":", icc->rank, ck->epoch,
            (unsigned long long)G->hash);
    log_members(G->members, G->size);
    fprintf(ck->icc_log, ",\"seq\":%lld,\"target\":%lld,\"t\":%.6f}\n", G->seq, G->target, PMPI_Wtime());
    fflush(ck->icc_log);
}

static void log_counts(const char *key, const long long *v)
{
    fprintf(ck->icc_log, ",\"%s\":[", key);
    for (int i = 0; i < icc->size; i++) fprintf(ck->icc_log, "%s%lld", i ? "," : "", v[i]);
    fputc(']', ck->icc_log);
}

/* ---------------------------------------------------------------- control messages */
static void ctl_send(long long *buf, int n, int dest, int tag)
{
    if (ck->ncsend == ck->capcsend) {
        ck->capcsend = ck->capcsend ? 2 * ck->capcsend : 32;
        ck->csend = realloc(ck->csend, (size_t)ck->capcsend * sizeof *ck->csend);
        if (!ck->csend) die("%s%s", "out of memory", "");
    }
    long long *b = xmalloc((size_t)n * sizeof *b);
    memcpy(b, buf, (size_t)n * sizeof *b);
    PMPI_Isend(b, n, MPI_LONG_LONG, dest, tag, ck->icomm, &ck->csend[ck->ncsend].r);
    ck->csend[ck->ncsend++].buf = b;
    ck->ctl_sent++;
    icc->version++;
}

static void reap_sends(int wait)
{
    for (int i = 0; i < ck->ncsend;) {
        int flag = 0;
        if (wait) PMPI_Wait(&ck->csend[i].r, MPI_STATUS_IGNORE), flag = 1;
        else PMPI_Test(&ck->csend[i].r, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            free(ck->csend[i].buf);
            ck->csend[i] = ck->csend[--ck->ncsend];
        } else {
            i++;
        }
    }
}

static void send_target(int g)
{
    icc_group_t *G = &icc->groups[g];
    G->dirty = 0;
    log_target(g);
    if (G->size < 2) return;
    long long *m = xmalloc((size_t)(G->size + 3) * sizeof *m);
    m[0] = ck->epoch;
    m[1] = G->target;
    m[2] = G->size;
    for (int i = 0; i < G->size; i++) m[3 + i] = G->members[i];
    for (int i = 0; i < G->size; i++)
        if (G->members[i] != icc->rank) ctl_send(m, G->size + 3, G->members[i], TAG_TGT);
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

static void handle_2pc(int src, int tag, const long long *m, int n);

static void handle_ctl(int src, int tag, const long long *m, int n)
{
    if (m[0] < ck->epoch) return;                         /* an earlier checkpoint's: stale */
    if (icc->mode == ICC_2PC) {
        handle_2pc(src, tag, m, n);
        return;
    }
    if (tag == TAG_REQ) {
        learn((int)m[1]);
        return;
    }
    if (tag == TAG_NEED) {
        learn(src);
        if (m[1] + 1 > ck->need_until) ck->need_until = m[1] + 1;
        return;
    }
    if (n < 3 || m[2] != n - 3) die("%s%s", "malformed target message on the internal communicator", "");
    learn(src);
    int *w = xmalloc((size_t)m[2] * sizeof *w);
    for (int i = 0; i < m[2]; i++) w[i] = (int)m[3 + i];
    int g = icc_group_of_members(w, (int)m[2]);
    free(w);
    if (m[1] > icc->groups[g].target) {
        icc->groups[g].target = m[1];
        log_target(g);
    }
}

static void drain_ctl(void)
{
    /* messages of this epoch that arrived before the previous one ended */
    while (ck->stash_head && ck->stash_head->buf[0] <= ck->epoch) {
        stash_t *s = ck->stash_head;
        ck->stash_head = s->next;
        if (!ck->stash_head) ck->stash_tail = &ck->stash_head;
        handle_ctl(s->src, s->tag, s->buf, s->n);
        free(s->buf);
        free(s);
    }
    for (;;) {
        int flag = 0, n = 0;
        MPI_Status st;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ck->icomm, &flag, &st);
        if (!flag) return;
        PMPI_Get_count(&st, MPI_LONG_LONG, &n);
        long long *m = xmalloc((size_t)(n > 3 ? n : 3) * sizeof *m);
        PMPI_Recv(m, n, MPI_LONG_LONG, st.MPI_SOURCE, st.MPI_TAG, ck->icomm, MPI_STATUS_IGNORE);
        ck->ctl_recvd++;
        icc->version++;
        if (n >= 1 && m[0] > ck->epoch) {                 /* the next checkpoint's, sent by a rank that finished this one */
            stash_t *s = xmalloc(sizeof *s);
            *s = (stash_t){ st.MPI_SOURCE, st.MPI_TAG, n, m, NULL };
            *ck->stash_tail = s;
            ck->stash_tail = &s->next;
            continue;
        }
        if (n >= 2) handle_ctl(st.MPI_SOURCE, st.MPI_TAG, m, n);
        free(m);
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
        if (r != icc->rank) ctl_send(m, 2, r, TAG_REQ);
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
            ctl_send(m, 2, r, TAG_NEED);
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

static void take_checkpoint(const char *call);

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
        if (!ready()) die("%s%s", "internal error: agreement decided a safe state this rank is not in", "");
        take_checkpoint(call);
        return 1;
    }
    return 0;
}

static void watchdog(void)
{
    if (!icc->pending) return;
    double waited = PMPI_Wtime() - ck->t_learn;
    if (waited < ck->timeout_s) return;
    fprintf(stderr, "isochron-cc: rank %d: checkpoint %d not reached after %.0f s (ISOCHRON_CC_TIMEOUT=%g); waiting in %s;",
            icc->rank, ck->epoch, waited, ck->timeout_s, ck->cur_call);
    int any = 0;
    for (int g = 0; g < icc->ngroups; g++) {
        icc_group_t *G = &icc->groups[g];
        if (!G->me || G->seq >= G->target) continue;
        fprintf(stderr, " ggid %016llx members [", (unsigned long long)G->hash);
        for (int i = 0; i < G->size && i < 16; i++) fprintf(stderr, "%s%d", i ? "," : "", G->members[i]);
        fprintf(stderr, "%s] at SEQ %lld waits for TARGET %lld;", G->size > 16 ? ",..." : "", G->seq, G->target);
        any = 1;
    }
    if (!any && ck->rounds_this_epoch == 0)
        fprintf(stderr, " no agreement round has completed: a rank takes no part (it makes no MPI call, or is "
                "blocked inside one)");
    else if (!any)
        fprintf(stderr, " all its targets reached; last agreement round: %lld not ready, %lld moved, %lld not stopped, "
                "%lld control and %lld application messages in flight, %lld receives posted and not complete, "
                "%lld of %d ranks pending",
                ck->rlast[V_NOTREADY], ck->rlast[V_MOVED], ck->rlast[V_UNFROZEN], ck->rlast[V_CTL], ck->rlast[V_APP], ck->rlast[V_OPEN],
                ck->rlast[V_PENDING], icc->size);
    fputc('\n', stderr);
    fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 3);
}

/* ---------------------------------------------------------------- 2pc mode
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
static double now_s(void);

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
    for (int r = 1; r < icc->size; r++) ctl_send(m, 3, r, TAG_DECIDE);
    if (!commit) {
        ck->c_aborts++;
        log_abort_2pc(ck->c_attempt, why);
        ck->c_attempt = 0;
        ck->c_retry_at = now_s() + 1e-3 * ck->poll_ms;
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
    if (icc->pending && !ck->c_attempt && now_s() >= ck->c_retry_at) {
        ck->c_attempt = ++ck->c_attempts;
        ck->c_votes = ck->c_ok = ck->c_decided = 0;
        ck->c_sent = ck->c_recvd = 0;
        ck->c_t0 = now_s();
        long long m[3] = { ck->epoch, ck->c_attempt, ck->c_origin };
        for (int r = 1; r < icc->size; r++) ctl_send(m, 3, r, TAG_PREP);
        prepare_2pc(ck->c_attempt, ck->c_origin);
    }
    if (icc->pending && ck->c_attempt && !ck->c_decided) {
        if (ck->c_votes == icc->size)
            decide_2pc(ck->c_ok == icc->size && ck->c_sent == ck->c_recvd, ck->c_sent == ck->c_recvd ? "no" : "in flight");
        else if (now_s() - ck->c_t0 > 0.5)
            decide_2pc(0, "timeout");
    }
    if (ck->finalizing && !icc->pending && ck->c_fins == icc->size && !ck->final_done) {
        long long m[2] = { ck->epoch, 0 };   /* two numbers: drain_ctl ignores shorter messages */
        for (int r = 1; r < icc->size; r++) ctl_send(m, 2, r, TAG_DONE);
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
    ctl_send(m, 2, 0, TAG_REQ);
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
        die("%s%s", "unknown control message on the internal communicator", "");
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

static void take_checkpoint(const char *call);

static void poll_2pc(int kind, const char *call)
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
            ctl_send(m, 2, 0, TAG_FIN);
        }
    }
    for (;;) {
        drain_ctl();
        if (ck->req_flag) {
            ck->req_flag = 0;
            local_request_2pc();
        }
        reap_sends(0);
        if (icc->rank == 0) coordinate_2pc();
        if (icc->pending) watchdog();
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
                        ctl_send(m, 5, 0, TAG_VOTE);
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
                            ctl_send(m, 2, 0, TAG_BUSY);
                        }
                    }
                }
                continue;
            }
        }
        if (ck->p_attempt && ck->p_decision == 1) {
            if (icc->rank != 0) ck->c_attempts = ck->p_attempt;   /* logged with the safe state */
            ck->p_attempt = 0;
            take_checkpoint(ck->p_where);
            continue;
        }
        if (ck->p_attempt && ck->p_decision == 0) ck->p_attempt = 0;   /* aborted: run on; rank 0 retries */
        if (ck->finalizing && !ck->final_done) continue;
        break;
    }
    ck->in_poll = 0;
}

void icc_poll(int kind, const char *call, int g)
{
    if (icc->mode == ICC_2PC) {
        poll_2pc(kind, call);
        return;
    }
    int g_solo = g >= 0 && icc->groups[g].size == 1;   /* a collective nobody else takes part in never blocks */
    if (!icc->inited || ck->in_poll) return;
    ck->in_poll = 1;
    ck->cur_call = call;
    if (!icc->pending && !ck->finalizing) icc->attn = 0;   /* cleared before looking: a new request sets it again */
    for (;;) {
        drain_ctl();
        if (ck->req_flag) {
            ck->req_flag = 0;
            local_request();
        }
        if (!icc->pending && !ck->finalizing) break;
        watchdog();
        reap_sends(0);
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

/* ---------------------------------------------------------------- checkpoint files */
static const char *ckpt_dir(void)
{
    const char *d = getenv("ISOCHRON_CC_DIR");
    return d && *d ? d : ".";
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* FNV-1a, 64 bit: the checkpoint file's checksum and the groups' hash (cc.c) */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}
#define FNV_INIT 1469598103934665603ull

/* a file being written with the checksum of what went into it */
typedef struct { FILE *f; uint64_t h; } ck_file_t;

static void ck_write(ck_file_t *c, const void *p, size_t n)
{
    c->h = fnv1a(c->h, p, n);
    fwrite(p, 1, n, c->f);
}

static void ck_printf(ck_file_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ck_printf(ck_file_t *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof buf) die("%s%s", "internal error: a checkpoint line over 511 bytes", "");
    ck_write(c, buf, (size_t)n);
}

/* write path atomically: tmp file, fsync, rename */
static long long write_atomic(const char *path, void (*body)(ck_file_t *, void *), void *arg)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ck_file_t c = { fopen(tmp, "wb"), FNV_INIT };
    if (!c.f) die("cannot write the checkpoint file %s: %s", tmp, strerror(errno));
    body(&c, arg);
    long long bytes = ftell(c.f);
    if (fflush(c.f) != 0 || ferror(c.f) || fsync(fileno(c.f)) != 0)
        die("cannot write the checkpoint file %s: %s", tmp, strerror(errno));
    if (fclose(c.f) != 0) die("cannot write the checkpoint file %s: %s", tmp, strerror(errno));
    if (rename(tmp, path) != 0) die("cannot rename the checkpoint file to %s: %s", path, strerror(errno));
    return bytes;
}

#define CKPT_VERSION 2
#define CKPT_MAGIC "isochron-cc-checkpoint"

static void rank_file_body(ck_file_t *c, void *arg)
{
    (void)arg;
    int n = 0;
    for (int g = 0; g < icc->ngroups && icc->mode == ICC_CC; g++) n += icc->groups[g].me;
    ck_printf(c, "%s %d\nckpt %d\nrank %d\nnranks %d\ngroups %d\n", CKPT_MAGIC, CKPT_VERSION, ck->epoch, icc->rank, icc->size, n);
    for (int g = 0; g < icc->ngroups && icc->mode == ICC_CC; g++) {
        icc_group_t *G = &icc->groups[g];
        if (!G->me) continue;
        ck_printf(c, "group %016llx %lld %d", (unsigned long long)G->hash, G->seq, G->size);
        for (int i = 0; i < G->size; i++) ck_printf(c, " %d", G->members[i]);
        ck_write(c, "\n", 1);
    }
    ck_printf(c, "regions %d\n", ck->nregions);
    for (int i = 0; i < ck->nregions; i++) {
        ck_printf(c, "region %s %zu\n", ck->regions[i].name, ck->regions[i].bytes);
        ck_write(c, ck->regions[i].ptr, ck->regions[i].bytes);
        ck_write(c, "\n", 1);
    }
    ck_write(c, "end\n", 4);
    fprintf(c->f, "fnv1a64 %016llx\n", (unsigned long long)c->h);   /* not part of the sum */
}

static void marker_body(ck_file_t *c, void *arg)
{
    (void)arg;
    fprintf(c->f, "isochron-cc-complete 1\nckpt %d\nnranks %d\n", ck->epoch, icc->size);
}

/* ISOCHRON_CC_COMMAND with %r, %n, %d, %% expanded (checked at MPI_Init: no other escape), into a buffer of
 * its exact size: nothing cut */
static char *expand_command(const char *cmd, const char *dir)
{
    char *buf = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t o = 0;
        for (const char *p = cmd; *p; p++) {
            char tmp[32];
            const char *add = tmp;
            if (*p != '%' || !p[1]) tmp[0] = *p, tmp[1] = 0;
            else if (*++p == 'r') snprintf(tmp, sizeof tmp, "%d", icc->rank);
            else if (*p == 'n') snprintf(tmp, sizeof tmp, "%d", ck->epoch);
            else if (*p == 'd') add = dir;
            else tmp[0] = '%', tmp[1] = 0;
            size_t n = strlen(add);
            if (pass) memcpy(buf + o, add, n);
            o += n;
        }
        if (pass) buf[o] = 0;
        else buf = xmalloc(o + 1);
    }
    return buf;
}

static void run_command(const char *cmd, const char *dir)
{
    char *buf = expand_command(cmd, dir);
    char *argv[] = { "/bin/sh", "-c", buf, NULL };
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ), status = 0;
    if (rc != 0) {
        fprintf(stderr, "isochron-cc: rank %d: ISOCHRON_CC_COMMAND could not start: %s\n", icc->rank, strerror(rc));
        free(buf);
        return;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "isochron-cc: rank %d: ISOCHRON_CC_COMMAND '%s' failed (status %d); checkpoint %d continues\n",
                icc->rank, buf, WIFEXITED(status) ? WEXITSTATUS(status) : -1, ck->epoch);
    free(buf);
}

static void take_checkpoint(const char *call)
{
    int twopc = icc->mode == ICC_2PC;
    int pend = icc_req_pending_icoll();
    icc_req_complete_icolls();
    double t_safe = PMPI_Wtime();
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"safe\",\"rank\":%d,\"ckpt\":%d,\"groups\":[", icc->rank, ck->epoch);
        int first = 1;
        for (int g = 0; g < icc->ngroups && !twopc; g++) {
            icc_group_t *G = &icc->groups[g];
            if (!G->me) continue;
            fprintf(ck->icc_log, "%s{\"ggid\":\"%016llx\",\"seq\":%lld,\"target\":%lld,\"members\":", first ? "" : ",",
                    (unsigned long long)G->hash, G->seq, G->target);
            log_members(G->members, G->size);
            fputc('}', ck->icc_log);
            first = 0;
        }
        fprintf(ck->icc_log, "],\"pending_icoll\":%d", pend);
        log_counts("sent", icc->sent_to);
        log_counts("recvd", icc->recvd_from);
        fprintf(ck->icc_log, ",\"sent_total\":%lld,\"recvd_total\":%lld,\"in_collective\":false,\"call\":\"%s\",\"rounds\":%d,"
                "\"stalls\":%d,", icc->app_sent, icc->app_recvd, call, ck->rounds_this_epoch, ck->stalls);
        if (twopc) fprintf(ck->icc_log, "\"mode\":\"2pc\",\"attempt\":%d,", ck->c_attempts);
        fprintf(ck->icc_log, "\"t\":%.6f}\n", t_safe);
        fflush(ck->icc_log);
    }
    for (int i = 0; i < ck->ncallbacks; i++) ck->callbacks[i].fn(ISOCHRON_CC_BEFORE_SAVE, ck->callbacks[i].arg);
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/ckpt.%d", ckpt_dir(), ck->epoch);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) die("cannot create the checkpoint directory %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/rank.%d", dir, icc->rank);
    long long bytes = write_atomic(path, rank_file_body, NULL);
    fsync_dir(dir);
    const char *cmd = getenv("ISOCHRON_CC_COMMAND");
    if (cmd && *cmd) run_command(cmd, dir);
    PMPI_Barrier(ck->icomm);
    if (icc->rank == 0) {
        snprintf(path, sizeof path, "%s/complete", dir);
        write_atomic(path, marker_body, NULL);
        fsync_dir(dir);
    }
    PMPI_Barrier(ck->icomm);
    ck->nckpt = ck->epoch;          /* complete on every rank: counted from the AFTER_SAVE callbacks on */
    for (int i = 0; i < ck->ncallbacks; i++) ck->callbacks[i].fn(ISOCHRON_CC_AFTER_SAVE, ck->callbacks[i].arg);
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"saved\",\"rank\":%d,\"ckpt\":%d,\"dir\":\"%s\",\"bytes\":%lld,\"t\":%.6f}\n", icc->rank,
                ck->epoch, dir, bytes, PMPI_Wtime());
        fflush(ck->icc_log);
    }
    /* resume: the next checkpoint starts from scratch */
    icc->pending = 0;
    ck->p_attempt = ck->c_attempt = 0;
    ck->p_decision = -1;
    ck->all_learned = ck->freeze_ok = 0;
    ck->need_until = 0;
    ck->rfirst = 1;
    for (int g = 0; g < icc->ngroups; g++) icc->groups[g].target = icc->groups[g].dirty = 0;
    if (ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"resume\",\"rank\":%d,\"ckpt\":%d,\"t\":%.6f}\n", icc->rank, ck->epoch, PMPI_Wtime());
        fflush(ck->icc_log);
    }
    ck->epoch++;
    icc->attn = 1;           /* look again: a request for the next one may be waiting */
}

/* ---------------------------------------------------------------- restart */
/* a restart directory that cannot be used: the message (every rank stops, icc_settings) */
#define RESTART_FAIL(why) do { \
        snprintf(err, len, "ISOCHRON_CC_RESTART=%s: %s (a restart directory is the ISOCHRON_CC_DIR of an earlier run, " \
                 "holding ckpt.N/complete and ckpt.N/rank.R files)", dir, why); \
        return; \
    } while (0)

static int read_complete(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int v = 0, c = -1, p = -1;
    int ok = fscanf(f, "isochron-cc-complete %d\nckpt %d\nnranks %d", &v, &c, &p) == 3 && v == 1 && c == n;
    fclose(f);
    return ok ? p : 0;
}

/* Reading a checkpoint file (format: the design comment): a cursor over the file's bytes; every
 * failure names the file and the field. */
typedef struct { char *p, *end; const char *dir, *path; char *err; size_t len; } rd_t;

static int rd_fail(rd_t *r, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rd_fail(rd_t *r, const char *field, const char *fmt, ...)
{
    int o = snprintf(r->err, r->len, "ISOCHRON_CC_RESTART=%s: checkpoint file %s: field '%s': ", r->dir, r->path, field);
    if (o > 0 && (size_t)o < r->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + o, r->len - (size_t)o, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* the next text line, NUL-terminated in place; NULL when the file ends first */
static char *rd_line(rd_t *r, const char *field)
{
    char *nl = r->p < r->end ? memchr(r->p, '\n', (size_t)(r->end - r->p)) : NULL;
    if (!nl) {
        rd_fail(r, field, "missing: the file ends before it");
        return NULL;
    }
    *nl = 0;
    char *l = r->p;
    r->p = nl + 1;
    return l;
}

/* a whole decimal number in [lo, hi] */
static int rd_num(const char *s, long long lo, long long hi, long long *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (errno || e == s || *e || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* a line "KEY N" with N in [lo, hi] */
static int rd_field(rd_t *r, const char *key, long long lo, long long hi, long long *out)
{
    char *l = rd_line(r, key);
    if (!l) return -1;
    size_t k = strlen(key);
    if (strncmp(l, key, k) != 0 || l[k] != ' ') return rd_fail(r, key, "expected a line '%s N', found '%.60s'", key, l);
    if (rd_num(l + k + 1, lo, hi, out)) {
        if (lo == hi) return rd_fail(r, key, "'%.40s', expected %lld", l + k + 1, lo);
        return rd_fail(r, key, "'%.40s' is not a number in [%lld, %lld]", l + k + 1, lo, hi);
    }
    return 0;
}

/* one "group HASH SEQ SIZE MEMBER..." line into *g (members allocated once SIZE is checked) */
static int rd_group(rd_t *r, int i, unsigned char *mark, icc_saved_group_t *g)
{
    char field[32], *l, *e;
    snprintf(field, sizeof field, "group %d", i + 1);
    if (!(l = rd_line(r, field))) return -1;
    if (strncmp(l, "group ", 6) != 0) return rd_fail(r, field, "expected a line 'group HASH SEQ SIZE MEMBER...', found '%.60s'", l);
    errno = 0;
    unsigned long long h = strtoull(l + 6, &e, 16);
    if (errno || e != l + 6 + 16 || *e != ' ') return rd_fail(r, field, "the hash is not 16 hexadecimal digits");
    char *q = strchr(e + 1, ' ');
    if (!q) return rd_fail(r, field, "no size after the sequence number");
    *q = 0;
    long long seq, n;
    if (rd_num(e + 1, 0, LLONG_MAX, &seq)) return rd_fail(r, field, "sequence number '%.40s' is not a number >= 0", e + 1);
    char *m = strchr(q + 1, ' ');
    if (m) *m = 0;
    size_t left = m ? strlen(m + 1) + 1 : 0;
    if (rd_num(q + 1, 1, icc->size, &n)) return rd_fail(r, field, "size '%.40s' is not a number in [1, %d]", q + 1, icc->size);
    if ((size_t)n > (left + 1) / 2) return rd_fail(r, field, "size %lld, but the line has room for %zu members", n, (left + 1) / 2);
    g->members = malloc((size_t)n * sizeof(int));
    if (!g->members) return rd_fail(r, field, "out of memory for %lld members", n);
    memset(mark, 0, (size_t)icc->size);
    char *t = m + 1;
    for (long long k = 0; k < n; k++) {
        char *sp = strchr(t, ' ');
        if (sp) *sp = 0;
        long long w;
        if (rd_num(t, 0, icc->size - 1, &w)) return rd_fail(r, field, "member %lld '%.40s' is not a rank in [0, %d]", k + 1, t, icc->size - 1);
        if (mark[w]++) return rd_fail(r, field, "rank %lld is a member twice", w);
        g->members[k] = (int)w;
        if (k + 1 < n && !sp) return rd_fail(r, field, "%lld members, the size says %lld", k + 1, n);
        if (k + 1 == n && sp) return rd_fail(r, field, "more members than the size %lld", n);
        t = sp ? sp + 1 : t;
    }
    if (icc_members_hash(g->members, (int)n) != h)
        return rd_fail(r, field, "hash %016llx is not the hash of its members (%016llx)", h,
                       (unsigned long long)icc_members_hash(g->members, (int)n));
    g->n = (int)n;
    g->seq = seq;
    return 0;
}

/* This rank's file of checkpoint `best`, checked whole before anything is kept (rs_groups, rs_regions,
 * whose data points into rs_buf). 0, or -1 with the message in err. */
static int read_rank_file(const char *dir, const char *path, int best, char *err, size_t len)
{
    rd_t r = { NULL, NULL, dir, path, err, len };
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f) return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: the complete checkpoint %d lacks this rank's file %s: %s", dir, best,
                            path, strerror(errno)), -1;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return snprintf(err, len, "ISOCHRON_CC_RESTART=%s: checkpoint file %s: not a regular file", dir, path), -1;
    }
    enum { TRAILER = 25 };   /* "fnv1a64 " 16 hex digits "\n" */
    size_t flen = (size_t)st.st_size;
    if (st.st_size < (off_t)(sizeof CKPT_MAGIC + TRAILER)) {
        fclose(f);
        return rd_fail(&r, "length", "%lld bytes, too short for a checkpoint file", (long long)st.st_size);
    }
    ck->rs_buf = malloc(flen + 1);
    if (!ck->rs_buf) {
        fclose(f);
        return rd_fail(&r, "length", "out of memory for its %zu bytes", flen);
    }
    size_t got = fread(ck->rs_buf, 1, flen, f);
    fclose(f);
    if (got != flen) return rd_fail(&r, "length", "read %zu of its %zu bytes", got, flen);
    ck->rs_buf[flen] = 0;
    /* magic and version first: they say what the file is */
    size_t ml = strlen(CKPT_MAGIC);
    if (memcmp(ck->rs_buf, CKPT_MAGIC " ", ml + 1) != 0) {
        char head[32];
        size_t k = 0;
        for (; k < 24 && ck->rs_buf[k] != '\n'; k++) head[k] = ck->rs_buf[k] >= 32 && ck->rs_buf[k] < 127 ? ck->rs_buf[k] : '?';
        head[k] = 0;
        return rd_fail(&r, "magic", "not an isochron-cc checkpoint file (it begins with '%s', not '%s')", head, CKPT_MAGIC);
    }
    long long ver;
    char vbuf[16];
    size_t k = 0;
    for (; k < sizeof vbuf - 1 && ml + 1 + k < flen && ck->rs_buf[ml + 1 + k] != '\n'; k++) vbuf[k] = ck->rs_buf[ml + 1 + k];
    vbuf[k] = 0;
    if (rd_num(vbuf, 0, 1000000, &ver) || ver != CKPT_VERSION)
        return rd_fail(&r, "version", "'%s', this library reads version %d (a file of another isochron version cannot be "
                       "restarted from)", vbuf, CKPT_VERSION);
    /* then the checksum over everything before its line */
    char *tr = ck->rs_buf + flen - TRAILER, *e;
    if (memcmp(tr, "fnv1a64 ", 8) != 0 || tr[TRAILER - 1] != '\n')
        return rd_fail(&r, "checksum", "no 'fnv1a64' line at the end (the file was cut or changed)");
    tr[TRAILER - 1] = 0;
    errno = 0;
    unsigned long long want = strtoull(tr + 8, &e, 16);
    if (errno || e != tr + TRAILER - 1) return rd_fail(&r, "checksum", "'%s' is not 16 hexadecimal digits", tr + 8);
    uint64_t have = fnv1a(FNV_INIT, ck->rs_buf, flen - TRAILER);
    if (have != want)
        return rd_fail(&r, "checksum", "the file says %016llx, its contents give %016llx (changed or damaged after it was written)",
                       want, (unsigned long long)have);
    /* every field, in order, against what is left of the file and against this run */
    r.p = ck->rs_buf;
    r.end = tr;
    long long v, ng, nr;
    if (!rd_line(&r, "magic") || rd_field(&r, "ckpt", best, best, &v) || rd_field(&r, "rank", icc->rank, icc->rank, &v) ||
        rd_field(&r, "nranks", icc->size, icc->size, &v))
        return -1;
    /* a group line takes at least 14 bytes ("group H SEQ N M" with a 16-digit hash: more) */
    if (rd_field(&r, "groups", 0, LLONG_MAX, &ng)) return -1;
    if (ng > (r.end - r.p) / 14)
        return rd_fail(&r, "groups", "%lld groups cannot fit in the %lld bytes that follow", ng, (long long)(r.end - r.p));
    unsigned char *mark = malloc((size_t)icc->size);
    icc->rs_groups = calloc((size_t)(ng ? ng : 1), sizeof *icc->rs_groups);
    if (!mark || !icc->rs_groups) return rd_fail(&r, "groups", "out of memory for %lld groups", ng);
    for (long long i = 0; i < ng; i++) {
        if (rd_group(&r, (int)i, mark, &icc->rs_groups[i])) return -1;
        icc->rs_ngroups++;
    }
    free(mark);
    if (rd_field(&r, "regions", 0, ICC_MAX_REGIONS, &nr)) return -1;
    ck->rs_regions = calloc((size_t)(nr ? nr : 1), sizeof *ck->rs_regions);
    if (!ck->rs_regions) return rd_fail(&r, "regions", "out of memory for %lld regions", nr);
    for (long long i = 0; i < nr; i++) {
        char field[32], *l, *sp;
        snprintf(field, sizeof field, "region %lld", i + 1);
        if (!(l = rd_line(&r, field))) return -1;
        if (strncmp(l, "region ", 7) != 0 || !(sp = strrchr(l + 7, ' ')))
            return rd_fail(&r, field, "expected a line 'region NAME BYTES', found '%.60s'", l);
        *sp = 0;
        size_t nl = strlen(l + 7);
        if (nl < 1 || nl > 63 || strchr(l + 7, ' ')) return rd_fail(&r, field, "name '%.70s' is not 1 to 63 characters without blanks", l + 7);
        saved_region_t *s = &ck->rs_regions[i];
        memcpy(s->name, l + 7, nl + 1);
        for (long long j = 0; j < i; j++)
            if (!strcmp(ck->rs_regions[j].name, s->name)) return rd_fail(&r, field, "region '%s' appears twice", s->name);
        errno = 0;
        unsigned long long b = strtoull(sp + 1, &e, 10);
        if (errno || e == sp + 1 || *e || sp[1] == '-')
            return rd_fail(&r, field, "size '%.40s' of region '%s' is not a number of bytes", sp + 1, s->name);
        if (b >= (unsigned long long)(r.end - r.p))
            return rd_fail(&r, field, "region '%s' of %llu bytes cannot fit in the %lld bytes that follow", s->name, b,
                           (long long)(r.end - r.p));
        s->bytes = (size_t)b;
        s->data = (unsigned char *)r.p;
        r.p += b;
        if (*r.p != '\n') return rd_fail(&r, field, "no newline after the %llu bytes of region '%s'", b, s->name);
        r.p++;
        ck->rs_nregions++;
    }
    char *l = rd_line(&r, "end");
    if (!l) return -1;
    if (strcmp(l, "end") != 0) return rd_fail(&r, "end", "expected 'end', found '%.60s'", l);
    if (r.p != r.end) return rd_fail(&r, "end", "%lld bytes after it", (long long)(r.end - r.p));
    return 0;
}

static void load_restart(const char *dir, char *err, size_t len)
{
    DIR *d = opendir(dir);
    if (!d) RESTART_FAIL(strerror(errno));
    int best = 0, best_p = 0, incomplete = 0;
    struct dirent *e;
    char path[4200];
    while ((e = readdir(d))) {
        int n = 0;
        char tail;
        if (sscanf(e->d_name, "ckpt.%d%c", &n, &tail) != 1 || n <= 0) continue;
        snprintf(path, sizeof path, "%s/%s/complete", dir, e->d_name);
        int p = read_complete(path, n);
        if (!p) { incomplete++; continue; }
        if (n > best) { best = n; best_p = p; }
    }
    closedir(d);
    if (!best) {
        char why[128];
        snprintf(why, sizeof why, "no complete checkpoint in this directory (%d incomplete)", incomplete);
        RESTART_FAIL(why);
    }
    if (best_p != icc->size) {
        char why[160];
        snprintf(why, sizeof why, "checkpoint %d was written by %d ranks, this run has %d", best, best_p, icc->size);
        RESTART_FAIL(why);
    }
    snprintf(ck->rs_path, sizeof ck->rs_path, "%s/ckpt.%d/rank.%d", dir, best, icc->rank);
    if (read_rank_file(dir, ck->rs_path, best, err, len)) return;
    ck->restarted_from = ck->nckpt = best;
    ck->epoch = best + 1;
    for (int g = 0; g < icc->ngroups; g++) icc_group_created(g);
}

/* ---------------------------------------------------------------- init, finalize, ticker */
static void on_usr1(int sig)
{
    (void)sig;
    ck->req_flag = 1;
    icc->attn = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *ticker_main(void *arg)
{
    (void)arg;
    double next = now_s() + ck->interval_s, learned_at = 0;
    int seen_epoch = 0, seen_n = 0;
    struct timespec ts = { (time_t)(ck->poll_ms / 1000), (long)(1e6 * (ck->poll_ms - 1000 * (long)(ck->poll_ms / 1000))) };
    while (!ck->ticker_stop) {
        nanosleep(&ts, NULL);
        __atomic_store_n(&icc->attn, 1, __ATOMIC_RELAXED);
        double t = now_s();
        int n = __atomic_load_n(&ck->nckpt, __ATOMIC_RELAXED);
        if (n != seen_n) { seen_n = n; next = t + ck->interval_s; }   /* the interval runs from the last resume */
        if (ck->interval_s > 0 && icc->rank == 0 && t >= next && !__atomic_load_n(&icc->pending, __ATOMIC_RELAXED)) {
            __atomic_store_n(&ck->req_flag, 1, __ATOMIC_RELAXED);
            next = t + ck->interval_s;
        }
        /* a rank stuck inside a blocking MPI call never reaches the main-thread watchdog */
        int e = __atomic_load_n(&icc->pending, __ATOMIC_RELAXED) ? __atomic_load_n(&ck->epoch, __ATOMIC_RELAXED) : 0;
        if (e != seen_epoch) { seen_epoch = e; learned_at = t; }
        if (e && t - learned_at > 1.5 * ck->timeout_s + 1) {
            fprintf(stderr, "isochron-cc: rank %d: checkpoint %d not reached after %.0f s (ISOCHRON_CC_TIMEOUT=%g); "
                    "stuck inside %s (a call that does not return while the protocol waits)\n",
                    icc->rank, e, t - learned_at, ck->timeout_s, ck->cur_call);
            fflush(stderr);
            _exit(3);
        }
    }
    return NULL;
}

static void load_restart(const char *dir, char *err, size_t len);

/* The variables of this layer (docs/layers.md): any other ISOCHRON_CC_* is refused as misspelt. */
static const char *const icc_known[] = {
    "ISOCHRON_CC_MODE", "ISOCHRON_CC_DIR", "ISOCHRON_CC_LOG", "ISOCHRON_CC_RESTART", "ISOCHRON_CC_COMMAND",
    "ISOCHRON_CC_INTERVAL", "ISOCHRON_CC_TIMEOUT", "ISOCHRON_CC_POLL_MS", "ISOCHRON_CC_TEST_COLLIDE",
};
#define ICC_PATH_MAX 3800   /* a directory's bytes: room for /ckpt.N/rank.R.tmp and cc-log.R.jsonl in 4096 */
#define ICC_COMMAND_MAX 4000

/* ISOCHRON_CC_COMMAND: only %r, %n, %d and %% (a % alone or another letter would run a different command) */
static int check_command(const char *cmd, char *err, size_t len)
{
    if (isochron_setting_text("ISOCHRON_CC_COMMAND", cmd, ICC_COMMAND_MAX, err, len)) return -1;
    for (const char *p = cmd; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == 'r' || p[1] == 'n' || p[1] == 'd' || p[1] == '%') { p++; continue; }
        snprintf(err, len, "ISOCHRON_CC_COMMAND=%s: '%%%s' is not an escape; valid: %%r (rank), %%n (checkpoint number), "
                 "%%d (checkpoint directory), %%%% (a percent sign)", cmd, p[1] ? (char[]){p[1], 0} : "");
        return -1;
    }
    return 0;
}

/* Every ISOCHRON_CC_* variable, into err ("" when all are good). Directories are made ready (cc mode only:
 * no other mode writes): ISOCHRON_CC_DIR created and written to, ISOCHRON_CC_LOG created and this rank's
 * log opened, ISOCHRON_CC_RESTART read (load_restart). */
static void check_settings(char *err, size_t len)
{
    const char *v;
    int collide = 0;
    static const char *const zero_one[] = { "0", "1" };
    err[0] = 0;
    if (isochron_settings_known("ISOCHRON_CC_", icc_known, (int)(sizeof icc_known / sizeof *icc_known), err, len) ||
        isochron_setting_number("ISOCHRON_CC_TIMEOUT", isochron_setting_get("ISOCHRON_CC_TIMEOUT", "60"), 0.001, 86400, 0,
                                "seconds", &ck->timeout_s, err, len) ||
        isochron_setting_number("ISOCHRON_CC_INTERVAL", isochron_setting_get("ISOCHRON_CC_INTERVAL", "0"), 0.01, 86400, 1,
                                "seconds", &ck->interval_s, err, len) ||
        isochron_setting_number("ISOCHRON_CC_POLL_MS", isochron_setting_get("ISOCHRON_CC_POLL_MS", "10"), 0.01, 1000, 0,
                                "milliseconds", &ck->poll_ms, err, len) ||
        isochron_setting_choice("ISOCHRON_CC_TEST_COLLIDE", isochron_setting_get("ISOCHRON_CC_TEST_COLLIDE", "0"), zero_one, 2,
                                "switch", &collide, err, len))
        return;
    icc->collide = collide;
    if ((v = isochron_setting_get("ISOCHRON_CC_COMMAND", NULL)) && check_command(v, err, len)) return;
    if (icc->mode == ICC_NATIVE) return;
    if ((v = isochron_setting_get("ISOCHRON_CC_DIR", NULL)) &&
        isochron_setting_dir("ISOCHRON_CC_DIR", v, ICC_PATH_MAX, ISOCHRON_DIR_CREATE | ISOCHRON_DIR_WRITE, err, len))
        return;
    if ((v = isochron_setting_get("ISOCHRON_CC_LOG", NULL))) {
        if (isochron_setting_dir("ISOCHRON_CC_LOG", v, ICC_PATH_MAX, ISOCHRON_DIR_CREATE | ISOCHRON_DIR_WRITE, err, len)) return;
        snprintf(ck->log_path, sizeof ck->log_path, "%s/cc-log.%d.jsonl", v, icc->rank);
        ck->icc_log = fopen(ck->log_path, "a");
        if (!ck->icc_log) {
            snprintf(err, len, "ISOCHRON_CC_LOG=%s: cannot open the state log %s: %s", v, ck->log_path, strerror(errno));
            return;
        }
    }
    if ((v = isochron_setting_get("ISOCHRON_CC_RESTART", NULL))) {
        if (isochron_setting_dir("ISOCHRON_CC_RESTART", v, ICC_PATH_MAX, 0, err, len)) return;
        load_restart(v, err, len);
    }
}

void icc_settings(void)
{
    char err[16384];
    PMPI_Comm_rank(MPI_COMM_WORLD, &icc->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &icc->size);
    check_settings(err, sizeof err);
    isochron_pmpi_agree_or_stop("isochron-cc", err, ISOCHRON_PMPI_EXIT_SETTING);
}

void icc_init_protocol(void)
{
    if (icc->mode == ICC_NATIVE || icc->inited) return;
    PMPI_Comm_dup(MPI_COMM_WORLD, &ck->icomm);
    icc->sent_to = calloc((size_t)icc->size, sizeof *icc->sent_to);
    icc->recvd_from = calloc((size_t)icc->size, sizeof *icc->recvd_from);
    ck->need_sent = calloc((size_t)icc->size, sizeof *ck->need_sent);
    ck->need_mark = calloc((size_t)icc->size, 1);
    if (!icc->sent_to || !icc->recvd_from || !ck->need_sent || !ck->need_mark) die("%s%s", "out of memory", "");
    if (ck->restarted_from && ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"restart\",\"rank\":%d,\"ckpt\":%d,\"dir\":\"%s\",\"t\":%.6f}\n", icc->rank, ck->restarted_from,
                isochron_setting_get("ISOCHRON_CC_RESTART", ""), PMPI_Wtime());
        fflush(ck->icc_log);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    icc->inited = 1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);   /* signals go to the application's threads */
    ck->ticker_on = pthread_create(&ck->ticker, NULL, ticker_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ck->ticker_on) die("%s%s", "cannot start the ticker thread", "");
}

void icc_finalize_protocol(void)
{
    if (!icc->inited) return;
    ck->finalizing = 1;
    icc->attn = 1;
    while (!ck->final_done) icc_poll(ICC_COLL, "MPI_Finalize", -1);
    ck->ticker_stop = 1;
    if (ck->ticker_on) pthread_join(ck->ticker, NULL);
    reap_sends(1);
    PMPI_Comm_free(&ck->icomm);
    icc->inited = 0;
    if (ck->icc_log) {
        /* a line the log lost (a full disk) makes the job's exit status non-zero (cc.c, MPI_Finalize's wrapper) */
        int bad = fflush(ck->icc_log) != 0 || ferror(ck->icc_log);
        int e = errno;
        if (fclose(ck->icc_log) != 0 && !bad) bad = 1, e = errno;
        if (bad) {
            fprintf(stderr, "isochron-cc: rank %d: writing the state log %s failed: %s; the job's exit status will be %d\n",
                    icc->rank, ck->log_path, strerror(e), ISOCHRON_PMPI_EXIT_LOST);
            icc->output_lost = 1;
        }
    }
    ck->icc_log = NULL;
}

/* ---------------------------------------------------------------- API */
int isochron_cc_register(const char *name, void *ptr, size_t bytes)
{
    if (!name || !*name || strlen(name) > 63 || strchr(name, ' ') || strchr(name, '\n')) {
        fprintf(stderr, "isochron-cc: isochron_cc_register: bad region name '%s' (1 to 63 characters, no blanks)\n",
                name ? name : "(null)");
        return -1;
    }
    if (!ptr && bytes) {
        fprintf(stderr, "isochron-cc: isochron_cc_register: region '%s' has no memory\n", name);
        return -1;
    }
    for (int i = 0; i < ck->nregions; i++)
        if (strcmp(ck->regions[i].name, name) == 0) {
            fprintf(stderr, "isochron-cc: isochron_cc_register: region '%s' is already registered\n", name);
            return -1;
        }
    if (ck->nregions == ICC_MAX_REGIONS) {
        fprintf(stderr, "isochron-cc: isochron_cc_register: region table full (%d regions)\n", ICC_MAX_REGIONS);
        return -1;
    }
    for (int i = 0; i < ck->rs_nregions; i++)
        if (strcmp(ck->rs_regions[i].name, name) == 0 && ck->rs_regions[i].bytes != bytes) {
            fprintf(stderr, "isochron-cc: rank %d: isochron_cc_register: region '%s' has %zu bytes, the checkpoint file %s "
                    "(checkpoint %d) saved %zu for it\n", icc->rank, name, bytes, ck->rs_path, ck->restarted_from, ck->rs_regions[i].bytes);
            return -1;
        }
    snprintf(ck->regions[ck->nregions].name, sizeof ck->regions[ck->nregions].name, "%s", name);
    ck->regions[ck->nregions].ptr = ptr;
    ck->regions[ck->nregions].bytes = bytes;
    ck->nregions++;
    for (int i = 0; i < ck->rs_nregions; i++)
        if (strcmp(ck->rs_regions[i].name, name) == 0) {
            memcpy(ptr, ck->rs_regions[i].data, bytes);
            return 1;
        }
    return 0;
}

int isochron_cc_on_checkpoint(void (*fn)(int phase, void *arg), void *arg)
{
    if (!fn || ck->ncallbacks == ICC_MAX_CALLBACKS) {
        fprintf(stderr, "isochron-cc: isochron_cc_on_checkpoint: %s\n", fn ? "callback table full" : "no function");
        return -1;
    }
    ck->callbacks[ck->ncallbacks].fn = fn;
    ck->callbacks[ck->ncallbacks].arg = arg;
    ck->ncallbacks++;
    return 0;
}

void isochron_cc_request(void)
{
    ck->req_flag = 1;
    icc->attn = 1;
}

int isochron_cc_checkpoints(void) { return ck->nckpt; }

int isochron_cc_restarted(void) { return ck->restarted_from; }
