/* libisochron-cc.so: the ggid table (paper 003, 4.1) -- the bottom of src/cc, below the message
 * tracking (cc_track.c), the protocol (cc_ckpt*.c, cc_2pc.c, cc_agree.c) and the wrappers (cc.c, cc_p2p.c); it calls none
 * of them. It holds the layer's one shared state (icc_state), the communicator -> group/view cache,
 * the groups (a ggid: FNV-1a over the SET of world ranks, as the paper defines it; why one SEQ per
 * set is safe: docs/collective-clocks.md, "ggid") and their views (a communicator's rank order), and
 * restores a group's SEQ from a restart file's groups (icc->rs_groups, read by cc_ckpt_file.c) when the
 * group is seen again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi/pmpi.h"
#include "cc/cc_internal.h"

/* the layer's one shared state (cc_internal.h) */
icc_state_t icc_state = { .mode = ICC_CC, .size = 1, .last_comm = MPI_COMM_NULL, .last_group = -1, .last_view = -1 };

/* comm handle -> group index cache (open addressing, handles as bytes) */
typedef struct { MPI_Comm comm; int used; int group, view; } icc_slot_t;
#define ICC_SLOTS 1024
static icc_slot_t slots[ICC_SLOTS];

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

/* a growable array a of n elements with room for one more: its capacity *cap doubles (from 16) when
 * full; out of memory aborts, as xalloc does */
static void *grow(void *a, int n, int *cap, size_t elem)
{
    if (n < *cap) return a;
    *cap = *cap ? 2 * *cap : 16;
    void *p = realloc(a, (size_t)*cap * elem);
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
    icc->groups = grow(icc->groups, icc->ngroups, &icc->capgroups, sizeof *icc->groups);
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
    icc->views = grow(icc->views, icc->nviews, &icc->capviews, sizeof *icc->views);
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
int icc_group_of_mpi_group(MPI_Group grp)
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

void icc_forget(MPI_Comm comm)
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

void icc_group_created(int g)
{
    icc_group_t *G = &icc->groups[g];
    for (int i = 0; i < icc->rs_ngroups; i++)
        if (icc->rs_groups[i].n == G->size && memcmp(icc->rs_groups[i].members, G->members, (size_t)G->size * sizeof(int)) == 0) {
            G->seq = icc->rs_groups[i].seq;   /* seen again after a restart */
            return;
        }
}
