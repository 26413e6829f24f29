/*
 * isochron-shmem: the SKaMPI-OpenSHMEM measurement set (paper 002, Coti &
 * Malony) on isochron's global clock. A hybrid program (MPI_Init, then
 * shmem_init; rank = PE): the clocks are synchronized with any sync spec
 * whose timestamp ping-pongs run over OpenSHMEM (put + wait, --transport
 * shmem, the default) or MPI, tracked while measuring, checked right after
 * (Alg. 6 of paper 000, in the context); then every measurement x size is
 * repeated until its confidence interval is tight, each point written as soon
 * as it is done. Thin by design: parsing and orchestration here, measuring in
 * libisochron_shmem, every record written by src/report (shmem_records.c).
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

static const char *const families[] = {"rma", "nbi", "atomic", "lock", "order", "memory", "coll", "bcast_method", "loop", "tput", "strided", "ctx", "active"};
#define NFAM ((int)(sizeof families / sizeof families[0]))


/* Exit statuses (documented in --help and docs/shmem.md) */
enum { EXIT_FAILED = APP_EXIT_FAILED, EXIT_USAGE = APP_EXIT_USAGE, EXIT_DEFECT = APP_EXIT_DEFECT };

/* the timing method recorded with a point */
static const char *method_of(const isochron_shmem_op_t *op, int loop)
{
    if (op->flags & ISOCHRON_SHMEM_LOOPED) return isochron_shmem_loop_name(loop);
    if (!strcmp(op->family, "loop")) return op->name + 5;
    if (!strcmp(op->name, "bcast_sync") || !strcmp(op->name, "bcast_rounds")) return "global";
    if (!strcmp(op->name, "bcast_ack")) return "ack";
    if (strstr(op->name, "post")) return "inside";
    return "outside";
}

