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
 * isochron_summarize, the engine's one rule. The same results are tables
 * for a reader through a "table" reporter (isochron_report_barrier_table_*),
 * from the same run and the same statistics.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "isochron/stats.h"
#include "core/util.h"
#include "report/context.h"
#include "report/format.h"

/* the members of the context's "options" object */
static void options_members(isochron_json_t *j, const void *arg)
{
    const isochron_barrier_run_t *r = arg;
    isochron_report_member_t m[] = {ISOCHRON_JINT("calls", r->calls), ISOCHRON_JINT("trials", r->trials),
                                    ISOCHRON_JINT("payoff_trials", r->payoff_trials), ISOCHRON_JNUM("threshold", r->threshold),
                                    ISOCHRON_JNUM("spread_s", r->spread), ISOCHRON_JNUM("skew_spread_s", r->skew_spread),
                                    ISOCHRON_JNUM("slack_s", r->slack), ISOCHRON_JNUM("late_tolerance_s", r->late_tolerance),
                                    ISOCHRON_JSTR("wait", r->wait), ISOCHRON_JINT("seed", r->seed), ISOCHRON_JSTR("bind", r->bind),
                                    ISOCHRON_JBOOL("bound_by_isochron", r->bound_by_isochron)};
    isochron_report_members(j, m, ISOCHRON_NMEMBERS(m));
}

/* The context as the other drivers' context blocks (report.c; through a JSON Lines reporter only): the run's head
 * with barriers_yield among its placement, then the barriers, experiments and options. */
int isochron_report_barrier_context(isochron_reporter_t *rep, const isochron_barrier_run_t *r)
{
    if (!rep || !r) return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no reporter or run");
    if (!isochron_report_records_of(rep)) return ISOCHRON_OK;
    static const char *const keys[] = {"barriers_yield", "barriers", "experiments", "options"};
    char *vals[] = {strdup(r->barriers_yield ? "true" : "false"), isochron_report_strings_text(r->barriers, r->nbarriers),
                    isochron_report_strings_text(r->experiments, r->nexperiments), isochron_report_object_text(options_members, r)};
    return isochron_report_context_begin(rep, &r->head, 1, keys, vals, 4); /* frees vals */
}

