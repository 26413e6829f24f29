/*
 * isochron-bench: measure MPI operations over message sizes on a global clock
 * (paper 000 sec. V; paper 001). Synchronizes clocks once (optionally again
 * every --resync seconds between points), checks the synchronization's
 * accuracy right away (Alg. 6, recorded in the context), then measures every
 * operation x size x root with the chosen scheme and timing method, writing
 * each point as soon as it is done. A watchdog ends a point that hangs with a
 * message naming it; completed points are already on disk.
 * Thin by design: the option table and the output here; the operations' list, the
 * checks and the sweep in libisochron (isochron_sweep_select, _check, _run).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "isochron/bench.h"
#include "isochron/report.h"
#include "common.h"

enum { O_OPS, O_SIZES, O_SCHEME, O_METHOD, O_TIMING, O_BARRIER, O_BARRIER2, O_MINR, O_MAXR, O_MAXA, O_RELCI, O_CIOF, O_LEVEL, O_BUDGET, O_WARMUP, O_WINDOW, O_MSGWIN, O_THREADS, O_PARTS,
       O_SLACK, O_LATECAP, O_RETRIES, O_RETRYBELOW, O_DTYPE, O_REDOP, O_ROOT, O_P2PMODE, O_INPLACE, O_CACHE, O_NPROCS, O_QUANT, O_RAW, O_VALIDATE, O_SYNC, O_NODESZ, O_TIMER, O_SKEW,
       O_TRACK, O_RESYNC, O_FORMAT, O_JSONL, O_CSV, O_WATCHDOG, O_QUIET, O_LOPS, O_LSCH, O_LMET, O_LTIM, O_LBAR, O_SYNCLIM, O_BIND, O_STARTUP, O_INIT, O_SLOWDOWN, O_PASSES, O_HELP, O_VERSION, NOPT };

static const app_option_t opts[NOPT] = {
    [O_OPS] = {"ops", "LIST", "operations (comma-separated names, or 'collectives' = all blocking collectives); see --list-ops", "collectives"},
    [O_SIZES] = {"sizes", "LIST", "message sizes: 8,1K,64K or ranges A..B (x2 steps) or A..B*F (xF steps); K/M/G = 2^10/2^20/2^30", "8..1M"},
    [O_SCHEME] = {"scheme", "NAME", "process synchronization: roundtime, window, barrier, none; see --list-schemes", ISOCHRON_BENCH_DEFAULT_SCHEME},
    [O_METHOD] = {"method", "NAME", "timing method: global, max, root, ack, overlap (non-blocking operations); see --list-methods", ISOCHRON_BENCH_DEFAULT_METHOD},
    [O_TIMING] = {"timing", "NAME", "how a repetition is timed: auto (one-sided operations at the origin, as a loop of k calls when a call is shorter than 20 timer reads; others by --method), origin, global (--method as it is), loop or loop:K (k back-to-back calls; collectives may overlap); see --list-timings", ISOCHRON_BENCH_DEFAULT_TIMING},
    [O_BARRIER] = {"barrier", "NAME", "barrier algorithm of the barrier scheme; see --list-barriers", ISOCHRON_BENCH_DEFAULT_BARRIER},
    [O_BARRIER2] = {"barrier-twice", NULL, "two barriers before each repetition", NULL},
    [O_MINR] = APP_OPT_MIN_REPS(ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_MIN_REPS)),
    [O_MAXR] = APP_OPT_MAX_REPS(ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_MAX_REPS)),
    [O_MAXA] = {"max-attempts", "N", "repetitions tried per point at most, valid or not (0: 4 x max-reps); a point it ends says max_attempts", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_MAX_ATTEMPTS)},
    [O_RELCI] = APP_OPT_REL_CI(ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_REL_CI)),
    [O_CIOF] = APP_OPT_CI_OF,
    [O_LEVEL] = {"ci-level", "X", "confidence level of the interval", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_CI_LEVEL)},
    [O_BUDGET] = {"budget", "SECONDS", "time per point (roundtime: the time slice of Alg. 5)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_BUDGET)},
    [O_WARMUP] = {"warmup", "N", "untimed repetitions before each point", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_WARMUP)},
    [O_WINDOW] = {"window", "SECONDS", "window scheme: window length (0: derived from a measured estimate)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_WINDOW)},
    [O_MSGWIN] = {"msg-window", "W", "throughput operations (bw, bibw, mbw_mr, bw_fan_in/out): messages per window and sender (osu_bw's 64)", ISOCHRON_XSTR(ISOCHRON_OP_WINDOW_DEFAULT)},
    [O_THREADS] = {"threads", "T", "threaded operations (latency_mt): threads per rank, recorded in each point (osu_latency_mt -t); MPI is then initialised with MPI_THREAD_MULTIPLE", ISOCHRON_XSTR(ISOCHRON_OP_THREADS_DEFAULT)},
    [O_PARTS] = {"partitions", "P", "partitioned operations (part_pingpong, part_pready): partitions per message, 1-65536; each partition is size / P bytes, so every size must be a multiple of P x the datatype size; recorded in each point", ISOCHRON_XSTR(ISOCHRON_OP_PARTITIONS_DEFAULT)},
    [O_SLACK] = {"slack-bcasts", "B", "roundtime: start time = now + B x the Bcast latency, a multiplier (doubles while starts arrive late; was --slack, which isochron-barrier uses for seconds)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_SLACK_BCASTS)},
    [O_LATECAP] = {"late-cap", "F", "roundtime: a rank may start up to one Bcast latency late, widened from measured lateness up to F x the median run time (default: 1.0 when ranks outnumber cores, else 0.5)", NULL},
    [O_DTYPE] = {"dtype", "NAME", "datatype: byte, char, int, long, float, double (default: byte, int for reductions)", NULL},
    [O_REDOP] = {"op", "NAME", "reduction: sum, prod, max, min", "sum"},
    [O_ROOT] = {"root", "N|rotate|all", "root of rooted operations; 'rotate': a new root every repetition inside one point (k mod p); 'all': every root as its own point", "0"},
    [O_P2PMODE] = {"p2p-mode", "NAME", "allpairs: parallel (round-robin rounds of disjoint pairs) or sequential (one pair at a time, a barrier holding the others)", "parallel"},
    [O_INPLACE] = {"in-place", NULL, "use MPI_IN_PLACE where MPI allows it", NULL},
    [O_CACHE] = {"cache-clear", "SIZE", "write SIZE bytes between repetitions to clear caches (e.g. 32M)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_CACHE_BYTES)},
    [O_NPROCS] = {"nprocs", "N", "measure on a sub-communicator of the first N ranks", "all"},
    [O_QUANT] = {"quantiles", "LIST", "quantiles to report, e.g. 0.25,0.75,0.99", NULL},
    [O_RAW] = {"raw", NULL, "write every repetition's run time and per-rank start/end (jsonl)", NULL},
    [O_VALIDATE] = {"validate", "0|1|2", "check received data: never, repetitions 0,1,2,4,8,..., every repetition", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_VALIDATE)},
    APP_OPTS_CLOCK(O_SYNC, O_NODESZ, O_TIMER, O_SKEW, O_TRACK),
    [O_RESYNC] = {"resync", "SECONDS", "synchronize clocks again between points after this long (0: never)", "0"},
    [O_FORMAT] = {"format", "FMT", "stdout: table, jsonl, csv or none", "table"},
    [O_JSONL] = {"jsonl", "FILE", "also write JSON Lines to FILE", NULL},
    [O_CSV] = {"csv", "FILE", "also write CSV to FILE", NULL},
    [O_WATCHDOG] = {"watchdog", "SECONDS", "abort a point that runs longer than this, naming it (0: off)", "120"},
    [O_QUIET] = APP_OPT_QUIET,
    [O_LOPS] = {"list-ops", NULL, "list the operations and exit", NULL},
    [O_LSCH] = {"list-schemes", NULL, "list the synchronization schemes and exit", NULL},
    [O_LMET] = {"list-methods", NULL, "list the timing methods and exit", NULL},
    [O_LTIM] = {"list-timings", NULL, "list the timing choices of --timing and exit", NULL},
    [O_LBAR] = APP_OPT_LIST_BARRIERS,
    [O_SYNCLIM] = APP_OPT_SYNC_LIMIT,
    [O_BIND] = APP_OPT_BIND,
    [O_STARTUP] = {"startup", NULL, "measure start-up only (osu_init/osu_hello): each rank's MPI_Init and first MPI_Barrier and MPI_Allreduce, min/mean/max over ranks, then exit", NULL},
    [O_INIT] = {"init", "world|sessions", "how MPI is started: world (MPI_Init, MPI_COMM_WORLD) or sessions (MPI 4: MPI_Session_init and a communicator from the process set mpi://WORLD; the base timer is then monotonic; with --startup, the start-up cost that way)", "world"},
    [O_PASSES] = {"passes", "P", "measure every point in P passes over the whole list, each with 1/P of the repetitions and budget and a CI target of sqrt(P) x --rel-ci, and report their union once (a point's repetitions spread over the run: less launch-to-launch spread where the machine's state changes within seconds; needs launches of seconds)", "1"},
    [O_RETRIES] = {"retries", "N", "a point whose valid share ends below --retry-below is measured again from a fresh start, at most N times (0-4), while the run's retried tries are fewer than 12 + 0.25 x the points measured before (a machine busy throughout costs about 1.25x the time); the last try is the result, the record keeps the discarded tries' shares", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_RETRIES)},
    [O_RETRYBELOW] = {"retry-below", "F", "the valid share (0-1) under which a point is retried (0: never)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_RETRY_BELOW)},
    [O_SLOWDOWN] = {"inject-slowdown", "F", "testing knob: each rank busy-waits F x its operation's own time inside the timed region (a known slowdown of 1+F, e.g. to check that compare detects it)", ISOCHRON_XSTR(ISOCHRON_BENCH_DEFAULT_INJECT_SLOWDOWN)},
    [O_HELP] = APP_OPT_HELP,
    [O_VERSION] = APP_OPT_VERSION,
};

static const char about[] =
    "Measures each operation at each size on a global clock: clocks are synchronized once (--sync),\n"
    "repetitions are started by the scheme, turned into run times by the method, and repeated until the\n"
    "confidence interval is within --rel-ci of its statistic (the median's, or the mean's with --ci-of mean),\n"
    "--max-reps is reached, or --budget is used.\n"
    "Statistics are over valid repetitions only; results are written as each point completes.\n";

/* --list-ops, --list-schemes, --list-methods, --list-timings, --list-barriers: 1 if one was asked (rank 0 printed it). */
static int lists(const char **v, const isochron_ops_t *ops, int rank)
{
    if (v[O_LOPS]) app_list_ops(ops, rank);
    else if (v[O_LSCH]) app_list_named(isochron_scheme_count(), isochron_scheme_get, rank);
    else if (v[O_LMET]) app_list_named(isochron_method_count(), isochron_method_get, rank);
    else if (v[O_LTIM]) app_list_named(isochron_timing_count(), isochron_timing_get, rank);
    else if (v[O_LBAR]) app_list_barriers(rank);
    else return 0;
    return 1;
}

