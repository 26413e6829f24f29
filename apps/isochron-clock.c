/*
 * isochron-clock: the accuracy check of clock synchronization (paper 000,
 * Algorithm 6) with ground truth. It synchronizes with a spec, reports the
 * sync duration, rounds and every rank's model and fit quality, then measures
 * each rank's offset to rank 0 right after sync and after each wait time,
 * both by ping-pong (Alg. 6) and against the truth (host-wide
 * CLOCK_MONOTONIC, exact with skew injection). Output: a table on stdout
 * and/or JSON Lines. Also lists the registries and measures timer costs.
 * Thin by design: it parses, measures the timers, gathers every rank's model
 * and hands each result to its reporters (one per output, the format chosen
 * when each is made), which write the records or the table
 * (src/report/check_records.c); everything else is in libisochron.
 */
#include <math.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "common.h"

enum { O_SYNC, O_NODESZ, O_TIMER, O_SKEW, O_TRACK, O_WAIT, O_CPP, O_JSONL, O_FORMAT, O_QUIET, O_LT, O_LS, O_LE, O_COST, O_SYNCLIM, O_WATCHDOG, O_HELP, O_VERSION, NOPT };
static const app_option_t opts[NOPT] = {
    [O_SYNC] = {"sync", "SPEC", "clock sync spec: alg[/fitpoints[/estimator[/pingpongs]]][,key=val...], levels joined by '+' (node+socket+core); see --list-sync", "hca3"},
    [O_NODESZ] = APP_OPT_NODE_SIZE,
    [O_TIMER] = {"timer", "NAME", "base timer; see --list-timers", APP_DEFAULT_TIMER},
    [O_SKEW] = {"skew", "SPEC", "inject clock skew per rank (by=host: per host), e.g. offset=10ms,drift=50,jitter=100ns,ddrift=0.1,seed=1 or r1:offset=-3ms:drift=20", APP_DEFAULT_SKEW},
    [O_TRACK] = APP_OPT_TRACK,
    [O_WAIT] = {"wait", "LIST", "check times after sync, seconds (comma-separated, ascending, each <= 3600)", "0,1,10"},
    [O_CPP] = {"check-pingpongs", "N", "ping-pongs per offset measurement of the check (1..100000)", "100"},
    [O_JSONL] = {"jsonl", "FILE", "also write JSON Lines to FILE ('-' = stdout)", NULL},
    [O_FORMAT] = {"format", "FMT", "what to print on stdout: table, jsonl or none", "table"},
    [O_QUIET] = {"quiet", NULL, "no progress messages on stderr", NULL},
    [O_LT] = {"list-timers", NULL, "list the timers and exit", NULL},
    [O_LS] = {"list-sync", NULL, "list the sync algorithms with their defaults, and the spec grammar, and exit", NULL},
    [O_LE] = {"list-estimators", NULL, "list the offset estimators and exit", NULL},
    [O_COST] = {"timer-cost", NULL, "measure the per-call cost and resolution of every timer and exit", NULL},
    [O_SYNCLIM] = APP_OPT_SYNC_LIMIT,
    [O_WATCHDOG] = {"watchdog", "SECONDS", "abort the synchronization, or the accuracy check, when it runs longer than this, naming it (0: off; "
                    "default: 3 x the sync's estimate + 60 s, and the last wait x 1.5 + 60 s + 1 ms per ping-pong)", NULL},
    [O_HELP] = APP_OPT_HELP,
    [O_VERSION] = APP_OPT_VERSION,
};

static int fail(int rank, const char *what)
{
    if (rank == 0) fprintf(stderr, "isochron-clock: %s: %s\n", what, isochron_last_error());
    return 2;
}

static void list_sync(void)
{
    printf("%-8s %-6s %-10s %-5s %-7s  %s\n", "name", "fit", "estimator", "pp", "span_s", "description");
    for (int i = 0; i < isochron_sync_alg_count(); i++) {
        const isochron_sync_alg_t *a = isochron_sync_alg_get(i);
        if (a->uses_fit)
            printf("%-8s %-6d %-10s %-5d %-7g  %s\n", a->name, a->default_nfit, a->default_estimator, a->default_npingpongs, a->default_span, a->description);
        else
            printf("%-8s %-6s %-10s %-5s %-7s  %s\n", a->name, "-", "-", "-", "-", a->description);
    }
    printf("\nspec grammar: level[+level[+level]]   (one level: flat; two: between nodes + within a node;\n"
           "              three: between nodes + between sockets (hwloc) + within a socket)\n"
           "  level: alg[/fitpoints[/estimator[/pingpongs]]][,key=value...]\n"
           "  keys : span=SECONDS (fit points spread over this time), recompute=0|1 (Alg. 2),\n"
           "         slope=auto|always|never (auto keeps a slope only if > 3 standard errors), outliers=0|1,\n"
           "         refit=0-5 (re-measure a pair whose slope SE x span > 60 ns; default 2), fit=N, est=NAME, pp=N\n"
           "  e.g. hca3/1000/skampi/100   hca/1000/SKaMPI-Offset/100   hca3+prop   jk/100/mean-rtt/20,slope=always\n");
}

