/* The hooks of libisochron-cc.so's generated wrappers (layer "icc":
 * tools/gen-pmpi.py --hooks cc/cc_hooks.h, src/pmpi/pmpi.h), inline so each
 * wrapper keeps only what it reads of the call record.
 *
 * Design (paper 003, Algorithm 1 on the fast path; issue 14's overhead
 * target). A blocking collective or a non-blocking collective initiation in
 * cc mode costs: the mode, a one-entry communicator -> ggid cache (the last
 * communicator looked up; most programs call many collectives in a row on one
 * communicator), the icc_attn flag, SEQ[ggid]++ and the icc_pending flag.
 * The record's category, id and name are constants in each wrapper, so the
 * compiler drops the other fields and the switch over categories.
 * commit_finish (Algorithm 2's second half, wait_for_target_updates after
 * the call) does nothing for a blocking collective here: the paper needs it
 * so that a rank leaving a collective sees target raises before it runs on;
 * in this layer a rank looks at raises at every wrapper entry while
 * icc_attn is set (kept set while a checkpoint is pending), and the
 * agreement never takes a rank's state from before a raise it has not
 * received (the raise is a control message, counted in the round's
 * balance). A non-blocking initiation records its request on leaving. Every
 * other category goes to icc_enter_other/icc_leave_other (cc.c).
 * Not installed; included only by the generated build/pmpi/icc_wrappers.c. */
#ifndef ISOCHRON_CC_HOOKS_H
#define ISOCHRON_CC_HOOKS_H

#include <stdint.h>
#include "pmpi/pmpi.h"
#include "cc/cc_internal.h"

#pragma GCC visibility push(hidden)
intptr_t icc_enter_other(int id, int category, const char *name, MPI_Comm comm, int peer);   /* returns the layer word */
int icc_leave_other(int id, int category, MPI_Comm comm, int peer, MPI_Request *request, intptr_t layer, int rc);
void icc_2pc_enter(MPI_Comm comm, const char *name);   /* 2pc mode: a stop point, then Ibarrier on comm and a test loop */
#pragma GCC visibility pop

/* the generated wrappers test the flag P_bypass of their layer (tools/gen-pmpi.py): here, a field of the state */
#define icc_bypass (icc->bypass)

static inline __attribute__((always_inline)) int icc_lookup_cached(MPI_Comm comm)
{
    return comm == icc->last_comm ? icc->last_group : icc_lookup(comm, 1);
}

static inline __attribute__((always_inline)) void icc_enter(isochron_pmpi_call_t *c)
{
    if (c->category != ISOCHRON_PMPI_COLL && c->category != ISOCHRON_PMPI_ICOLL) {
        c->layer = (void *)icc_enter_other(c->id, c->category, c->name, c->comm, c->peer);
        return;
    }
    if (icc->mode != ICC_CC) {
        if (icc->mode == ICC_2PC) icc_2pc_enter(c->comm, c->name);
        return;
    }
    int g = icc_lookup_cached(c->comm);
    if (icc->attn) icc_poll(ICC_COLL, c->name, g);   /* Algorithm 3 at commit_begin */
    if (g >= 0) {
        icc->groups[g].seq++;                        /* Algorithm 1 */
        if (icc->pending) icc_seq_bumped(g);         /* Algorithm 2 */
    }
    c->layer = (void *)(intptr_t)(g + 1);
}

static inline __attribute__((always_inline)) int icc_leave(isochron_pmpi_call_t *c, int rc)
{
    if (c->category == ISOCHRON_PMPI_COLL) return rc;
    if (c->category == ISOCHRON_PMPI_ICOLL) {
        if (icc->mode != ICC_NATIVE && rc == MPI_SUCCESS && c->request)
            icc_req_track(*c->request, ICC_REQ_ICOLL, (int)(intptr_t)c->layer - 1, MPI_ANY_SOURCE);
        return rc;
    }
    return icc_leave_other(c->id, c->category, c->comm, c->peer, c->request, (intptr_t)c->layer, rc);
}
#endif
