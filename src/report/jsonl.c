/*
 * The JSON Lines format of the reporter (format.h): one record a line, each
 * opened with the schema version and its type (the format docs/output.md
 * states; schema: python/src/isochron/results-1.schema.json). The first
 * record is the context, then one per point, the last the "end" record with
 * the wall time and whether the run completed, so a reader can tell a
 * truncated file. Every number goes through the writer of json.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"
#include "report/format.h"

static void begin(const isochron_reporter_t *r, const isochron_kv_t *kv, int n)
{
    isochron_json_t j;
    isochron_json_init(&j, r->f);
    isochron_json_record_begin(&j, "context");
    for (int i = 0; i < n; i++) { isochron_json_key(&j, kv[i].key); isochron_json_raw(&j, kv[i].json); }
    isochron_json_record_end(&j);
}

/* the repetitions as measured (--raw): their times, validity and every rank's start and end */
static void raw_members(isochron_json_t *j, const isochron_point_t *p)
{
    if (!(p->raw_n > 0 && p->raw_time)) return;
    isochron_json_key(j, "raw");
    isochron_json_object_begin(j);
    isochron_json_key(j, "time_s");
    isochron_json_numbers(j, p->raw_time, p->raw_n);
    isochron_json_key(j, "valid");
    isochron_json_array_begin(j);
    for (int i = 0; i < p->raw_n; i++) isochron_json_int(j, p->raw_valid[i]);
    isochron_json_array_end(j);
    if (p->raw_start) {
        const char *names[2] = {"start_s", "end_s"};
        const double *arr[2] = {p->raw_start, p->raw_end};
        for (int a = 0; a < 2; a++) {
            isochron_json_key(j, names[a]);
            isochron_json_array_begin(j);
            for (int i = 0; i < p->raw_n; i++) isochron_json_numbers(j, &arr[a][(size_t)i * p->nprocs], p->nprocs);
            isochron_json_array_end(j);
        }
    }
    isochron_json_object_end(j);
}

