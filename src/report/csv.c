/*
 * The CSV format of the reporter (format.h): the context as "# key value"
 * lines, then a header and one row per point with the columns docs/output.md
 * lists (numbers %.9g, clock bounds %.4g, an unknown value empty), the end
 * and any skipped points as "# " lines. Records other than points (the
 * all-pairs matrix, tracking) have no row: their pairs are rows already.
 */
#include <math.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "report/format.h"

static void begin(const isochron_reporter_t *r, const isochron_kv_t *kv, int n)
{
    isochron_report_kv_lines(r->f, "# ", kv, n);
    fputs("op,family,bytes,dtype,redop,root,in_place,nprocs,scheme,method,reps,valid,stop,mean_s,median_s,min_s,max_s,stddev_s,ci_level,ci_lo_s,ci_hi_s,start_spread_s,correction_s,validated,clock_bound_s,clock_true_s,median_ci_lo_s,median_ci_hi_s,"
          "unit,msg_window,bytes_per_run,msgs_per_run,bw_median_MBps,bw_ci_lo_MBps,bw_ci_hi_MBps,msg_rate_median_per_s,"
          "timing,timing_choice,loop_k,resolution_s,below_resolution,uncertain\n", r->f);
    fflush(r->f);
}

/* one row; the type and extra fields of a JSON Lines record have no column */
static void point(const isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                  const isochron_kv_t *extra, int nextra)
{
    (void)type, (void)extra, (void)nextra;
    FILE *f = r->f;
    const isochron_summary_t *s = &p->s;
    fprintf(f, "%s,%s,%zu,%s,%s,%d,%d,%d,%s,%s,%d,%d,%s", p->op, p->family, p->bytes, p->dtype, p->redop, p->root, p->in_place,
            p->nprocs, scheme, method, p->reps, p->valid, isochron_report_stop_name(p->stop));
    double v[] = {s->mean, s->median, s->min, s->max, s->stddev, s->ci_level, s->ci_lo, s->ci_hi, p->start_spread, p->correction};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) { if (isfinite(v[i])) fprintf(f, ",%.9g", v[i]); else fputs(",", f); }
    fprintf(f, ",%d", p->validated);
    double ck[] = {p->clock_bound, p->clock_true};
    for (int i = 0; i < 2; i++) { if (isfinite(ck[i])) fprintf(f, ",%.4g", ck[i]); else fputs(",", f); }
    double mc[] = {s->med_lo, s->med_hi};
    for (int i = 0; i < 2; i++) { if (isfinite(mc[i])) fprintf(f, ",%.9g", mc[i]); else fputs(",", f); }
    isochron_report_rate_t rt;
    fprintf(f, ",%s", p->unit[0] ? p->unit : "s");
    if (isochron_report_rate(p, &rt)) {
        fprintf(f, ",%d,%.9g,%.9g", p->msg_window, p->moved_bytes, p->moved_msgs);
        double rv[] = {rt.med / 1e6, rt.lo / 1e6, rt.hi / 1e6, rt.msgs};
        for (int i = 0; i < 4; i++) { if (isfinite(rv[i])) fprintf(f, ",%.9g", rv[i]); else fputs(",", f); }
    } else
        fputs(",,,,,,,", f);
    fprintf(f, ",%s,%s,%d", p->timing, p->timing[0] ? (p->timing_user ? "user" : "auto") : "", p->loop_k > 0 ? p->loop_k : 1);
    if (p->resolution > 0) fprintf(f, ",%.4g", p->resolution); else fputs(",", f);
    fprintf(f, ",%d,%d\n", isochron_point_below_resolution(p), isochron_point_uncertain(p));    fflush(f);
}

static void end(const isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *sk, int n)
{
    fprintf(r->f, "# end: %d points, %.3f s, %s\n", npoints, wall_s, complete ? "complete" : "incomplete");
    for (int i = 0; sk && i < n; i++) fprintf(r->f, "# skipped: %s at %zu B: %s\n", sk[i].op, sk[i].bytes, sk[i].why);
    fflush(r->f);
}

static int matrix(const isochron_reporter_t *r, const char *mode, size_t bytes, int nprocs, int reps, double wall_s, const isochron_pair_t *pr)
{
    (void)r, (void)mode, (void)bytes, (void)nprocs, (void)reps, (void)wall_s, (void)pr;
    return ISOCHRON_OK;
}

static void startup(const isochron_reporter_t *r, const char *tool, const isochron_startup_t *s)
{
    (void)tool;
    fprintf(r->f, "what,ranks,min_s,mean_s,max_s\n");
    for (int i = 0; i < s->nphases; i++) fprintf(r->f, "%s,%d,%.9g,%.9g,%.9g\n", s->what[i], s->ranks, s->min[i], s->mean[i], s->max[i]);
    fflush(r->f);
}

const isochron_report_format_t isochron_report_format_csv = {"csv", 0, 0, begin, point, end, matrix, startup, NULL};
