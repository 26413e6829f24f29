/*
 * The two objects every driver's context record carries (include/isochron/
 * report.h): "run", where and how the run happened (isochron version, hosts,
 * MPI library, Slurm job, ranks, binding, command line), and "clock_sync",
 * what the synchronization did and how close the clocks were right after it
 * (paper 000, Algorithm 6, and the truth where all ranks share a kernel).
 * The drivers gather the facts (a collective: host names and bindings come
 * from every rank) into isochron_run_info_t or pass the sync report; the
 * objects are made here by the one JSON writer (json.c), so every driver's
 * context states them alike (schema: python/src/isochron/results-1.schema.json).
 * Also the one writer of the head that the context blocks of isochron-bench,
 * isochron-barrier and isochron-shmem open with (isochron_report_run_head_t,
 * report/context.h): tool, run, nprocs, nodes, oversubscribed, timer and
 * clock_sync, in that order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "core/util.h"
#include "report/context.h"

void isochron_report_run_members(isochron_json_t *j, const isochron_run_info_t *r)
{
    if (!j || !r) return;
    isochron_json_kstring(j, "isochron", ISOCHRON_VERSION_STRING);
    isochron_json_kstring(j, "host", r->host);
    isochron_json_key(j, "hosts"); /* each host once, in rank order */
    isochron_json_array_begin(j);
    for (int i = 0; i < r->nranks && r->rank_hosts; i++) {
        int dup = 0;
        for (int k = 0; k < i && !dup; k++) dup = !strcmp(r->rank_hosts[i], r->rank_hosts[k]);
        if (!dup) isochron_json_string(j, r->rank_hosts[i]);
    }
    isochron_json_array_end(j);
    isochron_json_kstring(j, "mpi_library", r->mpi_library);
    if (r->slurm) { /* the Slurm job the run belongs to, when launched by srun/sbatch */
        isochron_json_key(j, "slurm");
        isochron_json_object_begin(j);
        for (int i = 0; r->slurm[i] && r->slurm[i + 1]; i += 2) isochron_json_kstring(j, r->slurm[i], r->slurm[i + 1]);
        isochron_json_object_end(j);
    }
    isochron_json_kstring(j, "mpi_version", r->mpi_version);
    isochron_json_kint(j, "ranks", r->nranks);
    /* "binding": "unbound" when no rank is bound, else each rank's cpulist (or "unbound"); "unknown" without them */
    int any_bound = 0;
    for (int i = 0; i < r->nranks && r->binding; i++)
        if (strcmp(r->binding[i], "unbound")) any_bound = 1;
    isochron_json_key(j, "binding");
    if (!any_bound || !r->binding) isochron_json_string(j, r->binding ? "unbound" : "unknown");
    else {
        isochron_json_array_begin(j);
        for (int i = 0; i < r->nranks; i++) isochron_json_string(j, r->binding[i]);
        isochron_json_array_end(j);
    }
    isochron_json_kstring(j, "command", r->command);
}

char *isochron_report_run_json(const isochron_run_info_t *r)
{
    isochron_json_t j;
    if (!r || isochron_json_open_string(&j)) return NULL;
    isochron_json_object_begin(&j);
    isochron_report_run_members(&j, r);
    isochron_json_object_end(&j);
    return isochron_json_close_string(&j);
}

char *isochron_report_clock_sync_json(const char *spec, const isochron_sync_report_t *rep, int node_size, double max_measured,
                                      double max_true, int tracking)
{
    isochron_json_t j;
    if (!spec || !rep || isochron_json_open_string(&j)) return NULL;
    isochron_json_object_begin(&j);
    isochron_report_sync_members(&j, "spec", spec, rep);
    isochron_report_member_t m[] = {ISOCHRON_JINT("nodes", rep->nodes), ISOCHRON_JINT("node_size", node_size),
                                    ISOCHRON_JNUM("max_abs_measured_offset_s", max_measured), ISOCHRON_JNUM("max_abs_true_offset_s", max_true),
                                    ISOCHRON_JBOOL("tracking", tracking)};
    isochron_report_members(&j, m, ISOCHRON_NMEMBERS(m));
    isochron_json_object_end(&j);
    return isochron_json_close_string(&j);
}

char *isochron_report_json_text(const char *s)
{
    isochron_json_t j;
    if (isochron_json_open_string(&j)) return NULL;
    isochron_json_string(&j, s);
    return isochron_json_close_string(&j);
}

