/*
 * The sweep: every point of a run, in order, as a library call (isochron/bench.h, isochron_sweep_run), so
 * that a program using the library gets what isochron-bench does (paper000 sec. V: one point after the
 * other, each written as soon as it is done; paper001 sec. 4: the all-pairs experiment first).
 *
 * Order: the pairwise experiments (allpairs, p2t) size by size, then operation x size x root, the same
 * list in every pass (--passes: each pass measures its share, isochron_bench_pass_opts, and rank 0 keeps
 * the union, src/bench/passes.c). Between points the clocks are synchronized again after `resync`
 * seconds: a new global clock, a new tracker and a new engine. Every point's outcome is agreed over the
 * whole communicator (ranks outside the measured sub-communicator join with success), so all ranks take
 * the same branch. A point whose set-up failed alike on every rank (an operation the library lacks, a
 * library defect refused as unsupported, a window the one-sided component cannot make across nodes) is
 * skipped in every pass and listed; the communicator is unharmed. Any other failure (a validation error,
 * a failed run) may have left it unusable and ends the sweep. Results go out through callbacks: the
 * engine's module knows no reporter (the report module sits above it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "bench/bench_impl.h"

struct isochron_sweep {
    MPI_Comm world, comm; /* comm: the first nprocs ranks (MPI_COMM_NULL elsewhere) */
    int rank, size, nprocs, over;
    isochron_sweep_opts_t so;
    isochron_bench_opts_t bo, bp; /* the options asked for, and the engine's: one pass's share */
    isochron_sweep_clock_t clk;
    isochron_bench_t *bench;
    int npts, *pidx;       /* the points: (operation, size, root) triples */
    isochron_sweep_skip_t *skips;
};

static int make_engine(isochron_sweep_t *s)
{
    s->bench = NULL;
    if (s->comm == MPI_COMM_NULL) return ISOCHRON_OK;
    int rc = isochron_bench_create(s->comm, s->clk.global, &s->bp, &s->bench);
    if (!rc && s->clk.track) isochron_bench_use_tracker(s->bench, s->clk.track); /* else (sub-communicator) the engine tracks on its own */
    return rc;
}

int isochron_sweep_create(MPI_Comm world, int nprocs, const isochron_sweep_opts_t *so, const isochron_bench_opts_t *bo,
                          const isochron_sweep_clock_t *clk, isochron_sweep_t **out)
{
    *out = NULL;
    isochron_sweep_t *s = calloc(1, sizeof *s);
    if (!s) return isochron_set_error(ISOCHRON_ENOMEM, "sweep: out of memory");
    s->world = world;
    MPI_Comm_rank(world, &s->rank);
    MPI_Comm_size(world, &s->size);
    s->nprocs = nprocs < 1 || nprocs > s->size ? s->size : nprocs;
    s->so = *so;
    if (s->so.passes < 1) s->so.passes = 1;
    s->clk = *clk;
    s->bo = *bo;
    isochron_bench_pass_opts(bo, s->so.passes, &s->bp);
    int nroots = so->all_roots ? s->nprocs : 1, total = 0;
    for (int i = 0; i < so->nops; i++) total += so->nsizes * ((so->ops[i]->flags & ISOCHRON_OP_ROOTED) ? nroots : 1);
    s->pidx = malloc(sizeof(int) * 3 * (size_t)(total > 0 ? total : 1));
    s->skips = calloc((size_t)(total > 0 ? total : 1), sizeof *s->skips);
    if (!s->pidx || !s->skips) { free(s->pidx); free(s->skips); free(s); return isochron_set_error(ISOCHRON_ENOMEM, "sweep: out of memory for %d points", total); }
    for (int i = 0; i < so->nops; i++) {
        int nr = (so->ops[i]->flags & ISOCHRON_OP_ROOTED) ? nroots : 1;
        for (int z = 0; z < so->nsizes; z++)
            for (int rt = 0; rt < nr; rt++) { s->pidx[3 * s->npts] = i; s->pidx[3 * s->npts + 1] = z; s->pidx[3 * s->npts + 2] = rt; s->npts++; }
    }
    MPI_Comm_split(world, s->rank < s->nprocs ? 0 : MPI_UNDEFINED, s->rank, &s->comm);
    int rc = make_engine(s);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, world);
    if (rc) { isochron_sweep_destroy(s); return rc; }
    s->over = s->bench ? isochron_bench_oversubscribed(s->bench) : 0;
    MPI_Bcast(&s->over, 1, MPI_INT, 0, world);
    *out = s;
    return ISOCHRON_OK;
}

