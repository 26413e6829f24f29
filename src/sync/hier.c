/*
 * isochron_sync_run: flat and hierarchical synchronization (paper 000,
 * sec. IV, Algorithm 4 H2HCA and its three-level form H3HCA).
 *   1 level : the algorithm runs on the whole communicator.
 *   2 levels: level 1 on one leader per node, level 2 within each node on top
 *             of the leader's global clock. A node is a shared-memory node
 *             (MPI_Comm_split_type SHARED), or with spec->node_size = N every
 *             block of N consecutive ranks: on one host that gives the top
 *             level more than one member, so the hierarchy really runs (on a
 *             single host H2HCA is otherwise just its lower level).
 *   3 levels: level 1 between nodes, level 2 between one leader per socket of
 *             each node, level 3 within each socket. A rank is on socket S
 *             only if its whole binding (hwloc_get_cpubind) lies in package
 *             S: the CPU a rank last ran on changes from run to run for an
 *             unbound rank. When some rank's binding spans packages the level
 *             is refused on every rank with a message saying how to bind.
 * Without hwloc every node counts as one socket (reported as sockets_split=0).
 * The reference is always rank 0 of the communicator: it is the leader of the
 * first node and of its first socket, because every split keeps rank order.
 * The duration reported includes creating the communicators, as in the paper.
 * Before anything, every shared-memory node checks whether it is
 * oversubscribed (more ranks than the CPUs its ranks may run on); if any is,
 * the pairs of every round take turns (see pair.c).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"
#if ISOCHRON_HAVE_HWLOC
#include <hwloc.h>
#endif

/* The socket (package) this rank is bound within: its logical index when the
 * binding of the calling thread (the one that measures; helper threads of the
 * MPI library may run anywhere) lies in one package (always 0 on a
 * one-package machine), -1 when it spans packages, described in why. */
static int socket_id(char *why, size_t whylen)
{
    why[0] = 0;
#if ISOCHRON_HAVE_HWLOC
    hwloc_topology_t topo;
    int id = 0;
    if (hwloc_topology_init(&topo) != 0) return 0;
    if (hwloc_topology_load(topo) == 0 && hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) > 1) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        id = -1;
        if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0) {
            hwloc_obj_t pkg = NULL;
            while ((pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pkg)))
                if (!hwloc_bitmap_iszero(set) && hwloc_bitmap_isincluded(set, pkg->cpuset)) { id = (int)pkg->logical_index; break; }
            if (id < 0) {
                char cpus[128];
                hwloc_bitmap_list_snprintf(cpus, sizeof cpus, set);
                snprintf(why, whylen, "bound to CPUs %s, which span %d sockets", cpus,
                         hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PACKAGE));
            }
        } else
            snprintf(why, whylen, "its CPU binding cannot be read");
        if (set) hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    return id;
#else
    (void)whylen;
    return 0;
#endif
}

/* All ranks of comm learn the first failing rank's code and message. */
static int agree_with_message(MPI_Comm comm, int rc)
{
    int all = isochron_agree(comm, rc);
    if (!all) return ISOCHRON_OK;
    int me, who;
    MPI_Comm_rank(comm, &me);
    int cand = rc == all ? me : INT_MAX;
    MPI_Allreduce(&cand, &who, 1, MPI_INT, MPI_MIN, comm);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", isochron_last_error());
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, who, comm);
    return isochron_set_error(all, "%s", msg);
}

static int world_rank_of(MPI_Comm level, int r, MPI_Comm top)
{
    MPI_Group a, b;
    int out = -1;
    MPI_Comm_group(level, &a);
    MPI_Comm_group(top, &b);
    MPI_Group_translate_ranks(a, 1, &r, b, &out);
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    return out;
}

/* Run one level on comm (MPI_COMM_NULL: this rank is not part of it). */
static int run_level(isochron_sync_ctx_t *ctx, const isochron_sync_level_t *lv, MPI_Comm comm, MPI_Comm top,
                     isochron_clock_t *in, isochron_clock_t **out, isochron_fit_info_t *fit, int *rounds)
{
    int size = 0;
    if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &size);
    if (size <= 1) return isochron_clock_copy(in, out);
    const isochron_sync_alg_t *alg;
    int rc = isochron_sync_alg_find(lv->alg, &alg);
    if (rc) return rc;
    ctx->lv = lv;
    ctx->rounds = 0;
    isochron_fit_info_t f;
    memset(&f, 0, sizeof f);
    f.partner = -1;
    rc = alg->sync(ctx, comm, in, out, &f);
    if (rc == ISOCHRON_OK && f.partner >= 0) {
        *fit = f;
        fit->partner = world_rank_of(comm, f.partner, top);
    }
    *rounds = ctx->rounds;
    return rc;
}

int isochron_sync_oversubscribed(MPI_Comm comm) { return isochron_comm_oversubscribed(comm); }

