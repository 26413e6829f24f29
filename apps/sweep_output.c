/*
 * A library sweep's output in a driver (isochron_sweep_run, isochron/bench.h; src/bench/sweep.c runs it):
 * every point to every reporter as soon as it is done (paper 000 sec. V), the pairwise experiments as
 * pair, matrix and triplet records (paper 001 sec. 4), one progress line per point or pass on stderr, the
 * watchdog around each point, and after the sweep what keeping the clock true cost and the end record
 * listing the skipped points. The library calls back; this file only writes.
 */
#include <stdio.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "common.h"

static void on_begin(void *a, const isochron_op_t *op, size_t bytes)
{
    const app_sweep_sink_t *k = a;
    char what[96];
    snprintf(what, sizeof what, "%s at %zu B", op->name, bytes);
    app_watchdog_arm(k->prog, k->watchdog, k->rank, what, k->out);
}
static void on_end(void *a) { (void)a; app_watchdog_disarm(); }
static void on_point(void *a, const isochron_sweep_step_t *st)
{
    const app_sweep_sink_t *k = a;
    const isochron_point_t *p = st->point;
    if (st->final) {
        for (int r = 0; r < 3; r++) if (k->reps[r]) isochron_report_point(k->reps[r], p, k->bo->scheme, k->bo->method);
        app_interrupt_count(st->done);
    }
    if (k->quiet) return;
    char tb[32], pb[32] = "";
    if (st->passes > 1) snprintf(pb, sizeof pb, "pass %d/%d ", st->pass + 1, st->passes);
    fprintf(stderr, "[%s%d/%d] %s %zu B: median %s, %d/%d valid%s (ETA %.0f s)\n", pb, st->index + 1, st->total, p->op, p->bytes,
            isochron_fmt_time(p->s.median, tb, sizeof tb), p->valid, p->reps, st->passes > 1 && st->final ? " (all passes)" : "", st->eta);
}
static void on_skipped(void *a, const isochron_sweep_skip_t *sk)
{
    const app_sweep_sink_t *k = a;
    fprintf(stderr, "%s: %s at %zu B skipped: %s\n", k->prog, sk->op, sk->bytes, sk->why);
}
static void on_failed(void *a, const char *what, size_t bytes, const char *why)
{
    const app_sweep_sink_t *k = a;
    fprintf(stderr, "%s: %s at %zu B failed: %s\n", k->prog, what, bytes, why);
}
/* allpairs: one "pair" record per pair (table/csv: op "allpairs:i-j") and one "matrix" record per size */
static void on_pairs(void *a, const char *mode, size_t bytes, int p, int reps, double wall, const isochron_pair_t *pr)
{
    const app_sweep_sink_t *k = a;
    for (int r = 0; r < 3; r++) if (k->reps[r]) isochron_report_pairs(k->reps[r], mode, bytes, p, reps, wall, pr);
    for (int r = 0; r < 3; r++) if (k->reps[r]) isochron_report_matrix(k->reps[r], mode, bytes, p, reps, wall, pr);
    if (!k->quiet) fprintf(stderr, "[allpairs] %s %zu B: %d pairs x %d round trips in %.3f s\n", mode, bytes, p * (p - 1) / 2, reps, wall);
}
/* p2t: one "triplet" record each (table/csv: op "p2t:i-j+k") */
static void on_triplets(void *a, size_t bytes, int p, int reps, double wall, const isochron_triplet_t *tr, int n)
{
    const app_sweep_sink_t *k = a;
    for (int r = 0; r < 3; r++) if (k->reps[r]) isochron_report_triplets(k->reps[r], bytes, p, reps, wall, tr, n);
    if (!k->quiet) fprintf(stderr, "[p2t] %zu B: %d triplets x %d exchanges in %.3f s\n", bytes, n, reps, wall);
}

/* After the sweep (rank 0): what keeping the clock true cost (all ranks take part in every refresh), the skipped
 * points, the end record of every reporter. */
static void finish(const app_sweep_sink_t *k, isochron_sweep_t *sw, const isochron_sweep_result_t *res)
{
    isochron_reporter_t **reps = k->reps;
    isochron_bench_t *bench = isochron_sweep_bench(sw);
    isochron_track_t *trk = bench ? isochron_bench_tracker(bench) : NULL;
    if (trk) {
        isochron_track_info_t ti;
        isochron_track_info(trk, &ti);
        double wall = isochron_truth_now() - k->wall0;
        if (!k->quiet) fprintf(stderr, "%s: clock tracking: %d refreshes, %.1f ms (%.2f %% of the run)\n", k->prog, ti.refreshes, ti.cost * 1e3, 100 * ti.cost / wall);
        if (reps[1]) isochron_report_track(reps[1], ti.refreshes, ti.cost, wall);
    }
    if (res->nskipped) fprintf(stderr, "%s: %d point(s) skipped; the run is incomplete (exit 1)\n", k->prog, res->nskipped);
    for (int r = 0; r < 3; r++)
        if (reps[r]) isochron_report_end_skipped(reps[r], isochron_truth_now() - k->wall0, res->done, !res->failed && !res->nskipped, res->skipped, res->nskipped);
}

int app_sweep_run(const app_sweep_sink_t *k, isochron_sweep_t *sw, isochron_clock_t **global, isochron_track_t **track)
{
    isochron_sweep_clock_t clk;
    isochron_sweep_cb_t cb = {on_begin, on_end, on_point, on_skipped, on_failed, on_pairs, on_triplets, (void *)k};
    isochron_sweep_result_t res;
    if (isochron_sweep_run(sw, &cb, &res)) {
        if (k->rank == 0) fprintf(stderr, "%s: %s\n", k->prog, isochron_last_error());
        res.failed = 1;
    }
    if (k->rank == 0) finish(k, sw, &res);
    isochron_sweep_clock(sw, &clk);
    *global = clk.global;
    *track = clk.track;
    return res.failed || res.nskipped;
}

void app_sweep_notes(const char *prog, const isochron_sweep_opts_t *so, int nprocs, int rank)
{
    for (int i = 0; i < so->nops && rank == 0 && nprocs > 2; i++)
        if (so->ops[i]->flags & ISOCHRON_OP_PAIR) {
            char who[64];
            if (nprocs == 3) snprintf(who, sizeof who, "rank 2 sends nothing and only joins");
            else snprintf(who, sizeof who, "ranks 2..%d send nothing and only join", nprocs - 1);
            fprintf(stderr, "%s: note: %s: only ranks 0 and 1 take part; %s the synchronization between repetitions\n", prog, so->ops[i]->name, who);
        }
}