static const char *thread_level_name(int provided)
{
    return provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : provided == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
           : provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "an unknown level";
}

/* One operation at every size: the element size divides each size, and the memory the point needs is there. */
static int check_sizes(const isochron_sweep_opts_t *so, const isochron_bench_opts_t *bo, const isochron_op_t *op, int nprocs, int dsz, size_t avail)
{
    const isochron_op_ctx_t *x = &so->ctx;
    if (op->flags & ISOCHRON_OP_PARTITIONED) {
        size_t unit = (size_t)x->partitions * (size_t)(x->dtype != MPI_DATATYPE_NULL ? dsz : 1);
        for (int z = 0; z < so->nsizes; z++)
            if (so->sizes[z] % unit)
                return isochron_set_error(ISOCHRON_EINVAL, "%s: size %zu B does not split into %d partitions of whole elements: use sizes that are multiples of %zu B, or --partitions that divides them",
                                          op->name, so->sizes[z], x->partitions, unit);
    }
    int esz = x->dtype != MPI_DATATYPE_NULL ? dsz : (op->flags & ISOCHRON_OP_REDUCTION) ? (int)sizeof(int) : 1;
    for (int z = 0; z < so->nsizes; z++) {
        if (so->sizes[z] % (size_t)esz)
            return isochron_set_error(ISOCHRON_EINVAL, "%s: size %zu B is not a multiple of the datatype size %d (use --dtype byte or sizes in multiples of %d)",
                                      op->name, so->sizes[z], esz, esz);
        isochron_op_ctx_t c = *x;
        c.size = nprocs;
        c.bytes = so->sizes[z];
        c.thread_level = 0;
        size_t need = isochron_op_memory_needed(op, &c);
        if (bo->rotate_root && (op->flags & ISOCHRON_OP_ROOTED)) /* every root set up at once */
            for (c.root = 1; c.root < nprocs; c.root++) need += isochron_op_memory_needed(op, &c);
        if (need > avail)
            return isochron_set_error(ISOCHRON_EINVAL, "%s at %zu B needs %zu bytes per process, more than the %zu available (node memory free now / ranks per node)",
                                      op->name, so->sizes[z], need, avail);
    }
    return ISOCHRON_OK;
}

int isochron_sweep_check(const isochron_sweep_opts_t *so, const isochron_bench_opts_t *bo, MPI_Comm comm, int nprocs, int provided)
{
    size_t avail = 0;
    int dsz = 1, rc;
    isochron_op_memory_available(comm, &avail);
    if (so->ctx.dtype != MPI_DATATYPE_NULL) MPI_Type_size(so->ctx.dtype, &dsz);
    if (so->allpairs && nprocs < 2) return isochron_set_error(ISOCHRON_EINVAL, "allpairs needs at least 2 processes (running on %d)", nprocs);
    if (so->p2t && nprocs < 3) return isochron_set_error(ISOCHRON_EINVAL, "p2t needs at least 3 processes (running on %d)", nprocs);
    for (int z = 0; (so->allpairs || so->p2t) && z < so->nsizes; z++)
        if (so->sizes[z] > (size_t)1 << 30 || 2 * so->sizes[z] > avail)
            return isochron_set_error(ISOCHRON_EINVAL, "allpairs at %zu B needs %zu bytes per process, more than the %zu available (or above 1 GiB)",
                                      so->sizes[z], 2 * so->sizes[z], avail);
    for (int i = 0; i < so->nops; i++) {
        const isochron_op_t *op = so->ops[i];
        if ((op->flags & ISOCHRON_OP_THREADED) && provided != MPI_THREAD_MULTIPLE)
            return isochron_set_error(ISOCHRON_EINVAL, "%s needs MPI_THREAD_MULTIPLE; MPI_Init_thread asked for it and this MPI library provided %s",
                                      op->name, thread_level_name(provided));
        if ((op->flags & ISOCHRON_OP_MISSING) && op->setup) { /* its set-up only names what this library lacks */
            isochron_op_ctx_t none;
            memset(&none, 0, sizeof none);
            rc = op->setup(&none);
            return rc ? rc : isochron_set_error(ISOCHRON_EUNSUPPORTED, "%s: not available with this MPI library", op->name);
        }
        if ((op->flags & ISOCHRON_OP_MIN2) && nprocs < 2) return isochron_set_error(ISOCHRON_EINVAL, "%s needs at least 2 processes (running on %d)", op->name, nprocs);
        if (!strcasecmp(bo->timing, "origin") && !(op->flags & ISOCHRON_OP_RMA))
            return isochron_set_error(ISOCHRON_EINVAL, "--timing origin applies to one-sided operations (whose effect is complete at the origin), not '%s'; use auto, global or loop", op->name);
        if ((rc = isochron_op_accepts(op, so->ctx.dtype, so->ctx.op, so->ctx.in_place))) return rc;
        if ((rc = check_sizes(so, bo, op, nprocs, dsz, avail))) return rc;
    }
    return ISOCHRON_OK;
}