/* Everything the command line asks, checked before anything is measured: every point must be
 * possible (datatype, sizes, memory, process count). 0, or 2 after the reason on rank 0. */
typedef struct {
    isochron_bench_opts_t bo;
    isochron_sweep_opts_t so; /* ops and sizes point into list and sizes */
    int init, provided, nprocs;
    double watchdog;
    const char *fmt;
    size_t sizes[256];
    const isochron_op_t *list[512];
} run_t;

/* How MPI was asked to start (--init), read before it started: refused after, so that one rank says it. */
typedef struct {
    const char *arg; /* --init as given, or NULL */
    char err[512];   /* why it could not be had ("": it could) */
} start_t;

#define FAIL(...) do { if (rank == 0) { fprintf(stderr, "isochron-bench: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } return 2; } while (0)

/* The names and flags of the engine: --scheme, --method, --timing, --barrier, --barrier-twice, --raw, --ci-of. */
static int parse_names(const char **v, int rank, isochron_bench_opts_t *bo)
{
    if (v[O_SCHEME]) snprintf(bo->scheme, sizeof bo->scheme, "%s", v[O_SCHEME]);
    if (v[O_METHOD]) snprintf(bo->method, sizeof bo->method, "%s", v[O_METHOD]);
    if (v[O_TIMING]) {
        if (strlen(v[O_TIMING]) >= sizeof bo->timing) FAIL("unknown timing '%s'; valid: auto, origin, global, loop, loop:K", v[O_TIMING]);
        snprintf(bo->timing, sizeof bo->timing, "%s", v[O_TIMING]);
    }
    if (v[O_BARRIER]) snprintf(bo->barrier, sizeof bo->barrier, "%s", v[O_BARRIER]);
    bo->barrier_twice = v[O_BARRIER2] != NULL;
    bo->raw = v[O_RAW] != NULL;
    return app_parse_ci_of("isochron-bench", app_value(opts, v, O_CIOF), rank, &bo->ci_mean);
}

