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
 * (python/src/isochron/results-1.schema.json).
 */
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"

/* the members of the "options" object: the engine's and the driver's options */
static void options_members(isochron_json_t *j, const void *arg)
{
    const isochron_bench_run_t *r = arg;
    const isochron_bench_opts_t *bo = r->engine;
    isochron_json_kint(j, "min_reps", bo->min_reps);
    isochron_json_kint(j, "max_reps", bo->max_reps);
    isochron_json_kint(j, "max_attempts", bo->max_attempts);
    isochron_report_stop_rule(j, bo->rel_ci, bo->ci_mean, bo->ci_level, bo->budget);
    isochron_json_kint(j, "warmup", bo->warmup);
    isochron_json_kstring(j, "barrier", bo->barrier);
    isochron_json_kbool(j, "barrier_twice", bo->barrier_twice);
    isochron_json_knumber(j, "slack", bo->slack);
    isochron_json_knumber(j, "late_cap", r->late_cap);
    isochron_json_kint(j, "retries", bo->retries);
    isochron_json_knumber(j, "retry_below", bo->retry_below);
    isochron_json_kstring(j, "bind", r->bind);
    isochron_json_kbool(j, "bound_by_isochron", r->bound_by_isochron);
    isochron_json_knumber(j, "window_s", bo->window);
    isochron_json_kint(j, "msg_window", r->msg_window);
    isochron_json_kint(j, "threads", r->threads);
    isochron_json_kint(j, "partitions", r->partitions);
    isochron_json_kbool(j, "thread_multiple", r->thread_multiple);
    isochron_json_kint(j, "validate", bo->validate);
    isochron_json_kint(j, "cache_clear_bytes", (long long)bo->cache_bytes);
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