isochron_bench_t *isochron_sweep_bench(const isochron_sweep_t *s) { return s->bench; }
int isochron_sweep_oversubscribed(const isochron_sweep_t *s) { return s->over; }
int isochron_sweep_points(const isochron_sweep_t *s) { return s->npts; }
void isochron_sweep_clock(const isochron_sweep_t *s, isochron_sweep_clock_t *clk) { *clk = s->clk; }

void isochron_sweep_destroy(isochron_sweep_t *s)
{
    if (!s) return;
    isochron_bench_destroy(s->bench);
    if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
    free(s->pidx);
    free(s->skips);
    free(s);
}

/* allpairs (p2t 0) or p2t at every size: each size's status agreed over world; the first failure ends it. 1 if one failed. */
static int pairs_sweep(isochron_sweep_t *s, int p2t, const isochron_sweep_cb_t *cb, isochron_sweep_result_t *res)
{
    int p = 0, failed = 0, reps = s->bo.max_reps; /* the pairwise experiments take no passes: the whole count */
    if (s->comm != MPI_COMM_NULL) MPI_Comm_size(s->comm, &p);
    int n = p2t ? isochron_ops_p2t_count(p) : p * (p - 1) / 2;
    isochron_pair_t *pr = s->rank == 0 && !p2t ? calloc((size_t)n + 1, sizeof *pr) : NULL;
    isochron_triplet_t *tr = s->rank == 0 && p2t ? calloc((size_t)n + 1, sizeof *tr) : NULL;
    const char *mname = s->so.p2p_mode == ISOCHRON_P2P_SEQUENTIAL ? "sequential" : "parallel";
    for (int z = 0; z < s->so.nsizes && !failed; z++) {
        int rc = ISOCHRON_OK;
        double wall = 0;
        size_t bytes = s->so.sizes[z];
        if (s->comm != MPI_COMM_NULL)
            rc = p2t ? isochron_ops_p2t_run(s->comm, bytes, reps, s->bo.ci_level, tr, &wall)
                     : isochron_ops_allpairs_run(s->comm, bytes, reps, s->so.p2p_mode, s->bo.ci_level, pr, &wall);
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, s->world);
        res->done++;
        if (rc) {
            if (s->rank == 0 && cb->failed) cb->failed(cb->arg, p2t ? "p2t" : "allpairs", bytes, isochron_last_error());
            failed = 1;
        } else if (s->rank == 0 && p2t && cb->triplets) cb->triplets(cb->arg, bytes, p, reps, wall, tr, n);
        else if (s->rank == 0 && !p2t && cb->pairs) cb->pairs(cb->arg, mname, bytes, p, reps, wall, pr);
    }
    free(pr);
    free(tr);
    return failed;
}

/* Synchronize again over world (a new global clock, tracker and engine); a failed resync keeps the old clock. */
static int resync(isochron_sweep_t *s)
{
    double lt = isochron_truth_now();
    MPI_Bcast(&lt, 1, MPI_DOUBLE, 0, s->world);
    isochron_clock_t *g2 = NULL;
    isochron_sync_report_t srep;
    if (isochron_sync_run(s->clk.spec, s->world, s->clk.base, &g2, &srep) != ISOCHRON_OK) return ISOCHRON_OK;
    isochron_bench_destroy(s->bench);
    s->bench = NULL;
    int had = s->clk.track != NULL;
    isochron_track_destroy(s->clk.track);
    s->clk.track = NULL;
    isochron_clock_destroy(s->clk.global);
    s->clk.global = g2;
    isochron_track_opts_t to;
    isochron_track_opts_default(&to);
    to.follow = srep.follows;
    int rc = had && s->clk.track_on ? isochron_track_create(s->world, s->clk.global, &to, &s->clk.track) : ISOCHRON_OK;
    if (rc) return rc;
    return make_engine(s);
}

