/*
 * test_records: the drivers' records as the report module writes them
 * (isochron/report.h; src/report/check_records.c, barrier_records.c,
 * run_records.c, shmem_records.c): the clock check's, the barrier
 * experiments', isochron-shmem's context and points, the end record and the
 * contexts' "run" and "clock_sync" objects. Each is written from
 * known data into a string and compared with the exact text schema 1 expects
 * (field names, order and types: python/src/isochron/results-1.schema.json),
 * so a change of a record's layout fails here before a reader sees it. Also
 * the bound rule (which error bound a summary states) and the refusals of bad
 * arguments (ISOCHRON_EINVAL, nothing written). Serial, no MPI_Init.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "check.h"

/* a FILE writing into a string, and a JSON Lines reporter on it: open, write, then take the text */
typedef struct {
    FILE *f;
    isochron_reporter_t *r;
    char *buf;
    size_t len;
} sink_t;
static FILE *sink_open(sink_t *s)
{
    s->buf = NULL;
    s->len = 0;
    s->f = open_memstream(&s->buf, &s->len);
    s->r = NULL;
    if (s->f) isochron_reporter_create("jsonl", s->f, &s->r);
    return s->f;
}
static char *sink_take(sink_t *s)
{
    isochron_reporter_destroy(s->r);
    fclose(s->f);
    return s->buf;
}

/* the text after the schema/type header of the one record of type \p type in \p text */
static int has_line(const char *text, const char *line)
{
    char want[2048];
    snprintf(want, sizeof want, "{\"schema\":%d,%s\n", ISOCHRON_SCHEMA_VERSION, line);
    return text && strstr(text, want) != NULL;
}

static void end_and_timer_cost(void)
{
    sink_t s;
    sink_open(&s);
    CHECK_RC(isochron_report_end_record(s.r, "checks", 3, 1.5, 1), ISOCHRON_OK, "end record written");
    isochron_report_timer_cost(s.r, "tsc", "TSC not invariant", NAN, NAN, NAN);
    isochron_report_timer_cost(s.r, "monotonic", NULL, 20.5, 1, 0);
    char *t = sink_take(&s);
    CHECK(has_line(t, "\"type\":\"end\",\"checks\":3,\"wall_s\":1.5,\"complete\":true}"), "end record");
    CHECK(has_line(t, "\"type\":\"timer_cost\",\"timer\":\"tsc\",\"available\":false,\"reason\":\"TSC not invariant\"}"),
          "unavailable timer: available false and the reason, no numbers");
    CHECK(has_line(t, "\"type\":\"timer_cost\",\"timer\":\"monotonic\",\"available\":true,\"ns_per_call\":20.5,"
                      "\"resolution_ns\":1,\"tsc_hz\":0}"),
          "available timer: cost, resolution, TSC rate");
    free(t);
    CHECK_RC(isochron_report_end_record(NULL, "points", 0, 0, 0), ISOCHRON_EINVAL, "no reporter: EINVAL");
    char buf[256], want[128];
    size_t n = isochron_report_end_interrupted(buf, sizeof buf, "steps", 12, 3047, "SIGTERM");
    snprintf(want, sizeof want, "{\"schema\":%d,\"type\":\"end\",\"steps\":12,\"wall_s\":3.047,\"complete\":false,"
             "\"interrupted\":\"SIGTERM\"}\n", ISOCHRON_SCHEMA_VERSION);
    CHECK(n == strlen(want) && !strcmp(buf, want), "interrupted end record (signal handler's): %s", buf);
    n = isochron_report_end_interrupted(buf, sizeof buf, "points", 0, 5, "SIGINT");
    CHECK(n && strstr(buf, "\"points\":0,\"wall_s\":0.005,"), "milliseconds as three decimals");
    CHECK(isochron_report_end_interrupted(buf, 100, "points", 0, 5, "SIGINT") == 0, "a buffer under 256 bytes: nothing");
}