/* ns per call of f(arg): min over 5 runs of 1e6 calls */
static double cost_ns(double (*f)(void *), void *arg)
{
    double best = INFINITY, sink = 0;
    for (int rep = 0; rep < 5; rep++) {
        double a = isochron_truth_now();
        for (int k = 0; k < 1000000; k++) sink += f(arg);
        double c = (isochron_truth_now() - a) / 1e6;
        if (c < best) best = c;
    }
    if (sink == 42) fputs("", stderr);
    return best * 1e9;
}
static double raw_read(void *arg) { (void)arg; struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec; }
static double global_read(void *arg) { return isochron_clock_now(arg); }

/* What a measurement pays per timestamp: the raw clock_gettime, and the
 * global clock (mpi_wtime under a sync layer and a tracking layer). */
static void timer_cost_global(isochron_reporter_t *tab)
{
    isochron_timer_t *t;
    isochron_clock_t *c, *g;
    if (!tab || isochron_timer_create("mpi_wtime", &t)) return;
    isochron_clock_create(t, &c);
    isochron_lm_t sync = {1.3e-6, -2.5e-3, ISOCHRON_LM_LINEAR}, trk = {-2e-8, 1e-7, ISOCHRON_LM_LINEAR};
    isochron_clock_nest(c, sync, &g);
    isochron_clock_push_layer(g, trk, NULL);
    double raw = cost_ns(raw_read, NULL), glob = cost_ns(global_read, g);
    isochron_report_clock_read_cost(tab, raw, glob);
    isochron_clock_destroy(g);
    isochron_clock_destroy(c);
    isochron_timer_destroy(t);
}

/* ns per call and resolution of timer t: min over 5 runs of 1e6 calls, and the smallest step seen */
static void timer_measure(isochron_timer_t *t, double *ns, double *res_ns)
{
    enum { N = 1000000 };
    double best = INFINITY, res = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        double a = isochron_truth_now(), prev = isochron_timer_now(t), sink = 0;
        for (int k = 0; k < N; k++) {
            double v = isochron_timer_now(t);
            if (v > prev && v - prev < res) res = v - prev;
            prev = v;
            sink += v;
        }
        double c = (isochron_truth_now() - a) / N;
        if (c < best) best = c;
        if (sink == 42) fputs("", stderr);
    }
    *ns = best * 1e9;
    *res_ns = res * 1e9;
}

/* The outputs of rank 0, each a reporter whose format was chosen when it was made: [0] stdout as --format says
 * (NULL: none), [1] --jsonl's JSON Lines (a file, or stdout when '-' and stdout is not JSON Lines already).
 * Every writer is called on both: each writes what its format shows (the table, or the records). */
typedef struct {
    isochron_reporter_t *reps[2];
    int table;     /* --format table */
    FILE *jsf;     /* the --jsonl file opened here */
    FILE *jstream; /* the JSON Lines an interrupted run ends with a record: the file, else stdout's */
} outputs_t;

static int open_outputs(const char *fmt, const char *jsonl, outputs_t *o)
{
    int code = 0, dash = jsonl && !strcmp(jsonl, "-"), json = !strcmp(fmt, "jsonl");
    if (jsonl && !dash && (code = app_open_output("isochron-clock", "--jsonl", jsonl, &o->jsf))) return code;
    o->table = !strcmp(fmt, "table");
    o->jstream = o->jsf ? o->jsf : (json || dash) ? stdout : NULL;
    if ((strcmp(fmt, "none") && isochron_reporter_create(fmt, stdout, &o->reps[0]))
        || ((o->jsf || (dash && !json)) && isochron_reporter_create("jsonl", o->jsf ? o->jsf : stdout, &o->reps[1])))
        return fail(0, "--format");
    return 0;
}

