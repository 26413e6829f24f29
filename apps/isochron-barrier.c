/*
 * isochron-barrier: barrier algorithms and how precisely they synchronize,
 * measured on a global clock. The experiments of Seidel & Davis (paper 004,
 * sec. 4) and Hunold & Carpen-Amarie (paper 000, sec. V-B, Fig. 8):
 *
 *  skew    every barrier call starts at a common time on the global clock
 *          (Round-Time style; --skew-spread delays each rank randomly, the
 *          paper 004 case of a late node); each rank's exit is timestamped; the exit
 *          skew (last exit - first exit) is the imbalance a barrier-based
 *          benchmark inherits. Calls where a rank was late are invalid.
 *  cost    the barrier as an operation of the benchmark engine
 *          (Round-Time, global method, adaptive repetitions, Student's t CI).
 *  shift   ranks arrive at the barrier spread by random delays (the paper's
 *          delta), then every rank sends m bytes right while receiving from
 *          the left; the shift's cost (first start to last end) is compared
 *          with the concurrent reference: the same shift started at one
 *          instant of the global clock. A trial succeeds when its cost is
 *          <= (1 + threshold) x the reference median. Baselines: "none"
 *          (no barrier) and "clock" (the reference itself).
 *  payoff  the smallest message for which synchronizing (RDS) before a shift
 *          is cheaper than not, measured (median of sync+shift vs shift
 *          alone, both from the first arrival) and predicted by the paper's
 *          m >= (2 d b_s - b_l/2) / a (sec. 4.3) with a and b_l fitted to
 *          the concurrent reference and b_s measured by RDS.
 *
 * Thin by design: the barriers, the trial and the experiments (with the
 * payoff fit) live in libisochron (src/barrier, include/isochron/barrier.h);
 * this file parses options, runs the experiments in turn and hands their
 * results to the report module (src/report/barrier_records.c), which writes
 * both the JSON Lines records and the table.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/barrier.h"
#include "isochron/bench.h"
#include "isochron/report.h"
#include "isochron/stats.h"
#include "common.h"

#define PROG "isochron-barrier"
enum { O_BARRIERS, O_EXPS, O_CALLS, O_SHIFT, O_TRIALS, O_THRESH, O_SPREAD, O_SKSPREAD, O_PSIZES, O_PTRIALS, O_SLACK, O_TOL, O_WAIT, O_RDSBS, O_RDSS,
       O_MINR, O_MAXR, O_RELCI, O_BUDGET, O_SEED, O_SYNC, O_NODESZ, O_TIMER, O_SKEW, O_TRACK, O_FORMAT, O_JSONL, O_WATCHDOG, O_QUIET, O_LBAR, O_LEXP,
       O_SYNCLIM, O_BIND, O_HELP, O_VERSION, NOPT };

static const app_option_t opts[NOPT] = {
    [O_BARRIERS] = {"barriers", "LIST", "barrier algorithms (comma-separated, or 'all'); see --list-barriers", "all"},
    [O_EXPS] = {"experiments", "LIST", "skew, cost, shift, payoff (comma-separated, or 'all'); see --list-experiments", "all"},
    [O_CALLS] = {"calls", "N", "skew: barrier calls per algorithm from a common start", "500"},
    [O_SHIFT] = {"shift-sizes", "LIST", "shift: message sizes (8,1K,64K or A..B ranges)", "4K,64K"},
    [O_TRIALS] = {"trials", "N", "shift: trials per algorithm and size", "200"},
    [O_THRESH] = {"threshold", "X", "shift: success when cost <= (1 + X) x the concurrent reference median", "0.5"},
    [O_SPREAD] = {"spread", "SECONDS", "shift, payoff: each rank arrives after a random delay in [0, SPREAD]", "20us"},
    [O_SKSPREAD] = {"skew-spread", "SECONDS", "skew: ranks arrive after random delays in [0, S] (paper 004's delayed nodes) instead of together", "0"},
    [O_PSIZES] = {"payoff-sizes", "LIST", "payoff: message sizes", "0,256,1K,4K,16K,64K,256K"},
    [O_PTRIALS] = {"payoff-trials", "N", "payoff: trials per size and variant", "100"},
    [O_SLACK] = {"slack-time", "SECONDS", "common start = now + SECONDS on rank 0's global clock, a time (was --slack, which isochron-bench uses for a multiplier)", "1ms"},
    [O_TOL] = {"late-tolerance", "SECONDS", "a trial is invalid when a rank enters later than this after its start (descheduled while waiting)", "10us"},
    [O_WAIT] = {"wait", "MODE", "how barriers wait for messages: spin (MPI_Recv), yield (MPI_Test + sched_yield), auto (yield when oversubscribed)", "spin"},
    [O_RDSBS] = {"rds-bs", "SECONDS", "RDS: use this b_s instead of measuring it (with --rds-s)", NULL},
    [O_RDSS] = {"rds-s", "SECONDS", "RDS: use this s instead of measuring it (with --rds-bs)", NULL},
    [O_MINR] = {"min-reps", "N", "cost: minimum valid repetitions", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_MIN_REPS)},
    [O_MAXR] = {"max-reps", "N", "cost: maximum repetitions", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_MAX_REPS)},
    [O_RELCI] = {"rel-ci", "X", "cost: stop when the median's CI half-width <= X * the median (the bench engine's rule)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_REL_CI)},
    [O_BUDGET] = {"budget", "SECONDS", "cost: time per algorithm (the Round-Time slice)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_BUDGET)},
    [O_SEED] = {"seed", "N", "random arrival delays: seed", "1"},
    APP_OPTS_CLOCK(O_SYNC, O_NODESZ, O_TIMER, O_SKEW, O_TRACK),
    [O_FORMAT] = {"format", "FMT", "stdout: table or none", "table"},
    [O_JSONL] = {"jsonl", "FILE", "write JSON Lines to FILE", NULL},
    [O_WATCHDOG] = {"watchdog", "SECONDS", "abort an experiment step that runs longer than this, naming it (0: off)", "300"},
    [O_QUIET] = APP_OPT_QUIET,
    [O_LBAR] = APP_OPT_LIST_BARRIERS,
    [O_LEXP] = {"list-experiments", NULL, "list the experiments and exit", NULL},
    [O_SYNCLIM] = APP_OPT_SYNC_LIMIT,
    [O_BIND] = APP_OPT_BIND,
    [O_HELP] = APP_OPT_HELP,
    [O_VERSION] = APP_OPT_VERSION,
};

static const char *exp_names[4] = {"skew", "cost", "shift", "payoff"};
static const char *exp_desc[4] = {
    "exit skew (last exit - first exit) of calls started at one instant of the global clock (paper 000, Fig. 8)",
    "latency of each barrier with the engine's statistics (Round-Time, global method)",
    "ring-shift success rate after each barrier, against the concurrent reference (paper 004, sec. 4.2)",
    "smallest message for which RDS before a shift pays off: measured and modelled (paper 004, sec. 4.3)"};

/* The options, all checked before anything runs */
typedef struct {
    char names[16][24];  /* the barriers measured */
    int nb, exps[4];     /* exps[i]: experiment exp_names[i] is run */
    int calls, ntr, ptr;
    double thr, spread, slack, watchdog, tol, skspread;
    uint64_t seed;
    isochron_barrier_opts_t bopt;
    size_t shift_sizes[64], pay_sizes[64];
    int nss, nps;
    long maxb;           /* the largest message of shift and payoff */
    isochron_bench_opts_t bo;
} opts_t;

