/*
 * Reporters (include/isochron/report.h): table, jsonl and csv share one
 * interface; measurement code never formats output. JSON Lines records carry
 * the schema version; the first is the context block (where, with what, how),
 * the last a "end" record with the wall time and whether the run completed,
 * so a reader can tell a truncated file. A point with no valid repetition is
 * printed as such, never as numbers. JSON goes through the writer of json.c
 * (one number format for every record of isochron).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"

enum { FMT_TABLE, FMT_JSONL, FMT_CSV };

struct isochron_reporter {
    int fmt;
    FILE *f;
    int header_done;
    int namew;            /* table: width of the operation column */
};

void isochron_reporter_name_width(isochron_reporter_t *r, int width)
{
    if (r) r->namew = width < 22 ? 22 : width > 64 ? 64 : width;
}

/* The one table of output formats: the reporters' (indexes FMT_*) and "none"; the drivers' --format
 * checks and messages come from here (isochron_report_format_check), not from names of their own. */
static const char *const format_names[] = {"table", "jsonl", "csv", "none"};
enum { NFORMATS = (int)(sizeof format_names / sizeof *format_names) };
_Static_assert(FMT_TABLE == 0 && FMT_JSONL == 1 && FMT_CSV == 2, "format_names is indexed by FMT_*");

const char *isochron_report_format_name(int i) { return i >= 0 && i < NFORMATS ? format_names[i] : NULL; }

static int format_index(const char *name, unsigned mask)
{
    for (int i = 0; name && i < NFORMATS; i++)
        if ((mask & (1u << i)) && !strcmp(name, format_names[i])) return i;
    return -1;
}

int isochron_report_format_check(const char *name, unsigned mask)
{
    if (format_index(name, mask) >= 0) return ISOCHRON_OK;
    char valid[64] = "";
    size_t o = 0;
    for (int i = 0; i < NFORMATS; i++)
        if (mask & (1u << i)) o += (size_t)snprintf(valid + o, sizeof valid - o, "%s%s", o ? ", " : "", format_names[i]);
    return isochron_set_error(ISOCHRON_ENAME, "unknown --format '%.64s'; valid: %s", name ? name : "(null)", valid);
}

const char *isochron_reporter_names(void) { return "table, jsonl, csv"; }

int isochron_reporter_create(const char *format, FILE *f, isochron_reporter_t **out)
{
    *out = NULL;
    int fmt = format_index(format, ISOCHRON_FORMAT_TABLE | ISOCHRON_FORMAT_JSONL | ISOCHRON_FORMAT_CSV);
    if (fmt < 0) return isochron_set_error(ISOCHRON_ENAME, "unknown output format '%s'; valid: %s", format, isochron_reporter_names());
    isochron_reporter_t *r = calloc(1, sizeof *r);
    if (!r) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    r->fmt = fmt;
    r->f = f;
    r->namew = 22;
    *out = r;
    return ISOCHRON_OK;
}

void isochron_reporter_destroy(isochron_reporter_t *r) { free(r); }

const char *isochron_fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s)) snprintf(buf, len, "-");
    else if (fabs(s) < 1e-6) snprintf(buf, len, "%.1f ns", s * 1e9);
    else if (fabs(s) < 1e-3) snprintf(buf, len, "%.2f us", s * 1e6);
    else if (fabs(s) < 1) snprintf(buf, len, "%.3f ms", s * 1e3);
    else snprintf(buf, len, "%.3f s", s);
    return buf;
}

const char *isochron_fmt_bytes(size_t b, char *buf, size_t len)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0) snprintf(buf, len, "%zu GiB", b >> 30);
    else if (b >= (1u << 20) && b % (1u << 20) == 0) snprintf(buf, len, "%zu MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0) snprintf(buf, len, "%zu KiB", b >> 10);
    else snprintf(buf, len, "%zu B", b);
    return buf;
}

/* Throughput points: the time statistics as rates (B/s). A rate is moved/time, a decreasing map, so
 * the median's interval [lo, hi] in time becomes [moved/hi, moved/lo]. */
typedef struct { double med, lo, hi, msgs; } rate_t;

