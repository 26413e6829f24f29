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
 * Thin by design: the barriers and the trial live in libisochron
 * (src/barrier); this file parses, orchestrates and writes results.
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
       O_MINR, O_MAXR, O_RELCI, O_BUDGET, O_SEED, O_SYNC, O_TIMER, O_SKEW, O_FORMAT, O_JSONL, O_WATCHDOG, O_QUIET, O_LBAR, O_LEXP,
       O_HELP, O_VERSION, NOPT };

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
    [O_SLACK] = {"slack", "SECONDS", "common start = now + SLACK on rank 0's global clock", "1ms"},
    [O_TOL] = {"late-tolerance", "SECONDS", "a trial is invalid when a rank enters later than this after its start (descheduled while waiting)", "10us"},
    [O_WAIT] = {"wait", "MODE", "how barriers wait for messages: spin (MPI_Recv), yield (MPI_Test + sched_yield), auto (yield when oversubscribed)", "spin"},
    [O_RDSBS] = {"rds-bs", "SECONDS", "RDS: use this b_s instead of measuring it (with --rds-s)", NULL},
    [O_RDSS] = {"rds-s", "SECONDS", "RDS: use this s instead of measuring it (with --rds-bs)", NULL},
    [O_MINR] = {"min-reps", "N", "cost: minimum valid repetitions", "10"},
    [O_MAXR] = {"max-reps", "N", "cost: maximum repetitions", "1000"},
    [O_RELCI] = {"rel-ci", "X", "cost: stop when the CI half-width <= X * mean", "0.05"},
    [O_BUDGET] = {"budget", "SECONDS", "cost: time per algorithm (the Round-Time slice)", "1"},
    [O_SEED] = {"seed", "N", "random arrival delays: seed", "1"},
    [O_SYNC] = APP_OPT_SYNC,
    [O_TIMER] = APP_OPT_TIMER,
    [O_SKEW] = APP_OPT_SKEW,
    [O_FORMAT] = {"format", "FMT", "stdout: table or none", "table"},
    [O_JSONL] = {"jsonl", "FILE", "write JSON Lines to FILE", NULL},
    [O_WATCHDOG] = {"watchdog", "SECONDS", "abort an experiment step that runs longer than this, naming it (0: off)", "300"},
    [O_QUIET] = APP_OPT_QUIET,
    [O_LBAR] = {"list-barriers", NULL, "list the barrier algorithms and exit", NULL},
    [O_LEXP] = {"list-experiments", NULL, "list the experiments and exit", NULL},
    [O_HELP] = APP_OPT_HELP,
    [O_VERSION] = APP_OPT_VERSION,
};

static const char *exp_names[4] = {"skew", "cost", "shift", "payoff"};
static const char *exp_desc[4] = {
    "exit skew (last exit - first exit) of calls started at one instant of the global clock (paper 000, Fig. 8)",
    "latency of each barrier with the engine's statistics (Round-Time, global method)",
    "ring-shift success rate after each barrier, against the concurrent reference (paper 004, sec. 4.2)",
    "smallest message for which RDS before a shift pays off: measured and modelled (paper 004, sec. 4.3)"};

typedef struct {
    int rank, size;
    FILE *jf, *out;     /* JSON Lines file, table stream (rank 0; may be NULL) */
    isochron_barrier_trial_t *trial;
    double slack, spread;
    double skew_spread; /* skew: arrivals spread (0: all start together, as paper 000's Fig. 8) */
    double tolerance;   /* a rank entering later than this after its target makes the trial invalid */
    uint64_t seed;
    int quiet;
} run_t;

/* ---- small helpers ---- */

static double rnd01(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; /* xorshift64 */
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void jarr(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) { if (i) fputc(',', f); json_num(f, v[i]); }
    fputc(']', f);
}

/* {"median":..,"p95":..,"max":..,"mean":..} of v[0..n-1] */
static void jstats(FILE *f, const double *v, int n, isochron_summary_t *out)
{
    double q[1] = {0.95};
    isochron_summary_t s;
    isochron_summarize(v, n, 0.95, q, 1, &s);
    fputs("{\"median\":", f); json_num(f, s.median);
    fputs(",\"p95\":", f); json_num(f, s.qv[0]);
    fputs(",\"max\":", f); json_num(f, s.max);
    fputs(",\"mean\":", f); json_num(f, s.mean);
    fputc('}', f);
    if (out) *out = s;
}

static double p95(const double *v, int n)
{
    double q[1] = {0.95};
    isochron_summary_t s;
    isochron_summarize(v, n, 0.95, q, 1, &s);
    return s.qv[0];
}

static double median_of(const double *v, int n)
{
    isochron_summary_t s;
    isochron_summarize(v, n, 0.95, NULL, 0, &s);
    return s.median;
}

/* What a trial yields (rank 0, global clock): exit skew (last exit - first
 * exit), shift cost (first exit -> last shift end), total (first entry ->
 * last shift end), barrier cost (common start -> last exit). */
enum { V_SKEW, V_SHIFT, V_TOTAL, V_COST };

