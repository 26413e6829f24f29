/* Helpers shared by the command-line drivers, one file per concern: options.c (the option table, parsing,
 * --help), run_context.c (the context's run object, --bind), clock_setup.c (timer, sync budget, sync, tracker,
 * check), process.c (signals, watchdog, output files), sweep_output.c (a library sweep's records and progress). */
#ifndef ISOCHRON_APPS_COMMON_H
#define ISOCHRON_APPS_COMMON_H
#include <mpi.h>
#include <stdio.h>
#include "isochron/timer.h"
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "isochron/report.h"

/* One command-line option: drives both parsing and --help (Caliper style). */
typedef struct {
    const char *name;    /* without leading dashes */
    const char *arg;     /* NULL for a flag */
    const char *help;
    const char *def;     /* default value shown in --help, or NULL */
} app_option_t;

/* Options every measuring driver shares, one definition each. */
/* With tracking, the default sync is short (the tracker supplies the long
 * baseline); without it, the long span that a one-off drift fit needs. */
#define APP_SYNC_TRACKED "hca3"
#define APP_SYNC_UNTRACKED "hca3/100/skampi/50,span=0.12"

#define APP_DEFAULT_TIMER "mpi_wtime"
#define APP_DEFAULT_SKEW "none"
#define APP_OPT_SYNC {"sync", "SPEC", "clock synchronization spec (see isochron-clock --list-sync)", APP_SYNC_TRACKED}
#define APP_OPT_TIMER {"timer", "NAME", "base timer: mpi_wtime, monotonic, monotonic_raw, realtime, tsc", APP_DEFAULT_TIMER}
#define APP_OPT_SKEW {"skew", "SPEC", "inject clock skew (testing), as isochron-clock --skew", APP_DEFAULT_SKEW}
#define APP_OPT_TRACK {"track", "on|off", "clock tracking: refresh offsets and drift while running (off: sync once, as before; the default --sync is then the long one, " APP_SYNC_UNTRACKED ")", "on"}
#define APP_OPT_NODE_SIZE {"node-size", "N", "hierarchical sync: every block of N consecutive ranks is a node, even on one host (0: shared-memory nodes)", "0"}
/* The clock options of a measuring driver's option table, rows sync, node-size, timer, skew and track at the
 * driver's indices, as designated initializers (isochron-bench, -barrier and -shmem take them alike). */
#define APP_OPTS_CLOCK(sync, node_size, timer, skew, track) \
    [sync] = APP_OPT_SYNC, [node_size] = APP_OPT_NODE_SIZE, [timer] = APP_OPT_TIMER, [skew] = APP_OPT_SKEW, [track] = APP_OPT_TRACK
/* The engine's repetition options, one meaning in every driver (isochron_bench_ci_met is the stop rule of
 * isochron-bench and isochron-shmem alike); the defaults are the driver's. */
#define APP_OPT_MIN_REPS(def) {"min-reps", "N", "minimum valid repetitions per point", def}
#define APP_OPT_MAX_REPS(def) {"max-reps", "N", "maximum valid repetitions per point (Alg. 5 counts valid ones)", def}
#define APP_OPT_REL_CI(def) {"rel-ci", "X", "stop when the CI half-width <= X * its statistic (0: always max-reps)", def}
#define APP_OPT_CI_OF {"ci-of", "median|mean", "the CI of the stop rule: the median's (distribution-free) or the mean's (Student's t)", "median"}
#define APP_OPT_LIST_BARRIERS {"list-barriers", NULL, "list the barrier algorithms and exit", NULL}
#define APP_OPT_QUIET {"quiet", NULL, "no progress on stderr", NULL}
#define APP_OPT_HELP {"help", NULL, "this help", NULL}
#define APP_OPT_VERSION {"version", NULL, "print the version and exit", NULL}
#define APP_OPT_BIND {"bind", "auto|off", "auto: on a node running more ranks than CPUs whose ranks are all unbound, bind each rank to one CPU (node-local rank mod CPUs), so ranks do not migrate at start times (helps an MPI that yields when idle, as Open MPI does when oversubscribed; slows one that busy-polls, as MPICH does); off: leave binding to the launcher", "off"}
#define APP_OPT_SYNC_LIMIT {"sync-limit", "SECONDS", "refuse a --sync spec estimated to take longer than this (0: no limit)", "600"}