static int rate_of(const isochron_point_t *p, rate_t *r)
{
    if (!(p->moved_bytes > 0) || strcmp(p->unit, "B/s")) return 0;
    const isochron_summary_t *s = &p->s;
    r->med = s->median > 0 ? p->moved_bytes / s->median : NAN;
    r->lo = s->med_hi > 0 ? p->moved_bytes / s->med_hi : NAN;
    r->hi = s->med_lo > 0 ? p->moved_bytes / s->med_lo : NAN;
    r->msgs = s->median > 0 ? p->moved_msgs / s->median : NAN;
    return 1;
}

/* The median below the resolution R; or (issue 26, "never a negative time") a time the record states as a latency
 * that cannot be one: the minimum or the low end of either interval below zero, and, where a part measured
 * apart is subtracted (correction > 0: empty quiet, post, computation, barrier, confirmation, acknowledgment),
 * below R, since every repetition of such a point is a subtraction's result. */
static int below_r(const isochron_point_t *p, double v)
{
    int subtracted = isfinite(p->correction) && p->correction > 0;
    return isfinite(v) && (v < 0 || (subtracted && v < p->resolution));
}

int isochron_point_below_resolution(const isochron_point_t *p)
{
    if (!(p->valid > 0 && p->resolution > 0)) return 0;
    const isochron_summary_t *s = &p->s;
    return s->median < p->resolution || below_r(p, s->min) || below_r(p, s->med_lo) || below_r(p, s->ci_lo);
}

/* unknown CI (too few repetitions for one) counts as uncertain: nothing says the median is within 10 % */
int isochron_point_uncertain(const isochron_point_t *p)
{
    if (p->valid <= 0) return 0;
    double half = 0.5 * (p->s.med_hi - p->s.med_lo), used = isfinite(p->clock_used) ? p->clock_used : 0;
    if (!isfinite(half) || !(p->s.median > 0)) return 1;
    return half + used > 0.1 * p->s.median;
}

/* A time for the table: "<= R" when below the point's resolution R (never a negative or sub-resolution number). */
static const char *fmt_res(const isochron_point_t *p, double v, char *buf, size_t len)
{
    if (isfinite(v) && p->resolution > 0 && v < p->resolution) {
        char r[24];
        snprintf(buf, len, "<= %s", isochron_fmt_time(p->resolution, r, sizeof r));
        return buf;
    }
    return isochron_fmt_time(v, buf, len);
}

static const char *stop_name(int s)
{
    return s == ISOCHRON_STOP_CI ? "ci" : s == ISOCHRON_STOP_MAXREPS ? "max_reps" : s == ISOCHRON_STOP_BUDGET ? "budget"
         : s == ISOCHRON_STOP_ATTEMPTS ? "max_attempts" : "error";
}

void isochron_report_clock_error(isochron_json_t *j, double bound, double truth, int is_hard, const double *stat, double hard)
{
    isochron_json_knumber(j, "clock_bound_s", bound);
    isochron_json_knumber(j, "clock_true_s", truth);
    if (isfinite(bound)) {
        isochron_json_kstring(j, "clock_bound_kind", is_hard ? "hard" : "statistical");
        if (stat) isochron_json_knumber(j, "clock_bound_stat_s", *stat);
        isochron_json_knumber(j, "clock_bound_hard_s", hard);
    }
}

