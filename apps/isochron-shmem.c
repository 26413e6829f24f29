/*
 * isochron-shmem: the SKaMPI-OpenSHMEM measurement set (paper 002, Coti &
 * Malony) on isochron's global clock. A hybrid program (MPI_Init, then
 * shmem_init; rank = PE): the clocks are synchronized with any sync spec
 * whose timestamp ping-pongs run over OpenSHMEM (put + wait, --transport
 * shmem, the default) or MPI, tracked while measuring, checked right after
 * (Alg. 6 of paper 000, in the context); then every measurement x size is
 * repeated until its confidence interval is tight, each point written as soon
 * as it is done. Thin by design: the option table and the output here; the
 * selection, the checks and the sweep in libisochron_shmem (plan.c, sweep.c),
 * every record written by src/report (shmem_records.c).
 *
 * Run it as users do: directly, under mpirun or oshrun, with no environment
 * of their own. --help, --version, --list-* and malformed command lines are
 * answered before the OpenSHMEM library starts. Open MPI's oshmem crashes in
 * shmem_finalize (signal 11) while its memory patcher is on; the patcher's
 * MCA parameter is read when MPI_Init opens the memory framework, so setting
 * OMPI_MCA_memory=^patcher in the environment before MPI_Init turns it off
 * for this process (verified with oshmem 4.1.4: direct, mpirun, oshrun). A
 * value the user set is kept, with a note when it leaves the patcher on.
 * Exit status (docs/shmem.md): 0, 1 a measurement failed, 2 usage, 3
 * watchdog, 4 the library delivered wrong data (each such call named on
 * stderr, its points recorded with "library_defect"), 128+N a signal.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shmem.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "isochron/bench.h"
#include "isochron/report.h"
#include "isochron/shmem.h"
#include "common.h"

#define PROG "isochron-shmem"

enum { O_OPS, O_SIZES, O_LOOP, O_ITERS, O_MSGWIN, O_MINR, O_MAXR, O_RELCI, O_CIOF, O_BUDGET, O_NOVAL, O_SYNC, O_NODESZ, O_TIMER, O_SKEW, O_TRACK, O_XPORT,
       O_CHECK, O_FORMAT, O_JSONL, O_CSV, O_WATCHDOG, O_SYNCLIM, O_QUIET, O_LOPS, O_LLOOP, O_HELP, O_VERSION, NOPT };

static const app_option_t opts[NOPT] = {
    [O_OPS] = {"ops", "LIST", "measurements (comma-separated names or families: rma, nbi, atomic, lock, order, memory, coll, bcast_method, loop, tput, strided, ctx, active; 'default': all but the measurements added since the first release, marked + in --list-ops; 'added': those; 'all'); see --list-ops", "default"},
    [O_SIZES] = {"sizes", "LIST", "message sizes: 8,1K,64K or ranges A..B (x2 steps) or A..B*F; K/M/G = 2^10/2^20/2^30 (measurements without a size run once)", "8,4K,1M"},
    [O_LOOP] = {"loop", "NAME", "loop timing: outside (one timer around the loop, parts by subtraction: Alg. 6/9) or inside (timers around each part: Alg. 7/8); see --list-loops", ISOCHRON_SHMEM_DEFAULT_LOOP},
    [O_ITERS] = {"iters", "N", "operations per repetition (0: 100, fewer from 64 KiB on, and for the overlap measurements where a repetition would take over a sixth of --budget; throughput: windows, by the window's bytes)", ISOCHRON_XSTR(ISOCHRON_SHMEM_DEFAULT_ITERS)},
    [O_MSGWIN] = {"msg-window", "W", "throughput measurements (family tput): messages per window and origin (osu_bw's 64, as isochron-bench)", ISOCHRON_XSTR(ISOCHRON_SHMEM_WINDOW_DEFAULT)},
    [O_MINR] = APP_OPT_MIN_REPS(ISOCHRON_XSTR(ISOCHRON_SHMEM_DEFAULT_MIN_REPS)),
    [O_MAXR] = APP_OPT_MAX_REPS(ISOCHRON_XSTR(ISOCHRON_SHMEM_DEFAULT_MAX_REPS)),
    [O_RELCI] = APP_OPT_REL_CI(ISOCHRON_XSTR(ISOCHRON_SHMEM_DEFAULT_REL_CI)),
    [O_CIOF] = APP_OPT_CI_OF,
    [O_BUDGET] = {"budget", "SECONDS", "time per point, in [0, 86400]", ISOCHRON_XSTR(ISOCHRON_SHMEM_DEFAULT_BUDGET)},
    [O_NOVAL] = {"no-validate", NULL, "do not check the data after each repetition", NULL},
    APP_OPTS_CLOCK(O_SYNC, O_NODESZ, O_TIMER, O_SKEW, O_TRACK),
    [O_XPORT] = {"transport", "NAME", "transport of the clock's timestamp exchanges: shmem (put + wait on the symmetric heap) or mpi", "shmem"},
    [O_CHECK] = {"check", "WAITS", "after the sync, run the accuracy check (Alg. 6 + ground truth) at these waits (e.g. 0,0.5,1; ascending, each <= 3600 s) and report it", NULL},
    [O_FORMAT] = {"format", "FMT", "stdout: table, jsonl, csv or none", "table"},
    [O_JSONL] = {"jsonl", "FILE", "also write JSON Lines to FILE", NULL},
    [O_CSV] = {"csv", "FILE", "also write CSV to FILE", NULL},
    [O_WATCHDOG] = {"watchdog", "SECONDS", "abort a point, or the accuracy check, that runs longer than this, naming it (0: off; the check's default: 120 s or its last wait x 1.5 + 60 s)", "120"},
    [O_SYNCLIM] = APP_OPT_SYNC_LIMIT,
    [O_QUIET] = APP_OPT_QUIET,
    [O_LOPS] = {"list-ops", NULL, "list the measurements and exit", NULL},
    [O_LLOOP] = {"list-loops", NULL, "list the loop timings and exit", NULL},
    [O_HELP] = APP_OPT_HELP,
    [O_VERSION] = APP_OPT_VERSION,
};

/* Exit statuses (documented in --help and docs/shmem.md) */
enum { EXIT_FAILED = APP_EXIT_FAILED, EXIT_USAGE = APP_EXIT_USAGE, EXIT_DEFECT = APP_EXIT_DEFECT };