/* A numeric option of a driver's table, read from its value (the table's default when not given; neither:
 * left as it is) into *out and checked against [lo, hi] (lo excluded with lo_open): int * (APP_INT), double *
 * (APP_REAL; APP_SECONDS, a duration with s/ms/us/ns), size_t * (APP_SIZE: 8, 1K, 32M). A bad value is answered
 * "prog: --name 'value': expect" on rank 0, expect being the row's or, without one, "expected an integer in
 * [lo, hi]", "expected a number in [lo, hi]", "expected a number" or "expected seconds", then " (note)". */
typedef enum { APP_INT, APP_REAL, APP_SECONDS, APP_SIZE } app_kind_t;
typedef struct {
    int opt;             /* the row of the option table */
    app_kind_t kind;
    void *out;
    double lo, hi;       /* -INFINITY, INFINITY: any */
    const char *expect;  /* NULL: from the kind and the range */
    const char *note;    /* NULL, or said in parentheses after expect */
    int lo_open;         /* 1: lo itself is refused */
} app_number_t;
/* Every row of nums in order: 0, or 2 after the first bad value's message. */
int app_parse_numbers(const char *prog, const app_option_t *opts, const char **values, const app_number_t *nums, int n, int rank);

/* --bind auto|off (see run_context.c): 0, or 2 after a message. Collective. *bound = 1 when the ranks were bound here. */
int app_bind(const char *prog, const char *v, MPI_Comm comm, int rank, int *bound);

/* Parse argv against opts. values[i] receives the argument (or "1" for a
 * flag given). Returns 0, or 2 after printing a clear message to stderr (rank 0). */
int app_parse(int argc, char **argv, const app_option_t *opts, int nopts, const char **values, int rank);
void app_help(FILE *f, const char *prog, const char *synopsis, const app_option_t *opts, int nopts);
/* The drivers' exit statuses: one table (options.c) for --help's "exit status:" block, which
 * tools/gen-man.py turns into the man pages' EXIT STATUS and tests/docs/check_options.py compares with
 * docs/output.md's table. APP_EXIT_DEFECT is isochron-shmem's alone. */
enum { APP_EXIT_OK = 0, APP_EXIT_FAILED = 1, APP_EXIT_USAGE = 2, APP_EXIT_WATCHDOG = 3, APP_EXIT_DEFECT = 4, APP_EXIT_SIGNAL = 128 };
void app_help_exit(FILE *f, int with_defect);
/* The drivers' shared start, after MPI started: parse argv against opts (app_parse), answer --help
 * (the table, then \p about, which may be NULL) and --version on rank 0 (the table's "help" and
 * "version" entries). 0: go on; 1: answered, exit 0; 2: a message was printed, exit 2. */
int app_preamble(const char *prog, int argc, char **argv, const app_option_t *opts, int nopts, const char **values, int rank, const char *about);
/* An option's value: as given, else the table's default (one source for both; NULL if it has none). */
const char *app_value(const app_option_t *opts, const char **values, int i);
/* --NAME VALUE or --NAME=VALUE straight from argv (the last one given), for what a driver must know
 * before MPI starts; NULL when absent. */
const char *app_argv_value(int argc, char **argv, const char *name);

/* The context's "run" object (isochron version, host(s), MPI library and version, Slurm job, ranks, binding,
 * command) as JSON text: rank 0 (NULL elsewhere; free it). Collective (the host names and bindings are
 * gathered); written by the report module (isochron_report_run_json). */
char *app_context_json(MPI_Comm comm, int argc, char **argv);

/* The base timer \p name on every rank, decorated with this rank's skew from
 * \p skew when it injects anything (*my_skew receives it, zeros otherwise).
 * Collective: fails on all ranks if it fails on one. 0, or 2 after printing
 * the reason on rank 0 with \p prog. */
int app_make_timer(const char *prog, const char *name, const isochron_skew_spec_t *skew, MPI_Comm comm,
                   isochron_timer_t **out, isochron_skew_t *my_skew);

/* The global clock of a driver: timer (with injected skew), synchronization
 * by spec, and the Alg. 6 check right after it, summarized as the context's
 * "clock_sync" JSON object. */
typedef struct {
    isochron_timer_t *timer;
    isochron_clock_t *base, *global;
    isochron_sync_spec_t spec;
    isochron_sync_report_t rep;
    isochron_track_t *track; /* NULL with --track off */
    char spec_text[1024];
    char json[1400];
} app_clock_t;
/* The engine options both measuring drivers take: --min-reps, --max-reps,
 * --rel-ci, --budget (each may be NULL: left at its default in *bo).
 * 0, or 2 after printing the reason on rank 0 with prog. */
