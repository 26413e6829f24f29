/*
 * The records of isochron-shmem (include/isochron/report.h): the context of a
 * run of the SKaMPI-OpenSHMEM measurement set (paper 002, Coti & Malony) on
 * isochron's global clock, the accuracy check of that clock right after the
 * sync (Alg. 6 of paper 000, reduced over the ranks as isochron-clock's
 * summary reduces it), and each measured point, with "library_defect" where
 * the library delivered wrong data and the point has no time. The report
 * module sits below the OpenSHMEM module (tests/layering), so the driver
 * hands over plain data (isochron_shmem_run_t: names and numbers it took
 * from libisochron_shmem); every value is made here by the one JSON writer
 * (json.c) and handed to the reporter (report.c), which writes it as JSON
 * Lines, CSV comment lines or the table's header alike. Field names and
 * order are schema 1's (python/src/isochron/results-1.schema.json).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"

/* isochron-shmem times every point between barriers (SKaMPI-OpenSHMEM's scheme) */
static const char scheme[] = "barrier";

isochron_shmem_check_t isochron_report_shmem_check_summary(const isochron_accuracy_t *acc, int nranks, int nwaits, int w, int truth,
                                                           int tracked)
{
    isochron_shmem_check_t c = {NAN, NAN, NAN, NAN};
    if (!acc || nranks < 1 || w < 0 || w >= nwaits) return c;
    double mm = 0, mt = 0, mb = 0;
    for (int r = 1; r < nranks; r++) { /* rank 0 is the reference */
        const isochron_accuracy_t *a = &acc[(size_t)r * (size_t)nwaits + (size_t)w];
        mm = fmax(mm, fabs(a->measured_offset));
        mt = fmax(mt, fabs(a->true_offset));
        if (isfinite(a->bound)) mb = fmax(mb, a->bound);
    }
    c.wait = acc[w].wait;
    c.max_measured = mm;
    c.max_true = truth ? mt : NAN;
    c.max_bound = tracked ? mb : NAN;
    return c;
}

/* the "clock_check" value: null without a check, else one object per wait (caller frees) */
static char *check_json(const isochron_shmem_run_t *r)
{
    isochron_json_t j;
    if (isochron_json_open_string(&j)) return NULL;
    if (r->ncheck < 1 || !r->check) isochron_json_null(&j);
    else {
        isochron_json_array_begin(&j);
        for (int w = 0; w < r->ncheck; w++) {
            isochron_json_object_begin(&j);
            isochron_json_knumber(&j, "wait_s", r->check[w].wait);
            isochron_json_knumber(&j, "max_abs_measured_offset_s", r->check[w].max_measured);
            isochron_json_knumber(&j, "max_abs_true_offset_s", r->check[w].max_true);
            isochron_json_knumber(&j, "max_bound_s", r->check[w].max_bound);
            isochron_json_object_end(&j);
        }
        isochron_json_array_end(&j);
    }
    return isochron_json_close_string(&j);
}

/* the members of the "options" object: the measurement options */
static void options_members(isochron_json_t *j, const void *arg)
{
    const isochron_shmem_run_t *r = arg;
    isochron_report_stop_rule(j, r->min_reps, r->max_reps, -1, r->rel_ci, r->ci_mean, r->ci_level, r->budget);
    isochron_report_member_t m[] = {ISOCHRON_JINT("iters", r->iters), ISOCHRON_JINT("msg_window", r->msg_window),
                                    ISOCHRON_JSTR("loop", r->loop), ISOCHRON_JINT("validate", r->validate),
                                    ISOCHRON_JSTR("transport", r->transport)};
    isochron_report_members(j, m, ISOCHRON_NMEMBERS(m));
}

int isochron_report_shmem_context(isochron_reporter_t *rep, const isochron_shmem_run_t *r)
{
    if (!rep || !r || !r->loop || !r->transport) return isochron_set_error(ISOCHRON_EINVAL, "shmem context: no reporter, run, loop or transport");
    /* the method: the loop timing (of the looped measurements) */
    static const char *const keys[] = {"clock_check", "shmem_library", "memory_patcher", "scheme", "method", "options"};
    char *vals[] = {check_json(r),
                    isochron_report_json_text(r->library),
                    isochron_report_json_text(r->memory_patcher),
                    isochron_report_json_text(scheme),
                    isochron_report_json_text(r->loop),
                    isochron_report_object_text(options_members, r)};
    return isochron_report_context_begin(rep, &r->head, 0, keys, vals, 6);
}

int isochron_report_shmem_point(isochron_reporter_t *rep, const isochron_point_t *p, const char *method, const char *library_defect)
{
    if (!rep || !p || !method) return isochron_set_error(ISOCHRON_EINVAL, "shmem point: no reporter, point or method");
    if (!library_defect) return isochron_report_point(rep, p, scheme, method);
    /* wrong data: a point without a time, saying what the library did (the type stays "point") */
    char *dj = isochron_report_json_text(library_defect);
    isochron_kv_t ex[] = {{"library_defect", dj ? dj : "\"\""}};
    int rc = isochron_report_point_as(rep, p, scheme, method, "point", ex, 1);
    free(dj);
    return rc;
}