static void point(const isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                  const isochron_kv_t *extra, int nextra)
{
    FILE *f = r->f;
    const isochron_summary_t *s = &p->s;
    isochron_json_t j;
    isochron_json_init(&j, f);
    isochron_json_record_begin(&j, type ? type : "point");
    for (int i = 0; i < nextra; i++) { isochron_json_key(&j, extra[i].key); isochron_json_raw(&j, extra[i].json); }
    isochron_report_member_t m[] = {ISOCHRON_JSTR("op", p->op), ISOCHRON_JSTR("family", p->family),
                                    ISOCHRON_JINT("bytes", (long long)p->bytes), ISOCHRON_JSTR("dtype", p->dtype),
                                    ISOCHRON_JSTR("redop", p->redop), ISOCHRON_JINT("root", p->root),
                                    ISOCHRON_JBOOL("in_place", p->in_place), ISOCHRON_JINT("nprocs", p->nprocs),
                                    ISOCHRON_JSTR("scheme", scheme), ISOCHRON_JSTR("method", method), ISOCHRON_JINT("reps", p->reps),
                                    ISOCHRON_JINT("valid", p->valid), ISOCHRON_JINT("invalid", p->reps - p->valid),
                                    ISOCHRON_JSTR("stop", isochron_report_stop_name(p->stop))};
    isochron_report_members(&j, m, ISOCHRON_NMEMBERS(m));
    isochron_report_member_t st[] = {ISOCHRON_JNUM("mean_s", s->mean), ISOCHRON_JNUM("median_s", s->median), ISOCHRON_JNUM("min_s", s->min),
                                     ISOCHRON_JNUM("max_s", s->max), ISOCHRON_JNUM("stddev_s", s->stddev),
                                     ISOCHRON_JNUM("ci_level", s->ci_level), ISOCHRON_JNUM("ci_lo_s", s->ci_lo),
                                     ISOCHRON_JNUM("ci_hi_s", s->ci_hi), ISOCHRON_JNUM("median_ci_lo_s", s->med_lo),
                                     ISOCHRON_JNUM("median_ci_hi_s", s->med_hi)};
    isochron_report_members(&j, st, ISOCHRON_NMEMBERS(st));
    isochron_json_key(&j, "quantiles");
    isochron_json_object_begin(&j);
    for (int i = 0; i < s->nq; i++) {
        char q[32];
        snprintf(q, sizeof q, "%g", s->q[i]); /* the level as a key: "0.25" */
        isochron_json_knumber(&j, q, s->qv[i]);
    }
    isochron_json_object_end(&j);
    isochron_json_knumber(&j, "start_spread_s", p->start_spread);
    isochron_json_knumber(&j, "elapsed_s", p->elapsed);
    isochron_json_kint(&j, "active_ranks", p->active_ranks);
    isochron_json_knumber(&j, "correction_s", p->correction);
    isochron_json_knumber(&j, "scheme_param_s", p->window);
    isochron_json_kint(&j, "validated", p->validated);
    if (p->threads > 0) isochron_json_kint(&j, "threads", p->threads);
    if (p->partitions > 0) isochron_json_kint(&j, "partitions", p->partitions);
    isochron_json_kstring(&j, "unit", p->unit[0] ? p->unit : "s");
    isochron_report_rate_t rt;
    if (isochron_report_rate(p, &rt)) {
        isochron_json_kint(&j, "msg_window", p->msg_window);
        isochron_json_knumber(&j, "bytes_per_run", p->moved_bytes);
        isochron_json_knumber(&j, "msgs_per_run", p->moved_msgs);
        isochron_json_knumber(&j, "bw_median_Bps", rt.med);
        isochron_json_knumber(&j, "bw_ci_lo_Bps", rt.lo);
        isochron_json_knumber(&j, "bw_ci_hi_Bps", rt.hi);
        isochron_json_knumber(&j, "msg_rate_median_per_s", rt.msgs);
    }
    if (isfinite(p->slack)) {
        isochron_json_knumber(&j, "slack", p->slack);
        isochron_json_knumber(&j, "late_tolerance_s", p->late_tolerance);
        isochron_json_kint(&j, "adapted", p->adapted);
    }
    isochron_json_kint(&j, "retries", p->retries);
    if (p->retries > 0) {
        isochron_json_key(&j, "retry_valid_share");
        isochron_json_array_begin(&j);
        for (int i = 0; i < p->retries && i < ISOCHRON_MAX_RETRIES; i++) isochron_json_number(&j, p->retry_share[i]);
        isochron_json_array_end(&j);
    }
    isochron_report_clock_error(&j, p->clock_bound, p->clock_true, p->clock_bound_is_hard, &p->clock_bound_stat, p->clock_bound_hard);
    if (p->timing[0]) {
        isochron_json_kstring(&j, "timing", p->timing);
        isochron_json_kstring(&j, "timing_choice", p->timing_user ? "user" : "auto");
        if (p->loop_of[0]) isochron_json_kstring(&j, "loop_of", p->loop_of);
    }
    isochron_json_kint(&j, "loop_k", p->loop_k > 0 ? p->loop_k : 1);
    isochron_json_knumber(&j, "resolution_s", p->resolution > 0 ? p->resolution : NAN);
    isochron_json_kbool(&j, "below_resolution", isochron_point_below_resolution(p));
    isochron_json_kbool(&j, "uncertain", isochron_point_uncertain(p));
    if (isfinite(p->overlap)) {
        isochron_json_knumber(&j, "overlap", p->overlap);
        isochron_json_knumber(&j, "t_comm_s", p->t_comm);
        isochron_json_knumber(&j, "t_comp_s", p->t_comp);
    }
    raw_members(&j, p);
    isochron_json_record_end(&j);
}
int isochron_report_record_open(const isochron_reporter_t *r, isochron_json_t *j, const char *type)
{
    FILE *f = isochron_report_records_of(r);
    if (!f) return 0;
    isochron_json_init(j, f);
    isochron_json_record_begin(j, type);
    return 1;
}

/* the end record's head: what it counts, the wall time and whether the run is complete */
static void end_open(isochron_json_t *j, FILE *f, const char *count_key, int count, double wall_s, int complete)
{
    isochron_json_init(j, f);
    isochron_json_record_begin(j, "end");
    isochron_json_kint(j, count_key, count);
    isochron_json_knumber(j, "wall_s", wall_s);
    isochron_json_kbool(j, "complete", complete);
}