static void print_info(const char *const *v)
{
    if (v[O_HELP]) {
        app_help(stdout, PROG, "[options]   (directly for one PE, or under oshrun / mpirun)", opts, NOPT);
        printf("\nMeasures OpenSHMEM routines as SKaMPI-OpenSHMEM does (paper 002): each repetition runs --iters\n"
               "operations timed per --loop; repetitions continue until the CI of --ci-of (median) is within --rel-ci. Times are\n"
               "per operation; pair measurements are PE 0 -> PE 1, collective ones the largest over PEs.\n"
               "Every repetition's data is checked; where the library delivered wrong data, the point is recorded\n"
               "without a time and with \"library_defect\", and the call is named on stderr (see docs/shmem.md).\n"
               "Open MPI: oshmem's shmem_finalize crashes while its memory patcher is on; isochron-shmem sets\n"
               "OMPI_MCA_memory=^patcher for itself unless OMPI_MCA_memory is already set.\n");
        app_help_exit(stdout, 1);
    } else if (v[O_VERSION]) printf("isochron-shmem %s\n", ISOCHRON_VERSION_STRING);
    else if (v[O_LOPS])
        for (int i = 0; i < isochron_shmem_op_count(); i++) {
            const isochron_shmem_op_t *op = isochron_shmem_op_get(i);
            printf("%-20s %-13s %s%s\n", op->name, op->family, (op->flags & ISOCHRON_SHMEM_EXTRA) ? "+ " : "", op->description);
        }
    else
        printf("outside   one timer around the loop; a part of an iteration = loop minus the other part measured first (Alg. 6, 9); default\n"
               "inside    a timer around each iteration or timed part (Alg. 7, 8)\n"
               "(the four variants side by side: --ops loop)\n");
}

/* Open MPI's oshmem: turn the memory patcher off before MPI_Init reads the MCA parameters (see the
 * top of this file); *how receives the context's account of it. Other OpenSHMEMs: nothing to do. */