/* The numbers of the engine and the run, one row each (the table's default where not given), then what the
 * library checks of them together. */
static int parse_numbers(const char **v, int rank, run_t *r)
{
    isochron_bench_opts_t *b = &r->bo;
    isochron_op_ctx_t *c = &r->so.ctx;
    const app_number_t nums[] = {
        {O_MAXA, APP_INT, &b->max_attempts, 0, 40000000, "expected 0 or an integer up to 40000000", NULL, 0},
        {O_SLOWDOWN, APP_REAL, &b->inject_slowdown, 0, 10, NULL, NULL, 0},
        {O_WARMUP, APP_INT, &b->warmup, 0, 1000000, NULL, NULL, 0},
        {O_VALIDATE, APP_INT, &b->validate, 0, 2, "expected 0, 1 or 2", NULL, 0},
        {O_LEVEL, APP_REAL, &b->ci_level, -INFINITY, INFINITY, NULL, NULL, 0},
        {O_WINDOW, APP_SECONDS, &b->window, -INFINITY, INFINITY, NULL, NULL, 0},
        {O_MSGWIN, APP_INT, &c->window, 1, ISOCHRON_OP_WINDOW_MAX, NULL, "messages per window of the throughput operations", 0},
        {O_THREADS, APP_INT, &c->threads, 1, ISOCHRON_OP_THREADS_MAX, NULL, "threads per rank of the threaded operations", 0},
        {O_PARTS, APP_INT, &c->partitions, 1, ISOCHRON_OP_PARTITIONS_MAX, NULL, "partitions per message of the partitioned operations", 0},
        {O_PASSES, APP_INT, &r->so.passes, 1, 1000, NULL, NULL, 0},
        {O_SLACK, APP_REAL, &b->slack, 0, 1000, "expected a multiplier of the Bcast latency in (0, 1000]", NULL, 1},
        {O_LATECAP, APP_REAL, &b->late_cap, -INFINITY, INFINITY, NULL, NULL, 0},
        {O_RETRIES, APP_INT, &b->retries, 0, ISOCHRON_MAX_RETRIES, NULL, NULL, 0},
        {O_RETRYBELOW, APP_REAL, &b->retry_below, 0, 1, "expected a valid share in [0, 1]", NULL, 0},
        {O_CACHE, APP_SIZE, &b->cache_bytes, 0, INFINITY, "expected a size such as 32M", NULL, 0},
        {O_WATCHDOG, APP_SECONDS, &r->watchdog, 0, 86400, "seconds in [0, 86400]", NULL, 0},
        {O_RESYNC, APP_SECONDS, &r->so.resync, 0, INFINITY, "non-negative seconds", NULL, 0},
    };
    if (app_engine_options("isochron-bench", v[O_MINR], v[O_MAXR], v[O_RELCI], v[O_BUDGET], rank, b)) return 2;
    if (app_parse_numbers("isochron-bench", opts, v, nums, (int)(sizeof nums / sizeof nums[0]), rank)) return 2;
    if (v[O_LATECAP] && !(b->late_cap > 0 && b->late_cap <= 10)) FAIL("roundtime late-start cap %s not in (0, 10] (x the median run time)", v[O_LATECAP]);
    if (v[O_QUANT] && app_parse_list(v[O_QUANT], b->q, ISOCHRON_STATS_MAXQ, &b->nq)) FAIL("--quantiles '%s': up to %d numbers in [0,1]", v[O_QUANT], ISOCHRON_STATS_MAXQ);
    if (isochron_bench_opts_check(b) || isochron_bench_passes_check(b, r->so.passes)) FAIL("%s", isochron_last_error());
    r->fmt = app_value(opts, v, O_FORMAT);
    if (isochron_report_format_check(r->fmt, ISOCHRON_FORMAT_TABLE | ISOCHRON_FORMAT_JSONL | ISOCHRON_FORMAT_CSV | ISOCHRON_FORMAT_NONE))
        FAIL("%s", isochron_last_error());
    return 0;
}