int isochron_report_begin(isochron_reporter_t *r, const isochron_kv_t *kv, int n)
{
    FILE *f = r->f;
    if (r->fmt == FMT_JSONL) {
        isochron_json_t j;
        isochron_json_init(&j, f);
        isochron_json_record_begin(&j, "context");
        for (int i = 0; i < n; i++) { isochron_json_key(&j, kv[i].key); isochron_json_raw(&j, kv[i].json); }
        isochron_json_record_end(&j);
    } else {
        const char *pre = r->fmt == FMT_CSV ? "# " : "";
        for (int i = 0; i < n; i++) {
            const char *v = kv[i].json;
            size_t l = strlen(v);
            if (l >= 2 && v[0] == '"' && v[l - 1] == '"') fprintf(f, "%s%-14s %.*s\n", pre, kv[i].key, (int)(l - 2), v + 1);
            else if (v[0] == '{') { /* an object: key=value pairs for a human */
                fprintf(f, "%s%-14s ", pre, kv[i].key);
                int in_str = 0;
                for (const char *c = v + 1; *c && !(c[1] == 0 && *c == '}'); c++) {
                    if (*c == '"') { in_str = !in_str; continue; }
                    if (!in_str && *c == ':') fputc('=', f);
                    else if (!in_str && *c == ',') fputs(", ", f);
                    else if (!in_str && (*c == '{' || *c == '}')) continue;
                    else fputc(*c, f);
                }
                fputc('\n', f);
            } else fprintf(f, "%s%-14s %s\n", pre, kv[i].key, v);
        }
        if (r->fmt == FMT_CSV)
            fputs("op,family,bytes,dtype,redop,root,in_place,nprocs,scheme,method,reps,valid,stop,mean_s,median_s,min_s,max_s,stddev_s,ci_level,ci_lo_s,ci_hi_s,start_spread_s,correction_s,validated,clock_bound_s,clock_true_s,median_ci_lo_s,median_ci_hi_s,"
                  "unit,msg_window,bytes_per_run,msgs_per_run,bw_median_MBps,bw_ci_lo_MBps,bw_ci_hi_MBps,msg_rate_median_per_s,"
                  "timing,timing_choice,loop_k,resolution_s,below_resolution,uncertain\n", f);
        else
            fprintf(f, "\n%-*s %9s %6s %11s %11s %11s %11s %11s %9s %9s  %s\n", r->namew, "operation", "size", "root", "valid/reps", "median",
                    "±CI(med)", "mean", "min", "spread", "clock±", "stop");
        if (r->fmt == FMT_TABLE)
            fprintf(f, "%-*s (clock± is the statistical clock bound, which assumes symmetric paths; \"clock± hard\" marks the hard one, stated where the\n"
                       "%-*s  statistical premises failed: see docs/cluster.md)\n", r->namew, "", r->namew, "");
    }
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_point(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method)
{
    return isochron_report_point_as(r, p, scheme, method, "point", NULL, 0);
}

int isochron_report_point_as(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                             const isochron_kv_t *extra, int nextra)
{
    FILE *f = r->f;
    const isochron_summary_t *s = &p->s;
    if (r->fmt == FMT_JSONL) {
        isochron_json_t j;
        isochron_json_init(&j, f);
        isochron_json_record_begin(&j, type ? type : "point");
        for (int i = 0; i < nextra; i++) { isochron_json_key(&j, extra[i].key); isochron_json_raw(&j, extra[i].json); }
        isochron_json_kstring(&j, "op", p->op);
        isochron_json_kstring(&j, "family", p->family);
        isochron_json_kint(&j, "bytes", (long long)p->bytes);
        isochron_json_kstring(&j, "dtype", p->dtype);
        isochron_json_kstring(&j, "redop", p->redop);
        isochron_json_kint(&j, "root", p->root);
        isochron_json_kbool(&j, "in_place", p->in_place);
        isochron_json_kint(&j, "nprocs", p->nprocs);
        isochron_json_kstring(&j, "scheme", scheme);
        isochron_json_kstring(&j, "method", method);
        isochron_json_kint(&j, "reps", p->reps);
        isochron_json_kint(&j, "valid", p->valid);
        isochron_json_kint(&j, "invalid", p->reps - p->valid);
        isochron_json_kstring(&j, "stop", stop_name(p->stop));
        isochron_json_knumber(&j, "mean_s", s->mean);
        isochron_json_knumber(&j, "median_s", s->median);
        isochron_json_knumber(&j, "min_s", s->min);
        isochron_json_knumber(&j, "max_s", s->max);
        isochron_json_knumber(&j, "stddev_s", s->stddev);
        isochron_json_knumber(&j, "ci_level", s->ci_level);
        isochron_json_knumber(&j, "ci_lo_s", s->ci_lo);
        isochron_json_knumber(&j, "ci_hi_s", s->ci_hi);
        isochron_json_knumber(&j, "median_ci_lo_s", s->med_lo);
        isochron_json_knumber(&j, "median_ci_hi_s", s->med_hi);
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
        rate_t rt;
        if (rate_of(p, &rt)) {
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
        if (p->raw_n > 0 && p->raw_time) {
            isochron_json_key(&j, "raw");
            isochron_json_object_begin(&j);
            isochron_json_key(&j, "time_s");
            isochron_json_numbers(&j, p->raw_time, p->raw_n);
            isochron_json_key(&j, "valid");
            isochron_json_array_begin(&j);
            for (int i = 0; i < p->raw_n; i++) isochron_json_int(&j, p->raw_valid[i]);
            isochron_json_array_end(&j);
            if (p->raw_start) {
                const char *names[2] = {"start_s", "end_s"};
                const double *arr[2] = {p->raw_start, p->raw_end};
                for (int a = 0; a < 2; a++) {
                    isochron_json_key(&j, names[a]);
                    isochron_json_array_begin(&j);
                    for (int i = 0; i < p->raw_n; i++) isochron_json_numbers(&j, &arr[a][(size_t)i * p->nprocs], p->nprocs);
                    isochron_json_array_end(&j);
                }
            }
            isochron_json_object_end(&j);
        }
        isochron_json_record_end(&j);
    } else if (r->fmt == FMT_CSV) {
        fprintf(f, "%s,%s,%zu,%s,%s,%d,%d,%d,%s,%s,%d,%d,%s", p->op, p->family, p->bytes, p->dtype, p->redop, p->root, p->in_place,
                p->nprocs, scheme, method, p->reps, p->valid, stop_name(p->stop));
        double v[] = {s->mean, s->median, s->min, s->max, s->stddev, s->ci_level, s->ci_lo, s->ci_hi, p->start_spread, p->correction};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) { if (isfinite(v[i])) fprintf(f, ",%.9g", v[i]); else fputs(",", f); }
        fprintf(f, ",%d", p->validated);
        double ck[] = {p->clock_bound, p->clock_true};
        for (int i = 0; i < 2; i++) { if (isfinite(ck[i])) fprintf(f, ",%.4g", ck[i]); else fputs(",", f); }
        double mc[] = {s->med_lo, s->med_hi};
        for (int i = 0; i < 2; i++) { if (isfinite(mc[i])) fprintf(f, ",%.9g", mc[i]); else fputs(",", f); }
        rate_t rt;
        fprintf(f, ",%s", p->unit[0] ? p->unit : "s");
        if (rate_of(p, &rt)) {
            fprintf(f, ",%d,%.9g,%.9g", p->msg_window, p->moved_bytes, p->moved_msgs);
            double rv[] = {rt.med / 1e6, rt.lo / 1e6, rt.hi / 1e6, rt.msgs};
            for (int i = 0; i < 4; i++) { if (isfinite(rv[i])) fprintf(f, ",%.9g", rv[i]); else fputs(",", f); }
        } else
            fputs(",,,,,,,", f);
        fprintf(f, ",%s,%s,%d", p->timing, p->timing[0] ? (p->timing_user ? "user" : "auto") : "", p->loop_k > 0 ? p->loop_k : 1);
        if (p->resolution > 0) fprintf(f, ",%.4g", p->resolution); else fputs(",", f);
        fprintf(f, ",%d,%d\n", isochron_point_below_resolution(p), isochron_point_uncertain(p));
    } else {
        char sz[32], a[32], bb[32], c[32], d[32], e[32], vr[32];
        snprintf(vr, sizeof vr, "%d/%d", p->valid, p->reps);
        isochron_fmt_bytes(p->bytes, sz, sizeof sz);
        char root[12];
        if (p->root < 0) snprintf(root, sizeof root, "rotate");
        else snprintf(root, sizeof root, "%d", p->root);
        if (p->valid == 0)
            fprintf(f, "%-*s %9s %6s %11s  no valid repetitions (%d invalid): no statistics\n", r->namew, p->op, sz, root, vr, p->reps);
        else {
            char ck[32];
            fprintf(f, "%-*s %9s %6s %11s %11s %11s %11s %11s %9s %9s  %s", r->namew, p->op, sz, root, vr, fmt_res(p, s->median, a, sizeof a),
                    isochron_fmt_time(0.5 * (s->med_hi - s->med_lo), c, sizeof c), fmt_res(p, s->mean, bb, sizeof bb), fmt_res(p, s->min, d, sizeof d),
                    isochron_fmt_time(p->start_spread, e, sizeof e), isochron_fmt_time(p->clock_bound, ck, sizeof ck), stop_name(p->stop));
            if (p->timing[0]) {
                if (p->loop_k > 1) fprintf(f, "  [loop k=%d, %s]", p->loop_k, p->loop_of);
                else fprintf(f, "  [%s]", p->timing);
            }
            /* an uncertainty (the median's CI + the clock bound the timing depends on) that is not small next to
             * the result makes the result doubtful: say so, with what the timing can resolve */
            int below = isochron_point_below_resolution(p), med_below = below && s->median < p->resolution;
            if (below) /* the median, or only its minimum / a CI end (shown as "<= R" or not at all) */
                fprintf(f, "  ! %sbelow resolution %s", med_below ? "" : "min/CI ", isochron_fmt_time(p->resolution, ck, sizeof ck));
            if (!med_below && isochron_point_uncertain(p)) {
                double half = 0.5 * (s->med_hi - s->med_lo), used = isfinite(p->clock_used) ? p->clock_used : 0;
                if (isfinite(half) && s->median > 0)
                    fprintf(f, "  ! CI+clock %.0f%% of the median", 100 * (half + used) / s->median);
                else
                    fputs("  ! no CI of the median", f);
                if (p->resolution > 0) fprintf(f, ", resolution %s", isochron_fmt_time(p->resolution, ck, sizeof ck));
            }
            rate_t rt;
            if (rate_of(p, &rt)) {
                fprintf(f, "  %.2f MB/s", rt.med / 1e6);
                if (isfinite(rt.lo) && isfinite(rt.hi)) fprintf(f, " [%.2f, %.2f]", rt.lo / 1e6, rt.hi / 1e6);
                fprintf(f, ", %.4g msg/s (window %d)", rt.msgs, p->msg_window);
            }
            if (isfinite(p->clock_bound) && p->clock_bound_is_hard) fprintf(f, "  clock± hard");
            if (p->threads > 0) fprintf(f, "  threads %d", p->threads);
            if (p->partitions > 0) fprintf(f, "  partitions %d", p->partitions);
            if (p->retries > 0) {
                fputs("  retried: discarded", f);
                for (int i = 0; i < p->retries && i < ISOCHRON_MAX_RETRIES; i++) fprintf(f, "%s %.0f%%", i ? "," : "", 100 * p->retry_share[i]);
                fputs(" valid", f);
            }
            if (isfinite(p->overlap)) fprintf(f, "  overlap %.0f%% (comm %s alone)", 100 * p->overlap, isochron_fmt_time(p->t_comm, a, sizeof a));
            fputc('\n', f);
        }
    }
    fflush(f);
    return ISOCHRON_OK;
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

/* the end record of every driver (each names what it counts) */
int isochron_report_end_record(FILE *f, const char *count_key, int count, double wall_s, int complete)
{
    if (!f || !count_key) return isochron_set_error(ISOCHRON_EINVAL, "end record: no stream or count key");
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

int isochron_report_end_skipped(isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *sk, int n)
{
    if (n <= 0 || !sk) return isochron_report_end(r, wall_s, npoints, complete);
    if (r->fmt == FMT_JSONL) {
        isochron_json_t j;
        end_open(&j, r->f, "points", npoints, wall_s, complete);
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
        isochron_json_record_end(&j);
        fflush(r->f);
        return ISOCHRON_OK;
    }
    isochron_report_end(r, wall_s, npoints, complete);
    for (int i = 0; i < n; i++)
        fprintf(r->f, r->fmt == FMT_TABLE ? "skipped: %s at %zu B: %s\n" : "# skipped: %s at %zu B: %s\n", sk[i].op, sk[i].bytes, sk[i].why);
    fflush(r->f);
    return ISOCHRON_OK;
}

int isochron_report_end(isochron_reporter_t *r, double wall_s, int npoints, int complete)
{
    if (r->fmt == FMT_JSONL) isochron_report_end_record(r->f, "points", npoints, wall_s, complete);
    else if (r->fmt == FMT_TABLE)
        fprintf(r->f, "\n%d points in %.1f s%s\n", npoints, wall_s, complete ? "" : " (incomplete)");
    else
        fprintf(r->f, "# end: %d points, %.3f s, %s\n", npoints, wall_s, complete ? "complete" : "incomplete");
    fflush(r->f);
    return ISOCHRON_OK;
}

/* ---- the records of isochron-bench's other experiments (all-pairs, start-up, tracking): written
 * here, beside the points, so that every record of the drivers goes through one writer */

int isochron_report_point_labeled(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                                  const isochron_kv_t *extra, int nextra, const char *label)
{
    if (r->fmt == FMT_JSONL) return isochron_report_point_as(r, p, scheme, method, type, extra, nextra);
    isochron_point_t q = *p;
    snprintf(q.op, sizeof q.op, "%s", label);
    return isochron_report_point(r, &q, scheme, method);
}

/* the extra fields of a "pair" or "triplet" record after the point's: numbers made by the one writer */
int isochron_report_pairs(isochron_reporter_t *r, const char *mode, size_t bytes, int p, int reps, double wall,
                          const isochron_pair_t *pr)
{
    if (!r || !mode || (!pr && p > 1)) return isochron_set_error(ISOCHRON_EINVAL, "pair records: no reporter, mode or pairs");
    char mj[32], wj[40], sj[40], gj[40], ij[16], jj[16], label[40];
    snprintf(mj, sizeof mj, "\"%.24s\"", mode);
    isochron_json_format_number(wall, wj, sizeof wj);
    int rc = ISOCHRON_OK;
    for (int k = 0; k < p * (p - 1) / 2 && !rc; k++) {
        isochron_point_t pt;
        isochron_point_p2p(&pt, "allpairs", bytes, pr[k].i, p, reps, &pr[k].s, 2);
        snprintf(ij, sizeof ij, "%d", pr[k].i);
        snprintf(jj, sizeof jj, "%d", pr[k].j);
        snprintf(label, sizeof label, "allpairs:%d-%d", pr[k].i, pr[k].j);
        isochron_json_format_number(pr[k].send_s, sj, sizeof sj);
        isochron_json_format_number(pr[k].gap_s, gj, sizeof gj);
        isochron_kv_t ex[] = {{"i", ij}, {"j", jj}, {"mode", mj}, {"send_s", sj}, {"gap_s", gj}, {"wall_s", wj}};
        rc = isochron_report_point_labeled(r, &pt, "none", "roundtrip", "pair", ex, 6, label);
    }
    return rc;
}

int isochron_report_triplets(isochron_reporter_t *r, size_t bytes, int p, int reps, double wall, const isochron_triplet_t *tr,
                             int n)
{
    if (!r || (!tr && n > 0)) return isochron_set_error(ISOCHRON_EINVAL, "triplet records: no reporter or triplets");
    char wj[40], ij[16], jj[16], kj[16], label[48];
    isochron_json_format_number(wall, wj, sizeof wj);
    int rc = ISOCHRON_OK;
    for (int t = 0; t < n && !rc; t++) {
        isochron_point_t pt;
        isochron_point_p2p(&pt, "p2t", bytes, tr[t].i, p, reps, &tr[t].s, 3);
        snprintf(ij, sizeof ij, "%d", tr[t].i);
        snprintf(jj, sizeof jj, "%d", tr[t].j);
        snprintf(kj, sizeof kj, "%d", tr[t].k);
        snprintf(label, sizeof label, "p2t:%d-%d+%d", tr[t].i, tr[t].j, tr[t].k);
        isochron_kv_t ex[] = {{"i", ij}, {"j", jj}, {"k", kj}, {"wall_s", wj}};
        rc = isochron_report_point_labeled(r, &pt, "none", "roundtrip", "triplet", ex, 4, label);
    }
    return rc;
}

int isochron_report_matrix(isochron_reporter_t *r, const char *mode, size_t bytes, int p, int reps, double wall, const isochron_pair_t *pr)
{
    int np = p * (p - 1) / 2;
    if (r->fmt == FMT_JSONL) {
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
        double *row = malloc(sizeof(double) * (size_t)(p > 0 ? p : 1));
        if (!row) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
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
    } else if (r->fmt == FMT_TABLE) {
        FILE *f = r->f;
        char b[32];
        fprintf(f, "\nallpairs %s, %zu B: median round trip (s) of %d pairs, %d reps each, %.3f s wall\n%6s", mode, bytes, np, reps, wall, "");
        for (int x = 0; x < p; x++) fprintf(f, " %11d", x);
        fprintf(f, "\n");
        for (int i = 0; i < p; i++) {
            fprintf(f, "%6d", i);
            for (int x = 0; x < p; x++) {
                const isochron_pair_t *q = NULL;
                for (int k = 0; k < np; k++) if ((pr[k].i == i && pr[k].j == x) || (pr[k].i == x && pr[k].j == i)) q = &pr[k];
                fprintf(f, " %11s", q ? isochron_fmt_time(q->s.median, b, sizeof b) : "-");
            }
            fprintf(f, "\n");
        }
        fflush(f);
    }
    return ISOCHRON_OK;
}

int isochron_report_startup(isochron_reporter_t *r, const char *tool, const isochron_startup_t *s)
{
    FILE *f = r->f;
    int n = s->nphases;
    if (r->fmt == FMT_TABLE) {
        int w = 22;
        for (int i = 0; i < n; i++) if ((int)strlen(s->what[i]) > w) w = (int)strlen(s->what[i]);
        fprintf(f, "%-*s %6s %12s %12s %12s\n", w, "start-up", "ranks", "min", "mean", "max");
        for (int i = 0; i < n; i++)
            fprintf(f, "%-*s %6d %10.3f ms %10.3f ms %10.3f ms\n", w, s->what[i], s->ranks, s->min[i] * 1e3, s->mean[i] * 1e3, s->max[i] * 1e3);
    } else if (r->fmt == FMT_CSV) {
        fprintf(f, "what,ranks,min_s,mean_s,max_s\n");
        for (int i = 0; i < n; i++) fprintf(f, "%s,%d,%.9g,%.9g,%.9g\n", s->what[i], s->ranks, s->min[i], s->mean[i], s->max[i]);
    } else {
        isochron_json_t j;
        isochron_json_init(&j, f);
        isochron_json_record_begin(&j, "startup");
        isochron_json_kstring(&j, "tool", tool);
        isochron_json_kint(&j, "ranks", s->ranks);
        isochron_json_kstring(&j, "clock", "each rank's CLOCK_MONOTONIC");
        isochron_json_kstring(&j, "init", isochron_init_name(s->init));
        for (int i = 0; i < n; i++) {
            isochron_json_key(&j, s->key[i]);
            isochron_json_object_begin(&j);
            isochron_json_knumber(&j, "min", s->min[i]);
            isochron_json_knumber(&j, "mean", s->mean[i]);
            isochron_json_knumber(&j, "max", s->max[i]);
            isochron_json_object_end(&j);
        }
        isochron_json_record_end(&j);
    }
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_track(isochron_reporter_t *r, int refreshes, double cost_s, double wall_s)
{
    if (r->fmt != FMT_JSONL) return ISOCHRON_OK;
    isochron_json_t j;
    isochron_json_init(&j, r->f);
    isochron_json_record_begin(&j, "track");
    isochron_json_kint(&j, "refreshes", refreshes);
    isochron_json_knumber(&j, "cost_s", cost_s);
    isochron_json_knumber(&j, "wall_s", wall_s);
    isochron_json_record_end(&j);
    return ISOCHRON_OK;
}