/* One point (pass): measured on comm, its outcome agreed over world; rank 0 adds the pass and calls back. */
static int one_point(isochron_sweep_t *s, int x, int pass, isochron_passes_t *acc, const isochron_sweep_cb_t *cb, isochron_sweep_result_t *res,
                     double wall0)
{
    const isochron_op_t *op = s->so.ops[s->pidx[3 * x]];
    size_t bytes = s->so.sizes[s->pidx[3 * x + 1]];
    int rt = s->pidx[3 * x + 2], final = pass == s->so.passes - 1;
    isochron_point_t pt;
    memset(&pt, 0, sizeof pt);
    int v[2] = {ISOCHRON_OK, 1}; /* the code, and whether a failure may be skipped */
    if (s->comm != MPI_COMM_NULL) {
        isochron_op_ctx_t c = s->so.ctx;
        c.bytes = bytes;
        if (s->so.all_roots) c.root = rt;
        if (cb->begin) cb->begin(cb->arg, op, bytes);
        v[0] = isochron_bench_measure(s->bench, op, &c, &pt);
        if (cb->end) cb->end(cb->arg);
        v[1] = !v[0] || v[0] == ISOCHRON_EUNSUPPORTED || isochron_bench_setup_failed(s->bench);
    }
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, s->world);
    res->measured++;
    const isochron_point_t *uni = NULL; /* passes: the union of the point's passes (rank 0) */
    int prc = v[0];
    if (!prc && s->rank == 0 && acc) prc = isochron_passes_add(acc, x, &pt);
    if (!prc && s->rank == 0 && acc && final) prc = isochron_passes_finish(acc, x, &uni);
    if (s->so.passes > 1) MPI_Bcast(&prc, 1, MPI_INT, 0, s->world);
    if (prc && v[0] && v[1]) {
        if (s->rank == 0) {
            isochron_sweep_skip_t *sk = &s->skips[res->nskipped];
            snprintf(sk->op, sizeof sk->op, "%s", op->name);
            sk->bytes = bytes;
            sk->root = s->so.all_roots ? rt : s->so.ctx.root;
            sk->code = v[0];
            snprintf(sk->why, sizeof sk->why, "%s", isochron_last_error());
            if (cb->skipped) cb->skipped(cb->arg, sk);
        }
        res->nskipped++;
    } else if (prc) {
        if (s->rank == 0 && cb->failed) cb->failed(cb->arg, op->name, bytes, isochron_last_error());
        res->failed = 1;
    } else {
        if (final) res->done++;
        if (s->rank == 0 && cb->point) {
            double el = isochron_truth_now() - wall0;
            isochron_sweep_step_t st = {uni ? uni : &pt, x, s->npts, pass, s->so.passes, final,
                                        el / res->measured * ((double)s->npts * s->so.passes - res->measured), res->done};
            cb->point(cb->arg, &st);
        }
    }
    if (acc && final) isochron_passes_release(acc, x);
    isochron_point_free(&pt);
    return prc && v[0] && v[1]; /* 1: skip it from now on */
}

int isochron_sweep_run(isochron_sweep_t *s, const isochron_sweep_cb_t *cb, isochron_sweep_result_t *res)
{
    static const isochron_sweep_cb_t none;
    if (!cb) cb = &none;
    memset(res, 0, sizeof *res);
    double wall0 = isochron_truth_now(), last_sync = wall0;
    if (s->so.allpairs) res->failed = pairs_sweep(s, 0, cb, res);
    if (s->so.p2t && !res->failed) res->failed = pairs_sweep(s, 1, cb, res);
    isochron_passes_t *acc = NULL;
    int rc = ISOCHRON_OK;
    if (s->so.passes > 1 && s->rank == 0) rc = isochron_passes_create(s->npts, &s->bo, &acc);
    char *skip = calloc((size_t)(s->npts > 0 ? s->npts : 1), 1);
    if (!skip && !rc) rc = isochron_set_error(ISOCHRON_ENOMEM, "sweep: out of memory for %d points", s->npts);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, s->world);
    for (int pass = 0; !rc && pass < s->so.passes && !res->failed; pass++)
        for (int x = 0; x < s->npts && !res->failed; x++) {
            if (skip[x]) continue;
            if (s->clk.spec && s->so.resync > 0 && isochron_truth_now() - last_sync > s->so.resync) {
                int r2 = resync(s);
                MPI_Allreduce(MPI_IN_PLACE, &r2, 1, MPI_INT, MPI_MIN, s->world);
                if (r2) {
                    if (s->rank == 0 && cb->failed) cb->failed(cb->arg, "clock resynchronization", 0, isochron_last_error());
                    res->failed = 1;
                    break;
                }
                last_sync = isochron_truth_now();
            }
            skip[x] = (char)one_point(s, x, pass, acc, cb, res, wall0);
        }
    isochron_passes_destroy(acc);
    free(skip);
    res->skipped = s->rank == 0 ? s->skips : NULL;
    res->wall = isochron_truth_now() - wall0;
    return rc;
}