/* --timer-cost: every timer's cost and resolution through each reporter, then (table) what a global timestamp costs */
static void timer_cost(const outputs_t *o)
{
    for (int r = 0; r < 2; r++) if (o->reps[r]) isochron_report_timer_cost_line(o->reps[r], NULL, NULL, NAN, NAN, NAN);
    for (int i = 0; i < isochron_timer_count(); i++) {
        const isochron_timer_info_t *info = isochron_timer_info(i);
        isochron_timer_t *t;
        double ns = NAN, res = NAN, hz = NAN;
        const char *why = isochron_timer_create(info->name, &t) ? isochron_last_error() : NULL;
        if (!why) { timer_measure(t, &ns, &res); hz = isochron_timer_tsc_hz(t); isochron_timer_destroy(t); }
        for (int r = 0; r < 2; r++) {
            if (!o->reps[r]) continue;
            isochron_report_timer_cost_line(o->reps[r], info->name, why, ns, res, hz);
            isochron_report_timer_cost(o->reps[r], info->name, why, ns, res, hz);
        }
    }
    if (o->table) timer_cost_global(o->reps[0]);
}

/* The check's options, all parsed before anything touches the machine */
typedef struct {
    isochron_sync_spec_t spec;
    isochron_skew_spec_t skew;
    double waits[32], watchdog;
    int nwaits, track;
    long cpp;
} check_opts_t;

static int parse_check(const char **v, int rank, check_opts_t *c)
{
    int code;
    c->nwaits = 0, c->cpp = 100, c->track = 1, c->watchdog = -1;
    if ((code = app_parse_track("isochron-clock", v[O_TRACK], rank, &c->track))) return code;
    if (isochron_sync_spec_parse(v[O_SYNC] ? v[O_SYNC] : c->track ? APP_SYNC_TRACKED : APP_SYNC_UNTRACKED, &c->spec)) return fail(rank, "--sync");
    if ((code = app_parse_node_size("isochron-clock", v[O_NODESZ], rank, &c->spec.node_size))) return code;
    if ((code = app_parse_sync_limit("isochron-clock", v[O_SYNCLIM], rank))) return code;
    if (isochron_skew_spec_parse(app_value(opts, v, O_SKEW), &c->skew)) return fail(rank, "--skew");
    if (app_parse_list(app_value(opts, v, O_WAIT), c->waits, 32, &c->nwaits)) {
        if (rank == 0) fprintf(stderr, "isochron-clock: --wait '%s': expected up to 32 comma-separated times, e.g. 0,1,10\n", v[O_WAIT]);
        return 2;
    }
    for (int i = 0; i < c->nwaits; i++)
        if (c->waits[i] < 0 || c->waits[i] > 3600 || (i && c->waits[i] < c->waits[i - 1])) {
            if (rank == 0) fprintf(stderr, "isochron-clock: --wait: times must be ascending and within [0, 3600] s (got %g)\n", c->waits[i]);
            return 2;
        }
    if (v[O_CPP] && (isochron_parse_long(v[O_CPP], &c->cpp) || c->cpp < 1 || c->cpp > 100000)) {
        if (rank == 0) fprintf(stderr, "isochron-clock: --check-pingpongs '%s': expected an integer in [1, 100000]\n", v[O_CPP]);
        return 2;
    }
    if (v[O_WATCHDOG] && (isochron_parse_duration(v[O_WATCHDOG], &c->watchdog) || c->watchdog < 0 || c->watchdog > 86400)) {
        if (rank == 0) fprintf(stderr, "isochron-clock: --watchdog '%s': expected seconds in [0, 86400] (0: off)\n", v[O_WATCHDOG]);
        return 2;
    }
    app_sync_watchdog(c->watchdog);
    return 0;
}

/* What rank 0 writes during the check (isochron_check_each_fn): the run's
 * context, sync and model records before the first wait, then each wait's
 * accuracy and summary records as soon as that wait is measured, flushed, so
 * an interrupted check keeps every wait it finished. The records are the
 * report module's (isochron_report_check_*); this driver only gathers. */
typedef struct {
    const outputs_t *out;
    isochron_check_run_t run;
    const int *has_truth;
    double t0;
    int head, written; /* context written; waits written */
} out_t;