int isochron_report_barrier_rds(isochron_reporter_t *rep, const isochron_rds_info_t *ri)
{
    if (!rep || !ri) return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no reporter or RDS constants");
    isochron_json_t j;
    if (!isochron_report_record_open(rep, &j, "rds_constants")) return ISOCHRON_OK;
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

int isochron_report_barrier_samples(isochron_reporter_t *rep, const char *type, const isochron_barrier_samples_t *sm,
                                    const isochron_barrier_run_t *r)
{
    if (!rep || !type || !sm || !r)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no reporter, type, samples or run");
    int shift = !strcmp(type, "shift");
    if (!shift && strcmp(type, "skew"))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier records: type '%.32s'; valid: skew, shift", type);
    isochron_json_t j;
    if (!isochron_report_record_open(rep, &j, type)) return ISOCHRON_OK;
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

int isochron_report_barrier_cost(isochron_reporter_t *rep, const isochron_point_t *p, const char *barrier)
{
    if (!rep || !p || !barrier)
        return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no reporter, point or barrier");
    if (!isochron_report_records_of(rep)) return ISOCHRON_OK;
    char *name = isochron_report_json_text(barrier);
    if (!name) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    isochron_kv_t extra[1] = {{"barrier", name}};
    int rc = isochron_report_point_as(rep, p, "roundtime", "global", "cost", extra, 1);
    free(name);
    return rc;
}

int isochron_report_barrier_payoff(isochron_reporter_t *rep, const isochron_barrier_payoff_t *po, const isochron_barrier_run_t *r)
{
    if (!rep || !po || !r) return isochron_set_error(ISOCHRON_EINVAL, "barrier records: no reporter, payoff or run");
    int ns = po->nsizes;
    isochron_json_t j;
    if (!isochron_report_record_open(rep, &j, "payoff")) return ISOCHRON_OK;
    isochron_report_member_t m[] = {ISOCHRON_JSTR("barrier", "rds"), ISOCHRON_JINT("d", po->d), ISOCHRON_JNUM("a_s_per_byte", po->a),
                                    ISOCHRON_JNUM("b_l_s", po->b_l), ISOCHRON_JNUM("b_s_s", po->b_s),
                                    ISOCHRON_JNUM("model_min_bytes", po->model_min_bytes),
                                    ISOCHRON_JNUM("measured_min_bytes", po->measured_min_bytes), ISOCHRON_JNUM("spread_s", r->spread),
                                    ISOCHRON_JINT("trials", po->trials)};
    isochron_report_members(&j, m, ISOCHRON_NMEMBERS(m));
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

/* ---- the experiments as tables for a reader (isochron-barrier's stdout), through a "table" reporter: '#' lines
 * say what each table is, then one line per barrier (and size) */

static isochron_summary_t med_p95(const double *v, int n)
{
    double q[1] = {0.95};
    isochron_summary_t s;
    isochron_summarize(v, n, 0.95, q, 1, &s);
    return s;
}

int isochron_report_barrier_table_head(isochron_reporter_t *r, const isochron_barrier_run_t *run, const char *sync_spec, double sync_s,
                                       const isochron_rds_info_t *ri)
{
    if (!r || !run || !sync_spec) return isochron_set_error(ISOCHRON_EINVAL, "barrier table: no reporter, run or sync spec");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    fprintf(f, "# isochron-barrier %s: %d ranks, %d node(s)%s%s; clocks: %s, synchronized in %.2f s\n", ISOCHRON_VERSION_STRING, run->head.nprocs,
            run->head.nodes, run->head.oversubscribed ? ", oversubscribed" : "", run->barriers_yield ? ", barriers yield while waiting (--wait)" : "",
            sync_spec, sync_s);
    if (ri) {
        char a[32], b[32], c[32];
        fprintf(f, "# RDS constants: b_s = %s, s = %s (%s), d = %d, busy waits up to %s\n", isochron_fmt_time(ri->b_s, a, sizeof a),
                isochron_fmt_time(ri->s, b, sizeof b), ri->samples ? "medians of round trips between ranks 0 and 1" : "given", ri->d,
                isochron_fmt_time(ri->max_wait, c, sizeof c));
        if (ri->samples) fprintf(f, "#   (%d round trips)\n", ri->samples);
    }
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_barrier_table_section(isochron_reporter_t *r, const char *experiment, const isochron_barrier_run_t *run,
                                          const isochron_bench_opts_t *cost)
{
    int exp = !experiment ? -1 : !strcmp(experiment, "skew") ? 0 : !strcmp(experiment, "cost") ? 1 : !strcmp(experiment, "shift") ? 2
            : !strcmp(experiment, "payoff") ? 3 : -1;
    if (!r || !run || exp < 0 || (exp == 1 && !cost))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier table: no reporter or run, experiment '%.16s' not one of skew, cost, shift, payoff "
                                                   "(cost: with the engine's options)", experiment ? experiment : "(null)");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    if (exp == 0)
        fprintf(f, "\n# exit skew: %d calls from a common start on the global clock%s; skew = last exit - first exit\n%-14s %6s %6s %12s %12s %12s %12s\n",
                run->calls, run->skew_spread > 0 ? " + random arrival delays (--skew-spread)" : "", "barrier", "calls", "valid", "skew median",
                "skew p95", "skew max", "cost median");
    else if (exp == 1)
        fprintf(f, "\n# cost: engine, Round-Time / global method, %d..%d repetitions, CI target %g%%\n%-14s %12s %12s %12s %13s\n", cost->min_reps,
                cost->max_reps, 100 * cost->rel_ci, "barrier", "median", "CI +-", "min", "valid/reps");
    else if (exp == 2)
        fprintf(f, "\n# ring shift after each barrier: arrivals spread over %g us; success = cost <= %.2f x the concurrent reference\n"
                   "%-14s %9s %12s %8s %12s %12s %7s\n", run->spread * 1e6, 1 + run->threshold, "barrier", "size", "reference", "success",
                "cost median", "cost p95", "valid");
    else
        fprintf(f, "\n# when synchronizing pays off: rds + shift vs shift alone, both from the first arrival (medians of %d trials)\n%9s %14s %14s %14s\n",
                run->payoff_trials, "size", "concurrent", "rds + shift", "shift alone");
    fflush(f);
    return ISOCHRON_OK;
}

/* skew: calls, valid, skew median/p95/max, cost median; shift: size, reference, success rate, cost median/p95, valid */
int isochron_report_barrier_table_samples(isochron_reporter_t *r, const char *type, const isochron_barrier_samples_t *sm)
{
    int shift = type && !strcmp(type, "shift");
    if (!r || !sm || !type || (!shift && strcmp(type, "skew")))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier table: no reporter or samples, or type '%.16s' not skew or shift", type ? type : "(null)");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    char a[32], b[32], c[32], d[32];
    isochron_summary_t s = med_p95(sm->value, sm->valid);
    if (!shift && sm->valid == 0)
        fprintf(f, "%-14s %6d %6d  no valid calls (in every one a rank was late for the common start, or entered after --late-tolerance)\n", sm->name,
                sm->trials, 0);
    else if (!shift) {
        isochron_summary_t co = med_p95(sm->cost, sm->valid);
        fprintf(f, "%-14s %6d %6d %12s %12s %12s %12s\n", sm->name, sm->trials, sm->valid, isochron_fmt_time(s.median, a, sizeof a),
                isochron_fmt_time(s.qv[0], b, sizeof b), isochron_fmt_time(s.max, c, sizeof c), isochron_fmt_time(co.median, d, sizeof d));
    } else if (sm->valid == 0)
        fprintf(f, "%-14s %9s  no valid trials\n", sm->name, isochron_fmt_bytes((size_t)sm->bytes, d, sizeof d));
    else if (!isfinite(sm->reference))
        fprintf(f, "%-14s %9s  no valid concurrent reference trial: success not judged\n", sm->name, isochron_fmt_bytes((size_t)sm->bytes, d, sizeof d));
    else
        fprintf(f, "%-14s %9s %12s %7.1f%% %12s %12s %7d\n", sm->name, isochron_fmt_bytes((size_t)sm->bytes, d, sizeof d),
                isochron_fmt_time(sm->reference, c, sizeof c), 100.0 * sm->successes / sm->valid, isochron_fmt_time(s.median, a, sizeof a),
                isochron_fmt_time(s.qv[0], b, sizeof b), sm->valid);
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_barrier_table_cost(isochron_reporter_t *r, const isochron_point_t *p, const char *barrier)
{
    if (!r || !p || !barrier) return isochron_set_error(ISOCHRON_EINVAL, "barrier table: no reporter, point or barrier");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    char a[32], b[32], d[32];
    if (p->valid == 0)
        fprintf(f, "%-14s no valid repetitions of %d: a rank started more than one Bcast latency late in each (descheduled?)\n", barrier, p->reps);
    else
        fprintf(f, "%-14s %12s %12s %12s %7d/%-5d\n", barrier, isochron_fmt_time(p->s.median, a, sizeof a), isochron_fmt_time(p->s.ci_half, b, sizeof b),
                isochron_fmt_time(p->s.min, d, sizeof d), p->valid, p->reps);
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_barrier_table_payoff(isochron_reporter_t *r, const isochron_barrier_payoff_t *po)
{
    if (!r || !po || (po->nsizes > 0 && !(po->sizes && po->reference && po->synced && po->unsynced)))
        return isochron_set_error(ISOCHRON_EINVAL, "barrier table: no reporter or payoff");
    FILE *f = isochron_report_tables_of(r);
    if (!f) return ISOCHRON_OK;
    char sz[32], x[32], y[32], z[32];
    for (int s = 0; s < po->nsizes; s++)
        fprintf(f, "%9s %14s %14s %14s  %s\n", isochron_fmt_bytes(po->sizes[s], sz, sizeof sz), isochron_fmt_time(po->reference[s], x, sizeof x),
                isochron_fmt_time(po->synced[s], y, sizeof y), isochron_fmt_time(po->unsynced[s], z, sizeof z),
                po->synced[s] < po->unsynced[s] ? "sync pays off" : "");
    fprintf(f, "fit of the concurrent shift: a = %.4g ns/B, b_l = %s; d = %d, b_s = %s\n", po->a * 1e9, isochron_fmt_time(po->b_l, x, sizeof x), po->d,
            isochron_fmt_time(po->b_s, y, sizeof y));
    if (isfinite(po->model_min_bytes)) fprintf(f, "model (paper 004, sec. 4.3): synchronize from m >= (2 d b_s - b_l/2) / a = %.0f B\n", po->model_min_bytes);
    else fprintf(f, "model (paper 004, sec. 4.3): no prediction (the fitted per-byte cost a is not positive)\n");
    if (isfinite(po->measured_min_bytes)) fprintf(f, "measured: synchronizing first is cheaper from %.0f B (smallest size measured where it is)\n", po->measured_min_bytes);
    else fprintf(f, "measured: synchronizing first was not cheaper at any size measured\n");
    fflush(f);
    return ISOCHRON_OK;
}
