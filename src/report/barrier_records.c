/*
 * The records of the barrier experiments (include/isochron/report.h): what
 * isochron-barrier writes about the exit skew of barriers (paper 000, sec.
 * V-B, Fig. 8), their cost, the ring shift after them and when synchronizing
 * first pays off (paper 004, sec. 4.2-4.3). The experiments themselves are in
 * src/barrier/experiment.c; the driver runs them and hands their results to
 * these writers on rank 0, which put each record through the one JSON writer
 * (json.c) and, for the context and the cost, the reporter (report.c): the
 * context opens with the head every driver's context opens with
 * (run_records.c), the cost is the engine's point record. So the barrier
 * records have the number format, schema version and flushing of every
 * other record (schema: python/src/isochron/results-1.schema.json).
 * Statistics of the samples (median, p95, max, mean) come from
 * isochron_summarize, the engine's one rule.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "isochron/stats.h"
#include "core/util.h"
#include "report/context.h"

/* the members of the context's "options" object */
static void options_members(isochron_json_t *j, const void *arg)
{
    const isochron_barrier_run_t *r = arg;
    isochron_json_kint(j, "calls", r->calls);
    isochron_json_kint(j, "trials", r->trials);
    isochron_json_kint(j, "payoff_trials", r->payoff_trials);
    isochron_json_knumber(j, "threshold", r->threshold);
    isochron_json_knumber(j, "spread_s", r->spread);
    isochron_json_knumber(j, "skew_spread_s", r->skew_spread);
    isochron_json_knumber(j, "slack_s", r->slack);
    isochron_json_knumber(j, "late_tolerance_s", r->late_tolerance);
    isochron_json_kstring(j, "wait", r->wait);
    isochron_json_kint(j, "seed", r->seed);
    isochron_json_kstring(j, "bind", r->bind);
    isochron_json_kbool(j, "bound_by_isochron", r->bound_by_isochron);
}

/* The context through a JSON Lines reporter on f (report.c), as the other drivers' context blocks: the run's head
 * with barriers_yield among its placement, then the barriers, experiments and options. */
int isochron_report_barrier_context(FILE *f, const isochron_barrier_run_t *r)
{
    if (!f || !r) return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no stream or run");
    isochron_reporter_t *rep;
    int rc = isochron_reporter_create("jsonl", f, &rep);
    if (rc) return rc;
    static const char *const keys[] = {"barriers_yield", "barriers", "experiments", "options"};
    char *vals[] = {strdup(r->barriers_yield ? "true" : "false"), isochron_report_strings_text(r->barriers, r->nbarriers),
                    isochron_report_strings_text(r->experiments, r->nexperiments), isochron_report_object_text(options_members, r)};
    rc = isochron_report_context_begin(rep, &r->head, 1, keys, vals, 4); /* frees vals */
    isochron_reporter_destroy(rep);
    return rc;
}

int isochron_report_barrier_rds(FILE *f, const isochron_rds_info_t *ri)
{
    if (!f || !ri) return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no stream or RDS constants");
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, "rds_constants");
    isochron_json_knumber(&j, "b_s_s", ri->b_s);
    isochron_json_knumber(&j, "s_s", ri->s);
    isochron_json_kint(&j, "samples", ri->samples);
    isochron_json_key(&j, "pair"); /* measured between ranks 0 and 1 */
    isochron_json_array_begin(&j);
    isochron_json_int(&j, 0);
    isochron_json_int(&j, 1);
    isochron_json_array_end(&j);
    isochron_json_kint(&j, "d", ri->d);
    isochron_json_knumber(&j, "max_wait_s", ri->max_wait);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

/* key: {"median":..,"p95":..,"max":..,"mean":..} of the n values */
static void jstats(isochron_json_t *j, const char *key, const double *v, int n)
{
    double q[1] = {0.95};
    isochron_summary_t s;
    isochron_summarize(v, n, 0.95, q, 1, &s);
    isochron_json_key(j, key);
    isochron_json_object_begin(j);
    isochron_json_knumber(j, "median", s.median);
    isochron_json_knumber(j, "p95", s.qv[0]);
    isochron_json_knumber(j, "max", s.max);
    isochron_json_knumber(j, "mean", s.mean);
    isochron_json_object_end(j);
}