static void write_wait(int w, void *arg)
{
    out_t *o = arg;
#ifdef SMPI_ISOCHRON
    o->run.truth = *o->has_truth ? "simulated_time" : NULL;
#else
    o->run.truth = *o->has_truth ? "kernel_clock_monotonic" : NULL;
#endif
    for (int r = 0; r < 2; r++) {
        if (!o->out->reps[r]) continue;
        if (w < 0) isochron_report_check_head(o->out->reps[r], &o->run);
        else isochron_report_check_wait(o->out->reps[r], &o->run, w);
    }
    if (w < 0) { o->head = 1; app_interrupt_install(o->out->jstream, 0, "checks"); }
    else app_interrupt_count(o->written = w + 1);
}

/* after the check (complete or not): the track record when tracked, the last record (how many waits were checked,
 * and whether all were), then the table */
static int write_end(out_t *o, int complete)
{
    int code = 0;
    for (int r = 0; r < 2 && o->head; r++) {
        isochron_reporter_t *rep = o->out->reps[r];
        if (!rep) continue;
        if (complete && o->run.tracking) isochron_report_check_track(rep, &o->run);
        isochron_report_end_record(rep, "checks", o->written, isochron_truth_now() - o->t0, complete);
    }
    for (int r = 0; r < 2 && complete; r++) /* from the run the records state */
        if (o->out->reps[r] && isochron_report_check_table(o->out->reps[r], &o->run)) code = fail(0, "clock check table");
    return code;
}

/* The clocks synchronized by c's spec (and tracked with --track on); 0, or 2 after the reason on rank 0 */
typedef struct {
    isochron_timer_t *timer;
    isochron_skew_t my_skew;
    isochron_clock_t *base, *global;
    isochron_track_t *trk;
    isochron_sync_report_t rep;
    char spec_text[1024];
} clocks_t;

static void clocks_free(clocks_t *k)
{
    isochron_track_destroy(k->trk);
    isochron_clock_destroy(k->global);
    isochron_clock_destroy(k->base);
    isochron_timer_destroy(k->timer);
}

static int clocks_sync(const char **v, int rank, check_opts_t *c, clocks_t *k)
{
    int code;
    if ((code = app_make_timer("isochron-clock", app_value(opts, v, O_TIMER), &c->skew, MPI_COMM_WORLD, &k->timer, &k->my_skew))) return code;
    isochron_clock_create(k->timer, &k->base);
    isochron_sync_spec_format(&c->spec, k->spec_text, sizeof k->spec_text);
    if ((code = app_sync_guard("isochron-clock", &c->spec, k->spec_text, sizeof k->spec_text, v[O_SYNC] == NULL, MPI_COMM_WORLD, NULL,
                               v[O_QUIET] != NULL)))
        return code;
    int rc = isochron_sync_run(&c->spec, MPI_COMM_WORLD, k->base, &k->global, &k->rep);
    app_watchdog_disarm();
    if (rc) return fail(rank, "synchronization failed");
    app_sync_done("isochron-clock", &k->rep, rank);
    isochron_track_opts_t to;
    isochron_track_opts_default(&to);
    to.follow = k->rep.follows; /* ranks that copied a model by prop copy its correction too */
    if (c->track && isochron_track_create(MPI_COMM_WORLD, k->global, &to, &k->trk)) return fail(rank, "clock tracking failed");
    if (rank == 0 && !v[O_QUIET] && c->waits[c->nwaits - 1] > 2)
        fprintf(stderr, "isochron-clock: synced in %.3f s; checking accuracy at +%s s (takes %.0f s)%s ...\n", k->rep.duration,
                app_value(opts, v, O_WAIT), c->waits[c->nwaits - 1],
                k->trk ? ", tracking the clock in between as the engine does between points" : ", clock not tracked");
    return 0;
}

/* The check after the sync: every rank's model gathered (again after the check, with its tracking filter), the
 * offsets at each wait, written by rank 0 as they come; 0, or 2 after the reason on rank 0 */