static void memory_patcher_off(const char *prog, int rank, char *how, size_t len)
{
#ifdef OSHMEM_MAJOR_VERSION
    const char *m = getenv("OMPI_MCA_memory");
    if (!m) {
        setenv("OMPI_MCA_memory", "^patcher", 1);
        snprintf(how, len, "off (OMPI_MCA_memory=^patcher set by isochron-shmem)");
    } else if (strstr(m, "patcher") && m[0] != '^') {
        snprintf(how, len, "on (OMPI_MCA_memory=%.60s set by the user)", m);
        if (rank == 0)
            fprintf(stderr, "%s: note: OMPI_MCA_memory=%s keeps Open MPI's memory patcher on; with it oshmem's shmem_finalize crashes "
                            "(signal 11) at the end of the run, after every result is written. Unset it, or set OMPI_MCA_memory=^patcher.\n", prog, m);
    } else
        snprintf(how, len, "%s (OMPI_MCA_memory=%.60s set by the user)", m[0] == '^' && strstr(m, "patcher") ? "off" : "default", m);
#else
    (void)prog; (void)rank;
    snprintf(how, len, "n/a (not Open MPI's oshmem)");
#endif
}

static int finish(int started, int code)
{
    if (!started) return code;
    shmem_finalize(); /* Open MPI's finalizes MPI too */
    int f = 0;
    MPI_Finalized(&f);
    if (!f) MPI_Finalize();
    return code;
}

/* One line per library call that delivered wrong data: what it did and which measurements saw it. */
typedef struct {
    isochron_shmem_defect_t d; /* the first observation */
    char ops[512];
    int points;
} defect_sum_t;
#define MAX_DEFECTS 64

static void defect_add(defect_sum_t *sum, int *n, const isochron_shmem_defect_t *d, const char *op)
{
    int k = 0;
    while (k < *n && !(strcmp(sum[k].d.call, d->call) == 0 && strcmp(sum[k].d.what, d->what) == 0)) k++;
    if (k == *n) {
        if (*n >= MAX_DEFECTS) return;
        memset(&sum[k], 0, sizeof sum[k]);
        sum[k].d = *d;
        (*n)++;
    }
    sum[k].points++;
    char hay[520], needle[132];
    snprintf(hay, sizeof hay, ", %s,", sum[k].ops);
    snprintf(needle, sizeof needle, ", %s,", op);
    if (strstr(hay, needle)) return; /* listed already (the same measurement at another size) */
    size_t u = strlen(sum[k].ops);
    snprintf(sum[k].ops + u, sizeof sum[k].ops - u, "%s%s", u ? ", " : "", op);
}

/* Everything the command line asks, checked before the OpenSHMEM library starts. */
typedef struct {
    isochron_shmem_opts_t so;
    double watchdog, check_watchdog, cwaits[16];
    int ncw, use_shmem_xport, nops, nsizes;
    const char *fmt;
    size_t sizes[256];
    const isochron_shmem_op_t *list[256];
} run_t;

#define FAIL(...) do { if (rank == 0) { fprintf(stderr, "isochron-shmem: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } return EXIT_USAGE; } while (0)

/* The engine's options, one meaning in every driver (app_engine_options; isochron_bench_ci_met is the stop rule). */
static int parse_engine(const char **v, int rank, isochron_shmem_opts_t *so)
{
    isochron_bench_opts_t bo;
    isochron_bench_opts_default(&bo);
    bo.min_reps = so->min_reps; bo.max_reps = so->max_reps; bo.rel_ci = so->rel_ci; bo.budget = so->budget;
    if (app_engine_options(PROG, v[O_MINR], v[O_MAXR], v[O_RELCI], v[O_BUDGET], rank, &bo)) return EXIT_USAGE;
    if (!v[O_MINR] && bo.max_reps < bo.min_reps) bo.min_reps = bo.max_reps; /* --max-reps alone lowers the default minimum */
    if (bo.max_reps < bo.min_reps) FAIL("--max-reps %d is below --min-reps %d", bo.max_reps, bo.min_reps);
    if (!(bo.rel_ci >= 0 && bo.rel_ci < 1)) FAIL("--rel-ci '%s': expected a number in [0, 1) (0: always --max-reps)", v[O_RELCI]);
    if (!(bo.budget >= 0 && bo.budget <= 86400)) FAIL("--budget '%s': expected seconds in [0, 86400]", v[O_BUDGET]);
    so->min_reps = bo.min_reps; so->max_reps = bo.max_reps; so->rel_ci = bo.rel_ci; so->budget = bo.budget;
    if (app_parse_ci_of(PROG, app_value(opts, v, O_CIOF), rank, &so->ci_mean)) return EXIT_USAGE;
    so->validate = v[O_NOVAL] == NULL;
    if (v[O_LOOP] && isochron_shmem_loop_find(v[O_LOOP], &so->loop)) FAIL("--loop: %s", isochron_last_error());
    return 0;
}