static isochron_accuracy_t acc_of(double wait, double meas, double hw, double truth, double bound, double hard, int untrusted)
{
    return (isochron_accuracy_t){wait, meas, hw, truth, bound, hard, untrusted};
}

static void bounds(void)
{
    /* two ranks, one wait: rank 0 is the reference (bounds 0), rank 1 carries the error */
    isochron_accuracy_t a[2] = {acc_of(0, 0, 0, 0, 0, 0, 0), acc_of(0, 0.25e-6, 0.125e-6, 0.5e-6, 1e-6, 2e-6, 0)};
    isochron_check_bounds_t b = isochron_check_bounds(a, 2, 1, 0);
    CHECK(b.stat == 1e-6 && b.hard == 2e-6 && !b.kind_hard, "statistical bound stated when its premises hold and it is smaller");
    a[1].untrusted = 1;
    b = isochron_check_bounds(a, 2, 1, 0);
    CHECK(b.kind_hard, "hard bound stated when a rank's statistical premises failed");
    a[1].untrusted = 0;
    a[1].measured_offset = 2e-6; /* |2 us| - 0.125 us > 1 us: the measurement excludes the statistical bound */
    b = isochron_check_bounds(a, 2, 1, 0);
    CHECK(b.kind_hard, "hard bound stated when the check's own interval excludes the statistical bound");
    a[1].measured_offset = 0.25e-6;
    a[1].bound_hard = 0.5e-6;
    b = isochron_check_bounds(a, 2, 1, 0);
    CHECK(b.kind_hard && b.hard == 0.5e-6, "hard bound stated when it is the smaller");
}