static int check(int argc, char **argv, const char **v, int rank, int size, const check_opts_t *c, clocks_t *k, const outputs_t *outs,
                 double wall0)
{
    int nw = c->nwaits, has_truth = 0, code = 0;
    isochron_accuracy_t *acc = rank == 0 ? calloc((size_t)size * (size_t)nw, sizeof *acc) : NULL;
    isochron_track_info_t ti;
    memset(&ti, 0, sizeof ti);
    isochron_check_rank_t me = isochron_check_rank_make(&k->rep, &k->my_skew, &ti, isochron_truth_timens_offset());
    isochron_check_rank_t *recs = rank == 0 ? calloc((size_t)size, sizeof *recs) : NULL;
    MPI_Gather(&me, ISOCHRON_CHECK_RANK_NDOUBLES, MPI_DOUBLE, recs, ISOCHRON_CHECK_RANK_NDOUBLES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    char *ctxbuf = app_context_json(MPI_COMM_WORLD, argc, argv); /* collective */
    out_t o = {outs,
               {"isochron-clock", ctxbuf, isochron_timer_base_name(k->timer), k->spec_text, &k->rep, c->spec.node_size, NULL,
                isochron_skew_spec_active(&c->skew) ? v[O_SKEW] : NULL, c->cpp, k->trk != NULL, size, recs, nw, c->waits, acc},
               &has_truth, wall0, 0, 0};
    /* SIGINT/SIGTERM during the check: rank 0 appends an end record after the waits already written
     * (it installs the file in write_wait once the context is written) */
    app_interrupt_install(NULL, rank, "checks");
    app_watchdog_arm("isochron-clock", c->watchdog >= 0 ? c->watchdog : 1.5 * c->waits[nw - 1] + 60 + 1e-3 * (double)c->cpp * nw * (size - 1),
                     rank, "the accuracy check", v[O_JSONL]);
    int rc = isochron_sync_check_each(MPI_COMM_WORLD, k->global, k->trk, NULL, c->waits, nw, (int)c->cpp, acc, &has_truth, write_wait, &o);
    app_watchdog_disarm();
    if (rc) code = fail(rank, "accuracy check failed");
    else {
        if (k->trk) isochron_track_info(k->trk, &ti);
        me = isochron_check_rank_make(&k->rep, &k->my_skew, &ti, isochron_truth_timens_offset());
        MPI_Gather(&me, ISOCHRON_CHECK_RANK_NDOUBLES, MPI_DOUBLE, recs, ISOCHRON_CHECK_RANK_NDOUBLES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    if (rank == 0 && write_end(&o, !rc)) code = 2;
    free(recs);
    free(ctxbuf);
    free(acc);
    return code;
}

/* --list-timers, else --list-sync, else --list-estimators */
static void list_registries(const char **v)
{
    if (v[O_LT])
        for (int i = 0; i < isochron_timer_count(); i++) printf("%-14s %s\n", isochron_timer_info(i)->name, isochron_timer_info(i)->description);
    else if (v[O_LS]) list_sync();
    else for (int i = 0; i < isochron_estimator_count(); i++) {
        const isochron_estimator_t *e = isochron_estimator_get(i);
        printf("%-9s %s (also: %s)\n", e->name, e->description, e->aliases);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double wall0 = isochron_truth_now();
    int rank, size, code = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *v[NOPT];
    outputs_t out = {{NULL, NULL}, 0, NULL, NULL}; /* rank 0's */
    static const char about[] = "Synchronizes the clocks of all ranks with --sync, then checks the result: every rank's\n"
                                "model and fit, and its offset to rank 0 at each --wait time, measured by ping-pong\n"
                                "(paper 000, Alg. 6) and, when all ranks share a host, against CLOCK_MONOTONIC (truth).\n";
    if ((code = app_preamble("isochron-clock", argc, argv, opts, NOPT, v, rank, about)) != 0) { code = code == 1 ? 0 : code; goto done; }
    if (v[O_LT] || v[O_LS] || v[O_LE]) {
        if (rank == 0) list_registries(v);
        goto done;
    }
    const char *fmt = app_value(opts, v, O_FORMAT);
    if (isochron_report_format_check(fmt, ISOCHRON_FORMAT_TABLE | ISOCHRON_FORMAT_JSONL | ISOCHRON_FORMAT_NONE)) {
        if (rank == 0) fprintf(stderr, "isochron-clock: %s\n", isochron_last_error());
        code = 2;
    } else if (rank == 0) code = open_outputs(fmt, v[O_JSONL], &out);
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code) goto close;
    if (v[O_COST]) {
        if (rank == 0) timer_cost(&out);
        goto close;
    }
    check_opts_t c;
    clocks_t k;
    memset(&k, 0, sizeof k);
    if (!(code = parse_check(v, rank, &c)) && !(code = clocks_sync(v, rank, &c, &k)))
        code = check(argc, argv, v, rank, size, &c, &k, &out, wall0);
    clocks_free(&k);
close:
    if (out.jsf && app_close_output("isochron-clock", "--jsonl", v[O_JSONL], out.jsf) && !code) code = 1; /* rank 0 only has it */
done:
    for (int r = 0; r < 2; r++) isochron_reporter_destroy(out.reps[r]);
    MPI_Finalize();
    return code;
}
