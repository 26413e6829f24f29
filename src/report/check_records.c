/*
 * The records of the clock check (include/isochron/report.h): what
 * isochron-clock writes about a synchronization and its accuracy check
 * (paper 000, Algorithm 6, against a ground truth where there is one). The
 * driver gathers every rank's model, fit, injected skew and tracking filter
 * into isochron_check_rank_t (all doubles, one MPI_Gather) and calls these
 * writers on rank 0; they put each record through the one JSON writer
 * (json.c), so the check's records have the number format, the schema
 * version and the flushing of every other record (schema:
 * python/src/isochron/results-1.schema.json). The records of one wait are
 * written as soon as that wait is measured, so an interrupted check keeps
 * every wait it finished. After the check, the same run is a table for a
 * reader (isochron_report_check_table, through a "table" reporter). The
 * bound rule (isochron_check_bounds) is here because the summary record and
 * the table must state the same bound.
 */
#include <math.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"
#include "report/format.h"

int isochron_report_timer_cost(isochron_reporter_t *r, const char *timer, const char *unavailable, double ns_per_call,
                               double resolution_ns, double tsc_hz)
{
    if (!r || !timer) return isochron_set_error(ISOCHRON_EINVAL, "timer_cost record: no reporter or timer");
    isochron_json_t j;
    if (!isochron_report_record_open(r, &j, "timer_cost")) return ISOCHRON_OK;
    isochron_json_kstring(&j, "timer", timer);
    isochron_json_kbool(&j, "available", unavailable == NULL);
    if (unavailable) isochron_json_kstring(&j, "reason", unavailable);
    else {
        isochron_json_knumber(&j, "ns_per_call", ns_per_call);
        isochron_json_knumber(&j, "resolution_ns", resolution_ns);
        isochron_json_knumber(&j, "tsc_hz", tsc_hz);
    }
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

isochron_check_rank_t isochron_check_rank_make(const isochron_sync_report_t *rep, const isochron_skew_t *sk,
                                               const isochron_track_info_t *ti, double timens)
{
    return (isochron_check_rank_t){
        rep->model.slope, rep->model.intercept, rep->fit.slope, rep->fit.slope_se, rep->fit.r2,
        rep->fit.resid_rms, rep->fit.span, rep->fit.partner, rep->fit.npoints, rep->fit.nused,
        rep->fit.slope_kept, rep->model.kind, rep->fit.attempts, sk->offset, sk->drift_ppm,
        sk->ddrift_ppm_s, sk->jitter, ti->drift, ti->drift_se, ti->ddrift,
        ti->noise, ti->refreshes, ti->cost, ti->updates, ti->set_aside,
        timens};
}

isochron_check_bounds_t isochron_check_bounds(const isochron_accuracy_t *acc, int size, int nwaits, int w)
{
    isochron_check_bounds_t b = {NAN, NAN, 0};
    int untrusted = 0;
    for (int i = 0; i < size; i++) {
        const isochron_accuracy_t *a = &acc[i * nwaits + w];
        if (isfinite(a->bound) && !(a->bound <= b.stat)) b.stat = a->bound;
        if (!isnan(a->bound_hard) && !(a->bound_hard <= b.hard)) b.hard = a->bound_hard;
        untrusted |= a->untrusted;
        /* the check's own measurement, an interval that holds whatever the paths do, excludes what the
         * statistical bound allows: a hard fact against it */
        untrusted |= fabs(a->measured_offset) - a->measured_hw > a->bound;
    }
    b.kind_hard = isochron_bound_hard_stated(b.stat, b.hard, untrusted);
    return b;
}

static void model_record(isochron_json_t *j, int rank, const isochron_check_rank_t *q)
{
    isochron_json_record_begin(j, "model");
    isochron_json_kint(j, "rank", rank);
    isochron_json_knumber(j, "slope", q->slope);
    isochron_json_knumber(j, "intercept_s", q->intercept);
    isochron_json_kstring(j, "kind", q->kind == ISOCHRON_LM_LINEAR ? "linear" : "offset");
    isochron_json_knumber(j, "timens_offset_s", q->timens);
    isochron_json_key(j, "fit");
    if (q->partner >= 0) {
        isochron_json_object_begin(j);
        isochron_json_kint(j, "partner", (int)q->partner);
        isochron_json_kint(j, "points", (int)q->npoints);
        isochron_json_kint(j, "used", (int)q->nused);
        isochron_json_knumber(j, "slope", q->fslope);
        isochron_json_knumber(j, "slope_se", q->fse);
        isochron_json_kbool(j, "slope_kept", q->kept != 0);
        isochron_json_knumber(j, "r2", q->r2);
        isochron_json_knumber(j, "resid_rms_s", q->resid);
        isochron_json_knumber(j, "span_s", q->span);
        isochron_json_kint(j, "attempts", (int)q->attempts);
        isochron_json_object_end(j);
    } else isochron_json_null(j);
    isochron_json_record_end(j);
}

int isochron_report_check_head(isochron_reporter_t *r, const isochron_check_run_t *o)
{
    if (!r || !o || !o->sync) return isochron_set_error(ISOCHRON_EINVAL, "check records: no reporter or run");
    isochron_json_t j;
    if (!isochron_report_record_open(r, &j, "context")) return ISOCHRON_OK;
    isochron_json_kstring(&j, "tool", o->tool);
    isochron_json_members(&j, o->run_json);
    isochron_json_kstring(&j, "timer", o->timer);
    isochron_json_kstring(&j, "sync_spec", o->sync_spec);
    isochron_json_kint(&j, "nodes", o->sync->nodes);
    isochron_json_kint(&j, "node_size", o->node_size);
    isochron_json_kbool(&j, "oversubscribed", o->sync->oversubscribed);
    isochron_json_kbool(&j, "sockets_split", o->sync->sockets_split);
    isochron_json_key(&j, "truth");
    if (o->truth) isochron_json_string(&j, o->truth);
    else isochron_json_null(&j);
    isochron_json_key(&j, "skew");
    if (o->skew_spec) {
        isochron_json_object_begin(&j);
        isochron_json_kstring(&j, "spec", o->skew_spec);
        isochron_json_key(&j, "per_rank");
        isochron_json_array_begin(&j);
        for (int i = 0; i < o->nranks; i++) {
            const isochron_check_rank_t *q = &o->ranks[i];
            isochron_json_object_begin(&j);
            isochron_json_kint(&j, "rank", i);
            isochron_json_knumber(&j, "offset_s", q->inj_offset);
            isochron_json_knumber(&j, "drift_ppm", q->inj_drift);
            isochron_json_knumber(&j, "ddrift_ppm_s", q->inj_ddrift);
            isochron_json_knumber(&j, "jitter_s", q->inj_jitter);
            isochron_json_object_end(&j);
        }
        isochron_json_array_end(&j);
        isochron_json_object_end(&j);
    } else isochron_json_null(&j);
    isochron_json_kint(&j, "check_pingpongs", o->check_pingpongs);
    isochron_json_record_end(&j);
    isochron_json_record_begin(&j, "sync");
    isochron_report_sync_members(&j, "sync_spec", o->sync_spec, o->sync);
    isochron_json_kbool(&j, "tracking", o->tracking);
    isochron_json_record_end(&j);
    for (int i = 0; i < o->nranks; i++) model_record(&j, i, &o->ranks[i]);
    return ISOCHRON_OK;
}

int isochron_report_check_wait(isochron_reporter_t *r, const isochron_check_run_t *o, int w)
{
    if (!r || !o || !o->sync || w < 0 || w >= o->nwaits)
        return isochron_set_error(ISOCHRON_EINVAL, "check records: no reporter or run, or wait %d out of range", w);
    FILE *f = isochron_report_records_of(r);
    if (!f) return ISOCHRON_OK;
    int nwaits = o->nwaits;
    double mt = 0, mm = 0;
    isochron_check_bounds_t wb = isochron_check_bounds(o->acc, o->nranks, nwaits, w);
    const char *kind = !o->tracking ? NULL : wb.kind_hard ? "hard" : "statistical";
    isochron_json_t j;
    isochron_json_init(&j, f);
    for (int i = 0; i < o->nranks; i++) {
        const isochron_accuracy_t *a = &o->acc[i * nwaits + w];
        isochron_json_record_begin(&j, "accuracy");
        isochron_json_kint(&j, "rank", i);
        isochron_json_knumber(&j, "wait_s", a->wait);
        isochron_json_knumber(&j, "measured_offset_s", a->measured_offset);
        isochron_json_knumber(&j, "measured_uncertainty_s", a->measured_hw);
        isochron_json_knumber(&j, "true_offset_s", a->true_offset);
        isochron_json_knumber(&j, "bound_s", wb.kind_hard ? a->bound_hard : a->bound);
        if (kind) {
            isochron_json_kstring(&j, "bound_kind", kind);
            isochron_json_knumber(&j, "bound_stat_s", a->bound);
            isochron_json_knumber(&j, "bound_hard_s", a->bound_hard);
        }
        isochron_json_record_end(&j);
        if (fabs(a->true_offset) > mt) mt = fabs(a->true_offset);
        if (fabs(a->measured_offset) > mm) mm = fabs(a->measured_offset);
    }
    isochron_json_record_begin(&j, "summary");
    isochron_json_kstring(&j, "sync_spec", o->sync_spec);
    isochron_json_knumber(&j, "wait_s", o->waits[w]);
    isochron_json_knumber(&j, "duration_s", o->sync->duration);
    isochron_json_knumber(&j, "max_abs_measured_offset_s", mm);
    isochron_json_knumber(&j, "max_abs_true_offset_s", o->truth ? mt : NAN);
    isochron_json_knumber(&j, "max_bound_s", wb.kind_hard ? wb.hard : wb.stat);
    if (kind) {
        isochron_json_kstring(&j, "bound_kind", kind);
        isochron_json_knumber(&j, "max_bound_stat_s", wb.stat);
        isochron_json_knumber(&j, "max_bound_hard_s", wb.hard);
    }
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

int isochron_report_check_track(isochron_reporter_t *rep, const isochron_check_run_t *o)
{
    if (!rep || !o || o->nranks < 1) return isochron_set_error(ISOCHRON_EINVAL, "check records: no reporter or ranks");
    const isochron_check_rank_t *r = o->ranks;
    isochron_json_t j;
    if (!isochron_report_record_open(rep, &j, "track")) return ISOCHRON_OK;
    isochron_json_kint(&j, "refreshes", (int)r[0].trk_refreshes);
    isochron_json_knumber(&j, "cost_s", r[0].trk_cost);
    isochron_json_key(&j, "per_rank");
    isochron_json_array_begin(&j);
    for (int i = 0; i < o->nranks; i++) {
        isochron_json_object_begin(&j);
        isochron_json_kint(&j, "rank", i);
        isochron_json_knumber(&j, "drift_ppm", r[i].trk_drift * 1e6);
        isochron_json_knumber(&j, "drift_se_ppm", r[i].trk_drift_se * 1e6);
        isochron_json_knumber(&j, "ddrift_ppm_s", r[i].trk_ddrift * 1e6);
        isochron_json_knumber(&j, "noise_s", r[i].trk_noise);
        isochron_json_kint(&j, "updates", (int)r[i].trk_updates);
        isochron_json_kint(&j, "set_aside", (int)r[i].trk_aside);
        isochron_json_object_end(&j);
    }
    isochron_json_array_end(&j);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

/* ---- the timer costs as a table for a reader (isochron-clock --timer-cost) */

int isochron_report_timer_cost_line(isochron_reporter_t *r, const char *timer, const char *unavailable, double ns_per_call,
                                    double resolution_ns, double tsc_hz)
{
    if (!r) return isochron_set_error(ISOCHRON_EINVAL, "timer cost table: no reporter");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    if (!timer) fprintf(f, "%-14s %12s %14s  %s\n", "timer", "ns/call", "resolution_ns", "note");
    else if (unavailable) fprintf(f, "%-14s %12s %14s  %s\n", timer, "-", "-", unavailable);
    else {
        char note[64] = "";
        if (tsc_hz > 0) snprintf(note, sizeof note, "calibrated at %.6f GHz", tsc_hz * 1e-9);
        fprintf(f, "%-14s %12.1f %14.1f  %s\n", timer, ns_per_call, resolution_ns, note);
    }
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_clock_read_cost(isochron_reporter_t *r, double raw_ns, double global_ns)
{
    if (!r) return isochron_set_error(ISOCHRON_EINVAL, "clock read cost: no reporter");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    fprintf(f, "%-14s %12.1f %14s  %s\n", "raw", raw_ns, "-", "clock_gettime(CLOCK_MONOTONIC) called directly (reference)");
    fprintf(f, "%-14s %12.1f %14s  %.2fx raw: mpi_wtime through a sync and a tracking layer (isochron_clock_now)\n", "global", global_ns, "-",
            global_ns / raw_ns);
    fflush(f);
    return ISOCHRON_OK;
}

/* ---- the check as a table for a reader (isochron-clock's stdout): the same run, the same bound rule */

static void table_head(FILE *f, const isochron_check_run_t *run)
{
    const isochron_sync_report_t *rep = run->sync;
    const isochron_check_rank_t *r0 = &run->ranks[0];
    fprintf(f, "isochron-clock %s: clock synchronization accuracy\n", ISOCHRON_VERSION_STRING);
    fprintf(f, "  spec    %s\n", run->sync_spec);
    fprintf(f, "  timer   %s%s%s\n", run->timer, run->skew_spec ? ", skew injected: " : "", run->skew_spec ? run->skew_spec : "");
    fprintf(f, "  ranks   %d on %d node(s)%s%s\n", run->nranks, rep->nodes, run->node_size > 0 ? " (blocks of --node-size ranks)" : "",
            rep->oversubscribed ? ", oversubscribed (more ranks than cores): pairs took turns" : "");
    fprintf(f, "  sync    %.3f s, %d rounds\n", rep->duration, rep->rounds);
    if (run->tracking)
        fprintf(f, "  track   on: %d refreshes, %.1f ms in all (%.2f ms each), between the checks as the engine does between points\n",
                (int)r0->trk_refreshes, r0->trk_cost * 1e3, r0->trk_cost * 1e3 / fmax(r0->trk_refreshes, 1));
    else
        fprintf(f, "  track   off: the clock is synchronized once\n");
#ifdef SMPI_ISOCHRON
    fprintf(f, "  truth   %s\n\n", "SimGrid's simulated time (one clock for all simulated hosts)");
#else
    fprintf(f, "  truth   %s\n\n", run->truth ? "the kernel's CLOCK_MONOTONIC less each process's time-namespace offset (all ranks share one kernel: one boot_id)"
                                             : "none (the ranks run on more than one kernel): only Alg. 6 measured offsets");
#endif
}

/* one line per rank: its model, its fit, its true and measured offsets at each wait (µs) */
static void table_ranks(FILE *f, const isochron_check_run_t *run)
{
    int nw = run->nwaits;
    fprintf(f, "%4s %4s %13s %9s %5s %9s %9s", "rank", "ref", "slope[ppm]", "±se", "kept", "resid[ns]", "pts");
    for (int k = 0; k < 2; k++)
        for (int w = 0; w < nw; w++) {
            char lab[32];
            snprintf(lab, sizeof lab, "%s@%gs", k ? "meas" : "true", run->waits[w]);
            fprintf(f, "  %10s", lab);
        }
    fprintf(f, "   [offsets in µs]\n");
    for (int i = 0; i < run->nranks; i++) {
        const isochron_check_rank_t *q = &run->ranks[i];
        const isochron_accuracy_t *a = &run->acc[i * nw];
        if (q->partner >= 0)
            fprintf(f, "%4d %4d %13.4f %9.4f %5s %9.1f %4d/%-4d", i, (int)q->partner, q->slope * 1e6, q->fse * 1e6, q->kept ? "yes" : "no",
                    q->resid * 1e9, (int)q->nused, (int)q->npoints);
        else
            fprintf(f, "%4d %4s %13.4f %9s %5s %9s %9s", i, "-", q->slope * 1e6, "-", "-", "-", "-");
        for (int w = 0; w < nw; w++) fprintf(f, "  %10.3f", a[w].true_offset * 1e6);
        for (int w = 0; w < nw; w++) fprintf(f, "  %10.3f", a[w].measured_offset * 1e6);
        fputc('\n', f);
    }
}

/* the largest offsets over the ranks at each wait and, when tracked, the bound stated (isochron_check_bounds) */
static void table_max(FILE *f, const isochron_check_run_t *run)
{
    int nw = run->nwaits;
    fprintf(f, "\nmax |offset| [µs]");
    for (int w = 0; w < nw; w++) {
        double mt = 0, mm = 0, mh = 0;
        for (int i = 0; i < run->nranks; i++) {
            const isochron_accuracy_t *a = &run->acc[i * nw + w];
            if (fabs(a->true_offset) > mt) mt = fabs(a->true_offset);
            if (fabs(a->measured_offset) > mm) mm = fabs(a->measured_offset);
            if (a->measured_hw > mh) mh = a->measured_hw;
        }
        isochron_check_bounds_t wb = isochron_check_bounds(run->acc, run->nranks, nw, w);
        if (run->truth) fprintf(f, "   @%gs: true %.3f, measured %.3f (±%.3f)", run->waits[w], mt * 1e6, mm * 1e6, mh * 1e6);
        else fprintf(f, "   @%gs: measured %.3f (±%.3f)", run->waits[w], mm * 1e6, mh * 1e6);
        if (run->tracking)
            fprintf(f, ", bound %.3f %s (%s %.3f)", (wb.kind_hard ? wb.hard : wb.stat) * 1e6, wb.kind_hard ? "hard" : "stat",
                    wb.kind_hard ? "stat" : "hard", (wb.kind_hard ? wb.stat : wb.hard) * 1e6);
    }
    fputc('\n', f);
    if (run->tracking)
        fprintf(f, "bounds: stat = 4 sigma of the tracking filter, assumes both directions of a path take equal time;\n"
                   "        hard = from ping-pong intervals alone, holds on asymmetric paths. The first is stated unless\n"
                   "        its premises failed (or the hard one is smaller): quote the one named first.\n"
                   "measured (±w): Alg. 6's ping-pong offset and the half-width its exchanges guarantee.\n");
}

/* the tracking filter of every rank but the reference: drift left after the sync, and the injected truth */
static void table_track(FILE *f, const isochron_check_run_t *run)
{
    int sk = run->skew_spec != NULL;
    const isochron_check_rank_t *r0 = &run->ranks[0];
    fprintf(f, "\ntracked (Kalman filter on the refreshes): drift left after sync, estimated%s\n%4s %14s %10s %14s %10s %9s%s\n",
            sk ? ", and the injected truth" : "", "rank", "drift[ppm]", "±se", "ddrift[ppm/s]", "noise[ns]", "set aside",
            sk ? "   injected drift - model slope [ppm]" : "");
    for (int i = 1; i < run->nranks; i++) {
        const isochron_check_rank_t *q = &run->ranks[i];
        fprintf(f, "%4d %14.4f %10.4f %14.5f %10.1f %4d/%-4d", i, q->trk_drift * 1e6, q->trk_drift_se * 1e6, q->trk_ddrift * 1e6, q->trk_noise * 1e9,
                (int)q->trk_aside, (int)(q->trk_aside + q->trk_updates));
        /* the inner clock reads b(1+d_i) and maps through slope s_i; the reference (rank 0) reads b(1+d_0) */
        if (sk) fprintf(f, "   %14.4f", ((1 + r0->inj_drift * 1e-6) / ((1 + q->inj_drift * 1e-6) * (1 + q->slope)) - 1) * 1e6);
        fputc('\n', f);
    }
}

int isochron_report_check_table(isochron_reporter_t *r, const isochron_check_run_t *run)
{
    if (!r || !run || !run->sync || !run->ranks || !run->acc || !run->waits || run->nranks < 1 || run->nwaits < 1)
        return isochron_set_error(ISOCHRON_EINVAL, "clock check table: no reporter, run, sync report, ranks, waits or offsets");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    table_head(f, run);
    table_ranks(f, run);
    table_max(f, run);
    if (run->tracking) table_track(f, run);
    fflush(f);
    return ISOCHRON_OK;
}