static void check_records(void)
{
    isochron_sync_report_t rep;
    memset(&rep, 0, sizeof rep);
    rep.duration = 0.5;
    rep.rounds = 2;
    rep.pair_budget = 1;
    rep.nodes = 1;
    isochron_check_rank_t ranks[2];
    memset(ranks, 0, sizeof ranks);
    ranks[0].partner = -1; /* the reference: no fit */
    ranks[1] = (isochron_check_rank_t){.slope = 0.25e-6, .intercept = -0.5, .fslope = 0.25e-6, .fse = 0.5e-9, .r2 = 0.75, .resid = 1e-8,
                                       .span = 0.02, .partner = 0, .npoints = 40, .nused = 38, .kept = 1, .kind = ISOCHRON_LM_LINEAR,
                                       .attempts = 1, .inj_offset = 0.005, .inj_drift = 20, .trk_drift = 0x1p-20, .trk_refreshes = 4,
                                       .trk_cost = 0.25, .trk_updates = 3, .trk_aside = 1};
    ranks[0].trk_refreshes = 4;
    ranks[0].trk_cost = 0.25;
    double waits[1] = {0};
    isochron_accuracy_t acc[2] = {acc_of(0, 0, 0, 0, 0, 0, 0), acc_of(0, -0.25e-6, 0.125e-6, 0.5e-6, 1e-6, 2e-6, 0)};
    isochron_check_run_t run = {"isochron-clock", "{\"isochron\":\"x\"}", "monotonic", "hca3", &rep, 0, "kernel_clock_monotonic",
                                "offset=5ms", 100, 1, 2, ranks, 1, waits, acc};
    sink_t s;
    sink_open(&s);
    CHECK_RC(isochron_report_check_head(s.r, &run), ISOCHRON_OK, "context, sync and model records");
    CHECK_RC(isochron_report_check_wait(s.r, &run, 0), ISOCHRON_OK, "accuracy and summary records");
    CHECK_RC(isochron_report_check_track(s.r, &run), ISOCHRON_OK, "track record");
    CHECK_RC(isochron_report_check_wait(s.r, &run, 1), ISOCHRON_EINVAL, "a wait out of range is refused");
    char *t = sink_take(&s);
    CHECK(has_line(t, "\"type\":\"context\",\"tool\":\"isochron-clock\",\"isochron\":\"x\",\"timer\":\"monotonic\",\"sync_spec\":\"hca3\","
                      "\"nodes\":1,\"node_size\":0,\"oversubscribed\":false,\"sockets_split\":false,\"truth\":\"kernel_clock_monotonic\","
                      "\"skew\":{\"spec\":\"offset=5ms\",\"per_rank\":[{\"rank\":0,\"offset_s\":0,\"drift_ppm\":0,\"ddrift_ppm_s\":0,"
                      "\"jitter_s\":0},{\"rank\":1,\"offset_s\":0.005,\"drift_ppm\":20,\"ddrift_ppm_s\":0,\"jitter_s\":0}]},"
                      "\"check_pingpongs\":100}"),
          "context record: the run's members spliced in, truth, skew per rank");
    CHECK(has_line(t, "\"type\":\"sync\",\"sync_spec\":\"hca3\",\"duration_s\":0.5,\"rounds\":2,\"pair_budget_s\":1,\"cut_pairs\":0,"
                      "\"tracking\":true}"),
          "sync record");
    CHECK(has_line(t, "\"type\":\"model\",\"rank\":0,\"slope\":0,\"intercept_s\":0,\"kind\":\"offset\",\"timens_offset_s\":0,\"fit\":null}"),
          "model record of the reference: fit null");
    CHECK(has_line(t, "\"type\":\"model\",\"rank\":1,\"slope\":2.5e-07,\"intercept_s\":-0.5,\"kind\":\"linear\",\"timens_offset_s\":0,"
                      "\"fit\":{\"partner\":0,\"points\":40,\"used\":38,\"slope\":2.5e-07,\"slope_se\":5e-10,\"slope_kept\":true,"
                      "\"r2\":0.75,\"resid_rms_s\":1e-08,\"span_s\":0.02,\"attempts\":1}}"),
          "model record with its fit");
    CHECK(has_line(t, "\"type\":\"accuracy\",\"rank\":1,\"wait_s\":0,\"measured_offset_s\":-2.5e-07,\"measured_uncertainty_s\":1.25e-07,"
                      "\"true_offset_s\":5e-07,\"bound_s\":1e-06,\"bound_kind\":\"statistical\",\"bound_stat_s\":1e-06,"
                      "\"bound_hard_s\":2e-06}"),
          "accuracy record: the bound stated and both bounds when tracked");
    CHECK(has_line(t, "\"type\":\"summary\",\"sync_spec\":\"hca3\",\"wait_s\":0,\"duration_s\":0.5,\"max_abs_measured_offset_s\":2.5e-07,"
                      "\"max_abs_true_offset_s\":5e-07,\"max_bound_s\":1e-06,\"bound_kind\":\"statistical\","
                      "\"max_bound_stat_s\":1e-06,\"max_bound_hard_s\":2e-06}"),
          "summary record: largest offsets and bounds over the ranks");
    CHECK(has_line(t, "\"type\":\"track\",\"refreshes\":4,\"cost_s\":0.25,\"per_rank\":[{\"rank\":0,\"drift_ppm\":0,\"drift_se_ppm\":0,"
                      "\"ddrift_ppm_s\":0,\"noise_s\":0,\"updates\":0,\"set_aside\":0},{\"rank\":1,\"drift_ppm\":0.95367431640625,"
                      "\"drift_se_ppm\":0,\"ddrift_ppm_s\":0,\"noise_s\":0,\"updates\":3,\"set_aside\":1}]}"),
          "track record: drift in ppm per rank");
    free(t);
    /* untracked, no truth, no skew: the bound fields drop, truth and skew are null */
    run.tracking = 0;
    run.truth = NULL;
    run.skew_spec = NULL;
    sink_open(&s);
    isochron_report_check_head(s.r, &run);
    isochron_report_check_wait(s.r, &run, 0);
    t = sink_take(&s);
    CHECK(t && strstr(t, "\"truth\":null,\"skew\":null,\"check_pingpongs\":100}"), "no truth, no skew: null");
    CHECK(has_line(t, "\"type\":\"summary\",\"sync_spec\":\"hca3\",\"wait_s\":0,\"duration_s\":0.5,\"max_abs_measured_offset_s\":2.5e-07,"
                      "\"max_abs_true_offset_s\":null,\"max_bound_s\":1e-06}"),
          "untracked summary: no bound kind; no truth: true offset null");
    free(t);
    for (int k = 0; k < 2; k++) { /* the records are JSON Lines only: a table or CSV reporter writes none of them */
        sink_t q;
        isochron_reporter_t *o = NULL;
        sink_open(&q);
        isochron_reporter_create(k ? "csv" : "table", q.f, &o);
        int rc = isochron_report_check_head(o, &run) | isochron_report_check_wait(o, &run, 0) | isochron_report_check_track(o, &run)
                 | isochron_report_end_record(o, "checks", 1, 1, 1) | isochron_report_timer_cost(o, "tsc", NULL, 1, 1, 0);
        isochron_reporter_destroy(o);
        char *u = sink_take(&q);
        CHECK(rc == ISOCHRON_OK && u && !*u, "%s reporter: the check's records write nothing (%s)", k ? "csv" : "table", u ? u : "");
        free(u);
    }
}