/* The points: datatype, reduction, root, the ranks measuring, the pairwise mode, the sizes and the operations. */
static int parse_points(const char **v, int rank, int size, const isochron_ops_t *ops, run_t *r)
{
    isochron_sweep_opts_t *so = &r->so;
    const char *rv = app_value(opts, v, O_ROOT);
    char err[512] = "";
    long lv;
    int dsz, rc;
    if (v[O_DTYPE] && isochron_op_dtype_find(v[O_DTYPE], &so->ctx.dtype, &dsz)) FAIL("--dtype: %s", isochron_last_error());
    if (isochron_op_reduce_find(app_value(opts, v, O_REDOP), &so->ctx.op)) FAIL("--op: %s", isochron_last_error());
    if (!strcmp(rv, "all")) so->all_roots = 1;
    else if (!strcmp(rv, "rotate")) r->bo.rotate_root = 1;
    else if (isochron_parse_long(rv, &lv) || lv < 0 || lv >= size) FAIL("--root '%s': expected 'rotate', 'all' or a rank in [0, %d]", rv, size - 1);
    else so->ctx.root = (int)lv;
    if (r->bo.rotate_root && isochron_bench_opts_check(&r->bo)) FAIL("%s", isochron_last_error());
    r->nprocs = size;
    if (strcmp(app_value(opts, v, O_NPROCS), "all")) {
        if (isochron_parse_long(v[O_NPROCS], &lv) || lv < 1 || lv > size) FAIL("--nprocs '%s': expected an integer in [1, %d]", v[O_NPROCS], size);
        r->nprocs = (int)lv;
        if (so->ctx.root >= r->nprocs) FAIL("--root %d is outside the sub-communicator of %d ranks", so->ctx.root, r->nprocs);
    }
    if (isochron_ops_p2p_mode_find(app_value(opts, v, O_P2PMODE), &so->p2p_mode)) FAIL("--p2p-mode: %s", isochron_last_error());
    if (app_parse_sizes(app_value(opts, v, O_SIZES), r->sizes, 256, &so->nsizes, err, sizeof err)) FAIL("--sizes: %s", err);
    so->sizes = r->sizes;
    if ((rc = isochron_sweep_select(ops, app_value(opts, v, O_OPS), r->list, 512, so)))
        FAIL("--ops: %s%s", isochron_last_error(), rc == ISOCHRON_EPARSE ? "; see --list-ops" : "");
    so->ctx.in_place = v[O_INPLACE] != NULL;
    return 0;
}