#define FAIL(...) do { if (rank == 0) { fprintf(stderr, PROG ": "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } return 2; } while (0)
#define VAL(i) app_value(opts, v, i) /* every value parsed from what was given or the table's default (one source) */

/* --barriers (each a registered name, or 'all') and --experiments */
static int parse_lists(const char **v, int rank, opts_t *o)
{
    const char *list = VAL(O_BARRIERS);
    char lerr[160];
    if (!strcmp(list, "all")) {
        for (int i = 0; i < isochron_barrier_count() && o->nb < 16; i++) snprintf(o->names[o->nb++], sizeof o->names[0], "%s", isochron_barrier_info(i)->name);
    } else {
        if (app_list_ok(list, lerr, sizeof lerr)) FAIL("--barriers: %s; valid: %s", lerr, isochron_barrier_names());
        char *copy = strdup(list), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (isochron_barrier_check_name(t)) { free(copy); FAIL("--barriers: %s", isochron_last_error()); }
            if (o->nb < 16) snprintf(o->names[o->nb++], sizeof o->names[0], "%s", t);
        }
        free(copy);
        if (!o->nb) FAIL("--barriers: empty list; valid: %s", isochron_barrier_names());
    }
    list = VAL(O_EXPS);
    if (app_list_ok(list, lerr, sizeof lerr)) FAIL("--experiments: %s; valid: skew, cost, shift, payoff, all", lerr);
    char *copy = strdup(list), *save = NULL;
    char bad[64] = "";
    for (char *t = strtok_r(copy, ",", &save); t && !bad[0]; t = strtok_r(NULL, ",", &save)) {
        int all = !strcmp(t, "all"), found = all;
        for (int i = 0; i < 4; i++)
            if (all || !strcmp(t, exp_names[i])) o->exps[i] = found = 1;
        if (!found) snprintf(bad, sizeof bad, "%s", t);
    }
    free(copy);
    if (bad[0]) FAIL("--experiments: unknown experiment '%s'; valid: skew, cost, shift, payoff, all", bad);
    return 0;
}