static void barrier_records(void)
{
    const char *bars[2] = {"mpi", "rds"}, *exps[1] = {"shift"};
    isochron_barrier_run_t run = {{"isochron-barrier", "{\"ranks\":3}", "{\"spec\":\"hca3\"}", "mpi_wtime", 3, 1, 0}, 0, 2, 1, bars, exps,
                                  40, 20, 10, 0.5, 2e-05, 0, 0.001, 1e-05, "spin", 1, "none", 0};
    double v[4] = {1e-6, 3e-6, 2e-6, 4e-6};
    isochron_barrier_samples_t sm;
    memset(&sm, 0, sizeof sm);
    snprintf(sm.name, sizeof sm.name, "mpi");
    sm.bytes = 4096;
    sm.trials = 5;
    sm.valid = 4;
    sm.value = v;
    sm.reference = NAN; /* no valid concurrent reference */
    sm.successes = 0;
    sm.clock_bound = NAN;
    sm.clock_true = NAN;
    isochron_rds_info_t ri = {1e-6, 5e-7, 100, 2, 0, 3e-6};
    size_t sizes[2] = {0, 4096};
    double ref[2] = {1e-6, 2e-6}, syn[2] = {3e-6, 4e-6}, uns[2] = {2e-6, 5e-6};
    isochron_barrier_payoff_t po = {2, sizes, ref, syn, uns, 2.5e-10, 1e-6, 1e-6, 2, 4096, 4096, 10, 1e-6, NAN, 2e-6, 1};
    sink_t s;
    sink_open(&s);
    CHECK_RC(isochron_report_barrier_context(s.r, &run), ISOCHRON_OK, "barrier context");
    CHECK_RC(isochron_report_barrier_rds(s.r, &ri), ISOCHRON_OK, "RDS constants");
    CHECK_RC(isochron_report_barrier_samples(s.r, "shift", &sm, &run), ISOCHRON_OK, "shift record");
    CHECK_RC(isochron_report_barrier_samples(s.r, "ring", &sm, &run), ISOCHRON_EINVAL, "a record type other than skew/shift is refused");
    CHECK_RC(isochron_report_barrier_payoff(s.r, &po, &run), ISOCHRON_OK, "payoff record");
    char *t = sink_take(&s);
    CHECK(has_line(t, "\"type\":\"context\",\"tool\":\"isochron-barrier\",\"run\":{\"ranks\":3},\"nprocs\":3,\"nodes\":1,"
                      "\"oversubscribed\":false,\"barriers_yield\":false,\"timer\":\"mpi_wtime\",\"clock_sync\":{\"spec\":\"hca3\"},"
                      "\"barriers\":[\"mpi\",\"rds\"],\"experiments\":[\"shift\"],\"options\":{\"calls\":40,\"trials\":20,"
                      "\"payoff_trials\":10,\"threshold\":0.5,\"spread_s\":2e-05,\"skew_spread_s\":0,\"slack_s\":0.001,"
                      "\"late_tolerance_s\":1e-05,\"wait\":\"spin\",\"seed\":1,\"bind\":\"none\",\"bound_by_isochron\":false}}"),
          "barrier context record");
    CHECK(has_line(t, "\"type\":\"rds_constants\",\"b_s_s\":1e-06,\"s_s\":5e-07,\"samples\":100,\"pair\":[0,1],\"d\":2,"
                      "\"max_wait_s\":3e-06}"),
          "rds_constants record");
    /* the statistics are the stats module's (isochron_summarize); here only where they go */
    double q[1] = {0.95};
    isochron_summary_t st;
    isochron_summarize(v, 4, 0.95, q, 1, &st);
    char med[40], p95[40], mean[40], line[1024];
    snprintf(line, sizeof line,
             "\"type\":\"shift\",\"barrier\":\"mpi\",\"bytes\":4096,\"trials\":5,\"valid\":4,\"reference_s\":null,"
             "\"threshold\":0.5,\"spread_s\":2e-05,\"successes\":0,\"success_rate\":null,\"shift_cost_s\":{\"median\":%s,"
             "\"p95\":%s,\"max\":4e-06,\"mean\":%s},\"clock_bound_s\":null,\"clock_true_s\":null,"
             "\"samples_s\":[1e-06,3e-06,2e-06,4e-06]}",
             isochron_json_format_number(st.median, med, sizeof med), isochron_json_format_number(st.qv[0], p95, sizeof p95),
             isochron_json_format_number(st.mean, mean, sizeof mean));
    CHECK(has_line(t, line),
          "shift record: no valid reference, success not judged (null); no bound, no bound kind");
    CHECK(has_line(t, "\"type\":\"payoff\",\"barrier\":\"rds\",\"d\":2,\"a_s_per_byte\":2.5e-10,\"b_l_s\":1e-06,\"b_s_s\":1e-06,"
                      "\"model_min_bytes\":4096,\"measured_min_bytes\":4096,\"spread_s\":2e-05,\"trials\":10,\"sizes\":[0,4096],"
                      "\"reference_s\":[1e-06,2e-06],\"synced_s\":[3e-06,4e-06],\"unsynced_s\":[2e-06,5e-06],\"clock_bound_s\":1e-06,"
                      "\"clock_true_s\":null,\"clock_bound_kind\":\"hard\",\"clock_bound_hard_s\":2e-06}"),
          "payoff record: sizes as integers, the bound's kind when there is a bound");
    free(t);
    /* the clock's error, one run of fields for every record: a shift record states no statistical bound of its
     * own, the cost record (the engine's point, named by its barrier) states it as every point does */
    sm.clock_bound = 2e-6;
    sm.clock_bound_hard = 5e-6;
    isochron_point_t p;
    memset(&p, 0, sizeof p);
    snprintf(p.op, sizeof p.op, "barrier:rds");
    p.clock_bound = 1e-6;
    p.clock_true = NAN;
    p.clock_bound_stat = 1e-6;
    p.clock_bound_hard = 3e-6;
    sink_open(&s);
    CHECK_RC(isochron_report_barrier_samples(s.r, "shift", &sm, &run), ISOCHRON_OK, "shift record with a bound");
    CHECK_RC(isochron_report_barrier_cost(s.r, &p, "rds"), ISOCHRON_OK, "cost record");
    t = sink_take(&s);
    CHECK(t && strstr(t, "\"clock_bound_s\":2e-06,\"clock_true_s\":null,\"clock_bound_kind\":\"statistical\",\"clock_bound_hard_s\":5e-06,"
                         "\"samples_s\":["),
          "shift record with a bound: its kind and the hard bound");
    CHECK(t && strstr(t, "\"type\":\"cost\",\"barrier\":\"rds\",\"op\":\"barrier:rds\",")
              && strstr(t, "\"clock_bound_s\":1e-06,\"clock_true_s\":null,\"clock_bound_kind\":\"statistical\",\"clock_bound_stat_s\":1e-06,"
                           "\"clock_bound_hard_s\":3e-06,\"loop_k\":1,"),
          "cost record: the barrier, then the point with its clock error (statistical and hard bound)");
    free(t);
    /* the head is the one the bench and shmem contexts open with: without a run object, refused alike */
    run.head.run_json = NULL;
    sink_open(&s);
    CHECK_RC(isochron_report_barrier_context(s.r, &run), ISOCHRON_EINVAL, "barrier context without a run object: EINVAL");
    t = sink_take(&s);
    CHECK(t && !*t, "barrier context without a run object: nothing written");
    free(t);
    run.head.run_json = "{\"ranks\":3}";
    for (int k = 0; k < 2; k++) { /* the records are JSON Lines only: a table or CSV reporter writes none of them */
        isochron_reporter_t *o = NULL;
        sink_open(&s);
        isochron_reporter_create(k ? "csv" : "table", s.f, &o);
        int rc = isochron_report_barrier_context(o, &run) | isochron_report_barrier_rds(o, &ri) | isochron_report_barrier_samples(o, "shift", &sm, &run)
                 | isochron_report_barrier_cost(o, &p, "rds") | isochron_report_barrier_payoff(o, &po, &run);
        isochron_reporter_destroy(o);
        t = sink_take(&s);
        CHECK(rc == ISOCHRON_OK && t && !*t, "%s reporter: the barrier records write nothing (%s)", k ? "csv" : "table", t ? t : "");
        free(t);
    }
}