char *isochron_report_object_text(void (*members)(isochron_json_t *j, const void *arg), const void *arg)
{
    isochron_json_t j;
    if (isochron_json_open_string(&j)) return NULL;
    isochron_json_object_begin(&j);
    members(&j, arg);
    isochron_json_object_end(&j);
    return isochron_json_close_string(&j);
}

char *isochron_report_strings_text(const char *const *s, int n)
{
    isochron_json_t j;
    if (isochron_json_open_string(&j)) return NULL;
    isochron_json_array_begin(&j);
    for (int i = 0; i < n && s; i++) isochron_json_string(&j, s[i]);
    isochron_json_array_end(&j);
    return isochron_json_close_string(&j);
}

int isochron_report_context_begin(isochron_reporter_t *rep, const isochron_report_run_head_t *h, int nplace, const char *const *keys,
                                  char **owned, int n)
{
    enum { HEAD = 7, MAX_MORE = 16 };
    int bad = !rep || !h || !h->run_json || !h->clock_sync_json || n < 0 || n > MAX_MORE || nplace < 0 || nplace > n;
    char *tool_j = bad ? NULL : isochron_report_json_text(h->tool), *timer_j = bad ? NULL : isochron_report_json_text(h->timer);
    char np[16], nodes_j[16];
    isochron_kv_t kv[HEAD + MAX_MORE];
    int rc = ISOCHRON_OK, k = 0;
    if (bad)
        rc = isochron_set_error(ISOCHRON_EINVAL, "context: no reporter, run or clock_sync, or %d entries (0 to %d, %d of them placement)", n,
                                MAX_MORE, nplace);
    else {
        snprintf(np, sizeof np, "%d", h->nprocs);
        snprintf(nodes_j, sizeof nodes_j, "%d", h->nodes);
        kv[k++] = (isochron_kv_t){"tool", tool_j};
        kv[k++] = (isochron_kv_t){"run", h->run_json};
        kv[k++] = (isochron_kv_t){"nprocs", np};
        kv[k++] = (isochron_kv_t){"nodes", nodes_j};
        kv[k++] = (isochron_kv_t){"oversubscribed", h->oversubscribed ? "true" : "false"};
        for (int i = 0; i < nplace; i++) kv[k++] = (isochron_kv_t){keys[i], owned[i]};
        kv[k++] = (isochron_kv_t){"timer", timer_j};
        kv[k++] = (isochron_kv_t){"clock_sync", h->clock_sync_json};
        for (int i = nplace; i < n; i++) kv[k++] = (isochron_kv_t){keys[i], owned[i]};
        for (int i = 0; i < k; i++)
            if (!kv[i].json) rc = ISOCHRON_ENOMEM;
        rc = rc ? isochron_set_error(ISOCHRON_ENOMEM, "out of memory") : isochron_report_begin(rep, kv, k);
    }
    for (int i = 0; i < n; i++) free(owned[i]);
    free(tool_j);
    free(timer_j);
    return rc;
}

void isochron_report_sync_members(isochron_json_t *j, const char *spec_key, const char *spec, const isochron_sync_report_t *rep)
{
    isochron_report_member_t m[] = {ISOCHRON_JSTR(spec_key, spec), ISOCHRON_JNUM("duration_s", rep->duration), ISOCHRON_JINT("rounds", rep->rounds),
                                    ISOCHRON_JNUM("pair_budget_s", rep->pair_budget), ISOCHRON_JINT("cut_pairs", rep->cut_pairs)};
    isochron_report_members(j, m, ISOCHRON_NMEMBERS(m));
}

void isochron_report_stop_rule(isochron_json_t *j, int min_reps, int max_reps, int max_attempts, double rel_ci, int ci_mean, double ci_level,
                               double budget)
{
    isochron_json_kint(j, "min_reps", min_reps);
    isochron_json_kint(j, "max_reps", max_reps);
    if (max_attempts >= 0) isochron_json_kint(j, "max_attempts", max_attempts);
    isochron_json_knumber(j, "rel_ci", rel_ci);
    isochron_json_kstring(j, "ci_of", ci_mean ? "mean" : "median");
    isochron_json_knumber(j, "ci_level", ci_level);
    isochron_json_knumber(j, "budget_s", budget);
}
