/*
 * The table format of the reporter (format.h): for a reader at a terminal.
 * The context as "key value" lines, then one line per point in columns (the
 * operation column as wide as isochron_reporter_name_width asks), times in
 * human units; a time below the point's resolution is shown as "<= R", never
 * as a number the timing cannot resolve, and a doubtful point says why
 * ("! below resolution", "! CI+clock N% of the median"). A point with no
 * valid repetition is printed as such, never as numbers.
 */
#include <math.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "report/format.h"

static void begin(const isochron_reporter_t *r, const isochron_kv_t *kv, int n)
{
    FILE *f = r->f;
    isochron_report_kv_lines(f, "", kv, n);
    fprintf(f, "\n%-*s %9s %6s %11s %11s %11s %11s %11s %9s %9s  %s\n", r->namew, "operation", "size", "root", "valid/reps", "median",
            "±CI(med)", "mean", "min", "spread", "clock±", "stop");
    fprintf(f, "%-*s (clock± is the statistical clock bound, which assumes symmetric paths; \"clock± hard\" marks the hard one, stated where the\n"
               "%-*s  statistical premises failed: see docs/cluster.md)\n", r->namew, "", r->namew, "");
    fflush(f);
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

/* one line; the type and extra fields of a JSON Lines record are not shown */
static void point(const isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                  const isochron_kv_t *extra, int nextra)
{
    (void)scheme, (void)method, (void)type, (void)extra, (void)nextra;
    FILE *f = r->f;
    const isochron_summary_t *s = &p->s;
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
                isochron_fmt_time(p->start_spread, e, sizeof e), isochron_fmt_time(p->clock_bound, ck, sizeof ck), isochron_report_stop_name(p->stop));
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
        isochron_report_rate_t rt;
        if (isochron_report_rate(p, &rt)) {
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
    }    fflush(f);
}

static void end(const isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *sk, int n)
{
    fprintf(r->f, "\n%d points in %.1f s%s\n", npoints, wall_s, complete ? "" : " (incomplete)");
    for (int i = 0; sk && i < n; i++) fprintf(r->f, "skipped: %s at %zu B: %s\n", sk[i].op, sk[i].bytes, sk[i].why);
    fflush(r->f);
}

/* the all-pairs matrix of median round trips ("-" on the diagonal and for a pair not measured) */
static int matrix(const isochron_reporter_t *r, const char *mode, size_t bytes, int p, int reps, double wall, const isochron_pair_t *pr)
{
    FILE *f = r->f;
    int np = p * (p - 1) / 2;
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
    return ISOCHRON_OK;
}

static void startup(const isochron_reporter_t *r, const char *tool, const isochron_startup_t *s)
{
    (void)tool;
    int w = 22, n = s->nphases;
    for (int i = 0; i < n; i++) if ((int)strlen(s->what[i]) > w) w = (int)strlen(s->what[i]);
    fprintf(r->f, "%-*s %6s %12s %12s %12s\n", w, "start-up", "ranks", "min", "mean", "max");
    for (int i = 0; i < n; i++)
        fprintf(r->f, "%-*s %6d %10.3f ms %10.3f ms %10.3f ms\n", w, s->what[i], s->ranks, s->min[i] * 1e3, s->mean[i] * 1e3, s->max[i] * 1e3);
    fflush(r->f);
}

const isochron_report_format_t isochron_report_format_table = {"table", 0, 1, begin, point, end, matrix, startup, NULL};