static void run_objects(void)
{
    const char *hosts[3] = {"a", "b", "a"}, *unbound[3] = {"unbound", "unbound", "unbound"}, *bound[3] = {"0", "1", "unbound"};
    const char *slurm[] = {"job_id", "7", "ntasks", "3", NULL};
    isochron_run_info_t info = {"a", 3, hosts, "MPI x", "3.1", slurm, unbound, "prog --x"};
    char *t = isochron_report_run_json(&info), want[512];
    snprintf(want, sizeof want,
             "{\"isochron\":\"%s\",\"host\":\"a\",\"hosts\":[\"a\",\"b\"],\"mpi_library\":\"MPI x\",\"slurm\":{\"job_id\":\"7\","
             "\"ntasks\":\"3\"},\"mpi_version\":\"3.1\",\"ranks\":3,\"binding\":\"unbound\",\"command\":\"prog --x\"}",
             ISOCHRON_VERSION_STRING);
    CHECK(t && !strcmp(t, want), "run object: each host once, the Slurm job, no rank bound: \"unbound\"\n%s", t ? t : "(null)");
    free(t);
    info.slurm = NULL;
    info.binding = bound;
    t = isochron_report_run_json(&info);
    CHECK(t && strstr(t, "\"mpi_version\":\"3.1\",\"ranks\":3,\"binding\":[\"0\",\"1\",\"unbound\"],") && !strstr(t, "slurm"),
          "some rank bound: every rank's cpulist; no Slurm job: no slurm member");
    free(t);
    info.binding = NULL;
    t = isochron_report_run_json(&info);
    CHECK(t && strstr(t, "\"binding\":\"unknown\""), "bindings not gathered: \"unknown\"");
    free(t);
    isochron_sync_report_t rep;
    memset(&rep, 0, sizeof rep);
    rep.duration = 0.25;
    rep.rounds = 3;
    rep.pair_budget = 2;
    rep.cut_pairs = 1;
    rep.nodes = 2;
    t = isochron_report_clock_sync_json("hca3", &rep, 4, 1e-7, NAN, 1);
    CHECK(t && !strcmp(t, "{\"spec\":\"hca3\",\"duration_s\":0.25,\"rounds\":3,\"pair_budget_s\":2,\"cut_pairs\":1,\"nodes\":2,"
                          "\"node_size\":4,\"max_abs_measured_offset_s\":1e-07,\"max_abs_true_offset_s\":null,\"tracking\":true}"),
          "clock_sync object: no truth, true offset null\n%s", t ? t : "(null)");
    free(t);
}

