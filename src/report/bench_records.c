/*
 * The context record of isochron-bench (include/isochron/report.h): where the
 * run happened, with which clock, scheme, method and timing, and every
 * option of the engine and the driver, so that a result file says how each
 * number was measured (measuring.md: every number states its method). The
 * driver fills isochron_bench_run_t from its options and the engine's
 * (isochron_bench_opts_t); each value is made here by the one JSON writer
 * (json.c) and handed to the reporter's context block (report.c), which
 * writes it as JSON Lines, CSV comment lines or the table's header alike.
 * Field names and order are schema 1's
 * (python/src/isochron/results-1.schema.json). Also the bench's records
 * made of points: the all-pairs "pair" and the point-to-two "triplet".
 */
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"
#include "report/format.h"

/* the members of the "options" object: the engine's and the driver's options */
static void options_members(isochron_json_t *j, const void *arg)
{
    const isochron_bench_run_t *r = arg;
    const isochron_bench_opts_t *bo = r->engine;
    isochron_report_stop_rule(j, bo->min_reps, bo->max_reps, bo->max_attempts, bo->rel_ci, bo->ci_mean, bo->ci_level, bo->budget);
    isochron_report_member_t m[] = {ISOCHRON_JINT("warmup", bo->warmup), ISOCHRON_JSTR("barrier", bo->barrier),
                                    ISOCHRON_JBOOL("barrier_twice", bo->barrier_twice), ISOCHRON_JNUM("slack", bo->slack),
                                    ISOCHRON_JNUM("late_cap", r->late_cap), ISOCHRON_JINT("retries", bo->retries),
                                    ISOCHRON_JNUM("retry_below", bo->retry_below), ISOCHRON_JSTR("bind", r->bind),
                                    ISOCHRON_JBOOL("bound_by_isochron", r->bound_by_isochron), ISOCHRON_JNUM("window_s", bo->window),
                                    ISOCHRON_JINT("msg_window", r->msg_window), ISOCHRON_JINT("threads", r->threads),
                                    ISOCHRON_JINT("partitions", r->partitions), ISOCHRON_JBOOL("thread_multiple", r->thread_multiple),
                                    ISOCHRON_JINT("validate", bo->validate),
                                    ISOCHRON_JINT("cache_clear_bytes", (long long)bo->cache_bytes)};
    isochron_report_members(j, m, ISOCHRON_NMEMBERS(m));
    if (bo->inject_slowdown > 0) isochron_json_knumber(j, "inject_slowdown", bo->inject_slowdown);
    isochron_json_kint(j, "passes", r->passes);
    /* world: not named */
    if (r->init != ISOCHRON_INIT_WORLD) isochron_json_kstring(j, "init", isochron_init_name(r->init));
}

int isochron_report_bench_context(isochron_reporter_t *rep, const isochron_bench_run_t *r)
{
    if (!rep || !r || !r->engine) return isochron_set_error(ISOCHRON_EINVAL, "bench context: no reporter or run");
    static const char *const keys[] = {"scheme", "method", "timing", "options"};
    char *vals[] = {isochron_report_json_text(r->engine->scheme), isochron_report_json_text(r->engine->method),
                    isochron_report_json_text(r->engine->timing), isochron_report_object_text(options_members, r)};
    return isochron_report_context_begin(rep, &r->head, 0, keys, vals, 4);
}

/* ---- isochron-bench's other experiments made points (all-pairs pairs, point-to-two triplets): each a point
 * of the format, JSON Lines keeping the record's type and extra fields, table and CSV naming the pair */

int isochron_report_point_labeled(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                                  const isochron_kv_t *extra, int nextra, const char *label)
{
    if (r->fmt->records) return isochron_report_point_as(r, p, scheme, method, type, extra, nextra);
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