/* --check WAITS, and the watchdog of the accuracy check: --watchdog when given, else long enough for the last wait. */
static int parse_check(const char **v, int rank, run_t *r)
{
    if (v[O_CHECK] && (app_parse_list(v[O_CHECK], r->cwaits, 16, &r->ncw) || r->ncw < 1)) FAIL("--check '%s': up to 16 ascending wait times in seconds, e.g. 0,0.5,1", v[O_CHECK]);
    for (int i = 0; i < r->ncw; i++) /* as isochron-clock's --wait */
        if (!(r->cwaits[i] >= 0 && r->cwaits[i] <= 3600) || (i && r->cwaits[i] < r->cwaits[i - 1]))
            FAIL("--check '%s': wait times must be ascending and within [0, 3600] s (got %g)", v[O_CHECK], r->cwaits[i]);
    double last = r->ncw ? r->cwaits[r->ncw - 1] : 0;
    r->check_watchdog = r->ncw ? fmax(r->watchdog, 1.5 * last + 60) : r->watchdog;
    if (v[O_WATCHDOG] && r->watchdog > 0 && r->ncw && last >= r->watchdog)
        FAIL("--check '%s': the wait of %g s would outlast --watchdog %g s, which would end the check; raise --watchdog (0: off)", v[O_CHECK], last, r->watchdog);
    if (v[O_WATCHDOG]) r->check_watchdog = r->watchdog;
    return 0;
}

static int parse_run(const char **v, int rank, run_t *r)
{
    memset(r, 0, sizeof *r);
    isochron_shmem_opts_default(&r->so);
    const app_number_t nums[] = {
        {O_ITERS, APP_INT, &r->so.iters, 0, 100000000, NULL, NULL, 0},
        {O_MSGWIN, APP_INT, &r->so.window, 1, ISOCHRON_SHMEM_WINDOW_MAX, NULL, "messages per window of the throughput measurements", 0},
        {O_WATCHDOG, APP_SECONDS, &r->watchdog, 0, 86400, "expected seconds in [0, 86400]", "0: off", 0},
    };
    char err[512] = "";
    int code, rc;
    if ((code = parse_engine(v, rank, &r->so))) return code;
    if (app_parse_numbers(PROG, opts, v, nums, (int)(sizeof nums / sizeof nums[0]), rank)) return EXIT_USAGE;
    r->fmt = app_value(opts, v, O_FORMAT);
    if (isochron_report_format_check(r->fmt, ISOCHRON_FORMAT_TABLE | ISOCHRON_FORMAT_JSONL | ISOCHRON_FORMAT_CSV | ISOCHRON_FORMAT_NONE))
        FAIL("%s", isochron_last_error());
    r->use_shmem_xport = !v[O_XPORT] || !strcmp(v[O_XPORT], "shmem");
    if (v[O_XPORT] && strcmp(v[O_XPORT], "shmem") && strcmp(v[O_XPORT], "mpi")) FAIL("unknown --transport '%s'; valid: shmem, mpi", v[O_XPORT]);
    if ((code = parse_check(v, rank, r))) return code;
    if (app_parse_sizes(app_value(opts, v, O_SIZES), r->sizes, 256, &r->nsizes, err, sizeof err)) FAIL("--sizes: %s", err);
    if ((rc = isochron_shmem_select(app_value(opts, v, O_OPS), r->list, 256, &r->nops)))
        FAIL("--ops: %s%s", isochron_last_error(), rc == ISOCHRON_EPARSE ? "; see --list-ops" : "");
    if (isochron_shmem_check_sizes(r->list, r->nops, r->sizes, r->nsizes)) FAIL("%s", isochron_last_error());
    if ((code = app_clock_options(PROG, v[O_SYNC], v[O_SKEW], v[O_NODESZ], rank))) return code;
    return app_parse_sync_limit(PROG, v[O_SYNCLIM], rank);
}