static int parse_run(const char **v, int rank, int size, const isochron_world_t *w, const start_t *st, isochron_ops_t *ops, run_t *r)
{
    memset(r, 0, sizeof *r);
    isochron_bench_opts_default(&r->bo);
    isochron_sweep_opts_default(&r->so);
    r->init = w->init;
    r->provided = w->provided;
    if (st->err[0] && st->arg && !strcmp(st->arg, "sessions")) FAIL("--init sessions: %s; use --init world", st->err);
    if (st->err[0]) FAIL("--init: %s", st->err);
    if (w->init == ISOCHRON_INIT_SESSIONS && v[O_TIMER] && !strcmp(v[O_TIMER], "mpi_wtime"))
        FAIL("--timer mpi_wtime: MPI_Wtime belongs to the world model (defined after MPI_Init); with --init sessions use monotonic (the default there), "
             "monotonic_raw, realtime or tsc");
    if (parse_names(v, rank, &r->bo) || parse_numbers(v, rank, r) || parse_points(v, rank, size, ops, r)) return 2;
    /* every point must be possible before anything runs (the library's check: datatype, sizes, memory, process count) */
    if (r->provided != MPI_THREAD_MULTIPLE && w->init == ISOCHRON_INIT_WORLD) MPI_Query_thread(&r->provided);
    r->so.ctx.thread_level = w->init == ISOCHRON_INIT_SESSIONS ? r->provided : 0; /* MPI_Query_thread is the world model's */
    if (isochron_sweep_check(&r->so, &r->bo, w->comm, r->nprocs, r->provided)) FAIL("%s", isochron_last_error());
    return 0;
}
#undef FAIL