int app_engine_options(const char *prog, const char *min_reps, const char *max_reps, const char *rel_ci, const char *budget, int rank,
                       isochron_bench_opts_t *bo);
/* --sync, --skew and --node-size checked before anything runs (the node size
 * is kept for app_clock_setup). 0, or 2 after printing the reason on rank 0. */
int app_clock_options(const char *prog, const char *sync, const char *skew, const char *node_size, int rank);
/* --list-barriers (rank 0 prints). */
void app_list_barriers(int rank);
/* A registry of names and descriptions, one "name description" line each (rank 0 prints): --list-schemes,
 * --list-methods, --list-timings. */
void app_list_named(int n, const isochron_named_t *(*get)(int), int rank);
/* --list-ops: the operations of ops in columns (name, family, description), the pairwise experiments of a
 * sweep (allpairs, p2t), then those this MPI library lacks, each line opening with '#' (rank 0 prints). */
void app_list_ops(const isochron_ops_t *ops, int rank);

/* --ci-of median|mean into *mean (1: mean); 0, or 2 after "prog: --ci-of 'v': valid: median, mean" on rank 0. */
int app_parse_ci_of(const char *prog, const char *v, int rank, int *mean);
/* --node-size: an integer in [0, 1000000] into *out (0 when v is NULL).
 * 0, or 2 after printing the reason on rank 0 with prog. */
int app_parse_node_size(const char *prog, const char *v, int rank, int *out);
/* The transport of the timestamp exchanges of the next app_clock_setup (sync, tracker, check); NULL: MPI. */
void app_clock_transport(const isochron_xport_t *x);
/* The node size the next app_clock_setup gives its spec (isochron_sync_spec_t.node_size). */
void app_clock_node_size(int n);
/* Collective. 0, or 2 after printing the reason on rank 0 with prog. */
/* --track on|off into *on; 0, or 2 after printing the reason on rank 0. */
int app_parse_track(const char *prog, const char *v, int rank, int *on);
/* Collective. With track, the clock is tracked (c->track, on comm) from
 * right after the sync. 0, or 2 after printing the reason on rank 0 with prog. */
int app_clock_setup(const char *prog, const char *sync, const char *timer, const char *skew, int track, MPI_Comm comm, int quiet,
                    app_clock_t *c);
void app_clock_free(app_clock_t *c);
/* The head of a driver's context record (isochron_report_run_head_t): \p tool, the "run" object \p run_json
 * (app_context_json), c's timer and "clock_sync" object, and where the ranks run. */
isochron_report_run_head_t app_run_head(const char *tool, const char *run_json, const app_clock_t *c, int nprocs, int nodes,
                                        int oversubscribed);

/* Is s a well-formed comma-separated list: not empty, no empty element
 * ("a,,b", ",a", "a,")? 0, or -1 with the reason in err. Every list option
 * is checked with it before its elements are taken apart. */
int app_list_ok(const char *s, char *err, size_t errlen);

/* --sync-limit: parse it (0, or 2 after the message on rank 0) and keep it for
 * app_sync_guard. */
int app_parse_sync_limit(const char *prog, const char *v, int rank);
/* Before a synchronization: the library's budget (isochron_sync_budget: probe, estimate, a spec without
 * parameters, or any with \p fit_given (the driver's own default), shrunk to 2 s and stopped at it; beyond
 * --sync-limit refused, 2), rewriting spec_text (textlen bytes); says on rank 0 a slow network, a shrunk spec
 * and (unless quiet) one line of how long the sync will take on this network; arms the watchdog for the sync
 * phase (3 x the estimate + 60 s), naming it. Collective; the caller disarms after the sync. */
int app_sync_guard(const char *prog, isochron_sync_spec_t *spec, char *spec_text, size_t textlen, int fit_given, MPI_Comm comm,
                   const char *out, int quiet);
/* After the sync: a sync over 1 s that took 10 x the guard's estimate ran on a
 * network far slower than measured before it; say so in one line with the
 * likely cause and remedy (rank 0); a sync its budget stopped says what it
 * achieved. */
void app_sync_done(const char *prog, const isochron_sync_report_t *rep, int rank);
/* The sync phase's watchdog in seconds instead of 3 x the estimate + 60 s
 * (0: off; negative: that default again), for a driver's --watchdog. */
void app_sync_watchdog(double secs);

