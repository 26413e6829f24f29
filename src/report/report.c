/*
 * Reporters (include/isochron/report.h): table, jsonl and csv share one
 * interface; measurement code never formats output. The format is chosen
 * once, when the reporter is made: a table of its writers (format.h), one
 * file per format (table.c, jsonl.c, csv.c). This file holds what they
 * share: the reporter's life and the format names the drivers' --format
 * checks, and the writers that hand each record to the format. What the
 * formats derive alike from a point is in fields.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"
#include "report/format.h"

void isochron_reporter_name_width(isochron_reporter_t *r, int width)
{
    if (r) r->namew = width < 22 ? 22 : width > 64 ? 64 : width;
}

/* The one table of output formats: the reporters' and "none"; the drivers' --format
 * checks and messages come from here (isochron_report_format_check), not from names of their own. */
static const isochron_report_format_t *const formats[] = {&isochron_report_format_table, &isochron_report_format_jsonl,
                                                           &isochron_report_format_csv};
static const char *const format_names[] = {"table", "jsonl", "csv", "none"};
enum { NFORMATS = (int)(sizeof format_names / sizeof *format_names) };
_Static_assert(sizeof formats / sizeof *formats == NFORMATS - 1, "one reporter per format name but \"none\"");

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
    r->fmt = formats[fmt];
    r->f = f;
    r->namew = 22;
    *out = r;
    return ISOCHRON_OK;
}

void isochron_reporter_destroy(isochron_reporter_t *r) { free(r); }

/* ---- the writers: each hands its record to the reporter's format */

int isochron_report_begin(isochron_reporter_t *r, const isochron_kv_t *kv, int n)
{
    r->fmt->begin(r, kv, n);
    return ISOCHRON_OK;
}

int isochron_report_point(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method)
{
    return isochron_report_point_as(r, p, scheme, method, "point", NULL, 0);
}

int isochron_report_point_as(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                             const isochron_kv_t *extra, int nextra)
{
    r->fmt->point(r, p, scheme, method, type, extra, nextra);
    return ISOCHRON_OK;
}

int isochron_report_end_skipped(isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *sk, int n)
{
    r->fmt->end(r, wall_s, npoints, complete, sk, sk ? n : 0);
    return ISOCHRON_OK;
}

int isochron_report_end(isochron_reporter_t *r, double wall_s, int npoints, int complete)
{
    return isochron_report_end_skipped(r, wall_s, npoints, complete, NULL, 0);
}

/* ---- the records of isochron-bench's other experiments each format writes its own way (the pairs and
 * triplets, written as points, are bench_records.c's) */

int isochron_report_matrix(isochron_reporter_t *r, const char *mode, size_t bytes, int p, int reps, double wall, const isochron_pair_t *pr)
{
    return r->fmt->matrix(r, mode, bytes, p, reps, wall, pr);
}

int isochron_report_startup(isochron_reporter_t *r, const char *tool, const isochron_startup_t *s)
{
    r->fmt->startup(r, tool, s);
    return ISOCHRON_OK;
}

int isochron_report_track(isochron_reporter_t *r, int refreshes, double cost_s, double wall_s)
{
    if (r->fmt->track) r->fmt->track(r, refreshes, cost_s, wall_s);
    return ISOCHRON_OK;
}