/* MPI, then OpenSHMEM, with one PE per rank numbered alike, and every point possible (PEs, symmetric heap). */
static int start_library(int *argc, char ***argv, const run_t *r, int *rank, int *size, char *patcher, size_t len)
{
    memory_patcher_off(PROG, *rank, patcher, len);
    MPI_Init(argc, argv);
    shmem_init();
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    int same = shmem_my_pe() == *rank && shmem_n_pes() == *size;
    MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!same) {
        if (*rank == 0) fprintf(stderr, "isochron-shmem: MPI ranks and OpenSHMEM PEs differ (%d ranks, %d PEs); isochron-shmem needs one PE per rank, numbered alike\n", *size, shmem_n_pes());
        return EXIT_USAGE;
    }
    if (!isochron_shmem_check_points(r->list, r->nops, r->sizes, r->nsizes, r->so.window)) return 0;
    if (*rank == 0) fprintf(stderr, "isochron-shmem: %s\n", isochron_last_error());
    return EXIT_USAGE;
}

/* The clock over the chosen transport (*xp: NULL for MPI), then --check: its summary per wait into checks (rank 0). */
static int clock_and_check(const char **v, const run_t *r, int rank, int size, int track, isochron_xport_t **xp, app_clock_t *ck, isochron_shmem_check_t *checks)
{
    int quiet = v[O_QUIET] != NULL, truth = 0;
    *xp = NULL;
    if (r->use_shmem_xport && isochron_shmem_xport_create(60, xp)) {
        if (rank == 0) fprintf(stderr, "isochron-shmem: OpenSHMEM transport: %s\n", isochron_last_error());
        return EXIT_USAGE;
    }
    app_clock_transport(*xp);
    app_watchdog_arm(PROG, r->watchdog, rank, "clock synchronization", v[O_JSONL]);
    int code = app_clock_setup(PROG, v[O_SYNC], v[O_TIMER], v[O_SKEW], track, MPI_COMM_WORLD, quiet, ck);
    app_watchdog_disarm();
    if (code || !r->ncw) return code;
    isochron_accuracy_t *acc = rank == 0 ? calloc((size_t)size * r->ncw, sizeof *acc) : NULL;
    app_watchdog_arm(PROG, r->check_watchdog, rank, "accuracy check", v[O_JSONL]);
    int rc = isochron_sync_check_xport(MPI_COMM_WORLD, ck->global, ck->track, *xp, r->cwaits, r->ncw, 50, acc, &truth);
    app_watchdog_disarm();
    for (int w = 0; w < r->ncw && rank == 0 && !rc; w++) {
        checks[w] = isochron_report_shmem_check_summary(acc, size, r->ncw, w, truth, ck->track != NULL);
        char tr[48] = "n/a (ranks on several hosts)";
        if (truth) snprintf(tr, sizeof tr, "%.3f us", checks[w].max_true * 1e6);
        if (!quiet) fprintf(stderr, "isochron-shmem: check at +%.2f s over %s: max |measured offset| %.3f us, max |true offset| %s\n", r->cwaits[w],
                            *xp ? "shmem" : "mpi", checks[w].max_measured * 1e6, tr);
    }
    free(acc);
    if (!rc) return 0;
    if (rank == 0) fprintf(stderr, "isochron-shmem: accuracy check: %s\n", isochron_last_error());
    app_clock_free(ck);
    return EXIT_USAGE;
}