/* an integer option in [1, 10000000] */
static int parse_count(const char **v, int rank, int i, int *out)
{
    long lv;
    if (isochron_parse_long(VAL(i), &lv) || lv < 1 || lv > 10000000) FAIL("--%s '%s': expected an integer in [1, 10000000]", opts[i].name, VAL(i));
    *out = (int)lv;
    return 0;
}

/* the message sizes of --shift-sizes (i O_SHIFT) or --payoff-sizes, each at most 1 GiB; o->maxb the largest */
static int parse_sizes(const char **v, int rank, int i, size_t *sizes, int *n, opts_t *o)
{
    char err[256];
    if (app_parse_sizes(VAL(i), sizes, 64, n, err, sizeof err)) FAIL("--%s: %s", opts[i].name, err);
    for (int k = 0; k < *n; k++) {
        if (sizes[k] > (1u << 30)) FAIL("--%s: %zu B is more than 1 GiB", opts[i].name, sizes[k]);
        if (sizes[k] > (size_t)o->maxb) o->maxb = (long)sizes[k];
    }
    return 0;
}

static int parse_opts(const char **v, int rank, int size, opts_t *o)
{
    int code;
    long lv;
    if ((code = parse_lists(v, rank, o)) || (code = parse_count(v, rank, O_CALLS, &o->calls)) || (code = parse_count(v, rank, O_TRIALS, &o->ntr))
        || (code = parse_count(v, rank, O_PTRIALS, &o->ptr)))
        return code;
    if (isochron_parse_double(VAL(O_THRESH), &o->thr) || !(o->thr > 0 && o->thr <= 100)) FAIL("--threshold '%s': expected a number in (0, 100]", VAL(O_THRESH));
    if (isochron_parse_duration(VAL(O_SPREAD), &o->spread) || o->spread < 0 || o->spread > 10) FAIL("--spread '%s': expected seconds in [0, 10] (e.g. 20us)", VAL(O_SPREAD));
    if (isochron_parse_duration(VAL(O_SKSPREAD), &o->skspread) || o->skspread < 0 || o->skspread > 10) FAIL("--skew-spread '%s': expected seconds in [0, 10] (e.g. 30us)", VAL(O_SKSPREAD));
    if (isochron_parse_duration(VAL(O_SLACK), &o->slack) || o->slack <= 0 || o->slack > 10) FAIL("--slack-time '%s': expected seconds in (0, 10] (e.g. 1ms)", VAL(O_SLACK));
    if (isochron_parse_duration(VAL(O_TOL), &o->tol) || o->tol < 0 || o->tol > 10) FAIL("--late-tolerance '%s': expected seconds in [0, 10] (e.g. 10us)", VAL(O_TOL));
    if (isochron_parse_duration(VAL(O_WATCHDOG), &o->watchdog) || o->watchdog < 0 || o->watchdog > 86400) FAIL("--watchdog '%s': seconds in [0, 86400]", VAL(O_WATCHDOG));
    if (isochron_parse_long(VAL(O_SEED), &lv) || lv < 0) FAIL("--seed '%s': expected a non-negative integer", VAL(O_SEED));
    o->seed = (uint64_t)lv;
    isochron_barrier_opts_default(&o->bopt);
    if (v[O_WAIT]) {
        if (!strcmp(v[O_WAIT], "auto")) o->bopt.wait = ISOCHRON_BARRIER_WAIT_AUTO;
        else if (!strcmp(v[O_WAIT], "spin")) o->bopt.wait = ISOCHRON_BARRIER_WAIT_SPIN;
        else if (!strcmp(v[O_WAIT], "yield")) o->bopt.wait = ISOCHRON_BARRIER_WAIT_YIELD;
        else FAIL("--wait '%s': valid: spin, yield, auto", v[O_WAIT]);
    }
    if (!v[O_RDSBS] != !v[O_RDSS]) FAIL("--rds-bs and --rds-s go together (give both, or neither to measure them)");
    if (v[O_RDSBS]) {
        if (isochron_parse_duration(v[O_RDSBS], &o->bopt.rds_b_s) || !(o->bopt.rds_b_s > 0 && o->bopt.rds_b_s < 1)) FAIL("--rds-bs '%s': expected seconds in (0, 1)", v[O_RDSBS]);
        if (isochron_parse_duration(v[O_RDSS], &o->bopt.rds_s) || !(o->bopt.rds_s >= 0 && o->bopt.rds_s < 1)) FAIL("--rds-s '%s': expected seconds in [0, 1)", v[O_RDSS]);
    }
    if ((code = parse_sizes(v, rank, O_SHIFT, o->shift_sizes, &o->nss, o)) || (code = parse_sizes(v, rank, O_PSIZES, o->pay_sizes, &o->nps, o))) return code;
    if ((o->exps[2] || o->exps[3]) && size < 2) FAIL("the shift and payoff experiments need at least 2 processes (running on %d)", size);
    isochron_bench_opts_default(&o->bo);
    if ((code = app_engine_options(PROG, v[O_MINR], v[O_MAXR], v[O_RELCI], v[O_BUDGET], rank, &o->bo))) return code;
    if (isochron_bench_opts_check(&o->bo)) FAIL("%s", isochron_last_error());
    if (isochron_report_format_check(VAL(O_FORMAT), ISOCHRON_FORMAT_TABLE | ISOCHRON_FORMAT_NONE)) FAIL("%s", isochron_last_error());
    if ((code = app_clock_options(PROG, v[O_SYNC], v[O_SKEW], v[O_NODESZ], rank))) return code;
    return app_parse_sync_limit(PROG, v[O_SYNCLIM], rank);
}