static void shmem_records(void)
{
    /* the check over three ranks at two waits: rank 0 the reference, its entries ignored */
    double waits[2] = {0, 0.5};
    isochron_accuracy_t acc[6] = {acc_of(0, 9, 0, 9, 9, 9, 0),          acc_of(0.5, 9, 0, 9, 9, 9, 0),
                                  acc_of(0, -0.25e-6, 0, -0.5e-6, 1e-6, 2e-6, 0), acc_of(0.5, 0.125e-6, 0, 0.25e-6, NAN, NAN, 0),
                                  acc_of(0, 0.125e-6, 0, 0.25e-6, 0.5e-6, 1e-6, 0), acc_of(0.5, -0.5e-6, 0, 0.75e-6, 0.25e-6, 1e-6, 0)};
    isochron_shmem_check_t ck[2];
    for (int w = 0; w < 2; w++) ck[w] = isochron_report_shmem_check_summary(acc, 3, 2, w, 1, 1);
    CHECK(ck[0].wait == 0 && ck[0].max_measured == 0.25e-6 && ck[0].max_true == 0.5e-6 && ck[0].max_bound == 1e-6,
          "check summary: largest |offsets| and bound over ranks 1.. (not the reference's)");
    CHECK(ck[1].wait == waits[1] && ck[1].max_measured == 0.5e-6 && ck[1].max_true == 0.75e-6 && ck[1].max_bound == 0.25e-6,
          "check summary: a rank without a bound (NaN) is passed over");
    isochron_shmem_check_t u = isochron_report_shmem_check_summary(acc, 3, 2, 0, 0, 0);
    CHECK(isnan(u.max_true) && isnan(u.max_bound) && u.max_measured == 0.25e-6, "no truth, untracked: true offset and bound NaN");
    u = isochron_report_shmem_check_summary(acc, 3, 2, 2, 1, 1);
    CHECK(isnan(u.wait) && isnan(u.max_measured), "a wait out of range: NaN");
    isochron_shmem_run_t run = {{"isochron-shmem", "{\"ranks\":3}", "{\"spec\":\"hca3\"}", "mpi_wtime", 3, 1, 0}, 2, ck,
                                "OpenSHMEM 1.4 (vendor)", "n/a (not Open MPI's oshmem)", "outside", 5, 100, 0.05, 0.95, 1, 0, 64, 1, "shmem", 1};
    isochron_point_t p;
    memset(&p, 0, sizeof p);
    snprintf(p.op, sizeof p.op, "put");
    snprintf(p.family, sizeof p.family, "rma");
    p.bytes = 8;
    p.nprocs = 3;
    sink_t s;
    isochron_reporter_t *r = NULL;
    sink_open(&s);
    CHECK_RC(isochron_reporter_create("jsonl", s.f, &r), ISOCHRON_OK, "jsonl reporter");
    CHECK_RC(isochron_report_shmem_context(r, &run), ISOCHRON_OK, "shmem context");
    CHECK_RC(isochron_report_shmem_point(r, &p, "outside", NULL), ISOCHRON_OK, "shmem point");
    CHECK_RC(isochron_report_shmem_point(r, &p, "inside", "shmem_putmem on symmetric-heap memory delivered wrong data: PE 1 \"x\""),
             ISOCHRON_OK, "shmem point with a library defect");
    run.ncheck = 0;
    run.loop = "inside";
    run.transport = "mpi";
    CHECK_RC(isochron_report_shmem_context(r, &run), ISOCHRON_OK, "shmem context without a check");
    run.loop = NULL;
    CHECK_RC(isochron_report_shmem_context(r, &run), ISOCHRON_EINVAL, "no loop timing: EINVAL");
    CHECK_RC(isochron_report_shmem_point(r, &p, NULL, NULL), ISOCHRON_EINVAL, "no method: EINVAL");
    run.loop = "outside";
    run.head.run_json = NULL;
    CHECK_RC(isochron_report_shmem_context(r, &run), ISOCHRON_EINVAL, "no run object: EINVAL, nothing written");
    run.head.run_json = "{\"ranks\":3}";
    isochron_reporter_destroy(r);
    char *t = sink_take(&s);
    CHECK(has_line(t, "\"type\":\"context\",\"tool\":\"isochron-shmem\",\"run\":{\"ranks\":3},\"nprocs\":3,\"nodes\":1,"
                      "\"oversubscribed\":false,\"timer\":\"mpi_wtime\",\"clock_sync\":{\"spec\":\"hca3\"},\"clock_check\":["
                      "{\"wait_s\":0,\"max_abs_measured_offset_s\":2.5e-07,\"max_abs_true_offset_s\":5e-07,\"max_bound_s\":1e-06},"
                      "{\"wait_s\":0.5,\"max_abs_measured_offset_s\":5e-07,\"max_abs_true_offset_s\":7.5e-07,\"max_bound_s\":2.5e-07}],"
                      "\"shmem_library\":\"OpenSHMEM 1.4 (vendor)\",\"memory_patcher\":\"n/a (not Open MPI's oshmem)\","
                      "\"scheme\":\"barrier\",\"method\":\"outside\",\"options\":{\"min_reps\":5,\"max_reps\":100,\"rel_ci\":0.05,"
                      "\"ci_of\":\"mean\",\"ci_level\":0.95,\"budget_s\":1,\"iters\":0,\"msg_window\":64,\"loop\":\"outside\","
                      "\"validate\":1,\"transport\":\"shmem\"}}"),
          "shmem context record: the check per wait, library, patcher, options");
    CHECK(t && strstr(t, "\"clock_check\":null,\"shmem_library\"") && strstr(t, "\"method\":\"inside\",\"options\":{")
              && strstr(t, "\"loop\":\"inside\",\"validate\":1,\"transport\":\"mpi\"}}\n"),
          "without a check: clock_check null; the loop timing is the method");
    char want[256];
    snprintf(want, sizeof want, "{\"schema\":%d,\"type\":\"point\",\"op\":\"put\",\"family\":\"rma\",\"bytes\":8,", ISOCHRON_SCHEMA_VERSION);
    CHECK(t && strstr(t, want) && strstr(t, "\"nprocs\":3,\"scheme\":\"barrier\",\"method\":\"outside\","), "shmem point: scheme barrier");
    snprintf(want, sizeof want, "{\"schema\":%d,\"type\":\"point\",\"library_defect\":\"shmem_putmem on symmetric-heap memory delivered "
             "wrong data: PE 1 \\\"x\\\"\",\"op\":\"put\",", ISOCHRON_SCHEMA_VERSION);
    CHECK(t && strstr(t, want) && strstr(t, "\"scheme\":\"barrier\",\"method\":\"inside\","),
          "defect point: library_defect (escaped) after the type, then the point");
    free(t);
    /* the table's header says the same */
    sink_open(&s);
    isochron_reporter_create("table", s.f, &r);
    run.loop = "outside";
    run.ncheck = 2;
    isochron_report_shmem_context(r, &run);
    isochron_reporter_destroy(r);
    t = sink_take(&s);
    CHECK(t && strstr(t, "\nshmem_library  OpenSHMEM 1.4 (vendor)\n") && strstr(t, "\nclock_check    [{\"wait_s\":0,")
              && strstr(t, "\noptions        min_reps=5, max_reps=100, rel_ci=0.05, ci_of=mean,"),
          "table header: one line a key");
    free(t);
}

int main(void)
{
    end_and_timer_cost();
    bounds();
    check_records();
    barrier_records();
    run_objects();
    shmem_records();
    return check_report("test_records");
}