static void print_info(const char *const *v)
{
    if (v[O_HELP]) {
        app_help(stdout, "isochron-shmem", "[options]   (directly for one PE, or under oshrun / mpirun)", opts, NOPT);
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

int main(int argc, char **argv)
{
    const char *prog = "isochron-shmem";
    const char *v[NOPT];
    int launched = app_launch_rank(), rank = launched > 0 ? launched : 0, size = 1, code = 0, started = 0;
#define FAIL(...) do { if (rank == 0) { fprintf(stderr, "isochron-shmem: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } code = EXIT_USAGE; goto done; } while (0)

    /* ---- the command line, checked before the OpenSHMEM library starts: --help, --version, --list-*
     * and bad input never start it (rank: the launcher's, so one process speaks) */
    if ((code = app_parse(argc, argv, opts, NOPT, v, rank))) goto done;
    if (v[O_HELP] || v[O_VERSION] || v[O_LOPS] || v[O_LLOOP]) {
        if (rank == 0) print_info(v);
        return 0;
    }
    isochron_shmem_opts_t so;
    isochron_shmem_opts_default(&so);
    isochron_bench_opts_t bo;
    isochron_bench_opts_default(&bo);
    bo.min_reps = so.min_reps; bo.max_reps = so.max_reps; bo.rel_ci = so.rel_ci; bo.budget = so.budget;
    if ((code = app_engine_options(prog, v[O_MINR], v[O_MAXR], v[O_RELCI], v[O_BUDGET], rank, &bo))) goto done;
    if (!v[O_MINR] && bo.max_reps < bo.min_reps) bo.min_reps = bo.max_reps; /* --max-reps alone lowers the default minimum */
    if (bo.max_reps < bo.min_reps) FAIL("--max-reps %d is below --min-reps %d", bo.max_reps, bo.min_reps);
    if (!(bo.rel_ci >= 0 && bo.rel_ci < 1)) FAIL("--rel-ci '%s': expected a number in [0, 1) (0: always --max-reps)", v[O_RELCI]);
    if (!(bo.budget >= 0 && bo.budget <= 86400)) FAIL("--budget '%s': expected seconds in [0, 86400]", v[O_BUDGET]);
    so.min_reps = bo.min_reps; so.max_reps = bo.max_reps; so.rel_ci = bo.rel_ci; so.budget = bo.budget;
    if (app_parse_ci_of(prog, app_value(opts, v, O_CIOF), rank, &so.ci_mean)) { code = 2; goto done; }
    so.validate = v[O_NOVAL] == NULL;
    long lv;
    if (v[O_ITERS]) { if (isochron_parse_long(v[O_ITERS], &lv) || lv < 0 || lv > 100000000) FAIL("--iters '%s': expected an integer in [0, 100000000]", v[O_ITERS]); so.iters = (int)lv; }
    if (v[O_LOOP] && isochron_shmem_loop_find(v[O_LOOP], &so.loop)) FAIL("--loop: %s", isochron_last_error());
    if (v[O_MSGWIN]) {
        if (isochron_parse_long(v[O_MSGWIN], &lv) || lv < 1 || lv > ISOCHRON_SHMEM_WINDOW_MAX)
            FAIL("--msg-window '%s': expected an integer in [1, %d] (messages per window of the throughput measurements)", v[O_MSGWIN], ISOCHRON_SHMEM_WINDOW_MAX);
        so.window = (int)lv;
    }
    double watchdog = 120;
    if (v[O_WATCHDOG] && (isochron_parse_duration(v[O_WATCHDOG], &watchdog) || watchdog < 0 || watchdog > 86400)) FAIL("--watchdog '%s': expected seconds in [0, 86400] (0: off)", v[O_WATCHDOG]);
    const char *fmt = v[O_FORMAT] ? v[O_FORMAT] : "table";
    if (isochron_report_format_check(fmt, ISOCHRON_FORMAT_TABLE | ISOCHRON_FORMAT_JSONL | ISOCHRON_FORMAT_CSV | ISOCHRON_FORMAT_NONE))
        FAIL("%s", isochron_last_error());
    int use_shmem_xport = 1;
    if (v[O_XPORT]) {
        if (!strcmp(v[O_XPORT], "mpi")) use_shmem_xport = 0;
        else if (strcmp(v[O_XPORT], "shmem")) FAIL("unknown --transport '%s'; valid: shmem, mpi", v[O_XPORT]);
    }
    double cwaits[16];
    int ncw = 0;
    if (v[O_CHECK] && (app_parse_list(v[O_CHECK], cwaits, 16, &ncw) || ncw < 1)) FAIL("--check '%s': up to 16 ascending wait times in seconds, e.g. 0,0.5,1", v[O_CHECK]);
    for (int i = 0; i < ncw; i++) /* as isochron-clock's --wait */
        if (!(cwaits[i] >= 0 && cwaits[i] <= 3600) || (i && cwaits[i] < cwaits[i - 1]))
            FAIL("--check '%s': wait times must be ascending and within [0, 3600] s (got %g)", v[O_CHECK], cwaits[i]);
    /* the accuracy check's watchdog: --watchdog when given, else long enough for the last wait */
    double check_watchdog = ncw ? fmax(watchdog, 1.5 * cwaits[ncw - 1] + 60) : watchdog;
    if (v[O_WATCHDOG] && watchdog > 0 && ncw && cwaits[ncw - 1] >= watchdog)
        FAIL("--check '%s': the wait of %g s would outlast --watchdog %g s, which would end the check; raise --watchdog (0: off)", v[O_CHECK], cwaits[ncw - 1], watchdog);
    if (v[O_WATCHDOG]) check_watchdog = watchdog;
    size_t sizes[256];
    int nsizes = 0;
    char err[512] = "";
    if (app_parse_sizes(v[O_SIZES] ? v[O_SIZES] : "8,4K,1M", sizes, 256, &nsizes, err, sizeof err)) FAIL("--sizes: %s", err);
    const isochron_shmem_op_t *list[256];
    int nops = 0;
    {
        if (app_list_ok(v[O_OPS] ? v[O_OPS] : "default", err, sizeof err)) FAIL("--ops: %s; see --list-ops", err);
        char *copy = strdup(v[O_OPS] ? v[O_OPS] : "default"), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int fam = -1, dflt = !strcmp(t, "default"), added = !strcmp(t, "added");
            for (int f = 0; f < NFAM; f++) if (!strcmp(t, families[f])) fam = f;
            if (fam >= 0 || dflt || added || !strcmp(t, "all")) {
                for (int i = 0; i < isochron_shmem_op_count(); i++) {
                    const char *of = isochron_shmem_op_get(i)->family;
                    int in_default = !(isochron_shmem_op_get(i)->flags & ISOCHRON_SHMEM_EXTRA);
                    if (dflt ? in_default : added ? !in_default : (fam < 0 || !strcmp(of, families[fam]))) {
                        if (nops >= 256) { free(copy); FAIL("--ops: more than 256 measurements"); }
                        list[nops++] = isochron_shmem_op_get(i);
                    }
                }
                continue;
            }
            const isochron_shmem_op_t *op;
            if (isochron_shmem_op_find(t, &op)) { free(copy); FAIL("--ops: %s (or a family: rma, nbi, atomic, lock, order, memory, coll, bcast_method, loop, tput, strided, ctx, active; default, added, all)", isochron_last_error()); }
            if (nops >= 256) { free(copy); FAIL("--ops: more than 256 measurements"); }
            list[nops++] = op;
        }
        free(copy);
    }
    for (int i = 0; i < nops; i++)
        if (list[i]->flags & ISOCHRON_SHMEM_ELEM8)
            for (int s = 0; s < nsizes; s++)
                if (sizes[s] % 8) FAIL("%s moves 64-bit elements: size %zu B is not a multiple of 8", list[i]->name, sizes[s]);
    if ((code = app_clock_options(prog, v[O_SYNC], v[O_SKEW], v[O_NODESZ], rank))) goto done;
    if ((code = app_parse_sync_limit(prog, v[O_SYNCLIM], rank))) goto done;
    int track = 1;
    if ((code = app_parse_track(prog, v[O_TRACK], rank, &track))) goto done;

    /* ---- the library */
    char patcher[128];
    memory_patcher_off(prog, rank, patcher, sizeof patcher);
    MPI_Init(&argc, &argv);
    shmem_init();
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    {
        int same = shmem_my_pe() == rank && shmem_n_pes() == size;
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!same) FAIL("MPI ranks and OpenSHMEM PEs differ (%d ranks, %d PEs); isochron-shmem needs one PE per rank, numbered alike", size, shmem_n_pes());
    }
    /* every point must be possible before anything runs: PEs, symmetric heap */
    for (int i = 0; i < nops; i++)
        if ((list[i]->flags & ISOCHRON_SHMEM_MIN2) && size < 2) FAIL("%s needs at least 2 PEs (running on %d)", list[i]->name, size);
    {
        size_t need = 0;
        int worst = -1, wsize = 0;
        for (int i = 0; i < nops; i++)
            for (int s = 0; s < ((list[i]->flags & ISOCHRON_SHMEM_SIZED) ? nsizes : 1); s++) {
                size_t n = isochron_shmem_heap_needed(list[i], sizes[s], size, so.window);
                if (n > need) { need = n; worst = i; wsize = s; }
            }
        /* one block of the largest need (+ 64 KiB for the allocator's headers), freed at once */
        void *probe = need < SIZE_MAX - 65536 ? shmem_malloc(need + 65536) : NULL;
        int ok = probe != NULL || need == 0;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        shmem_barrier_all();
        if (probe) shmem_free(probe);
        if (!ok)
            FAIL("%s at %zu B needs %.4g MiB of symmetric heap per PE, more than shmem_malloc could allocate; use smaller --sizes%s", list[worst]->name,
                 sizes[wsize], (double)need / 1048576.0,
#ifdef OSHMEM_MAJOR_VERSION
                 " or a larger heap (SHMEM_SYMMETRIC_HEAP_SIZE, e.g. 2G)"
#else
                 " or a larger heap (SHMEM_SYMMETRIC_SIZE)"
#endif
            );
    }
    FILE *jf = NULL, *cf = NULL;
    if (rank == 0) code = app_open_output(prog, "--jsonl", v[O_JSONL], &jf);
    if (rank == 0 && !code) code = app_open_output(prog, "--csv", v[O_CSV], &cf);
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code) { if (jf) fclose(jf); goto done; }
    int quiet = v[O_QUIET] != NULL;
    app_interrupt_install(jf, rank, "points");
    double wall0 = isochron_truth_now();

    /* ---- clock over the chosen transport */
    isochron_xport_t *xp = NULL;
    if (use_shmem_xport && isochron_shmem_xport_create(60, &xp)) FAIL("OpenSHMEM transport: %s", isochron_last_error());
    app_clock_transport(xp);
    app_clock_t ck;
    app_watchdog_arm(prog, watchdog, rank, "clock synchronization", v[O_JSONL]);
    code = app_clock_setup(prog, v[O_SYNC], v[O_TIMER], v[O_SKEW], track, MPI_COMM_WORLD, quiet, &ck);
    app_watchdog_disarm();
    if (code) { isochron_shmem_xport_destroy(xp); goto done; }
    isochron_shmem_check_t checks[16]; /* the check's waits over the ranks, for the context record */
    if (ncw) {
        isochron_accuracy_t *acc = rank == 0 ? calloc((size_t)size * ncw, sizeof *acc) : NULL;
        int truth = 0;
        app_watchdog_arm(prog, check_watchdog, rank, "accuracy check", v[O_JSONL]);
        int rc = isochron_sync_check_xport(MPI_COMM_WORLD, ck.global, ck.track, xp, cwaits, ncw, 50, acc, &truth);
        app_watchdog_disarm();
        if (rc) { free(acc); app_clock_free(&ck); isochron_shmem_xport_destroy(xp); FAIL("accuracy check: %s", isochron_last_error()); }
        for (int w = 0; w < ncw && rank == 0; w++) {
            checks[w] = isochron_report_shmem_check_summary(acc, size, ncw, w, truth, ck.track != NULL);
            if (!quiet) {
                char tr[48] = "n/a (ranks on several hosts)";
                if (truth) snprintf(tr, sizeof tr, "%.3f us", checks[w].max_true * 1e6);
                fprintf(stderr, "isochron-shmem: check at +%.2f s over %s: max |measured offset| %.3f us, max |true offset| %s\n", cwaits[w],
                        xp ? "shmem" : "mpi", checks[w].max_measured * 1e6, tr);
            }
        }
        free(acc);
    }

    /* ---- reporters and context */
    isochron_reporter_t *reps[3] = {NULL, NULL, NULL};
    if (rank == 0) {
        if (strcmp(fmt, "none")) isochron_reporter_create(fmt, stdout, &reps[0]);
        if (jf) isochron_reporter_create("jsonl", jf, &reps[1]);
        if (cf) isochron_reporter_create("csv", cf, &reps[2]);
    }
    char *ctxbuf = app_context_json(MPI_COMM_WORLD, argc, argv);
    if (rank == 0) { /* the context record (src/report/shmem_records.c) */
        char libname[128];
#ifdef OSHMEM_MAJOR_VERSION
        snprintf(libname, sizeof libname, "OpenSHMEM %d.%d (Open MPI oshmem %d.%d.%d)", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, OSHMEM_MAJOR_VERSION,
                 OSHMEM_MINOR_VERSION, OSHMEM_RELEASE_VERSION);
#else
        snprintf(libname, sizeof libname, "OpenSHMEM %d.%d (vendor)", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
#endif
        isochron_shmem_run_t sr = {app_run_head("isochron-shmem", ctxbuf, &ck, size, ck.rep.nodes, ck.rep.oversubscribed),
                                   ncw, checks, libname, patcher, isochron_shmem_loop_name(so.loop), so.min_reps, so.max_reps, so.rel_ci,
                                   so.ci_level, so.budget, so.iters, so.window > 0 ? so.window : ISOCHRON_SHMEM_WINDOW_DEFAULT, so.validate,
                                   xp ? "shmem" : "mpi", so.ci_mean};
        for (int i = 0; i < 3; i++) if (reps[i]) isochron_report_shmem_context(reps[i], &sr);
    }

    /* ---- the sweep */
    int total = 0, done_pts = 0, written = 0, failed = 0, nbad = 0, ndef = 0;
    defect_sum_t defects[MAX_DEFECTS];
    for (int i = 0; i < nops; i++) total += (list[i]->flags & ISOCHRON_SHMEM_SIZED) ? nsizes : 1;
    for (int i = 0; i < nops && !failed; i++) {
        int ns = (list[i]->flags & ISOCHRON_SHMEM_SIZED) ? nsizes : 1;
        for (int s = 0; s < ns && !failed; s++) {
            if (ck.track) {
                int refreshed;
                isochron_track_poll(ck.track, &refreshed); /* keep the clock true between points, never inside one */
            }
            isochron_point_t pt;
            isochron_shmem_defect_t defect;
            char what[96]; /* the point's name in messages: sized measurements with their size */
            if (list[i]->flags & ISOCHRON_SHMEM_SIZED) snprintf(what, sizeof what, "%s at %zu B", list[i]->name, sizes[s]);
            else snprintf(what, sizeof what, "%s", list[i]->name);
            app_watchdog_arm(prog, watchdog, rank, what, v[O_JSONL]);
            int prc = isochron_shmem_measure(list[i], &so, sizes[s], ck.global, &pt, &defect);
            app_watchdog_disarm();
            /* the clock's error matters where times are differences of global timestamps (Alg. 2, 3);
             * elsewhere times are local durations on one PE */
            if (!prc && ck.track && (!strcmp(list[i]->name, "bcast_sync") || !strcmp(list[i]->name, "bcast_rounds"))) {
                isochron_track_errors_t te; /* both bounds and which one is stated, as isochron-bench's points */
                if (!isochron_track_errors(ck.track, &te)) {
                    pt.clock_bound = te.bound;
                    pt.clock_true = te.true_err;
                    pt.clock_bound_stat = te.bound_stat;
                    pt.clock_bound_hard = te.bound_hard;
                    pt.clock_bound_is_hard = te.hard;
                }
                /* per operation: bcast_rounds' span covers loop_k broadcasts */
                if (isfinite(pt.clock_bound)) { pt.clock_used = pt.clock_bound / (pt.loop_k > 0 ? pt.loop_k : 1); pt.resolution += pt.clock_used; }
            }
            /* the loop timing is the user's where --loop was given and applies; else the measurement's own */
            pt.timing_user = v[O_LOOP] != NULL && (list[i]->flags & ISOCHRON_SHMEM_LOOPED);
            done_pts++;
            const char *meth = method_of(list[i], so.loop);
            if (prc == ISOCHRON_EVALIDATE) { /* wrong data from the library: a point without a time, saying what the library did */
                nbad++;
                if (rank == 0) {
                    fprintf(stderr, "isochron-shmem: %s: validation failed, no result: %s\n", what, isochron_last_error());
                    char sentence[256], text[960];
                    isochron_shmem_defect_sentence(&defect, sentence, sizeof sentence);
                    snprintf(text, sizeof text, "%s: %s", sentence, defect.detail);
                    for (int k = 0; k < 3; k++) if (reps[k]) isochron_report_shmem_point(reps[k], &pt, meth, text);
                    defect_add(defects, &ndef, &defect, list[i]->name);
                    app_interrupt_count(++written);
                }
            } else if (prc) {
                if (rank == 0) fprintf(stderr, "isochron-shmem: %s failed: %s\n", what, isochron_last_error());
                failed = 1;
            } else if (rank == 0) {
                for (int k = 0; k < 3; k++) if (reps[k]) isochron_report_shmem_point(reps[k], &pt, meth, NULL);
                app_interrupt_count(++written);
                if (!quiet) {
                    double el = isochron_truth_now() - wall0, eta = el / done_pts * (total - done_pts);
                    char tb[32], rb[40];
                    /* never a negative time (issue 26): a mean below the resolution is shown as the table shows it */
                    if (isochron_point_below_resolution(&pt) && !(pt.s.mean >= pt.resolution))
                        snprintf(rb, sizeof rb, "<= %s", isochron_fmt_time(pt.resolution, tb, sizeof tb));
                    else
                        isochron_fmt_time(pt.s.mean, rb, sizeof rb);
                    fprintf(stderr, "[%d/%d] %s %zu B: mean %s, %d reps (ETA %.0f s)\n", done_pts, total, pt.op, pt.bytes, rb, pt.valid, eta);
                }
            }
        }
    }
    if (rank == 0)
        for (int k = 0; k < 3; k++) if (reps[k]) { isochron_report_end(reps[k], isochron_truth_now() - wall0, written, !failed); isochron_reporter_destroy(reps[k]); }
    if (rank == 0 && nbad) {
        for (int k = 0; k < ndef; k++) {
            char sentence[256];
            fprintf(stderr, "isochron-shmem: library defect: %s (%s; %s)\n", isochron_shmem_defect_sentence(&defects[k].d, sentence, sizeof sentence),
                    defects[k].ops, defects[k].d.detail);
        }
        int noprog = 0; /* a call that did not progress (test, lock_roundrobin across nodes) delivered no wrong data */
        for (int k = 0; k < ndef; k++) noprog |= strstr(defects[k].d.what, "did not progress") != NULL;
        fprintf(stderr, "isochron-shmem: the library delivered wrong data%s in %d point(s), recorded without a time and with \"library_defect\"; "
                        "exit status %d\n", noprog ? " or did not progress communication" : "", nbad, failed ? EXIT_FAILED : EXIT_DEFECT);
    }
    code = failed ? EXIT_FAILED : nbad ? EXIT_DEFECT : 0;
    free(ctxbuf);
    app_clock_free(&ck);
    isochron_shmem_xport_destroy(xp);
    if (rank == 0) {
        int lost = app_close_output(prog, "--jsonl", v[O_JSONL], jf);
        lost |= app_close_output(prog, "--csv", v[O_CSV], cf);
        if (lost && !code) code = EXIT_FAILED;
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
done:
    if (!started && code && launched >= 0) {
        /* refused before the library started, under a launcher: the job's processes meet once before
         * leaving, or the launcher ends the job at the first nonzero exit, before rank 0's message is out */
        char how[128];
        memory_patcher_off(prog, 1, how, sizeof how);
        MPI_Init(&argc, &argv);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
    }
    return finish(started, code);
}
