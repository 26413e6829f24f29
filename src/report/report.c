/*
 * Reporters (include/isochron/report.h): table, jsonl and csv share one
 * interface; measurement code never formats output. JSON Lines records carry
 * the schema version; the first is the context block (where, with what, how),
 * the last a "end" record with the wall time and whether the run completed,
 * so a reader can tell a truncated file. A point with no valid repetition is
 * printed as such, never as numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"

enum { FMT_TABLE, FMT_JSONL, FMT_CSV };

struct isochron_reporter {
    int fmt;
    FILE *f;
    int header_done;
};

const char *isochron_reporter_names(void) { return "table, jsonl, csv"; }

int isochron_reporter_create(const char *format, FILE *f, isochron_reporter_t **out)
{
    *out = NULL;
    int fmt = !strcmp(format, "table") ? FMT_TABLE : !strcmp(format, "jsonl") ? FMT_JSONL : !strcmp(format, "csv") ? FMT_CSV : -1;
    if (fmt < 0) return isochron_set_error(ISOCHRON_ENAME, "unknown output format '%s'; valid: %s", format, isochron_reporter_names());
    isochron_reporter_t *r = calloc(1, sizeof *r);
    if (!r) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    r->fmt = fmt;
    r->f = f;
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

static void jnum(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.9g", v); else fputs("null", f);
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s); else fputc(*s, f);
    }
    fputc('"', f);
}

static const char *stop_name(int s)
{
    return s == ISOCHRON_STOP_CI ? "ci" : s == ISOCHRON_STOP_MAXREPS ? "max_reps" : s == ISOCHRON_STOP_BUDGET ? "budget" : "error";
}

int isochron_report_begin(isochron_reporter_t *r, const isochron_kv_t *kv, int n)
{
    FILE *f = r->f;
    if (r->fmt == FMT_JSONL) {
        fprintf(f, "{\"schema\":%d,\"type\":\"context\"", ISOCHRON_SCHEMA_VERSION);
        for (int i = 0; i < n; i++) { fputc(',', f); jstr(f, kv[i].key); fputc(':', f); fputs(kv[i].json, f); }
        fputs("}\n", f);
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
            fputs("op,family,bytes,dtype,redop,root,in_place,nprocs,scheme,method,reps,valid,stop,mean_s,median_s,min_s,max_s,stddev_s,ci_level,ci_lo_s,ci_hi_s,start_spread_s,correction_s,validated,clock_bound_s,clock_true_s\n", f);
        else
            fprintf(f, "\n%-22s %9s %6s %11s %11s %11s %11s %11s %9s %9s  %s\n", "operation", "size", "root", "valid/reps", "median",
                    "mean", "±CI", "min", "spread", "clock±", "stop");
    }
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_point(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method)
{
    return isochron_report_point_as(r, p, scheme, method, "point", NULL);
}

int isochron_report_point_as(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                             const char *extra)
{
    FILE *f = r->f;
    const isochron_summary_t *s = &p->s;
    if (r->fmt == FMT_JSONL) {
        fprintf(f, "{\"schema\":%d,\"type\":", ISOCHRON_SCHEMA_VERSION);
        jstr(f, type ? type : "point");
        if (extra && *extra) fprintf(f, ",%s", extra);
        fputs(",\"op\":", f); jstr(f, p->op);
        fputs(",\"family\":", f); jstr(f, p->family);
        fprintf(f, ",\"bytes\":%zu,\"dtype\":\"%s\",\"redop\":\"%s\",\"root\":%d,\"in_place\":%s,\"nprocs\":%d,\"scheme\":", p->bytes, p->dtype,
                p->redop, p->root, p->in_place ? "true" : "false", p->nprocs);
        jstr(f, scheme);
        fputs(",\"method\":", f); jstr(f, method);
        fprintf(f, ",\"reps\":%d,\"valid\":%d,\"invalid\":%d,\"stop\":\"%s\"", p->reps, p->valid, p->reps - p->valid, stop_name(p->stop));
        fputs(",\"mean_s\":", f); jnum(f, s->mean);
        fputs(",\"median_s\":", f); jnum(f, s->median);
        fputs(",\"min_s\":", f); jnum(f, s->min);
        fputs(",\"max_s\":", f); jnum(f, s->max);
        fputs(",\"stddev_s\":", f); jnum(f, s->stddev);
        fputs(",\"ci_level\":", f); jnum(f, s->ci_level);
        fputs(",\"ci_lo_s\":", f); jnum(f, s->ci_lo);
        fputs(",\"ci_hi_s\":", f); jnum(f, s->ci_hi);
        fputs(",\"quantiles\":{", f);
        for (int i = 0; i < s->nq; i++) { fprintf(f, "%s\"%g\":", i ? "," : "", s->q[i]); jnum(f, s->qv[i]); }
        fputs("},\"start_spread_s\":", f); jnum(f, p->start_spread);
        fputs(",\"correction_s\":", f); jnum(f, p->correction);
        fputs(",\"scheme_param_s\":", f); jnum(f, p->window);
        fprintf(f, ",\"validated\":%d", p->validated);
        fputs(",\"clock_bound_s\":", f); jnum(f, p->clock_bound);
        fputs(",\"clock_true_s\":", f); jnum(f, p->clock_true);
        if (isfinite(p->overlap)) {
            fputs(",\"overlap\":", f); jnum(f, p->overlap);
            fputs(",\"t_comm_s\":", f); jnum(f, p->t_comm);
            fputs(",\"t_comp_s\":", f); jnum(f, p->t_comp);
        }
        if (p->raw_n > 0 && p->raw_time) {
            fputs(",\"raw\":{\"time_s\":[", f);
            for (int i = 0; i < p->raw_n; i++) { if (i) fputc(',', f); jnum(f, p->raw_time[i]); }
            fputs("],\"valid\":[", f);
            for (int i = 0; i < p->raw_n; i++) fprintf(f, "%s%d", i ? "," : "", p->raw_valid[i]);
            fputs("]", f);
            if (p->raw_start) {
                const char *names[2] = {"start_s", "end_s"};
                const double *arr[2] = {p->raw_start, p->raw_end};
                for (int a = 0; a < 2; a++) {
                    fprintf(f, ",\"%s\":[", names[a]);
                    for (int i = 0; i < p->raw_n; i++) {
                        fputs(i ? ",[" : "[", f);
                        for (int q = 0; q < p->nprocs; q++) { if (q) fputc(',', f); fprintf(f, "%.12f", arr[a][(size_t)i * p->nprocs + q]); }
                        fputc(']', f);
                    }
                    fputc(']', f);
                }
            }
            fputc('}', f);
        }
        fputs("}\n", f);
    } else if (r->fmt == FMT_CSV) {
        fprintf(f, "%s,%s,%zu,%s,%s,%d,%d,%d,%s,%s,%d,%d,%s", p->op, p->family, p->bytes, p->dtype, p->redop, p->root, p->in_place,
                p->nprocs, scheme, method, p->reps, p->valid, stop_name(p->stop));
        double v[] = {s->mean, s->median, s->min, s->max, s->stddev, s->ci_level, s->ci_lo, s->ci_hi, p->start_spread, p->correction};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) { if (isfinite(v[i])) fprintf(f, ",%.9g", v[i]); else fputs(",", f); }
        fprintf(f, ",%d", p->validated);
        double ck[] = {p->clock_bound, p->clock_true};
        for (int i = 0; i < 2; i++) { if (isfinite(ck[i])) fprintf(f, ",%.4g", ck[i]); else fputs(",", f); }
        fputc('\n', f);
    } else {
        char sz[32], a[32], bb[32], c[32], d[32], e[32], vr[32];
        snprintf(vr, sizeof vr, "%d/%d", p->valid, p->reps);
        isochron_fmt_bytes(p->bytes, sz, sizeof sz);
        char root[12];
        snprintf(root, sizeof root, "%d", p->root);
        if (p->valid == 0)
            fprintf(f, "%-22s %9s %6s %11s  no valid repetitions (%d invalid): no statistics\n", p->op, sz, root, vr, p->reps);
        else {
            char ck[32];
            fprintf(f, "%-22s %9s %6s %11s %11s %11s %11s %11s %9s %9s  %s", p->op, sz, root, vr, isochron_fmt_time(s->median, a, sizeof a),
                    isochron_fmt_time(s->mean, bb, sizeof bb), isochron_fmt_time(s->ci_half, c, sizeof c), isochron_fmt_time(s->min, d, sizeof d),
                    isochron_fmt_time(p->start_spread, e, sizeof e), isochron_fmt_time(p->clock_bound, ck, sizeof ck), stop_name(p->stop));
            /* a clock error that is not small next to the result makes the result doubtful: say so */
            if (isfinite(p->clock_bound) && p->clock_bound > 0.05 * fabs(s->median))
                fprintf(f, "  ! clock bound %.0f%% of the median", 100 * p->clock_bound / fabs(s->median));
            if (isfinite(p->overlap)) fprintf(f, "  overlap %.0f%% (comm %s alone)", 100 * p->overlap, isochron_fmt_time(p->t_comm, a, sizeof a));
            fputc('\n', f);
        }
    }
    fflush(f);
    return ISOCHRON_OK;
}

int isochron_report_end(isochron_reporter_t *r, double wall_s, int npoints, int complete)
{
    if (r->fmt == FMT_JSONL)
        fprintf(r->f, "{\"schema\":%d,\"type\":\"end\",\"points\":%d,\"wall_s\":%.6g,\"complete\":%s}\n", ISOCHRON_SCHEMA_VERSION, npoints, wall_s,
                complete ? "true" : "false");
    else if (r->fmt == FMT_TABLE)
        fprintf(r->f, "\n%d points in %.1f s%s\n", npoints, wall_s, complete ? "" : " (incomplete)");
    else
        fprintf(r->f, "# end: %d points, %.3f s, %s\n", npoints, wall_s, complete ? "complete" : "incomplete");
    fflush(r->f);
    return ISOCHRON_OK;
}