/* The context record (rank 0): the run, the clock, the scheme and every option (src/report/bench_records.c). */
static void write_context(isochron_reporter_t **reps, const run_t *r, const char *ctxbuf, const char *bind, int self_bound, double late_cap,
                          const app_clock_t *ck, int over, int nodes)
{
    isochron_bench_run_t br = {app_run_head("isochron-bench", ctxbuf, ck, r->nprocs, nodes, over),
                               &r->bo, late_cap, bind, self_bound, r->so.ctx.window, r->so.ctx.threads, r->so.ctx.partitions,
                               r->provided == MPI_THREAD_MULTIPLE, r->so.passes, r->init};
    for (int i = 0; i < 3; i++)
        if (reps[i]) isochron_report_bench_context(reps[i], &br);
}

/* MPI started as the command line asks: --init (the library says whether sessions exist) and, when --ops names a
 * threaded operation (latency_mt), MPI_THREAD_MULTIPLE (a library initialised for it may take locks on every call,
 * which would tax every other measurement). Read from argv with the option table, silently: a bad value is
 * refused after MPI started the world way, so that one rank says it once. 0, or 2. */
static int start_mpi(int *argc, char ***argv, isochron_world_t *w, start_t *st)
{
    const char *pre[NOPT];
    app_parse(*argc, *argv, opts, NOPT, pre, -1);
    int init = ISOCHRON_INIT_WORLD, want_mt = pre[O_OPS] && isochron_sweep_thread_level(pre[O_OPS]) == MPI_THREAD_MULTIPLE;
    st->arg = pre[O_INIT];
    st->err[0] = '\0';
    if (st->arg && (isochron_init_find(st->arg, &init) || (init == ISOCHRON_INIT_SESSIONS && isochron_sessions_available()))) {
        snprintf(st->err, sizeof st->err, "%s", isochron_last_error());
        init = ISOCHRON_INIT_WORLD;
    }
    if (isochron_world_init(init, argc, argv, want_mt ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, w)) {
        if (app_launch_rank() <= 0) fprintf(stderr, "isochron-bench: starting MPI (--init %s): %s\n", isochron_init_name(init), isochron_last_error());
        return 2;
    }
    return 0;
}

/* The options of the clocks and the process, and the output files (rank 0), checked before anything runs. 0, or 2. */
static int prepare(const char **v, int rank, MPI_Comm world, int *self_bound, int *track, app_outputs_t *out)
{
    int code;
    if ((code = app_clock_options("isochron-bench", v[O_SYNC], v[O_SKEW], v[O_NODESZ], rank))) return code;
    if ((code = app_parse_sync_limit("isochron-bench", v[O_SYNCLIM], rank))) return code;
    if ((code = app_bind("isochron-bench", v[O_BIND], world, rank, self_bound))) return code;
    if ((code = app_parse_track("isochron-bench", v[O_TRACK], rank, track))) return code;
    return app_outputs_open(out, "isochron-bench", v[O_JSONL], v[O_CSV], rank, world);
}

/* The reporters of rank 0 (app_outputs_reporters), the table's name column as wide as the longest operation. */
static void open_reporters(int rank, const run_t *run, app_outputs_t *out)
{
    app_outputs_reporters(out, run->fmt, rank);
    int namew = 0;
    for (int i = 0; i < run->so.nops; i++) if ((int)strlen(run->list[i]->name) > namew) namew = (int)strlen(run->list[i]->name);
    if (rank == 0) isochron_reporter_name_width(out->rep[0], namew);
}

/* --startup: every option was checked as for a sweep; start-up is measured and reported, nothing else runs. */
static int startup_only(const isochron_world_t *w, int rank, const run_t *run, app_outputs_t *out)
{
    isochron_startup_t su;
    int code = isochron_startup_summarize(w, &su) ? 1 : 0;
    if (rank == 0) {
        if (code) fprintf(stderr, "isochron-bench: --startup: %s\n", isochron_last_error());
        else app_outputs_reporters(out, run->fmt, rank);
        for (int i = 0; i < 3; i++) if (out->rep[i]) isochron_report_startup(out->rep[i], "isochron-bench", &su);
        code |= app_outputs_close(out);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, w->comm);
    return code;
}