/* Parse a comma-separated list of finite doubles (durations with units allowed; callers check ranges). */
int app_parse_list(const char *s, double *out, int max, int *n);

/* Message sizes: 8,1K,64K | A..B (x2 steps) | A..B*F; K/M/G = 2^10/2^20/2^30.
 * A size is a decimal integer with an optional suffix and B (hexadecimal,
 * exponents and fractions that are not whole bytes are refused).
 * 0, or -1 with a message in err. */
int app_parse_size(const char *s, size_t *out);
int app_parse_sizes(const char *spec, size_t *out, int max, int *n, char *err, size_t errlen);

/* Output files (--jsonl, --csv): opened on rank 0 before anything is measured.
 * app_open_output: 0, or 2 after "prog: --opt 'path': cannot write: <OS error>".
 * app_close_output: flushes and closes f (NULL: nothing); 0, or 1 after a
 * message naming the option, the file and the OS error (records were lost). */
int app_open_output(const char *prog, const char *opt, const char *path, FILE **f);
int app_close_output(const char *prog, const char *opt, const char *path, FILE *f);

/* A measuring driver's outputs: --jsonl and --csv opened on rank 0 before anything is measured, then a
 * reporter each and one on stdout in --format ("none": no reporter). rep[] is NULL where not asked and on
 * the other ranks. app_outputs_open: collective over comm, 0 or 2 on every rank (the message on rank 0).
 * app_outputs_close: the reporters destroyed, the files closed (app_close_output); 0, or 1 when records
 * were lost. */
typedef struct {
    const char *prog, *jsonl, *csv; /* the paths as given (NULL: not asked) */
    FILE *jf, *cf;
    isochron_reporter_t *rep[3];    /* stdout, --jsonl, --csv */
} app_outputs_t;
int app_outputs_open(app_outputs_t *o, const char *prog, const char *jsonl, const char *csv, int rank, MPI_Comm comm);
void app_outputs_reporters(app_outputs_t *o, const char *fmt, int rank);
int app_outputs_close(app_outputs_t *o);

/* A library sweep's output (sweep_output.c): the points to every reporter as they complete, progress on
 * stderr (unless quiet), the watchdog around each point (out: where the completed records are), then on
 * rank 0 the clock tracking's cost and the end record listing skipped points. */
typedef struct {
    const char *prog;
    isochron_reporter_t **reps; /* stdout, --jsonl, --csv (app_outputs_t.rep) */
    const isochron_bench_opts_t *bo;
    int rank, quiet;
    double watchdog, wall0;     /* wall0: the run's start (isochron_truth_now) */
    const char *out;
} app_sweep_sink_t;
/* Run sw (isochron_sweep_run) into k, then the clocks now in *global and *track (a resync replaced them; the
 * caller destroys them). Collective. 0, or 1 when a point failed or was skipped. */
int app_sweep_run(const app_sweep_sink_t *k, isochron_sweep_t *sw, isochron_clock_t **global, isochron_track_t **track);
/* Before a sweep (rank 0): what the ranks outside a pairwise operation do (points record active_ranks too). */
void app_sweep_notes(const char *prog, const isochron_sweep_opts_t *so, int nprocs, int rank);

/* The rank this process is going to have, from the launcher's environment
 * (Open MPI, MPICH's Hydra, PMIx, Slurm), readable before MPI_Init; -1 when
 * started directly (no launcher). For what a driver does before it starts MPI. */
int app_launch_rank(void);

/* Interruption (Ctrl-C, scancel, mpirun forwarding SIGINT/SIGTERM): the
 * process ends with exit status 128 + signal after rank 0 appended an "end"
 * record to the JSON Lines file, {"type":"end",<unit>:N,"wall_s":T,
 * "complete":false,"interrupted":"SIGTERM"}, so the file holds every record
 * finished before and says why it stops there. N is what app_interrupt_count
 * last set (points, steps, checks). The handler only calls clock_gettime and
 * write (async-signal-safe); records are flushed as they complete. The other
 * ranks exit 2 s after the signal, since mpirun kills the whole job when the
 * first rank is gone. Installing again (rank 0, with the file) keeps the start. */
void app_interrupt_install(FILE *jsonl, int rank, const char *unit);
void app_interrupt_count(int n);

/* Watchdog: SIGALRM after secs ends the process with a message naming what
 * hung and where the completed results are (out may be NULL). 0: off. */
void app_watchdog_arm(const char *prog, double secs, int rank, const char *what, const char *out);
void app_watchdog_disarm(void);

#endif