int isochron_report_barrier_samples(FILE *f, const char *type, const isochron_barrier_samples_t *sm,
                                    const isochron_barrier_run_t *r)
{
    if (!f || !type || !sm || !r)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no stream, type, samples or run");
    int shift = !strcmp(type, "shift");
    if (!shift && strcmp(type, "skew"))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier records: type '%.32s'; valid: skew, shift", type);
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, type);
    isochron_json_kstring(&j, "barrier", sm->name);
    if (shift) isochron_json_kint(&j, "bytes", sm->bytes);
    isochron_json_kint(&j, shift ? "trials" : "calls", sm->trials);
    isochron_json_kint(&j, "valid", sm->valid);
    if (shift) {
        isochron_json_knumber(&j, "reference_s", sm->reference);
        isochron_json_knumber(&j, "threshold", r->threshold);
        isochron_json_knumber(&j, "spread_s", r->spread);
        isochron_json_kint(&j, "successes", sm->successes);
        /* no valid concurrent reference (every "clock" trial had a late rank): success cannot be judged */
        int judged = sm->valid && isfinite(sm->reference);
        isochron_json_knumber(&j, "success_rate", judged ? (double)sm->successes / sm->valid : NAN);
        jstats(&j, "shift_cost_s", sm->value, sm->valid);
    } else {
        isochron_json_knumber(&j, "spread_s", r->skew_spread);
        jstats(&j, "exit_skew_s", sm->value, sm->valid);
        jstats(&j, "cost_s", sm->cost, sm->valid);
    }
    isochron_report_clock_error(&j, sm->clock_bound, sm->clock_true, sm->clock_bound_is_hard, NULL, sm->clock_bound_hard);
    isochron_json_key(&j, "samples_s");
    isochron_json_numbers(&j, sm->value, sm->valid);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

int isochron_report_barrier_cost(FILE *f, const isochron_point_t *p, const char *barrier)
{
    if (!f || !p || !barrier)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no stream, point or barrier");
    char *name = isochron_report_json_text(barrier);
    if (!name) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    isochron_kv_t extra[1] = {{"barrier", name}};
    isochron_reporter_t *rep;
    int rc = isochron_reporter_create("jsonl", f, &rep);
    if (!rc) rc = isochron_report_point_as(rep, p, "roundtime", "global", "cost", extra, 1);
    isochron_reporter_destroy(rep);
    free(name);
    return rc;
}

int isochron_report_barrier_payoff(FILE *f, const isochron_barrier_payoff_t *po, const isochron_barrier_run_t *r)
{
    if (!f || !po || !r) return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no stream, payoff or run");
    int ns = po->nsizes;
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, "payoff");
    isochron_json_kstring(&j, "barrier", "rds");
    isochron_json_kint(&j, "d", po->d);
    isochron_json_knumber(&j, "a_s_per_byte", po->a);
    isochron_json_knumber(&j, "b_l_s", po->b_l);
    isochron_json_knumber(&j, "b_s_s", po->b_s);
    isochron_json_knumber(&j, "model_min_bytes", po->model_min_bytes);
    isochron_json_knumber(&j, "measured_min_bytes", po->measured_min_bytes);
    isochron_json_knumber(&j, "spread_s", r->spread);
    isochron_json_kint(&j, "trials", po->trials);
    isochron_json_key(&j, "sizes");
    isochron_json_array_begin(&j);
    for (int s = 0; s < ns; s++) isochron_json_int(&j, (long long)po->sizes[s]);
    isochron_json_array_end(&j);
    isochron_json_key(&j, "reference_s");
    isochron_json_numbers(&j, po->reference, ns);
    isochron_json_key(&j, "synced_s");
    isochron_json_numbers(&j, po->synced, ns);
    isochron_json_key(&j, "unsynced_s");
    isochron_json_numbers(&j, po->unsynced, ns);
    isochron_report_clock_error(&j, po->clock_bound, po->clock_true, po->clock_bound_is_hard, NULL, po->clock_bound_hard);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}
