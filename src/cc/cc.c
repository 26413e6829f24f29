/* libisochron-cc.so: the collective-clock layer of paper 003 (sections 3-4),
 * interposed through PMPI with the wrappers tools/gen-pmpi.py generates from
 * src/pmpi/mpi.tbl (layer prefix "icc"); cc_p2p.c writes the blocking
 * point-to-point, probe and completion wrappers by hand, the checkpoint protocol
 * lives in the rooms cc_ckpt.h lists (the design paragraph of cc_agree.c: Algorithms 2-3,
 * agreement, safe state; cc_ckpt_file.c: action, restart; cc_ckpt.h: the state log).
 *
 * Design of this file. ISOCHRON_CC_MODE (read once, at load) selects
 *   native  every wrapper is a tail call to PMPI (icc_bypass = 1 from the
 *           return of MPI_Init on, whose hooks check the settings);
 *   2pc     the two-phase-commit baseline as MANA does it: before every
 *           blocking collective and every non-blocking collective initiation,
 *           PMPI_Ibarrier on the same communicator and a PMPI_Test loop, with
 *           its checkpoints (prepare, vote, commit or abort and retry, and
 *           restart: cc_2pc.c); point-to-point calls are counted
 *           and polled as in cc mode;
 *   cc      Algorithm 1's bookkeeping on the fast path: each communicator maps
 *           to a ggid computed from its group's world ranks as the paper
 *           defines it (4.1): FNV-1a over the SET of world ranks (ascending),
 *           so every communicator over the same processes shares one ggid and
 *           one SEQ whatever their order (MPI_Comm_dup, MPI_IDENT, CONGRUENT
 *           and SIMILAR alike); on a hash collision the member sets are
 *           compared and a different set gets its own entry, so two groups
 *           never merge. Why sharing is safe, and the one case it needs the
 *           agreement's help for (non-blocking collectives started in
 *           different orders on two communicators of one set):
 *           docs/collective-clocks.md, "ggid". Each communicator also has a
 *           view (its rank order -> world ranks) that translates peer ranks
 *           for message counting. SEQ[ggid] is incremented at every
 *           collective entry (blocking, non-blocking initiation, and
 *           communicator creation, which is collective over the parent and
 *           may synchronize), with no extra message. Handles are
 *           cached (comm -> ggid; in front of the table a one-entry cache of the
 *           last communicator, read inline by the wrappers, cc_hooks.h) and
 *           dropped at MPI_Comm_free/disconnect because an implementation
 *           may reuse a freed handle. The only extra
 *           work per call when no checkpoint is in progress is one load of
 *           icc_attn (set by SIGUSR1, isochron_cc_request, the ticker of
 *           cc_ckpt_settings.c, and kept set while a checkpoint is in progress).
 * ISOCHRON_CC_TEST_COLLIDE=1 makes every hash equal (tests the member
 * comparison). The layer calls only PMPI_ functions itself. Every variable
 * and its range: docs/layers.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pmpi/pmpi.h"
#include "pmpi/isochron_pmpi_ids.h"   /* generated, in the build tree */
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "core/settings.h"

static const char *const icc_mode_names[] = { "native", "cc", "2pc" };
/* ISOCHRON_CC_MODE is read when the library is loaded (the wrappers need the
 * mode from the first call on): a bad one ends every process that loads the
 * library with exit status 2 and the valid modes, before the application's
 * main. The other settings are checked in MPI_Init (cc_ckpt_settings.c, icc_settings),
 * in every mode: until MPI_Init has returned even native mode runs the hooks
 * of MPI_Init, then it bypasses. */
__attribute__((constructor)) static void icc_load(void)
{
    char err[1024];
    const char *m = isochron_setting_get("ISOCHRON_CC_MODE", "cc");
    if (isochron_setting_choice("ISOCHRON_CC_MODE", m, icc_mode_names, 3, "mode", &icc->mode, err, sizeof err)) {
        fprintf(stderr, "isochron-cc: %s\n", err);
        _exit(ISOCHRON_PMPI_EXIT_SETTING);
    }
    icc->bypass = 0;
}

/* At unload: MPI was initialized but never through this layer's MPI_Init (Open MPI's Fortran
 * bindings call PMPI_* directly, docs/applications.md), so the program ran without the layer:
 * said on stderr (the exit status is the program's: nothing the layer was to write was lost). */
__attribute__((destructor)) static void icc_unload(void)
{
    int ini = 0;
    if (icc->saw_init || PMPI_Initialized(&ini) != MPI_SUCCESS || !ini) return;
    fprintf(stderr, "isochron-cc: MPI was initialized without passing through this layer's MPI_Init: the program "
                    "ran without collective clocks or checkpoints (a Fortran program under Open MPI, whose bindings "
                    "call PMPI_* directly, needs LD_AUDIT=libisochron-fortran.so beside LD_PRELOAD)\n");
}

/* MPI_Comm_create_group is collective over `group` only (not over comm's
 * group): its SEQ is the ggid of `group`'s members (written by hand: the call
 * record carries no group). */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    if (icc->bypass || icc->mode != ICC_CC) return PMPI_Comm_create_group(comm, group, tag, newcomm);
    int g = group == MPI_GROUP_NULL || group == MPI_GROUP_EMPTY ? -1 : icc_group_of_mpi_group(group);
    if (icc->attn) icc_poll(ICC_COLL, "MPI_Comm_create_group", g);
    if (g >= 0) {
        icc->groups[g].seq++;
        if (icc->pending) icc_seq_bumped(g);
    }
    return PMPI_Comm_create_group(comm, group, tag, newcomm);
}