/* One configuration of an experiment: a barrier (NULL: none), the spread of
 * the arrivals and the shift size (-1: no shift); vals[j] receives what[j]
 * of each valid trial. */
typedef struct {
    isochron_barrier_t *bar;
    double spread;
    long bytes;
    double *vals[2];
    int nvalid;
} cfg_t;

/* n trials of every configuration, interleaved (trial i of each configuration
 * in turn), so slow drifts of the machine's load hit every configuration
 * alike. Trials where a rank was late for its start are invalid and dropped
 * (Round-Time's rule), and so are trials where a rank entered more than
 * --late-tolerance after its start: it was descheduled while waiting, so
 * the calls did not start together. */
static int interleaved(run_t *r, cfg_t *cf, int nc, int n, int warm, int nv, const int *what)
{
    isochron_barrier_stamp_t *st = r->rank == 0 ? malloc(sizeof *st * (size_t)r->size) : NULL;
    for (int c = 0; c < nc; c++) cf[c].nvalid = 0;
    for (int i = -warm; i < n; i++)
        for (int c = 0; c < nc; c++) {
            double t0, delay = cf[c].spread > 0 ? cf[c].spread * rnd01(&r->seed) : 0;
            int rc = isochron_barrier_trial_start_time(r->trial, r->slack, &t0);
            if (!rc) rc = isochron_barrier_trial_run(r->trial, cf[c].bar, t0, delay, cf[c].bytes, st);
            if (rc) { free(st); return rc; }
            if (r->rank != 0 || i < 0) continue;
            double fe = INFINITY, fx = INFINITY, lx = -INFINITY, ls = -INFINITY;
            int late = 0;
            for (int k = 0; k < r->size; k++) {
                fe = fmin(fe, st[k].entry); fx = fmin(fx, st[k].exit);
                lx = fmax(lx, st[k].exit); ls = fmax(ls, st[k].shift_end);
                late |= st[k].late > 0 || st[k].entry - st[k].target > r->tolerance;
            }
            if (late) continue;
            for (int j = 0; j < nv; j++)
                cf[c].vals[j][cf[c].nvalid] = what[j] == V_SKEW ? lx - fx : what[j] == V_SHIFT ? ls - fx : what[j] == V_TOTAL ? ls - fe : lx - t0;
            cf[c].nvalid++;
        }
    free(st);
    for (int c = 0; c < nc; c++) MPI_Bcast(&cf[c].nvalid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ISOCHRON_OK;
}

static double *alloc_vals(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

static cfg_t *cfgs_alloc(int nc, int n, int nv)
{
    cfg_t *cf = calloc((size_t)nc, sizeof *cf);
    for (int c = 0; c < nc; c++)
        for (int j = 0; j < nv; j++) cf[c].vals[j] = alloc_vals(n);
    return cf;
}

static void cfgs_free(cfg_t *cf, int nc)
{
    for (int c = 0; c < nc; c++) { free(cf[c].vals[0]); free(cf[c].vals[1]); }
    free(cf);
}

/* ---- the experiments ---- */

static void skew_record(run_t *r, const char *name, int calls, int nvalid, const double *skew, const double *cost)
{
    if (r->jf) {
        fprintf(r->jf, "{\"schema\":%d,\"type\":\"skew\",\"barrier\":\"%s\",\"calls\":%d,\"valid\":%d,\"spread_s\":%g,\"exit_skew_s\":", ISOCHRON_SCHEMA_VERSION,
                name, calls, nvalid, r->skew_spread);
        jstats(r->jf, skew, nvalid, NULL);
        fputs(",\"cost_s\":", r->jf);
        jstats(r->jf, cost, nvalid, NULL);
        fputs(",\"samples_s\":", r->jf);
        jarr(r->jf, skew, nvalid);
        fputs("}\n", r->jf);
        fflush(r->jf);
    }
    if (r->out) {
        char a[32], b[32], c[32], d[32];
        isochron_summary_t sk;
        double q[1] = {0.95};
        isochron_summarize(skew, nvalid, 0.95, q, 1, &sk);
        if (nvalid == 0)
            fprintf(r->out, "%-14s %6d %6d  no valid calls (in every one a rank was late for the common start, or entered after --late-tolerance)\n", name, calls, 0);
        else
            fprintf(r->out, "%-14s %6d %6d %12s %12s %12s %12s\n", name, calls, nvalid, isochron_fmt_time(sk.median, a, sizeof a),
                    isochron_fmt_time(sk.qv[0], b, sizeof b), isochron_fmt_time(sk.max, c, sizeof c), isochron_fmt_time(median_of((double *)cost, nvalid), d, sizeof d));
        fflush(r->out);
    }
}

static int exp_skew(run_t *r, isochron_barrier_t **bars, int nb, int calls)
{
    cfg_t *cf = cfgs_alloc(nb, calls, 2);
    for (int b = 0; b < nb; b++) { cf[b].bar = bars[b]; cf[b].spread = r->skew_spread; cf[b].bytes = -1; }
    int what[2] = {V_SKEW, V_COST};
    int rc = interleaved(r, cf, nb, calls, 10, 2, what);
    for (int b = 0; !rc && r->rank == 0 && b < nb; b++) skew_record(r, isochron_barrier_name(bars[b]), calls, cf[b].nvalid, cf[b].vals[0], cf[b].vals[1]);
    cfgs_free(cf, nb);
    return rc;
}

/* The barrier as an engine operation: its handle is the driver's current one. */
static isochron_barrier_t *current_barrier;
static int bar_op_setup(isochron_op_ctx_t *c) { c->state = current_barrier; return ISOCHRON_OK; }
static int bar_op_run(isochron_op_ctx_t *c) { return isochron_barrier_run(c->state); }

static int exp_cost(run_t *r, isochron_barrier_t *bar, isochron_bench_t *bench)
{
    char name[40];
    snprintf(name, sizeof name, "barrier:%s", isochron_barrier_name(bar));
    isochron_op_t op = {name, "barrier", "a barrier algorithm of isochron/barrier.h", ISOCHRON_OP_USER | ISOCHRON_OP_NODATA, bar_op_setup, NULL,
                        bar_op_run, NULL, NULL, NULL, NULL, NULL};
    isochron_op_ctx_t c;
    memset(&c, 0, sizeof c);
    isochron_point_t pt;
    memset(&pt, 0, sizeof pt);
    current_barrier = bar;
    int rc = isochron_bench_measure(bench, &op, &c, &pt);
    if (!rc && r->rank == 0) {
        char extra[64];
        snprintf(extra, sizeof extra, "\"barrier\":\"%s\"", isochron_barrier_name(bar));
        if (r->jf) {
            isochron_reporter_t *rep;
            isochron_reporter_create("jsonl", r->jf, &rep);
            isochron_report_point_as(rep, &pt, "roundtime", "global", "cost", extra);
            isochron_reporter_destroy(rep);
        }
        if (r->out && pt.valid == 0)
            fprintf(r->out, "%-14s no valid repetitions of %d: a rank started more than one Bcast latency late in each (descheduled?)\n",
                    isochron_barrier_name(bar), pt.reps);
        else if (r->out) {
            char a[32], b[32], d[32];
            fprintf(r->out, "%-14s %12s %12s %12s %7d/%-5d\n", isochron_barrier_name(bar), isochron_fmt_time(pt.s.median, a, sizeof a),
                    isochron_fmt_time(pt.s.ci_half, b, sizeof b), isochron_fmt_time(pt.s.min, d, sizeof d), pt.valid, pt.reps);
            fflush(r->out);
        }
    }
    isochron_point_free(&pt);
    return rc;
}

static void shift_record(run_t *r, const char *barrier, long bytes, int n, int nvalid, double ref, double thr, double *v)
{
    int ok = 0;
    for (int i = 0; i < nvalid; i++) ok += v[i] <= (1 + thr) * ref;
    if (r->jf) {
        fprintf(r->jf, "{\"schema\":%d,\"type\":\"shift\",\"barrier\":\"%s\",\"bytes\":%ld,\"trials\":%d,\"valid\":%d,\"reference_s\":", ISOCHRON_SCHEMA_VERSION,
                barrier, bytes, n, nvalid);
        json_num(r->jf, ref);
        fprintf(r->jf, ",\"threshold\":%g,\"spread_s\":%g,\"successes\":%d,\"success_rate\":", thr, r->spread, ok);
        json_num(r->jf, nvalid ? (double)ok / nvalid : NAN);
        fputs(",\"shift_cost_s\":", r->jf);
        jstats(r->jf, v, nvalid, NULL);
        fputs(",\"samples_s\":", r->jf);
        jarr(r->jf, v, nvalid);
        fputs("}\n", r->jf);
        fflush(r->jf);
    }
    if (r->out) {
        char sz[32], a[32], b[32], c[32];
        if (nvalid == 0)
            fprintf(r->out, "%-14s %9s  no valid trials\n", barrier, isochron_fmt_bytes((size_t)bytes, sz, sizeof sz));
        else
            fprintf(r->out, "%-14s %9s %12s %7.1f%% %12s %12s %7d\n", barrier, isochron_fmt_bytes((size_t)bytes, sz, sizeof sz),
                    isochron_fmt_time(ref, c, sizeof c), 100.0 * ok / nvalid, isochron_fmt_time(median_of(v, nvalid), a, sizeof a),
                    isochron_fmt_time(p95(v, nvalid), b, sizeof b), nvalid);
        fflush(r->out);
    }
}

static int exp_shift(run_t *r, isochron_barrier_t **bars, int nb, const size_t *sizes, int ns, int n, double thr)
{
    /* configurations: "clock" (all start at one instant of the global clock: the
     * concurrent reference), "none" (spread arrivals, no barrier), then each barrier */
    int nc = nb + 2, what[1] = {V_SHIFT}, rc = ISOCHRON_OK;
    cfg_t *cf = cfgs_alloc(nc, n, 1);
    for (int s = 0; s < ns && !rc; s++) {
        long bytes = (long)sizes[s];
        for (int c = 0; c < nc; c++) {
            cf[c].bar = c < 2 ? NULL : bars[c - 2];
            cf[c].spread = c == 0 ? 0 : r->spread;
            cf[c].bytes = bytes;
        }
        if ((rc = interleaved(r, cf, nc, n, 3, 1, what))) break;
        if (r->rank == 0) {
            double ref = cf[0].nvalid ? median_of(cf[0].vals[0], cf[0].nvalid) : NAN;
            for (int c = 0; c < nc; c++)
                shift_record(r, c == 0 ? "clock" : c == 1 ? "none" : isochron_barrier_name(cf[c].bar), bytes, n, cf[c].nvalid, ref, thr, cf[c].vals[0]);
        }
        if (!r->quiet && r->rank == 0) fprintf(stderr, PROG ": shift %ld B done\n", bytes);
    }
    cfgs_free(cf, nc);
    return rc;
}

static int exp_payoff(run_t *r, isochron_barrier_t *rds, const size_t *sizes, int ns, int n)
{
    /* per size, interleaved: the concurrent shift (global-clock start), RDS then
     * the shift, the shift alone; both of the latter from spread arrivals */
    double *ref = alloc_vals(ns), *syn = alloc_vals(ns), *uns = alloc_vals(ns);
    int what[1] = {V_TOTAL}, rc = ISOCHRON_OK;
    cfg_t *cf = cfgs_alloc(3, n, 1);
    for (int s = 0; s < ns && !rc; s++) {
        for (int c = 0; c < 3; c++) {
            cf[c].bar = c == 1 ? rds : NULL;
            cf[c].spread = c == 0 ? 0 : r->spread;
            cf[c].bytes = (long)sizes[s];
        }
        if ((rc = interleaved(r, cf, 3, n, 2, 1, what))) break;
        double *m[3] = {&ref[s], &syn[s], &uns[s]};
        for (int c = 0; c < 3; c++) *m[c] = r->rank == 0 && cf[c].nvalid ? median_of(cf[c].vals[0], cf[c].nvalid) : NAN;
    }
    cfgs_free(cf, 3);
    if (!rc && r->rank == 0) {
        /* least-squares line ref = a m + b_l over the sizes */
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int k = 0;
        for (int s = 0; s < ns; s++)
            if (isfinite(ref[s])) { double x = (double)sizes[s]; sx += x; sy += ref[s]; sxx += x * x; sxy += x * ref[s]; k++; }
        double den = k * sxx - sx * sx, a = k > 1 && den > 0 ? (k * sxy - sx * sy) / den : NAN, bl = k ? (sy - (isfinite(a) ? a : 0) * sx) / k : NAN;
        isochron_rds_info_t ri;
        isochron_barrier_rds_info(rds, &ri);
        double model = a > 0 ? fmax(0, (2 * ri.d * ri.b_s - bl / 2) / a) : NAN;
        double measured = NAN;
        for (int s = 0; s < ns; s++)
            if (isfinite(syn[s]) && isfinite(uns[s]) && syn[s] < uns[s]) { measured = (double)sizes[s]; break; }
        if (r->jf) {
            fprintf(r->jf, "{\"schema\":%d,\"type\":\"payoff\",\"barrier\":\"rds\",\"d\":%d,\"a_s_per_byte\":", ISOCHRON_SCHEMA_VERSION, ri.d);
            json_num(r->jf, a);
            fputs(",\"b_l_s\":", r->jf); json_num(r->jf, bl);
            fputs(",\"b_s_s\":", r->jf); json_num(r->jf, ri.b_s);
            fputs(",\"model_min_bytes\":", r->jf); json_num(r->jf, isfinite(model) ? ceil(model) : NAN);
            fputs(",\"measured_min_bytes\":", r->jf); json_num(r->jf, measured);
            fprintf(r->jf, ",\"spread_s\":%g,\"trials\":%d,\"sizes\":[", r->spread, n);
            for (int s = 0; s < ns; s++) fprintf(r->jf, "%s%zu", s ? "," : "", sizes[s]);
            fputs("],\"reference_s\":", r->jf); jarr(r->jf, ref, ns);
            fputs(",\"synced_s\":", r->jf); jarr(r->jf, syn, ns);
            fputs(",\"unsynced_s\":", r->jf); jarr(r->jf, uns, ns);
            fputs("}\n", r->jf);
            fflush(r->jf);
        }
        if (r->out) {
            char sz[32], x[32], y[32], z[32];
            for (int s = 0; s < ns; s++)
                fprintf(r->out, "%9s %14s %14s %14s  %s\n", isochron_fmt_bytes(sizes[s], sz, sizeof sz), isochron_fmt_time(ref[s], x, sizeof x),
                        isochron_fmt_time(syn[s], y, sizeof y), isochron_fmt_time(uns[s], z, sizeof z),
                        syn[s] < uns[s] ? "sync pays off" : "");
            fprintf(r->out, "fit of the concurrent shift: a = %.4g ns/B, b_l = %s; d = %d, b_s = %s\n", a * 1e9, isochron_fmt_time(bl, x, sizeof x),
                    ri.d, isochron_fmt_time(ri.b_s, y, sizeof y));
            if (isfinite(model)) fprintf(r->out, "model (paper 004, sec. 4.3): synchronize from m >= (2 d b_s - b_l/2) / a = %.0f B\n", ceil(model));
            else fprintf(r->out, "model (paper 004, sec. 4.3): no prediction (the fitted per-byte cost a is not positive)\n");
            if (isfinite(measured)) fprintf(r->out, "measured: synchronizing first is cheaper from %.0f B (smallest size measured where it is)\n", measured);
            else fprintf(r->out, "measured: synchronizing first was not cheaper at any size measured\n");
            fflush(r->out);
        }
    }
    free(ref); free(syn); free(uns);
    return rc;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, code = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *v[NOPT];
    isochron_barrier_t *bars[16] = {NULL};
    int nb = 0;
    if ((code = app_parse(argc, argv, opts, NOPT, v, rank))) goto done;
    if (v[O_HELP]) {
        if (rank == 0) {
            app_help(stdout, PROG, "[options]   (run under mpirun)", opts, NOPT);
            printf("\nExperiments on barrier algorithms, timed on a global clock (clocks are synchronized once, --sync):\n");
            for (int i = 0; i < 4; i++) printf("  %-7s %s\n", exp_names[i], exp_desc[i]);
        }
        goto done;
    }
    if (v[O_VERSION]) { if (rank == 0) printf(PROG " %s\n", ISOCHRON_VERSION_STRING); goto done; }
    if (v[O_LBAR]) {
        if (rank == 0) for (int i = 0; i < isochron_barrier_count(); i++) printf("%-14s %s\n", isochron_barrier_info(i)->name, isochron_barrier_info(i)->description);
        goto done;
    }
    if (v[O_LEXP]) {
        if (rank == 0) for (int i = 0; i < 4; i++) printf("%-7s %s\n", exp_names[i], exp_desc[i]);
        goto done;
    }
#define FAIL(...) do { if (rank == 0) { fprintf(stderr, PROG ": "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } code = 2; goto done; } while (0)
    /* ---- options, all checked before anything runs */
    char names[16][24];
    {
        const char *list = v[O_BARRIERS] ? v[O_BARRIERS] : "all";
        if (!strcmp(list, "all")) {
            for (int i = 0; i < isochron_barrier_count() && nb < 16; i++) snprintf(names[nb++], sizeof names[0], "%s", isochron_barrier_info(i)->name);
        } else {
            char *copy = strdup(list), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (isochron_barrier_check_name(t)) { free(copy); FAIL("--barriers: %s", isochron_last_error()); }
                if (nb < 16) snprintf(names[nb++], sizeof names[0], "%s", t);
            }
            free(copy);
            if (!nb) FAIL("--barriers: empty list; valid: %s", isochron_barrier_names());
        }
    }
    int exps[4] = {0, 0, 0, 0};
    {
        const char *list = v[O_EXPS] ? v[O_EXPS] : "all";
        char *copy = strdup(list), *save = NULL;
        char bad[64] = "";
        for (char *t = strtok_r(copy, ",", &save); t && !bad[0]; t = strtok_r(NULL, ",", &save)) {
            int all = !strcmp(t, "all"), found = all;
            for (int i = 0; i < 4; i++)
                if (all || !strcmp(t, exp_names[i])) exps[i] = found = 1;
            if (!found) snprintf(bad, sizeof bad, "%s", t);
        }
        free(copy);
        if (bad[0]) FAIL("--experiments: unknown experiment '%s'; valid: skew, cost, shift, payoff, all", bad);
    }
    long lv;
    double dv;
    int calls = 500, ntr = 200, ptr = 100;
    double thr = 0.5, spread = 20e-6, slack = 1e-3, watchdog = 300, tol = 10e-6, skspread = 0;
    if (v[O_CALLS]) { if (isochron_parse_long(v[O_CALLS], &lv) || lv < 1 || lv > 10000000) FAIL("--calls '%s': expected an integer in [1, 10000000]", v[O_CALLS]); calls = (int)lv; }
    if (v[O_TRIALS]) { if (isochron_parse_long(v[O_TRIALS], &lv) || lv < 1 || lv > 10000000) FAIL("--trials '%s': expected an integer in [1, 10000000]", v[O_TRIALS]); ntr = (int)lv; }
    if (v[O_PTRIALS]) { if (isochron_parse_long(v[O_PTRIALS], &lv) || lv < 1 || lv > 10000000) FAIL("--payoff-trials '%s': expected an integer in [1, 10000000]", v[O_PTRIALS]); ptr = (int)lv; }
    if (v[O_THRESH]) { if (isochron_parse_double(v[O_THRESH], &dv) || !(dv > 0 && dv <= 100)) FAIL("--threshold '%s': expected a number in (0, 100]", v[O_THRESH]); thr = dv; }
    if (v[O_SPREAD]) { if (isochron_parse_duration(v[O_SPREAD], &dv) || dv < 0 || dv > 10) FAIL("--spread '%s': expected seconds in [0, 10] (e.g. 20us)", v[O_SPREAD]); spread = dv; }
    if (v[O_SKSPREAD]) { if (isochron_parse_duration(v[O_SKSPREAD], &dv) || dv < 0 || dv > 10) FAIL("--skew-spread '%s': expected seconds in [0, 10] (e.g. 30us)", v[O_SKSPREAD]); skspread = dv; }
    if (v[O_SLACK]) { if (isochron_parse_duration(v[O_SLACK], &dv) || dv <= 0 || dv > 10) FAIL("--slack '%s': expected seconds in (0, 10] (e.g. 1ms)", v[O_SLACK]); slack = dv; }
    if (v[O_TOL]) { if (isochron_parse_duration(v[O_TOL], &dv) || dv < 0 || dv > 10) FAIL("--late-tolerance '%s': expected seconds in [0, 10] (e.g. 10us)", v[O_TOL]); tol = dv; }
    if (v[O_WATCHDOG] && (isochron_parse_duration(v[O_WATCHDOG], &watchdog) || watchdog < 0 || watchdog > 86400)) FAIL("--watchdog '%s': seconds in [0, 86400]", v[O_WATCHDOG]);
    if (v[O_SEED] && (isochron_parse_long(v[O_SEED], &lv) || lv < 0)) FAIL("--seed '%s': expected a non-negative integer", v[O_SEED]);
    uint64_t seed = v[O_SEED] ? (uint64_t)atol(v[O_SEED]) : 1;
    isochron_barrier_opts_t bopt;
    isochron_barrier_opts_default(&bopt);
    if (v[O_WAIT]) {
        if (!strcmp(v[O_WAIT], "auto")) bopt.wait = ISOCHRON_BARRIER_WAIT_AUTO;
        else if (!strcmp(v[O_WAIT], "spin")) bopt.wait = ISOCHRON_BARRIER_WAIT_SPIN;
        else if (!strcmp(v[O_WAIT], "yield")) bopt.wait = ISOCHRON_BARRIER_WAIT_YIELD;
        else FAIL("--wait '%s': valid: spin, yield, auto", v[O_WAIT]);
    }
    if (!v[O_RDSBS] != !v[O_RDSS]) FAIL("--rds-bs and --rds-s go together (give both, or neither to measure them)");
    if (v[O_RDSBS]) {
        if (isochron_parse_duration(v[O_RDSBS], &bopt.rds_b_s) || !(bopt.rds_b_s > 0 && bopt.rds_b_s < 1)) FAIL("--rds-bs '%s': expected seconds in (0, 1)", v[O_RDSBS]);
        if (isochron_parse_duration(v[O_RDSS], &bopt.rds_s) || !(bopt.rds_s >= 0 && bopt.rds_s < 1)) FAIL("--rds-s '%s': expected seconds in [0, 1)", v[O_RDSS]);
    }
    size_t shift_sizes[64], pay_sizes[64];
    int nss = 0, nps = 0;
    char err[256];
    if (app_parse_sizes(v[O_SHIFT] ? v[O_SHIFT] : "4K,64K", shift_sizes, 64, &nss, err, sizeof err)) FAIL("--shift-sizes: %s", err);
    if (app_parse_sizes(v[O_PSIZES] ? v[O_PSIZES] : "0,256,1K,4K,16K,64K,256K", pay_sizes, 64, &nps, err, sizeof err)) FAIL("--payoff-sizes: %s", err);
    long maxb = 0;
    for (int i = 0; i < nss; i++) { if (shift_sizes[i] > (1u << 30)) FAIL("--shift-sizes: %zu B is more than 1 GiB", shift_sizes[i]); maxb = shift_sizes[i] > (size_t)maxb ? (long)shift_sizes[i] : maxb; }
    for (int i = 0; i < nps; i++) { if (pay_sizes[i] > (1u << 30)) FAIL("--payoff-sizes: %zu B is more than 1 GiB", pay_sizes[i]); maxb = pay_sizes[i] > (size_t)maxb ? (long)pay_sizes[i] : maxb; }
    if ((exps[2] || exps[3]) && size < 2) FAIL("the shift and payoff experiments need at least 2 processes (running on %d)", size);
    isochron_bench_opts_t bo;
    isochron_bench_opts_default(&bo);
    if (v[O_MINR]) { if (isochron_parse_long(v[O_MINR], &lv) || lv < 1 || lv > 10000000) FAIL("--min-reps '%s': expected an integer in [1, 10000000]", v[O_MINR]); bo.min_reps = (int)lv; }
    if (v[O_MAXR]) { if (isochron_parse_long(v[O_MAXR], &lv) || lv < 1 || lv > 10000000) FAIL("--max-reps '%s': expected an integer in [1, 10000000]", v[O_MAXR]); bo.max_reps = (int)lv; }
    if (v[O_RELCI]) { if (isochron_parse_double(v[O_RELCI], &dv)) FAIL("--rel-ci '%s': expected a number", v[O_RELCI]); bo.rel_ci = dv; }
    if (v[O_BUDGET]) { if (isochron_parse_duration(v[O_BUDGET], &dv)) FAIL("--budget '%s': expected seconds", v[O_BUDGET]); bo.budget = dv; }
    if (isochron_bench_opts_check(&bo)) FAIL("%s", isochron_last_error());
    const char *fmt = v[O_FORMAT] ? v[O_FORMAT] : "table";
    if (strcmp(fmt, "table") && strcmp(fmt, "none")) FAIL("unknown --format '%s'; valid: table, none", fmt);
    {
        isochron_sync_spec_t sp;
        isochron_skew_spec_t sk;
        if (isochron_sync_spec_parse(v[O_SYNC] ? v[O_SYNC] : "hca3", &sp)) FAIL("--sync: %s", isochron_last_error());
        if (isochron_skew_spec_parse(v[O_SKEW] ? v[O_SKEW] : "none", &sk)) FAIL("--skew: %s", isochron_last_error());
    }
    run_t r = {rank, size, NULL, NULL, NULL, slack, spread, skspread, tol, 0, v[O_QUIET] != NULL};
    if (rank == 0 && v[O_JSONL] && !(r.jf = fopen(v[O_JSONL], "w"))) code = 2;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code) FAIL("cannot write %s", v[O_JSONL]);
    if (rank == 0 && !strcmp(fmt, "table")) r.out = stdout;
    r.seed = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(rank + 1) * 0xBF58476D1CE4E5B9ull;
    if (!r.seed) r.seed = 1;

    /* ---- clocks, barriers, trial */
    double wall0 = isochron_truth_now();
    app_clock_t ck;
    if ((code = app_clock_setup(PROG, v[O_SYNC], v[O_TIMER], v[O_SKEW], MPI_COMM_WORLD, r.quiet, &ck))) goto done;
    int rds_idx = -1;
    for (int i = 0; i < nb; i++) {
        if (isochron_barrier_create(names[i], MPI_COMM_WORLD, &bopt, &bars[i])) FAIL("barrier %s: %s", names[i], isochron_last_error());
        if (!strcmp(names[i], "rds")) rds_idx = i;
    }
    isochron_barrier_t *rds_extra = NULL, *rds = rds_idx >= 0 ? bars[rds_idx] : NULL;
    if (!rds && exps[3]) {
        if (isochron_barrier_create("rds", MPI_COMM_WORLD, &bopt, &rds_extra)) FAIL("barrier rds: %s", isochron_last_error());
        rds = rds_extra;
    }
    if (isochron_barrier_trial_create(MPI_COMM_WORLD, ck.global, maxb, &r.trial)) FAIL("%s", isochron_last_error());
    isochron_bench_t *bench = NULL;
    if (exps[1] && isochron_bench_create(MPI_COMM_WORLD, ck.global, &bo, &bench)) FAIL("%s", isochron_last_error());
    int yields = nb ? isochron_barrier_yields(bars[0]) : 0, over = isochron_barrier_trial_oversubscribed(r.trial);

    /* ---- context */
    char *ctxbuf = NULL;
    size_t ctxlen = 0;
    FILE *mf = rank == 0 ? open_memstream(&ctxbuf, &ctxlen) : NULL;
    app_context_fields(mf, MPI_COMM_WORLD, argc, argv);
    if (mf) fclose(mf);
    if (rank == 0 && r.jf) {
        fprintf(r.jf, "{\"schema\":%d,\"type\":\"context\",\"tool\":\"" PROG "\",\"run\":{%s},\"nprocs\":%d,\"nodes\":%d,\"oversubscribed\":%s,\"barriers_yield\":%s,\"timer\":\"%s\",\"clock_sync\":%s,\"barriers\":[",
                ISOCHRON_SCHEMA_VERSION, ctxbuf, size, ck.rep.nodes, over ? "true" : "false", yields ? "true" : "false", isochron_timer_name(ck.timer), ck.json);
        for (int i = 0; i < nb; i++) fprintf(r.jf, "%s\"%s\"", i ? "," : "", names[i]);
        fputs("],\"experiments\":[", r.jf);
        for (int i = 0, k = 0; i < 4; i++) if (exps[i]) fprintf(r.jf, "%s\"%s\"", k++ ? "," : "", exp_names[i]);
        fprintf(r.jf, "],\"options\":{\"calls\":%d,\"trials\":%d,\"payoff_trials\":%d,\"threshold\":%g,\"spread_s\":%g,\"skew_spread_s\":%g,\"slack_s\":%g,\"late_tolerance_s\":%g,\"wait\":\"%s\",\"seed\":%llu}}\n",
                calls, ntr, ptr, thr, spread, skspread, slack, tol, v[O_WAIT] ? v[O_WAIT] : "spin", (unsigned long long)seed);
        fflush(r.jf);
    }
    free(ctxbuf);
    if (r.out) {
        fprintf(r.out, "# " PROG " %s: %d ranks, %d node(s)%s%s; clocks: %s, synchronized in %.2f s\n", ISOCHRON_VERSION_STRING, size, ck.rep.nodes,
                over ? ", oversubscribed" : "", yields ? ", barriers yield while waiting (--wait)" : "", ck.spec_text, ck.rep.duration);
    }
    if (rds) {
        isochron_rds_info_t ri;
        isochron_barrier_rds_info(rds, &ri);
        if (rank == 0 && r.jf) {
            fprintf(r.jf, "{\"schema\":%d,\"type\":\"rds_constants\",\"b_s_s\":%.9g,\"s_s\":%.9g,\"samples\":%d,\"pair\":[0,1],\"d\":%d,\"max_wait_s\":%.9g}\n",
                    ISOCHRON_SCHEMA_VERSION, ri.b_s, ri.s, ri.samples, ri.d, ri.max_wait);
            fflush(r.jf);
        }
        if (r.out) {
            char a[32], b[32], c[32];
            fprintf(r.out, "# RDS constants: b_s = %s, s = %s (%s), d = %d, busy waits up to %s\n", isochron_fmt_time(ri.b_s, a, sizeof a),
                    isochron_fmt_time(ri.s, b, sizeof b), ri.samples ? "medians of round trips between ranks 0 and 1" : "given", ri.d,
                    isochron_fmt_time(ri.max_wait, c, sizeof c));
            if (ri.samples) fprintf(r.out, "#   (%d round trips)\n", ri.samples);
        }
    }

    /* ---- experiments */
    int rc = ISOCHRON_OK, steps = 0;
    char what[96];
#define STEP(desc, call) do { snprintf(what, sizeof what, "%s", desc); app_watchdog_arm(PROG, watchdog, rank, what, v[O_JSONL]); rc = (call); app_watchdog_disarm(); \
        if (!rc) { steps++; if (!r.quiet && rank == 0) fprintf(stderr, PROG ": %s done (%.1f s)\n", what, isochron_truth_now() - wall0); } } while (0)
    if (exps[0] && !rc) {
        if (r.out) fprintf(r.out, "\n# exit skew: %d calls from a common start on the global clock%s; skew = last exit - first exit\n%-14s %6s %6s %12s %12s %12s %12s\n",
                           calls, skspread > 0 ? " + random arrival delays (--skew-spread)" : "", "barrier", "calls", "valid", "skew median", "skew p95", "skew max", "cost median");
        STEP("skew", exp_skew(&r, bars, nb, calls));
    }
    if (exps[1] && !rc) {
        if (r.out) fprintf(r.out, "\n# cost: engine, Round-Time / global method, %d..%d repetitions, CI target %g%%\n%-14s %12s %12s %12s %13s\n",
                           bo.min_reps, bo.max_reps, 100 * bo.rel_ci, "barrier", "median", "CI +-", "min", "valid/reps");
        for (int i = 0; i < nb && !rc; i++) { char d[48]; snprintf(d, sizeof d, "cost of %.24s", names[i]); STEP(d, exp_cost(&r, bars[i], bench)); }
    }
    if (exps[2] && !rc) {
        if (r.out) fprintf(r.out, "\n# ring shift after each barrier: arrivals spread over %s; success = cost <= %.2f x the concurrent reference\n%-14s %9s %12s %8s %12s %12s %7s\n",
                           (snprintf(what, sizeof what, "%g us", spread * 1e6), what), 1 + thr, "barrier", "size", "reference", "success",
                           "cost median", "cost p95", "valid");
        STEP("shift", exp_shift(&r, bars, nb, shift_sizes, nss, ntr, thr));
    }
    if (exps[3] && !rc) {
        if (r.out) fprintf(r.out, "\n# when synchronizing pays off: rds + shift vs shift alone, both from the first arrival (medians of %d trials)\n%9s %14s %14s %14s\n",
                           ptr, "size", "concurrent", "rds + shift", "shift alone");
        STEP("payoff", exp_payoff(&r, rds, pay_sizes, nps, ptr));
    }
    if (rc) { if (rank == 0) fprintf(stderr, PROG ": %s failed: %s\n", what, isochron_last_error()); code = 1; }
    if (rank == 0 && r.jf)
        fprintf(r.jf, "{\"schema\":%d,\"type\":\"end\",\"steps\":%d,\"wall_s\":%.6g,\"complete\":%s}\n", ISOCHRON_SCHEMA_VERSION, steps,
                isochron_truth_now() - wall0, rc ? "false" : "true");
    isochron_bench_destroy(bench);
    isochron_barrier_trial_destroy(r.trial);
    isochron_barrier_destroy(rds_extra);
    app_clock_free(&ck);
    if (r.jf) fclose(r.jf);
done:
    for (int i = 0; i < nb; i++) isochron_barrier_destroy(bars[i]);
    MPI_Finalize();
    return code;
}
