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
 * every wait it finished. The bound rule (isochron_check_bounds) is here
 * because the summary record and the driver's table must state the same
 * bound.
 */
#include <math.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"

int isochron_report_timer_cost(FILE *f, const char *timer, const char *unavailable, double ns_per_call, double resolution_ns,
                               double tsc_hz)
{
    if (!f || !timer) return isochron_set_error(ISOCHRON_EINVAL, "timer_cost record: no stream or timer");
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, "timer_cost");
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

int isochron_report_check_head(FILE *f, const isochron_check_run_t *o)
{
    if (!f || !o || !o->sync) return isochron_set_error(ISOCHRON_EINVAL, "check records: no stream or run");
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, "context");
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
    isochron_json_kstring(&j, "sync_spec", o->sync_spec);
    isochron_json_knumber(&j, "duration_s", o->sync->duration);
    isochron_json_kint(&j, "rounds", o->sync->rounds);
    isochron_json_knumber(&j, "pair_budget_s", o->sync->pair_budget);
    isochron_json_kint(&j, "cut_pairs", o->sync->cut_pairs);
    isochron_json_kbool(&j, "tracking", o->tracking);
    isochron_json_record_end(&j);
    for (int i = 0; i < o->nranks; i++) model_record(&j, i, &o->ranks[i]);
    return ISOCHRON_OK;
}

int isochron_report_check_wait(FILE *f, const isochron_check_run_t *o, int w)
{
    if (!f || !o || !o->sync || w < 0 || w >= o->nwaits)
        return isochron_set_error(ISOCHRON_EINVAL, "check records: no stream or run, or wait %d out of range", w);
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

int isochron_report_check_track(FILE *f, const isochron_check_run_t *o)
{
    if (!f || !o || o->nranks < 1) return isochron_set_error(ISOCHRON_EINVAL, "check records: no stream or ranks");
    const isochron_check_rank_t *r = o->ranks;
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, "track");
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