/* The context record (src/report/shmem_records.c), rank 0. */
static void write_context(isochron_reporter_t **reps, const run_t *r, const char *ctxbuf, const app_clock_t *ck, int size, const isochron_shmem_check_t *checks,
                          const char *patcher, const isochron_xport_t *xp)
{
    const isochron_shmem_opts_t *o = &r->so;
    char libname[128];
#ifdef OSHMEM_MAJOR_VERSION
    snprintf(libname, sizeof libname, "OpenSHMEM %d.%d (Open MPI oshmem %d.%d.%d)", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, OSHMEM_MAJOR_VERSION,
             OSHMEM_MINOR_VERSION, OSHMEM_RELEASE_VERSION);
#else
    snprintf(libname, sizeof libname, "OpenSHMEM %d.%d (vendor)", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
#endif
    isochron_shmem_run_t sr = {app_run_head("isochron-shmem", ctxbuf, ck, size, ck->rep.nodes, ck->rep.oversubscribed),
                               r->ncw, checks, libname, patcher, isochron_shmem_loop_name(o->loop), o->min_reps, o->max_reps, o->rel_ci,
                               o->ci_level, o->budget, o->iters, o->window > 0 ? o->window : ISOCHRON_SHMEM_WINDOW_DEFAULT, o->validate,
                               xp ? "shmem" : "mpi", o->ci_mean};
    for (int i = 0; i < 3; i++) if (reps[i]) isochron_report_shmem_context(reps[i], &sr);
}

/* What the sweep (isochron_shmem_sweep_run) hands back: written on rank 0, progress on stderr, the watchdog around each point. */
typedef struct {
    isochron_reporter_t **reps;
    int rank, quiet, written, ndef;
    double watchdog, wall0;
    const char *out;
    defect_sum_t defects[MAX_DEFECTS];
} sink_t;
static void on_begin(void *a, const char *what)
{
    const sink_t *k = a;
    app_watchdog_arm(PROG, k->watchdog, k->rank, what, k->out);
}
static void on_end(void *a) { (void)a; app_watchdog_disarm(); }
static void on_failed(void *a, const char *what, const char *why)
{
    const sink_t *k = a;
    if (k->rank == 0) fprintf(stderr, "isochron-shmem: %s failed: %s\n", what, why);
}
static void progress(const sink_t *k, const isochron_shmem_step_t *st)
{
    const isochron_point_t *pt = st->point;
    double el = isochron_truth_now() - k->wall0, eta = el / (st->index + 1) * (st->total - st->index - 1);
    char tb[32], rb[40];
    /* never a negative time (issue 26): a mean below the resolution is shown as the table shows it */
    if (isochron_point_below_resolution(pt) && !(pt->s.mean >= pt->resolution))
        snprintf(rb, sizeof rb, "<= %s", isochron_fmt_time(pt->resolution, tb, sizeof tb));
    else
        isochron_fmt_time(pt->s.mean, rb, sizeof rb);
    fprintf(stderr, "[%d/%d] %s %zu B: mean %s, %d reps (ETA %.0f s)\n", st->index + 1, st->total, pt->op, pt->bytes, rb, pt->valid, eta);
}
static void on_point(void *a, const isochron_shmem_step_t *st)
{
    sink_t *k = a;
    if (k->rank != 0) return;
    const isochron_point_t *pt = st->point;
    const char *meth = st->method;
    if (st->defect) { /* wrong data from the library: a point without a time, saying what the library did */
        const isochron_shmem_defect_t defect = *st->defect;
        fprintf(stderr, "isochron-shmem: %s: validation failed, no result: %s\n", st->what, isochron_last_error());
        char sentence[256], text[960];
        isochron_shmem_defect_sentence(&defect, sentence, sizeof sentence);
        snprintf(text, sizeof text, "%s: %s", sentence, defect.detail);
        for (int r = 0; r < 3; r++) if (k->reps[r]) isochron_report_shmem_point(k->reps[r], pt, meth, text);
        defect_add(k->defects, &k->ndef, &defect, st->op->name);
        app_interrupt_count(++k->written);
        return;
    }
    for (int r = 0; r < 3; r++) if (k->reps[r]) isochron_report_shmem_point(k->reps[r], pt, meth, NULL);
    app_interrupt_count(++k->written);
    if (!k->quiet) progress(k, st);
}

/* After the sweep (rank 0): one line per library call that delivered wrong data, then what the exit status says. */
static void report_defects(const sink_t *k, int nbad, int failed)
{
    for (int i = 0; i < k->ndef; i++) {
        char sentence[256];
        fprintf(stderr, "isochron-shmem: library defect: %s (%s; %s)\n", isochron_shmem_defect_sentence(&k->defects[i].d, sentence, sizeof sentence),
                k->defects[i].ops, k->defects[i].d.detail);
    }
    int noprog = 0; /* a call that did not progress (test, lock_roundrobin across nodes) delivered no wrong data */
    for (int i = 0; i < k->ndef; i++) noprog |= strstr(k->defects[i].d.what, "did not progress") != NULL;
    fprintf(stderr, "isochron-shmem: the library delivered wrong data%s in %d point(s), recorded without a time and with \"library_defect\"; "
                    "exit status %d\n", noprog ? " or did not progress communication" : "", nbad, failed ? EXIT_FAILED : EXIT_DEFECT);
}

/* The measurements, written as they complete; the exit status (0, EXIT_FAILED, EXIT_DEFECT). */
static int run_sweep(const char **v, const run_t *r, int rank, const app_clock_t *ck, isochron_reporter_t **reps, double wall0)
{
    sink_t k;
    memset(&k, 0, sizeof k);
    k.reps = reps, k.rank = rank, k.quiet = v[O_QUIET] != NULL, k.watchdog = r->watchdog, k.wall0 = wall0, k.out = v[O_JSONL];
    isochron_shmem_sweep_t sw = {r->list, r->nops, r->sizes, r->nsizes, &r->so, v[O_LOOP] != NULL, ck->global, ck->track};
    isochron_shmem_sweep_cb_t cb = {on_begin, on_end, on_point, on_failed, &k};
    int done = 0, nbad = 0, failed = isochron_shmem_sweep_run(&sw, &cb, &done, &nbad) != 0;
    if (rank == 0)
        for (int i = 0; i < 3; i++) if (reps[i]) isochron_report_end(reps[i], isochron_truth_now() - wall0, k.written, !failed);
    if (rank == 0 && nbad) report_defects(&k, nbad, failed);
    return failed ? EXIT_FAILED : nbad ? EXIT_DEFECT : 0;
}

int main(int argc, char **argv)
{
    const char *v[NOPT];
    int launched = app_launch_rank(), rank = launched > 0 ? launched : 0, size = 1, code = 0, started = 0, track = 1;
    run_t r;
    /* ---- the command line, checked before the OpenSHMEM library starts: --help, --version, --list-*
     * and bad input never start it (rank: the launcher's, so one process speaks) */
    if ((code = app_parse(argc, argv, opts, NOPT, v, rank))) goto done;
    if (v[O_HELP] || v[O_VERSION] || v[O_LOPS] || v[O_LLOOP]) {
        if (rank == 0) print_info(v);
        return 0;
    }
    if ((code = parse_run(v, rank, &r)) || (code = app_parse_track(PROG, v[O_TRACK], rank, &track))) goto done;
    char patcher[128];
    started = 1;
    if ((code = start_library(&argc, &argv, &r, &rank, &size, patcher, sizeof patcher))) goto done;
    app_outputs_t out;
    if ((code = app_outputs_open(&out, PROG, v[O_JSONL], v[O_CSV], rank, MPI_COMM_WORLD))) goto done;
    app_interrupt_install(out.jf, rank, "points");
    double wall0 = isochron_truth_now();
    isochron_xport_t *xp = NULL;
    app_clock_t ck;
    isochron_shmem_check_t checks[16]; /* the check's waits over the ranks, for the context record */
    if ((code = clock_and_check(v, &r, rank, size, track, &xp, &ck, checks))) { isochron_shmem_xport_destroy(xp); goto done; }
    app_outputs_reporters(&out, r.fmt, rank);
    char *ctxbuf = app_context_json(MPI_COMM_WORLD, argc, argv);
    if (rank == 0) write_context(out.rep, &r, ctxbuf, &ck, size, checks, patcher, xp);
    code = run_sweep(v, &r, rank, &ck, out.rep, wall0);
    free(ctxbuf);
    app_clock_free(&ck);
    isochron_shmem_xport_destroy(xp);
    if (rank == 0 && app_outputs_close(&out) && !code) code = EXIT_FAILED;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
done:
    if (!started && code && launched >= 0) {
        /* refused before the library started, under a launcher: the job's processes meet once before
         * leaving, or the launcher ends the job at the first nonzero exit, before rank 0's message is out */
        char how[128];
        memory_patcher_off(PROG, 1, how, sizeof how);
        MPI_Init(&argc, &argv);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
    }
    return finish(started, code);
}
