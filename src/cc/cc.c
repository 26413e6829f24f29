/* libisochron-cc.so: the collective-clock layer of paper 003 (sections 3-4),
 * interposed through PMPI with the wrappers tools/gen-pmpi.py generates from
 * src/pmpi/mpi.tbl (layer prefix "icc"); cc_p2p.c writes the blocking
 * point-to-point, probe and completion wrappers by hand, cc_ckpt.c holds the
 * checkpoint protocol (its design paragraph: Algorithms 2-3, agreement, safe
 * state, action, restart, state log).
 *
 * Design of this file. ISOCHRON_CC_MODE (read once, at load) selects
 *   native  every wrapper is a tail call to PMPI (icc_bypass = 1 from the
 *           return of MPI_Init on, whose hooks check the settings);
 *   2pc     the two-phase-commit baseline as MANA does it: before every
 *           blocking collective and every non-blocking collective initiation,
 *           PMPI_Ibarrier on the same communicator and a PMPI_Test loop, with
 *           its checkpoints (prepare, vote, commit or abort and retry, and
 *           restart: cc_ckpt.c, "2pc mode"); point-to-point calls are counted
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
 *           cc_ckpt.c, and kept set while a checkpoint is in progress).
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
/* the layer's one shared state (cc_internal.h) */
icc_state_t icc_state = { .mode = ICC_CC, .size = 1, .last_comm = MPI_COMM_NULL, .last_group = -1, .last_view = -1 };

/* comm handle -> group index cache (open addressing, handles as bytes) */
typedef struct { MPI_Comm comm; int used; int group, view; } icc_slot_t;
#define ICC_SLOTS 1024
static icc_slot_t slots[ICC_SLOTS];

/* ISOCHRON_CC_MODE is read when the library is loaded (the wrappers need the
 * mode from the first call on): a bad one ends every process that loads the
 * library with exit status 2 and the valid modes, before the application's
 * main. The other settings are checked in MPI_Init (cc_ckpt.c, icc_settings),
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

static uint64_t handle_key(MPI_Comm comm)
{
    uint64_t k = 0;
    memcpy(&k, &comm, sizeof comm < sizeof k ? sizeof comm : sizeof k);
    return k * 0x9e3779b97f4a7c15ull;
}

static void *xalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    return p;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* the members in ascending order (a new array): the group as a set */
static int *ascending(const int *w, int n)
{
    int *s = xalloc((size_t)n * sizeof *s);
    memcpy(s, w, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_int);
    return s;
}

/* FNV-1a over the world ranks in ascending order: paper 003's ggid, a hash of the participating
 * processes' world ranks, equal for every communicator over the same set of processes */
uint64_t icc_members_hash(const int *w, int n)
{
    int *a = ascending(w, n);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uint32_t)a[i];
        h *= 1099511628211ull;
    }
    free(a);
    return icc->collide ? 42 : h;
}

int icc_group_of_members(const int *wl, int n)
{
    int *w = ascending(wl, n);
    uint64_t h = icc_members_hash(w, n);
    for (int g = 0; g < icc->ngroups; g++)
        if (icc->groups[g].hash == h && icc->groups[g].size == n && memcmp(icc->groups[g].members, w, (size_t)n * sizeof *w) == 0) {
            free(w);
            return g;
        }
    if (icc->ngroups == icc->capgroups) {
        icc->capgroups = icc->capgroups ? 2 * icc->capgroups : 16;
        icc->groups = realloc(icc->groups, (size_t)icc->capgroups * sizeof *icc->groups);
        if (!icc->groups) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    }
    icc_group_t *g = &icc->groups[icc->ngroups];
    g->hash = h;
    g->size = n;
    g->members = w;
    g->seq = 0;
    g->target = 0;
    g->dirty = 0;
    g->me = 0;
    for (int i = 0; i < n; i++)
        if (w[i] == icc->rank) g->me = 1;
    icc->ngroups++;
    icc_group_created(icc->ngroups - 1);
    return icc->ngroups - 1;
}

/* the view of world ranks w (in a communicator's rank order) of group g */
static int view_of(const int *w, int n, int g)
{
    for (int v = 0; v < icc->nviews; v++)
        if (icc->views[v].group == g && icc->views[v].size == n && memcmp(icc->views[v].world, w, (size_t)n * sizeof *w) == 0)
            return v;
    if (icc->nviews == icc->capviews) {
        icc->capviews = icc->capviews ? 2 * icc->capviews : 16;
        icc->views = realloc(icc->views, (size_t)icc->capviews * sizeof *icc->views);
        if (!icc->views) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    }
    icc_view_t *V = &icc->views[icc->nviews];
    V->size = n;
    V->group = g;
    V->world = xalloc((size_t)n * sizeof *w);
    memcpy(V->world, w, (size_t)n * sizeof *w);
    return icc->nviews++;
}

/* a communicator's group (returned) and view (*view: its own ranks' order; both sides of an intercommunicator,
 * lower-ranked side first, the way peers are never translated: icc_peer_view gives -1 for those) */