typedef struct {
    int rank, size;
    FILE *jf;                 /* JSON Lines file (rank 0; may be NULL) */
    isochron_reporter_t *js;  /* JSON Lines through it (rank 0, --jsonl; else NULL) */
    isochron_reporter_t *tab; /* the table on stdout (rank 0, --format table; else NULL) */
    isochron_barrier_exp_t *exp;
    int quiet;
    isochron_barrier_run_t rec; /* the run as its records state it (src/report/barrier_records.c) */
} run_t;

/* ---- the experiments in turn: rank 0 hands each result to the report module, JSON Lines and table
 * (src/report/barrier_records.c) ---- */

static int exp_skew(run_t *r, isochron_barrier_t **bars, int nb, int calls)
{
    isochron_barrier_samples_t *sm = calloc((size_t)nb, sizeof *sm);
    int rc = sm ? isochron_barrier_exp_skew(r->exp, bars, nb, calls, sm) : ISOCHRON_ENOMEM;
    for (int b = 0; !rc && r->rank == 0 && b < nb; b++) {
        if (r->js) isochron_report_barrier_samples(r->js, "skew", &sm[b], &r->rec);
        if (r->tab) isochron_report_barrier_table_samples(r->tab, "skew", &sm[b]);
    }
    isochron_barrier_samples_free(sm, nb);
    free(sm);
    return rc;
}

