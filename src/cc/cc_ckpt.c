/* libisochron-cc.so, the checkpoint protocol's state and control messages: the bottom of its rooms
 * (cc_ckpt.h), on which the cc mode of paper 003 (cc_agree.c) and the two-phase commit of [mana]
 * (cc_2pc.c) both run.
 *
 * Design. One structure holds the protocol's state on this rank (icc_ckpt_state, reached through
 * `ck`). A control message is an array of long long whose first number is its epoch (the number of
 * the checkpoint it is about), sent with PMPI_Isend on icomm (this library's PMPI_Comm_dup of
 * MPI_COMM_WORLD), counted (ctl_sent, ctl_recvd: the agreement's balance) and reaped later. A message
 * of a later epoch (sent by a rank that finished the current checkpoint) waits in a stash until that
 * epoch; one of an earlier epoch is stale and dropped; icc_drain_ctl hands the others to the mode's
 * handler.
 *  Watchdog: ISOCHRON_CC_TIMEOUT seconds (default 60) after a rank learned of
 *  a checkpoint it prints the rank, the MPI call it waits in, the targets it
 *  waits for (or the agreement state) and calls MPI_Abort; the ticker
 *  (cc_ckpt_settings.c) does the same, at 1.5 timeouts + 1 s, for a rank stuck
 *  inside a blocking call.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "cc/cc_ckpt.h"

/* the protocol's state on this rank (cc_ckpt.h) */
icc_ckpt_t icc_ckpt_state = {
    .icomm = MPI_COMM_NULL, .epoch = 1, .timeout_s = 60.0, .cur_call = "", .rreq = MPI_REQUEST_NULL, .rfirst = 1,
    .stash_tail = &icc_ckpt_state.stash_head, .poll_ms = 10.0, .p_decision = -1, .p_where = "",
};

void icc_die(const char *fmt, const char *a, const char *b)
{
    char msg[8192];
    snprintf(msg, sizeof msg, fmt, a, b);
    fprintf(stderr, "isochron-cc: rank %d: %s\n", icc->rank, msg);   /* one write: ranks' lines never interleave */
    fflush(stderr);
    /* the launcher forwards stderr through a pipe; an abort's teardown can drop what it has not read
     * yet (MPICH's hydra lost this line in 1 of 3 runs): give it 0.3 s to deliver the cause first */
    struct timespec pause = {0, 300000000L};
    nanosleep(&pause, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 2);
    _exit(2);
}

void *icc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) icc_die("%s%s", "out of memory", "");
    return p;
}

/* ---------------------------------------------------------------- log */
void icc_log_members(const int *m, int n)
{
    fputc('[', ck->icc_log);
    for (int i = 0; i < n; i++) fprintf(ck->icc_log, "%s%d", i ? "," : "", m[i]);
    fputc(']', ck->icc_log);
}

void icc_log_counts(const char *key, const long long *v)
{
    fprintf(ck->icc_log, ",\"%s\":[", key);
    for (int i = 0; i < icc->size; i++) fprintf(ck->icc_log, "%s%lld", i ? "," : "", v[i]);
    fputc(']', ck->icc_log);
}

/* ---------------------------------------------------------------- control messages */
void icc_ctl_send(long long *buf, int n, int dest, int tag)
{
    if (ck->ncsend == ck->capcsend) {
        ck->capcsend = ck->capcsend ? 2 * ck->capcsend : 32;
        ck->csend = realloc(ck->csend, (size_t)ck->capcsend * sizeof *ck->csend);
        if (!ck->csend) icc_die("%s%s", "out of memory", "");
    }
    long long *b = icc_xmalloc((size_t)n * sizeof *b);
    memcpy(b, buf, (size_t)n * sizeof *b);
    PMPI_Isend(b, n, MPI_LONG_LONG, dest, tag, ck->icomm, &ck->csend[ck->ncsend].r);
    ck->csend[ck->ncsend++].buf = b;
    ck->ctl_sent++;
    icc->version++;
}

void icc_reap_sends(int wait)
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

void icc_drain_ctl(icc_ctl_handler_t handle)
{
    /* messages of this epoch that arrived before the previous one ended */
    while (ck->stash_head && ck->stash_head->buf[0] <= ck->epoch) {
        stash_t *s = ck->stash_head;
        ck->stash_head = s->next;
        if (!ck->stash_head) ck->stash_tail = &ck->stash_head;
        if (s->buf[0] >= ck->epoch) handle(s->src, s->tag, s->buf, s->n);   /* else stale */
        free(s->buf);
        free(s);
    }
    for (;;) {
        int flag = 0, n = 0;
        MPI_Status st;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ck->icomm, &flag, &st);
        if (!flag) return;
        PMPI_Get_count(&st, MPI_LONG_LONG, &n);
        long long *m = icc_xmalloc((size_t)(n > 3 ? n : 3) * sizeof *m);
        PMPI_Recv(m, n, MPI_LONG_LONG, st.MPI_SOURCE, st.MPI_TAG, ck->icomm, MPI_STATUS_IGNORE);
        ck->ctl_recvd++;
        icc->version++;
        if (n >= 1 && m[0] > ck->epoch) {                 /* the next checkpoint's, sent by a rank that finished this one */
            stash_t *s = icc_xmalloc(sizeof *s);
            *s = (stash_t){ st.MPI_SOURCE, st.MPI_TAG, n, m, NULL };
            *ck->stash_tail = s;
            ck->stash_tail = &s->next;
            continue;
        }
        if (n >= 2 && m[0] >= ck->epoch) handle(st.MPI_SOURCE, st.MPI_TAG, m, n);   /* else an earlier checkpoint's: stale */
        free(m);
    }
}

void icc_watchdog(void)
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

double icc_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- API (flags and counts) */
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