static int compute_group(MPI_Comm comm, int *view)
{
    MPI_Group grp, world, rgrp;
    int inter = 0, n = 0, nr = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Comm_group(comm, &grp);
    PMPI_Group_size(grp, &n);
    if (inter) {
        PMPI_Comm_remote_group(comm, &rgrp);
        PMPI_Group_size(rgrp, &nr);
    }
    int *idx = malloc((size_t)(n + nr + 1) * sizeof *idx);
    int *w = malloc((size_t)(n + nr + 1) * sizeof *w);
    if (!idx || !w) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    for (int i = 0; i < n + nr; i++) idx[i] = i < n ? i : i - n;
    PMPI_Group_translate_ranks(grp, n, idx, world, w);
    if (inter) {
        /* an intercommunicator's group: both sides, lower-ranked side first */
        PMPI_Group_translate_ranks(rgrp, nr, idx + n, world, w + n);
        if (nr > 0 && n > 0 && w[n] < w[0]) {
            int *t = malloc((size_t)(n + nr) * sizeof *t);
            if (!t) PMPI_Abort(MPI_COMM_WORLD, 1);
            memcpy(t, w + n, (size_t)nr * sizeof *t);
            memcpy(t + nr, w, (size_t)n * sizeof *t);
            memcpy(w, t, (size_t)(n + nr) * sizeof *t);
            free(t);
        }
        PMPI_Group_free(&rgrp);
    }
    int g = icc_group_of_members(w, n + nr);
    *view = view_of(w, n + nr, g);
    free(idx);
    free(w);
    PMPI_Group_free(&grp);
    PMPI_Group_free(&world);
    return g;
}

/* the ggid of an MPI_Group's world ranks */
static int group_of_mpi_group(MPI_Group grp)
{
    MPI_Group world;
    int n = 0;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_size(grp, &n);
    int *idx = malloc((size_t)(n + 1) * sizeof *idx), *w = malloc((size_t)(n + 1) * sizeof *w);
    if (!idx || !w) { fprintf(stderr, "isochron-cc: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 1); }
    for (int i = 0; i < n; i++) idx[i] = i;
    PMPI_Group_translate_ranks(grp, n, idx, world, w);
    int g = icc_group_of_members(w, n);
    free(idx);
    free(w);
    PMPI_Group_free(&world);
    return g;
}

/* MPI_Comm_create_group is collective over `group` only (not over comm's
 * group): its SEQ is the ggid of `group`'s members (written by hand: the call
 * record carries no group). */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    if (icc->bypass || icc->mode != ICC_CC) return PMPI_Comm_create_group(comm, group, tag, newcomm);
    int g = group == MPI_GROUP_NULL || group == MPI_GROUP_EMPTY ? -1 : group_of_mpi_group(group);
    if (icc->attn) icc_poll(ICC_COLL, "MPI_Comm_create_group", g);
    if (g >= 0) {
        icc->groups[g].seq++;
        if (icc->pending) icc_seq_bumped(g);
    }
    return PMPI_Comm_create_group(comm, group, tag, newcomm);
}

int icc_lookup(MPI_Comm comm, int create)
{
    if (comm == MPI_COMM_NULL) return -1;
    if (comm == icc->last_comm) return icc->last_group;
    unsigned h = (unsigned)(handle_key(comm) >> 40) % ICC_SLOTS;
    for (unsigned i = 0; i < ICC_SLOTS; i++) {
        icc_slot_t *s = &slots[(h + i) % ICC_SLOTS];
        if (s->used == 1 && memcmp(&s->comm, &comm, sizeof comm) == 0) {
            icc->last_comm = comm;
            icc->last_group = s->group;
            icc->last_view = s->view;
            return s->group;
        }
        if (s->used == 0) {
            if (!create) return -1;
            s->comm = comm;
            s->group = compute_group(comm, &s->view);
            s->used = 1;
            icc->last_comm = comm;
            icc->last_group = s->group;
            icc->last_view = s->view;
            return s->group;
        }
    }
    if (!create) return -1;
    int view, g = compute_group(comm, &view);   /* cache full: not cached, but remembered as the last one */
    icc->last_comm = comm;
    icc->last_group = g;
    icc->last_view = view;
    return g;
}

int icc_lookup_view(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return -1;
    if (comm != icc->last_comm) icc_lookup(comm, 1);
    return icc->last_view;
}

static void forget(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return;
    if (comm == icc->last_comm) {                /* the handle may be reused for another group */
        icc->last_comm = MPI_COMM_NULL;
        icc->last_group = icc->last_view = -1;
    }
    unsigned h = (unsigned)(handle_key(comm) >> 40) % ICC_SLOTS;
    for (unsigned i = 0; i < ICC_SLOTS; i++) {
        icc_slot_t *s = &slots[(h + i) % ICC_SLOTS];
        if (s->used == 0) return;
        if (s->used == 1 && memcmp(&s->comm, &comm, sizeof comm) == 0) {
            s->used = 2; /* tombstone keeps later probes intact */
            return;
        }
    }
}

/* 2pc mode (MANA's two-phase commit, paper 003 2.2): a stop point at the entry (a rank prepared for a
 * checkpoint votes and holds here, before its barrier), then PMPI_Ibarrier on the collective's
 * communicator and a test loop that is a stop point too while the barrier is incomplete (cc_ckpt.c,
 * "2pc mode"). Only a completed barrier lets the rank into the collective. */
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
        forget(c->comm);
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