static int exp_cost(run_t *r, isochron_barrier_t *bar, isochron_bench_t *bench)
{
    isochron_op_t op;
    isochron_op_ctx_t c;
    isochron_barrier_as_op(bar, &op, &c);
    isochron_point_t pt;
    memset(&pt, 0, sizeof pt);
    int rc = isochron_bench_measure(bench, &op, &c, &pt);
    if (!rc && r->rank == 0) {
        if (r->js) isochron_report_barrier_cost(r->js, &pt, isochron_barrier_name(bar));
        if (r->tab) isochron_report_barrier_table_cost(r->tab, &pt, isochron_barrier_name(bar));
    }
    isochron_point_free(&pt);
    return rc;
}

static int exp_shift(run_t *r, isochron_barrier_t **bars, int nb, const size_t *sizes, int ns, int n)
{
    int nc = nb + 2, rc = ISOCHRON_OK;
    isochron_barrier_samples_t *sm = calloc((size_t)nc, sizeof *sm);
    if (!sm) return ISOCHRON_ENOMEM;
    for (int s = 0; s < ns && !rc; s++) {
        rc = isochron_barrier_exp_shift(r->exp, bars, nb, (long)sizes[s], n, r->rec.threshold, sm);
        for (int c = 0; !rc && r->rank == 0 && c < nc; c++) {
            if (r->js) isochron_report_barrier_samples(r->js, "shift", &sm[c], &r->rec);
            if (r->tab) isochron_report_barrier_table_samples(r->tab, "shift", &sm[c]);
        }
        isochron_barrier_samples_free(sm, nc);
        if (!rc && !r->quiet && r->rank == 0) fprintf(stderr, PROG ": shift %zu B done\n", sizes[s]);
    }
    free(sm);
    return rc;
}

static int exp_payoff(run_t *r, isochron_barrier_t *rds, const size_t *sizes, int ns, int n)
{
    isochron_barrier_payoff_t po;
    int rc = isochron_barrier_exp_payoff(r->exp, rds, sizes, ns, n, &po);
    if (rc || r->rank != 0) { isochron_barrier_payoff_free(&po); return rc; }
    if (r->js) isochron_report_barrier_payoff(r->js, &po, &r->rec);
    if (r->tab) isochron_report_barrier_table_payoff(r->tab, &po);
    isochron_barrier_payoff_free(&po);
    return ISOCHRON_OK;
}

/* The experiments chosen, each a step under the watchdog (its table's head first); rank 0 counts the steps done
 * for an interrupted run's end record and closes the records with the end record. 0, or 1 after the reason. */
