/*
 * What every output format (format.h: table.c, jsonl.c, csv.c) and the
 * records of the drivers derive alike: times and sizes in human units, a
 * point's rates (throughput points), whether it is below its resolution or
 * uncertain (issue 26: never a negative or sub-resolution time stated as a
 * latency), why it stopped, the clock's error of a record, and the context
 * entries as lines for a reader. A file of its own so that the formats and
 * the reporter that chooses among them depend on it, not on each other.
 */
#include <math.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "report/context.h"
#include "report/format.h"

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
int isochron_report_rate(const isochron_point_t *p, isochron_report_rate_t *r)
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

const char *isochron_report_stop_name(int s)
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

void isochron_report_members(isochron_json_t *j, const isochron_report_member_t *m, int n)
{
    for (int i = 0; i < n; i++) {
        isochron_json_key(j, m[i].key);
        switch (m[i].kind) {
        case 'n': isochron_json_number(j, m[i].num); break;
        case 'i': isochron_json_int(j, m[i].integer); break;
        case 'b': isochron_json_bool(j, (int)m[i].integer); break;
        default: isochron_json_string(j, m[i].str); break;
        }
    }
}

void isochron_report_kv_lines(FILE *f, const char *pre, const isochron_kv_t *kv, int n)
{
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
}