/* 2pc mode (MANA's two-phase commit, paper 003 2.2): a stop point at the entry (a rank prepared for a
 * checkpoint votes and holds here, before its barrier), then PMPI_Ibarrier on the collective's
 * communicator and a test loop that is a stop point too while the barrier is incomplete (cc_2pc.c). Only a completed barrier lets the rank into the collective. */
void icc_2pc_enter(MPI_Comm comm, const char *name)
{
    if (icc->attn) icc_poll(ICC_STOP, name, -1);
    MPI_Request r;
    int flag = 0;
    PMPI_Ibarrier(comm, &r);
    for (;;) {
        PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        if (flag) return;
        if (icc->attn) {
            icc->barrier = &r;
            icc_poll(ICC_BARRIER, name, -1);
            icc->barrier = NULL;
        }
    }
}

/* the generated wrappers' hooks for every category but collectives (those are inline: cc_hooks.h) */
static void enter_other(isochron_pmpi_call_t *c)
{
    switch (c->category) {
    case ISOCHRON_PMPI_COLL:
    case ISOCHRON_PMPI_ICOLL:
    case ISOCHRON_PMPI_COMMCREATE: {
        if (icc->mode == ICC_2PC) {
            if (c->category != ISOCHRON_PMPI_COMMCREATE) icc_2pc_enter(c->comm, c->name);
            return;
        }
        int g = icc_lookup(c->comm, 1);
        if (icc->attn) icc_poll(ICC_COLL, c->name, g);   /* Algorithm 3 at commit_begin */
        if (g >= 0) {
            icc->groups[g].seq++;                         /* Algorithm 1 */
            if (icc->pending) icc_seq_bumped(g);      /* Algorithm 2 */
        }
        c->layer = (void *)(intptr_t)(g + 1);
        return;
    }
    case ISOCHRON_PMPI_INIT:
        if (c->id == ISOCHRON_PMPI_ID_MPI_Finalize && icc->mode != ICC_NATIVE) icc_finalize_protocol();
        return;
    case ISOCHRON_PMPI_P2P:      /* MPI_Bsend: the others are written by hand */
        if (icc->mode == ICC_NATIVE) return;
        if (icc->attn) icc_poll(ICC_PASS, c->name, -1);
        icc_count_sent(c->comm, c->peer);
        return;
    case ISOCHRON_PMPI_GROUP:
        return;
    default:
        if (icc->mode != ICC_NATIVE && icc->attn) icc_poll(ICC_PASS, c->name, -1);
        return;
    }
}

static int leave_other(isochron_pmpi_call_t *c, int rc)
{
    if (c->category == ISOCHRON_PMPI_INIT) {
        if (c->id == ISOCHRON_PMPI_ID_MPI_Finalize) {
            if (icc->output_lost) exit(ISOCHRON_PMPI_EXIT_LOST);   /* said at MPI_Finalize (icc_finalize_protocol) */
        } else if (rc == MPI_SUCCESS) {
            icc->saw_init = 1;
            icc_settings();                  /* every mode: a bad setting stops the job here, on every rank */
            if (icc->mode != ICC_NATIVE) icc_init_protocol();
            icc->bypass = icc->mode == ICC_NATIVE;
        }
        return rc;
    }
    if (icc->mode == ICC_NATIVE) return rc;
    switch (c->category) {
    case ISOCHRON_PMPI_COMMFREE:
        icc_forget(c->comm);
        break;
    case ISOCHRON_PMPI_ICOLL:
    case ISOCHRON_PMPI_COMMCREATE:   /* MPI_Comm_idup carries a request */
        if (rc == MPI_SUCCESS && c->request)
            icc_req_track(*c->request, ICC_REQ_ICOLL, (int)(intptr_t)c->layer - 1, MPI_ANY_SOURCE);
        break;
    case ISOCHRON_PMPI_IP2P:
        if (rc != MPI_SUCCESS) break;
        if (c->id == ISOCHRON_PMPI_ID_MPI_Irecv) {
            if (c->peer != MPI_PROC_NULL) icc_req_track(*c->request, ICC_REQ_RECV, icc_peer_view(c->comm), c->peer);
        }
        else icc_count_sent(c->comm, c->peer);
        break;
    default:
        break;
    }
    return rc;
}

/* The fields these read, passed by value: the wrapper's record never has its
 * address taken, so the compiler keeps none of it in a collective's wrapper. */
intptr_t icc_enter_other(int id, int category, const char *name, MPI_Comm comm, int peer)
{
    isochron_pmpi_call_t c = { .id = id, .name = name, .category = category, .comm = comm, .peer = peer };
    enter_other(&c);
    return (intptr_t)c.layer;
}

int icc_leave_other(int id, int category, MPI_Comm comm, int peer, MPI_Request *request, intptr_t layer, int rc)
{
    isochron_pmpi_call_t c = { .id = id, .category = category, .comm = comm, .peer = peer, .request = request,
                               .layer = (void *)layer };
    return leave_other(&c, rc);
}

const char *isochron_cc_mode(void) { return icc_mode_names[icc->mode]; }

long long isochron_cc_seq(MPI_Comm comm)
{
    if (icc->mode != ICC_CC) return -1;
    int g = icc_lookup(comm, 1);
    return g < 0 ? -1 : icc->groups[g].seq;
}

long long isochron_cc_ggid(MPI_Comm comm)
{
    if (icc->mode != ICC_CC) return -1;
    return icc_lookup(comm, 1);
}

int isochron_cc_ngroups(void) { return icc->mode == ICC_CC ? icc->ngroups : -1; }