int isochron_sync_run(const isochron_sync_spec_t *spec, MPI_Comm comm, isochron_clock_t *base,
                      isochron_clock_t **global, isochron_sync_report_t *rep)
{
    isochron_sync_report_t dummy;
    if (!rep) rep = &dummy;
    memset(rep, 0, sizeof *rep);
    rep->fit.partner = -1;
    rep->follows = -1;
    *global = NULL;
    if (!spec || spec->nlevels < 1 || spec->nlevels > ISOCHRON_SYNC_MAX_LEVELS)
        return isochron_set_error(ISOCHRON_EINVAL, "sync: invalid spec (use isochron_sync_spec_parse)");
    if (spec->node_size < 0)
        return isochron_set_error(ISOCHRON_EINVAL, "sync: node size %d is negative (0: shared-memory nodes)", spec->node_size);
    double t0 = isochron_truth_now();
    MPI_Comm work, shm, node, leaders;
    if (MPI_Comm_dup(comm, &work) != MPI_SUCCESS) return isochron_set_error(ISOCHRON_EMPI, "sync: MPI_Comm_dup failed");
    int me;
    MPI_Comm_rank(work, &me);
    MPI_Comm_split_type(work, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shm);
    if (spec->node_size > 0) MPI_Comm_split(work, me / spec->node_size, me, &node); /* rank blocks as nodes */
    else MPI_Comm_dup(shm, &node);
    int node_rank;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_split(work, node_rank == 0 ? 0 : MPI_UNDEFINED, me, &leaders);
    int is_leader = node_rank == 0, nodes = 0, any_over = isochron_comm_oversubscribed(work);
    MPI_Comm_free(&shm);
    MPI_Allreduce(&is_leader, &nodes, 1, MPI_INT, MPI_SUM, work);
    rep->nodes = nodes;
    rep->oversubscribed = any_over;

    isochron_sync_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.serialize = any_over;
    ctx.xport = spec->xport;
    isochron_clock_t *cur = NULL, *next = NULL;
    int rc = ISOCHRON_OK, rounds = 0;
    MPI_Comm lv_comm[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Comm extra[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    if (spec->nlevels == 1) {
        lv_comm[0] = work;
    } else {
        lv_comm[0] = leaders;
        if (spec->nlevels == 2) {
            lv_comm[1] = node;
        } else {
            char why[256];
            int sock = socket_id(why, sizeof why), srank;
            rc = sock < 0 ? isochron_set_error(ISOCHRON_EUNSUPPORTED,
                                               "sync: the socket level of '%s+%s+%s' needs every rank bound within one socket, but rank %d is %s; "
                                               "bind the ranks (e.g. mpirun --bind-to core or --bind-to socket) or use a two-level spec",
                                               spec->level[0].alg, spec->level[1].alg, spec->level[2].alg, me, why)
                          : ISOCHRON_OK;
            if ((rc = agree_with_message(work, rc))) goto out;
            MPI_Comm_split(node, sock, node_rank, &extra[0]);
            MPI_Comm_rank(extra[0], &srank);
            MPI_Comm_split(node, srank == 0 ? 0 : MPI_UNDEFINED, node_rank, &extra[1]);
            lv_comm[1] = extra[1];
            lv_comm[2] = extra[0];
            int nsock = 0, mine_split = 0;
            if (extra[1] != MPI_COMM_NULL) MPI_Comm_size(extra[1], &nsock);
            mine_split = nsock > 1;
            MPI_Allreduce(&mine_split, &rep->sockets_split, 1, MPI_INT, MPI_MAX, work);
        }
    }
    if (!(spec->budget >= 0) || !isfinite(spec->budget)) {
        rc = agree_with_message(work, isochron_set_error(ISOCHRON_EINVAL, "sync: budget %g s is not a time (0: no limit)", spec->budget));
        goto out;
    }
    if (spec->budget > 0) { /* each pair's share: the budget over the rounds on the critical path */
        int total = 0;
        for (int l = 0; l < spec->nlevels; l++) {
            int ls = 0, lmax = 0;
            if (lv_comm[l] != MPI_COMM_NULL) MPI_Comm_size(lv_comm[l], &ls);
            MPI_Allreduce(&ls, &lmax, 1, MPI_INT, MPI_MAX, work);
            total += isochron_sync_rounds_of(spec->level[l].alg, lmax);
        }
        ctx.pair_budget = spec->budget / (total > 0 ? total : 1);
    }
    if ((rc = isochron_clock_copy(base, &cur))) goto out;
    for (int l = 0; l < spec->nlevels && !rc; l++) {
        int lr = 0, maxr = 0;
        rc = run_level(&ctx, &spec->level[l], lv_comm[l], work, cur, &next, &rep->fit, &lr);
        rc = agree_with_message(work, rc);
        MPI_Allreduce(&lr, &maxr, 1, MPI_INT, MPI_MAX, work);
        rounds += maxr;
        if (rc) break;
        /* prop as the last level: this rank's clock is its level leader's */
        int lsize = 0, lrank = 0;
        if (lv_comm[l] != MPI_COMM_NULL) { MPI_Comm_size(lv_comm[l], &lsize); MPI_Comm_rank(lv_comm[l], &lrank); }
        if (l == spec->nlevels - 1 && !strcmp(spec->level[l].alg, "prop") && lsize > 1 && lrank > 0)
            rep->follows = world_rank_of(lv_comm[l], 0, work);
        isochron_clock_destroy(cur);
        cur = next;
        next = NULL;
    }
    if (!rc) rc = agree_with_message(work, isochron_barrier_polite(work));
    if (!rc) MPI_Allreduce(&ctx.cut, &rep->cut_pairs, 1, MPI_INT, MPI_SUM, work);
    rep->pair_budget = ctx.pair_budget;
out:
    isochron_clock_destroy(next);
    for (int i = 0; i < 2; i++) if (extra[i] != MPI_COMM_NULL) MPI_Comm_free(&extra[i]);
    if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    MPI_Comm_free(&node);
    MPI_Comm_free(&work);
    if (rc) { isochron_clock_destroy(cur); return rc; }
    double d = isochron_truth_now() - t0;
    MPI_Bcast(&d, 1, MPI_DOUBLE, 0, comm);
    rep->duration = d;
    rep->rounds = rounds;
    rep->model = isochron_clock_model(cur);
    *global = cur;
    return ISOCHRON_OK;
}