static int run_experiments(run_t *r, const opts_t *o, const char **v, isochron_barrier_t **bars, isochron_barrier_t *rds,
                           isochron_bench_t *bench, double wall0)
{
    int rc = ISOCHRON_OK, steps = 0;
    char what[96];
    for (int e = 0; e < 4 && !rc; e++) {
        if (!o->exps[e]) continue;
        if (r->tab) isochron_report_barrier_table_section(r->tab, exp_names[e], &r->rec, e == 1 ? &o->bo : NULL);
        for (int i = 0; i < (e == 1 ? o->nb : 1) && !rc; i++) { /* cost: one step per barrier */
            if (e == 1) snprintf(what, sizeof what, "cost of %.24s", o->names[i]);
            else snprintf(what, sizeof what, "%s", exp_names[e]);
            app_watchdog_arm(PROG, o->watchdog, r->rank, what, v[O_JSONL]);
            rc = e == 0 ? exp_skew(r, bars, o->nb, o->calls) : e == 1 ? exp_cost(r, bars[i], bench)
               : e == 2 ? exp_shift(r, bars, o->nb, o->shift_sizes, o->nss, o->ntr) : exp_payoff(r, rds, o->pay_sizes, o->nps, o->ptr);
            app_watchdog_disarm();
            if (rc) break;
            app_interrupt_count(++steps);
            if (!r->quiet && r->rank == 0) fprintf(stderr, PROG ": %s done (%.1f s)\n", what, isochron_truth_now() - wall0);
        }
    }
    if (rc && r->rank == 0) fprintf(stderr, PROG ": %s failed: %s\n", what, isochron_last_error());
    if (r->rank == 0 && r->js) isochron_report_end_record(r->js, "steps", steps, isochron_truth_now() - wall0, !rc);
    return rc ? 1 : 0;
}

/* The clocks, the barriers (RDS too for payoff), the trial and the engine; the context, the RDS constants and the
 * table's head; then the experiments. 0, 1 (an experiment failed) or 2 (set-up failed), after the reason. */