/* the end record of every driver (each names what it counts); another format: nothing */
int isochron_report_end_record(isochron_reporter_t *r, const char *count_key, int count, double wall_s, int complete)
{
    if (!r || !count_key) return isochron_set_error(ISOCHRON_EINVAL, "end record: no reporter or count key");
    FILE *f = isochron_report_records_of(r);
    if (!f) return ISOCHRON_OK;
    isochron_json_t j;
    end_open(&j, f, count_key, count, wall_s, complete);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

/* the same record from a signal handler: only stores into buf (async-signal-safe) */
static void put(char *buf, size_t *u, size_t cap, const char *s)
{
    while (*s && *u < cap) buf[(*u)++] = *s++;
}
static void put_uint(char *buf, size_t *u, size_t cap, unsigned long long v, int mindigits)
{
    char d[24];
    int n = 0;
    do { d[n++] = (char)('0' + v % 10); v /= 10; } while ((v || n < mindigits) && n < 24);
    while (n && *u < cap) buf[(*u)++] = d[--n];
}
size_t isochron_report_end_interrupted(char *buf, size_t len, const char *count_key, unsigned long count, unsigned long long wall_ms,
                                       const char *signame)
{
    if (!buf || len < 256 || !count_key || !signame) return 0;
    size_t u = 0, cap = len - 1;
    put(buf, &u, cap, "{\"schema\":");
    put_uint(buf, &u, cap, ISOCHRON_SCHEMA_VERSION, 1);
    put(buf, &u, cap, ",\"type\":\"end\",\"");
    put(buf, &u, cap, count_key);
    put(buf, &u, cap, "\":");
    put_uint(buf, &u, cap, count, 1);
    put(buf, &u, cap, ",\"wall_s\":");
    put_uint(buf, &u, cap, wall_ms / 1000, 1);
    put(buf, &u, cap, ".");
    put_uint(buf, &u, cap, wall_ms % 1000, 3);
    put(buf, &u, cap, ",\"complete\":false,\"interrupted\":\"");
    put(buf, &u, cap, signame);
    put(buf, &u, cap, "\"}\n");
    buf[u] = 0;
    return u;
}

static void end(const isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *sk, int n)
{
    isochron_json_t j;
    end_open(&j, r->f, "points", npoints, wall_s, complete);
    if (n > 0 && sk) { /* only then, so a run without skips writes the plain end record */
        isochron_json_key(&j, "skipped");
        isochron_json_array_begin(&j);
        for (int i = 0; i < n; i++) {
            isochron_json_object_begin(&j);
            isochron_json_kstring(&j, "op", sk[i].op);
            isochron_json_kint(&j, "bytes", (long long)sk[i].bytes);
            isochron_json_kint(&j, "root", sk[i].root);
            isochron_json_kstring(&j, "error", sk[i].why);
            isochron_json_object_end(&j);
        }
        isochron_json_array_end(&j);
    }
    isochron_json_record_end(&j);
}

/* the all-pairs matrix of median round trips, diagonal 0, a pair not measured null */
static int matrix(const isochron_reporter_t *r, const char *mode, size_t bytes, int p, int reps, double wall, const isochron_pair_t *pr)
{
    int np = p * (p - 1) / 2;
    double *row = malloc(sizeof(double) * (size_t)(p > 0 ? p : 1));
    if (!row) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    isochron_json_t j;
    isochron_json_init(&j, r->f);
    isochron_json_record_begin(&j, "matrix");
    isochron_json_kstring(&j, "op", "allpairs");
    isochron_json_kstring(&j, "mode", mode);
    isochron_json_kint(&j, "bytes", (long long)bytes);
    isochron_json_kint(&j, "nprocs", p);
    isochron_json_kint(&j, "reps", reps);
    isochron_json_knumber(&j, "wall_s", wall);
    isochron_json_key(&j, "median_s");
    isochron_json_array_begin(&j);
    for (int i = 0; i < p; i++) {
        for (int x = 0; x < p; x++) row[x] = i == x ? 0.0 : NAN;
        for (int k = 0; k < np; k++) {
            if (pr[k].i == i) row[pr[k].j] = pr[k].s.median;
            if (pr[k].j == i) row[pr[k].i] = pr[k].s.median;
        }
        isochron_json_numbers(&j, row, p);
    }
    free(row);
    isochron_json_array_end(&j);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}

static void startup(const isochron_reporter_t *r, const char *tool, const isochron_startup_t *s)
{
    isochron_json_t j;
    isochron_json_init(&j, r->f);
    isochron_json_record_begin(&j, "startup");
    isochron_json_kstring(&j, "tool", tool);
    isochron_json_kint(&j, "ranks", s->ranks);
    isochron_json_kstring(&j, "clock", "each rank's CLOCK_MONOTONIC");
    isochron_json_kstring(&j, "init", isochron_init_name(s->init));
    for (int i = 0; i < s->nphases; i++) {
        isochron_json_key(&j, s->key[i]);
        isochron_json_object_begin(&j);
        isochron_json_knumber(&j, "min", s->min[i]);
        isochron_json_knumber(&j, "mean", s->mean[i]);
        isochron_json_knumber(&j, "max", s->max[i]);
        isochron_json_object_end(&j);
    }
    isochron_json_record_end(&j);
}

static void track(const isochron_reporter_t *r, int refreshes, double cost_s, double wall_s)
{
    isochron_json_t j;
    isochron_json_init(&j, r->f);
    isochron_json_record_begin(&j, "track");
    isochron_json_kint(&j, "refreshes", refreshes);
    isochron_json_knumber(&j, "cost_s", cost_s);
    isochron_json_knumber(&j, "wall_s", wall_s);
    isochron_json_record_end(&j);
}

const isochron_report_format_t isochron_report_format_jsonl = {"jsonl", 1, 0, begin, point, end, matrix, startup, track};