/* The clocks (app_clock_setup) and the sweep over them. 0, or 2 after the reason on rank 0. */
static int make_sweep(const char **v, const isochron_world_t *w, int rank, int track, int quiet, run_t *run, app_clock_t *ck, isochron_sweep_t **sw)
{
    int size, code;
    MPI_Comm_size(w->comm, &size);
    run->bo.track = track;
    /* MPI_Wtime belongs to the world model (defined after MPI_Init): under sessions the base timer is CLOCK_MONOTONIC */
    const char *timer = v[O_TIMER] ? v[O_TIMER] : w->init == ISOCHRON_INIT_SESSIONS ? "monotonic" : NULL;
    if ((code = app_clock_setup("isochron-bench", v[O_SYNC], timer, v[O_SKEW], track && run->nprocs == size, w->comm, quiet, ck))) return code;
    isochron_sweep_clock_t sc = {&ck->spec, ck->base, ck->global, ck->track, track};
    if (!isochron_sweep_create(w->comm, run->nprocs, &run->so, &run->bo, &sc, sw)) return 0;
    if (rank == 0) fprintf(stderr, "isochron-bench: %s\n", isochron_last_error());
    app_clock_free(ck);
    return 2;
}

int main(int argc, char **argv)
{
    isochron_world_t w;
    start_t st;
    const char *v[NOPT];
    if (start_mpi(&argc, &argv, &w, &st)) return 2;
    int rank, size, code = 0, self_bound = 0, track = 1;
    MPI_Comm_rank(w.comm, &rank);
    MPI_Comm_size(w.comm, &size);
    isochron_ops_t *ops = NULL;
    app_outputs_t out;
    run_t run;
    if ((code = app_preamble("isochron-bench", argc, argv, opts, NOPT, v, rank, about)) != 0) { code = code == 1 ? 0 : code; goto done; }
    if (isochron_ops_create(&ops)) { if (rank == 0) fprintf(stderr, "isochron-bench: %s\n", isochron_last_error()); code = 2; goto done; }
    if (lists(v, ops, rank)) goto done;
    if ((code = parse_run(v, rank, size, &w, &st, ops, &run))) goto done;
    if ((code = prepare(v, rank, w.comm, &self_bound, &track, &out))) goto done;
    if (v[O_STARTUP]) { code = startup_only(&w, rank, &run, &out); goto done; }
    app_interrupt_install(out.jf, rank, "points");
    app_sweep_notes("isochron-bench", &run.so, run.nprocs, rank);
    double wall0 = isochron_truth_now();
    app_clock_t ck;
    isochron_sweep_t *sw = NULL;
    if ((code = make_sweep(v, &w, rank, track, v[O_QUIET] != NULL, &run, &ck, &sw))) { if (rank == 0) app_outputs_close(&out); goto done; }
    open_reporters(rank, &run, &out);
    isochron_bench_t *bench = isochron_sweep_bench(sw);
    char *ctxbuf = app_context_json(w.comm, argc, argv); /* collective */
    if (rank == 0) write_context(out.rep, &run, ctxbuf, app_value(opts, v, O_BIND), self_bound, bench ? isochron_bench_late_cap(bench) : run.bo.late_cap, &ck,
                                 isochron_sweep_oversubscribed(sw), ck.rep.nodes);
    /* ---- the sweep (the library's: order, passes, resync, skipped points), written as it goes */
    app_sweep_sink_t sink = {"isochron-bench", out.rep, &run.bo, rank, v[O_QUIET] != NULL, run.watchdog, wall0, v[O_JSONL]};
    code = app_sweep_run(&sink, sw, &ck.global, &ck.track); /* a resync replaced them */
    free(ctxbuf);
    isochron_sweep_destroy(sw);
    app_clock_free(&ck);
    if (rank == 0 && app_outputs_close(&out)) code = 1;
    MPI_Bcast(&code, 1, MPI_INT, 0, w.comm);
done:
    isochron_ops_destroy(ops);
    isochron_world_finalize(&w);
    return code;
}