static int run(int argc, char **argv, const char **v, opts_t *o, run_t *r, int self_bound)
{
    int rank = r->rank, track = 1, rds_idx = -1, code;
    double wall0 = isochron_truth_now();
    app_clock_t ck;
    if ((code = app_parse_track(PROG, v[O_TRACK], rank, &track))) return code;
    if ((code = app_clock_setup(PROG, v[O_SYNC], v[O_TIMER], v[O_SKEW], track, MPI_COMM_WORLD, r->quiet, &ck))) return code;
    isochron_barrier_t *bars[16] = {NULL}, *rds_extra = NULL, *rds = NULL;
    isochron_bench_t *bench = NULL;
    isochron_barrier_exp_opts_t eo = {o->slack, o->spread, o->skspread, o->tol, o->seed, ck.track}; /* one tracker for all experiments */
    const char *failed = NULL; /* the barrier that could not be made */
    for (int i = 0; i < o->nb && !failed; i++) {
        if (isochron_barrier_create(o->names[i], MPI_COMM_WORLD, &o->bopt, &bars[i])) failed = o->names[i];
        if (!strcmp(o->names[i], "rds")) rds_idx = i;
    }
    rds = rds_idx >= 0 ? bars[rds_idx] : NULL;
    if (!failed && !rds && o->exps[3] && isochron_barrier_create("rds", MPI_COMM_WORLD, &o->bopt, &rds_extra)) failed = "rds";
    rds = rds ? rds : rds_extra;
    o->bo.track = track;
    if (failed || isochron_barrier_exp_create(MPI_COMM_WORLD, ck.global, o->maxb, &eo, &r->exp)
        || (o->exps[1] && isochron_bench_create(MPI_COMM_WORLD, ck.global, &o->bo, &bench))) {
        if (rank == 0) fprintf(stderr, PROG ": %s%s%s%s\n", failed ? "barrier " : "", failed ? failed : "", failed ? ": " : "", isochron_last_error());
        code = 2;
    } else {
        if (bench && ck.track) isochron_bench_use_tracker(bench, ck.track);
        char *ctxbuf = app_context_json(MPI_COMM_WORLD, argc, argv); /* collective */
        const char *bnames[16], *enames[4];
        int ne = 0;
        for (int i = 0; i < o->nb; i++) bnames[i] = o->names[i];
        for (int i = 0; i < 4; i++) if (o->exps[i]) enames[ne++] = exp_names[i];
        r->rec = (isochron_barrier_run_t){app_run_head(PROG, ctxbuf, &ck, r->size, ck.rep.nodes, isochron_barrier_exp_oversubscribed(r->exp)),
                                          o->nb ? isochron_barrier_yields(bars[0]) : 0, o->nb, ne, bnames, enames, o->calls, o->ntr, o->ptr,
                                          o->thr, o->spread, o->skspread, o->slack, o->tol, VAL(O_WAIT), (long long)o->seed, VAL(O_BIND), self_bound};
        if (r->js) isochron_report_barrier_context(r->js, &r->rec);
        r->rec.head.run_json = NULL; /* freed next: the records after the context do not use it */
        free(ctxbuf);
        isochron_rds_info_t ri = {0};
        if (rds) isochron_barrier_rds_info(rds, &ri);
        if (rds && r->js) isochron_report_barrier_rds(r->js, &ri);
        if (r->tab) isochron_report_barrier_table_head(r->tab, &r->rec, ck.spec_text, ck.rep.duration, rds ? &ri : NULL);
        code = run_experiments(r, o, v, bars, rds, bench, wall0);
    }
    isochron_bench_destroy(bench);
    isochron_barrier_exp_destroy(r->exp);
    isochron_barrier_destroy(rds_extra);
    for (int i = 0; i < o->nb; i++) isochron_barrier_destroy(bars[i]);
    app_clock_free(&ck);
    return code;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, code = 0, self_bound = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *v[NOPT];
    opts_t o;
    memset(&o, 0, sizeof o);
    run_t r = {rank, size, NULL, NULL, NULL, NULL, 0, {.head = {0}}};
    char about[1024];
    size_t au = (size_t)snprintf(about, sizeof about, "Experiments on barrier algorithms, timed on a global clock (clocks are synchronized once, --sync):\n");
    for (int i = 0; i < 4 && au < sizeof about; i++) au += (size_t)snprintf(about + au, sizeof about - au, "  %-7s %s\n", exp_names[i], exp_desc[i]);
    if ((code = app_preamble(PROG, argc, argv, opts, NOPT, v, rank, about)) != 0) { code = code == 1 ? 0 : code; goto done; }
    if (v[O_LBAR]) {
        app_list_barriers(rank);
        goto done;
    }
    if (v[O_LEXP]) {
        if (rank == 0) for (int i = 0; i < 4; i++) printf("%-7s %s\n", exp_names[i], exp_desc[i]);
        goto done;
    }
    if ((code = parse_opts(v, rank, size, &o)) || (code = app_bind(PROG, v[O_BIND], MPI_COMM_WORLD, rank, &self_bound))) goto done;
    r.quiet = v[O_QUIET] != NULL;
    if (rank == 0) code = app_open_output(PROG, "--jsonl", v[O_JSONL], &r.jf);
    app_interrupt_install(r.jf, rank, "steps");
    if (!code && ((r.jf && isochron_reporter_create("jsonl", r.jf, &r.js))
                  || (rank == 0 && !strcmp(VAL(O_FORMAT), "table") && isochron_reporter_create("table", stdout, &r.tab)))) {
        fprintf(stderr, PROG ": %s\n", isochron_last_error());
        code = 1;
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code) goto done;
    code = run(argc, argv, v, &o, &r, self_bound);
    if (rank == 0 && app_close_output(PROG, "--jsonl", v[O_JSONL], r.jf) && !code) code = 1;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
done:
    isochron_reporter_destroy(r.js);
    isochron_reporter_destroy(r.tab);
    MPI_Finalize();
    return code;
}
