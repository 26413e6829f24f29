/**
 * \file isochron/report.h
 * \brief Reporters: results as a console table, JSON Lines or CSV, behind one
 *        interface and chosen independently of measurement (as Google
 *        Benchmark does). Each point is written and flushed as soon as it is
 *        measured, so an interrupted run keeps a valid file of what it did.
 */
#ifndef ISOCHRON_REPORT_H
#define ISOCHRON_REPORT_H

#include <stdio.h>
#include "isochron/barrier.h"
#include "isochron/bench.h"
#include "isochron/sync.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct isochron_reporter isochron_reporter_t;

/** One context entry: key and its value as JSON text (e.g. "\"mpi_wtime\"", "4", "true"). */
typedef struct {
    const char *key;
    const char *json;
} isochron_kv_t;

/** The output formats of the drivers' --format, one table (src/report/report.c): bit i of a mask is the
 *  format isochron_report_format_name(i); "none" is the last (nothing on stdout). */
enum {
    ISOCHRON_FORMAT_TABLE = 1u << 0,
    ISOCHRON_FORMAT_JSONL = 1u << 1,
    ISOCHRON_FORMAT_CSV = 1u << 2,
    ISOCHRON_FORMAT_NONE = 1u << 3,
};
/** \brief Name of format bit \p i (0: "table", 1: "jsonl", 2: "csv", 3: "none"), NULL beyond. */
const char *isochron_report_format_name(int i);
/** \brief ISOCHRON_OK when \p name is one of the formats in \p mask; else ISOCHRON_ENAME and the last error
 *  "unknown --format 'NAME'; valid: table, jsonl, none" (the formats of \p mask, in table order). */
int isochron_report_format_check(const char *name, unsigned mask);
/** \brief "table", "jsonl" or "csv" writing to \p f (not closed by the reporter). */
int isochron_reporter_create(const char *format, FILE *f, isochron_reporter_t **out);
const char *isochron_reporter_names(void);
/** \brief Table only: pad operation names to \p width characters (default 22, the longest default name), so a
 *  run of longer names (e.g. neighbor_allgatherv_graph_persistent) stays in columns. Call before the first point. */
void isochron_reporter_name_width(isochron_reporter_t *r, int width);
/** \brief Context block: jsonl writes one {"type":"context"} record, csv '#' lines, table a header. */
int isochron_report_begin(isochron_reporter_t *r, const isochron_kv_t *kv, int n);
/** \brief One measured point (scheme and method named in every record). */
int isochron_report_point(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method);
/** The same point as a JSON Lines record of another type ("cost" for the barrier driver) with \p nextra
 *  extra fields after the type (e.g. {"barrier", "\"rds\""}); table and CSV ignore both. */
int isochron_report_point_as(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                             const isochron_kv_t *extra, int nextra);
/** A point written under another name: JSON Lines as isochron_report_point_as (type, extra fields, p->op);
 *  table and CSV as a point whose operation is \p label (e.g. "allpairs:0-1" for a "pair" record). */
int isochron_report_point_labeled(isochron_reporter_t *r, const isochron_point_t *p, const char *scheme, const char *method, const char *type,
                                  const isochron_kv_t *extra, int nextra, const char *label);
/** \brief The matrix of all-pairs median round trips at one size (isochron_ops_allpairs_run's \p pairs,
 *  p(p-1)/2 of them at \p nprocs ranks, \p mode "parallel" or "sequential"): JSON Lines a "matrix"
 *  record (diagonal 0), table the matrix, CSV nothing (its pairs are rows already). */
int isochron_report_matrix(isochron_reporter_t *r, const char *mode, size_t bytes, int nprocs, int reps, double wall_s,
                           const isochron_pair_t *pairs);
/** \brief The pairs of isochron_ops_allpairs_run at one size: JSON Lines one "pair" record each (i, j, mode,
 *  send_s, gap_s, wall_s after the point's fields), table and CSV a point named "allpairs:I-J". */
int isochron_report_pairs(isochron_reporter_t *r, const char *mode, size_t bytes, int nprocs, int reps, double wall_s,
                          const isochron_pair_t *pairs);
/** \brief The \p n triplets of isochron_ops_p2t_run at one size: JSON Lines one "triplet" record each (i, j, k,
 *  wall_s), table and CSV a point named "p2t:I-J+K". */
int isochron_report_triplets(isochron_reporter_t *r, size_t bytes, int nprocs, int reps, double wall_s, const isochron_triplet_t *tr,
                             int n);
/** \brief The start-up phases' min, mean and max over ranks (isochron_startup_summarize) of \p tool:
 *  JSON Lines one "startup" record, table and CSV one row per phase. */
int isochron_report_startup(isochron_reporter_t *r, const char *tool, const isochron_startup_t *s);
/** \brief What keeping the clock true cost: JSON Lines one "track" record; table and CSV nothing. */
int isochron_report_track(isochron_reporter_t *r, int refreshes, double cost_s, double wall_s);
/** \brief Closing record with the run's wall time and number of points. */
int isochron_report_end(isochron_reporter_t *r, double wall_s, int npoints, int complete);
/** \brief isochron_report_end listing the points a sweep skipped (isochron_sweep_run): JSON Lines adds "skipped", an array of
 *  {"op","bytes","root","error"} after "complete" (only when \p nskipped > 0, so a run without skips writes the same record);
 *  table and CSV add one line per point. */
int isochron_report_end_skipped(isochron_reporter_t *r, double wall_s, int npoints, int complete, const isochron_sweep_skip_t *skipped,
                                int nskipped);
void isochron_reporter_destroy(isochron_reporter_t *r);

/* ------------------------------------------------------------------------ */
/* The records of the clock check and the barrier experiments (written by     */
/* isochron-clock and isochron-barrier; src/report/check_records.c and        */
/* barrier_records.c). Like every writer they take a reporter, whose format   */
/* was chosen when it was made: through a JSON Lines reporter each writes its */
/* records (the JSON writer below, flushed); through a table or CSV reporter  */
/* it writes nothing (the tables are the *_table writers). So a driver calls  */
/* each writer on each of its reporters. NULL reporter or run:                */
/* ISOCHRON_EINVAL, nothing written.                                          */

/** \brief The closing record of a run: {"type":"end", \p count_key: \p count, "wall_s", "complete"}
 *  (count_key: "points", "checks", "steps": what the run counts). */
int isochron_report_end_record(isochron_reporter_t *r, const char *count_key, int count, double wall_s, int complete);

/** \brief The end record of a run cut by signal \p signame ("SIGINT", "SIGTERM") into \p buf (NUL-terminated,
 *  newline included): {"type":"end", count_key: count, "wall_s": S.mmm, "complete":false, "interrupted": signame}.
 *  Async-signal-safe (no stdio, no allocation, no locale), for a signal handler to write(2); returns the
 *  length, 0 when \p len is under 256 or an argument is NULL. */
size_t isochron_report_end_interrupted(char *buf, size_t len, const char *count_key, unsigned long count, unsigned long long wall_ms,
                                       const char *signame);

/** \brief A "timer_cost" record: the per-call cost and resolution of \p timer, or, when \p unavailable
 *  is not NULL, that the timer is not available and why. */
int isochron_report_timer_cost(isochron_reporter_t *r, const char *timer, const char *unavailable, double ns_per_call, double resolution_ns,
                               double tsc_hz);
/** \brief The same as a line of a table through reporter \p r (isochron-clock --timer-cost; another format: nothing):
 *  with \p timer NULL the column heads, else the timer, its cost and resolution (ns), or "-" and why it is
 *  \p unavailable, and its TSC calibration when \p tsc_hz > 0. EINVAL without \p r. */
int isochron_report_timer_cost_line(isochron_reporter_t *r, const char *timer, const char *unavailable, double ns_per_call,
                                    double resolution_ns, double tsc_hz);
/** \brief What a timestamp costs (ns per call) read directly (\p raw_ns, clock_gettime) and through the global clock
 *  (\p global_ns: mpi_wtime under a sync and a tracking layer), two lines of the timer-cost table through \p r. */
int isochron_report_clock_read_cost(isochron_reporter_t *r, double raw_ns, double global_ns);

/** One rank's synchronization as the clock check reports it. Every member is a double, so that the
 *  ranks gather it to rank 0 as ISOCHRON_CHECK_RANK_NDOUBLES MPI_DOUBLEs. */
typedef struct {
    double slope, intercept;                  /**< the model (global = local (1 + slope) + intercept) */
    double fslope, fse, r2, resid, span;      /**< its fit: slope, slope SE, R^2, residual RMS (s), span (s) */
    double partner, npoints, nused, kept;     /**< the fit's partner rank (-1: no fit), points, used, slope kept (1/0) */
    double kind, attempts;                    /**< ISOCHRON_LM_*; measurements of the pair (refits + 1) */
    double inj_offset, inj_drift, inj_ddrift, inj_jitter; /**< injected skew (isochron_skew_t) */
    double trk_drift, trk_drift_se, trk_ddrift, trk_noise; /**< isochron_track_info_t: the filter */
    double trk_refreshes, trk_cost, trk_updates, trk_aside; /**< isochron_track_info_t: its work */
    double timens;                            /**< the kernel's monotonic offset of this rank's time namespace (s) */
} isochron_check_rank_t;
#define ISOCHRON_CHECK_RANK_NDOUBLES ((int)(sizeof(isochron_check_rank_t) / sizeof(double)))
/** \brief This rank's entry from its sync report, injected skew and tracking (zeroed: not tracked);
 *  timens: isochron_truth_timens_offset(). */
isochron_check_rank_t isochron_check_rank_make(const isochron_sync_report_t *rep, const isochron_skew_t *skew,
                                               const isochron_track_info_t *track, double timens);

/** A clock check as rank 0 reports it (isochron_sync_check_each). */
typedef struct {
    const char *tool;           /**< "isochron-clock" */
    const char *run_json;       /**< the run's context, a JSON object whose members open the context record */
    const char *timer;          /**< base timer name */
    const char *sync_spec;      /**< the sync spec as run (isochron_sync_spec_format) */
    const isochron_sync_report_t *sync;
    int node_size;              /**< --node-size (0: from the host names) */
    const char *truth;          /**< what the true offsets are measured against ("kernel_clock_monotonic",
                                     "simulated_time"); NULL: no truth */
    const char *skew_spec;      /**< the injected skew's spec; NULL: none injected */
    long check_pingpongs;
    int tracking;               /**< the clock was tracked between the checks */
    int nranks;
    const isochron_check_rank_t *ranks; /**< nranks entries */
    int nwaits;
    const double *waits;        /**< nwaits wait times (s) */
    const isochron_accuracy_t *acc; /**< acc[rank * nwaits + w] */
} isochron_check_run_t;

/** The error bounds of wait \p w over the ranks: the largest statistical and hard ones, and which one
 *  to state (the hard one when any rank's statistical premises failed, its measured offset excludes the
 *  statistical bound, or the hard one is the smaller: isochron_track_errors' rule). */
typedef struct {
    double stat, hard;
    int kind_hard;
} isochron_check_bounds_t;
isochron_check_bounds_t isochron_check_bounds(const isochron_accuracy_t *acc, int nranks, int nwaits, int w);

/** \brief Before the first wait: the "context", "sync" and one "model" record per rank. */
int isochron_report_check_head(isochron_reporter_t *r, const isochron_check_run_t *run);
/** \brief Wait \p w measured: one "accuracy" record per rank and the wait's "summary". */
int isochron_report_check_wait(isochron_reporter_t *r, const isochron_check_run_t *run, int w);
/** \brief After the check, when tracked: the "track" record (refreshes, cost, every rank's filter). */
int isochron_report_check_track(isochron_reporter_t *r, const isochron_check_run_t *run);
/** \brief After the check (and its "track" record), the check as a table through reporter \p r: the run's head
 *  (version, spec, timer and injected skew, ranks and nodes, sync, tracking, truth), every rank's model, fit and its
 *  true and measured offsets at each wait (µs), the largest offsets and, when tracked, the bound stated per wait
 *  (isochron_check_bounds) and every rank's tracking filter. A reporter of another format writes nothing.
 *  EINVAL without \p r, the run's sync report, ranks, waits or accuracies. */
int isochron_report_check_table(isochron_reporter_t *r, const isochron_check_run_t *run);

/** What every measuring driver's context record opens with (isochron-bench, isochron-barrier, isochron-shmem):
 *  which tool, where (the run, ranks, nodes, oversubscription) and on which clock (timer, synchronization).
 *  The first member of each driver's run; one writer (src/report/run_records.c) makes its entries, in this
 *  order: "tool", "run", "nprocs", "nodes", "oversubscribed", "timer", "clock_sync". */
typedef struct {
    const char *tool;           /**< e.g. "isochron-bench" */
    const char *run_json;       /**< the run's context (a JSON object, isochron_report_run_json), the context's "run" */
    const char *clock_sync_json;/**< the synchronization (a JSON object, isochron_report_clock_sync_json), the context's "clock_sync" */
    const char *timer;          /**< base timer name */
    int nprocs, nodes, oversubscribed;
} isochron_report_run_head_t;

/** isochron-bench's run as its context record states it: where, with which clock, and every option of
 *  the engine (scheme, method, timing and the rest of isochron_bench_opts_t) and of the driver. */
typedef struct {
    isochron_report_run_head_t head; /**< tool "isochron-bench" */
    const isochron_bench_opts_t *engine;
    double late_cap;            /**< the late cap the engine uses (isochron_bench_late_cap) */
    const char *bind;           /**< --bind as given */
    int bound_by_isochron;
    int msg_window, threads, partitions, thread_multiple;
    long passes;
    int init;                   /**< ISOCHRON_INIT_*: named in the options unless world */
} isochron_bench_run_t;
/** \brief The context block of isochron-bench through reporter \p r (JSON Lines: the "context" record). */
int isochron_report_bench_context(isochron_reporter_t *r, const isochron_bench_run_t *run);

/** The barrier experiments' run as rank 0 reports it (isochron-barrier's options and context). */
typedef struct {
    isochron_report_run_head_t head; /**< tool "isochron-barrier" */
    int barriers_yield;         /**< the barriers yield the CPU while waiting (stated after the head's "oversubscribed") */
    int nbarriers, nexperiments;
    const char *const *barriers;    /**< the barriers measured */
    const char *const *experiments; /**< the experiments run ("skew", "cost", "shift", "payoff") */
    int calls, trials, payoff_trials;
    double threshold, spread, skew_spread, slack, late_tolerance;
    const char *wait;           /**< how barriers wait: "spin", "yield", "auto" */
    long long seed;
    const char *bind;
    int bound_by_isochron;
} isochron_barrier_run_t;

/** \brief The "context" record of the barrier experiments. */
int isochron_report_barrier_context(isochron_reporter_t *r, const isochron_barrier_run_t *run);
/** \brief The "rds_constants" record: RDS's b_s, s and d as used. */
int isochron_report_barrier_rds(isochron_reporter_t *r, const isochron_rds_info_t *ri);
/** \brief One "skew" or "shift" record (\p type) of one configuration: counts, the experiment's fields
 *  (shift: reference, threshold, spread, success rate), median/p95/max/mean of the values, the clock's
 *  error, every sample. */
int isochron_report_barrier_samples(isochron_reporter_t *r, const char *type, const isochron_barrier_samples_t *sm,
                                    const isochron_barrier_run_t *run);
/** \brief The "cost" record of one barrier: its engine point (Round-Time, global method). */
int isochron_report_barrier_cost(isochron_reporter_t *r, const isochron_point_t *p, const char *barrier);
/** \brief The "payoff" record: RDS + shift against the shift alone, measured and modelled. */
int isochron_report_barrier_payoff(isochron_reporter_t *r, const isochron_barrier_payoff_t *po, const isochron_barrier_run_t *run);

/* The same results as tables for a reader (isochron-barrier's stdout), through reporter \p r: a reporter of another
 * format writes nothing. EINVAL (nothing written) on a NULL argument or a name not listed. */
/** \brief The head: version, ranks, nodes, oversubscription, whether barriers yield, the clocks' \p sync_spec and the
 *  \p sync_s it took; with \p ri the RDS constants. */
int isochron_report_barrier_table_head(isochron_reporter_t *r, const isochron_barrier_run_t *run, const char *sync_spec, double sync_s,
                                       const isochron_rds_info_t *ri);
/** \brief What the table of \p experiment ("skew", "cost", "shift", "payoff") shows, and its column heads; "cost" names
 *  the engine's repetitions and CI target from \p cost (else unused, may be NULL). */
int isochron_report_barrier_table_section(isochron_reporter_t *r, const char *experiment, const isochron_barrier_run_t *run,
                                          const isochron_bench_opts_t *cost);
/** \brief One line of the "skew" or "shift" table (\p type): the statistics of the \p sm, or why there are none. */
int isochron_report_barrier_table_samples(isochron_reporter_t *r, const char *type, const isochron_barrier_samples_t *sm);
/** \brief One line of the "cost" table: the median, CI half-width and minimum of \p barrier's point \p p. */
int isochron_report_barrier_table_cost(isochron_reporter_t *r, const isochron_point_t *p, const char *barrier);
/** \brief The "payoff" table: one line per size, then the fit, the model's and the measured smallest size. */
int isochron_report_barrier_table_payoff(isochron_reporter_t *r, const isochron_barrier_payoff_t *po);

/* ------------------------------------------------------------------------ */
/* The records of isochron-shmem (src/report/shmem_records.c): plain data,    */
/* since the report module sits below the OpenSHMEM module. Every point is    */
/* timed between barriers (scheme "barrier").                                 */

/** One wait of the accuracy check after isochron-shmem's sync, reduced over the ranks. */
typedef struct {
    double wait;         /**< seconds after the sync */
    double max_measured; /**< largest |measured offset| to rank 0 (Alg. 6) */
    double max_true;     /**< largest |true offset|; NaN: no truth (ranks on several hosts) */
    double max_bound;    /**< largest finite statistical bound; NaN: the clock is not tracked */
} isochron_shmem_check_t;
/** \brief Wait \p w of a check's acc[rank * nwaits + w] (isochron_sync_check_xport) over ranks 1..nranks-1
 *  (rank 0 is the reference); \p truth 0 makes max_true NaN, \p tracked 0 max_bound. All NaN on bad arguments. */
isochron_shmem_check_t isochron_report_shmem_check_summary(const isochron_accuracy_t *acc, int nranks, int nwaits, int w, int truth,
                                                           int tracked);

/** isochron-shmem's run as its context record states it: where, with which clock (and its check), which
 *  OpenSHMEM library, and the measurement options (isochron_shmem_opts_t's, as names and numbers). */
typedef struct {
    isochron_report_run_head_t head; /**< tool "isochron-shmem" */
    int ncheck;                  /**< waits of the accuracy check; 0: none ("clock_check": null) */
    const isochron_shmem_check_t *check;
    const char *library;         /**< the OpenSHMEM library, e.g. "OpenSHMEM 1.4 (Open MPI oshmem 4.1.4)" */
    const char *memory_patcher;  /**< Open MPI's memory patcher: on or off, and who set it */
    const char *loop;            /**< the loop timing, "outside" or "inside": the context's method */
    int min_reps, max_reps;
    double rel_ci, ci_level, budget;
    int iters, msg_window, validate;
    const char *transport;       /**< of the clock's timestamp exchanges: "shmem" or "mpi" */
    int ci_mean;                 /**< the stop rule's CI: 1 the mean's, 0 the median's ("ci_of") */
} isochron_shmem_run_t;
/** \brief The context block of isochron-shmem through reporter \p r (JSON Lines: the "context" record). */
int isochron_report_shmem_context(isochron_reporter_t *r, const isochron_shmem_run_t *run);
/** \brief One point of isochron-shmem timed by \p method; \p library_defect not NULL: the library delivered
 *  wrong data, the JSON Lines point carries "library_defect" (the call and what it did) after its type. */
int isochron_report_shmem_point(isochron_reporter_t *r, const isochron_point_t *p, const char *method, const char *library_defect);

/* ------------------------------------------------------------------------ */
/* JSON writer: every JSON Lines record of isochron (library and drivers)    */
/* goes through it, so all numbers have one format: the shortest decimal      */
/* that reads back as the same double (%.15g, else %.16g, else %.17g);        */
/* NaN and infinities are null. Commas are placed by the writer.              */

#define ISOCHRON_JSON_MAX_DEPTH 16

typedef struct {
    FILE *f;
    int depth;                                /**< open objects/arrays */
    unsigned char count[ISOCHRON_JSON_MAX_DEPTH]; /**< values written at each depth (0 or 1 suffices) */
    int after_key;                            /**< a key was written, its value comes next */
    char *mem;                                /**< isochron_json_open_string: the text */
    size_t memlen;
} isochron_json_t;

/** \brief Write to \p f (not closed by the writer). */
void isochron_json_init(isochron_json_t *j, FILE *f);
/** \brief Write to a growing string, taken with isochron_json_close_string. ENOMEM. */
int isochron_json_open_string(isochron_json_t *j);
/** \brief The text written since isochron_json_open_string (caller frees). */
char *isochron_json_close_string(isochron_json_t *j);

void isochron_json_object_begin(isochron_json_t *j);
void isochron_json_object_end(isochron_json_t *j);
void isochron_json_array_begin(isochron_json_t *j);
void isochron_json_array_end(isochron_json_t *j);
/** \brief The key of the next value in the open object. */
void isochron_json_key(isochron_json_t *j, const char *key);
/** \brief A string, escaped (NULL: null). */
void isochron_json_string(isochron_json_t *j, const char *s);
/** \brief A number in the one format (NaN, inf: null). */
void isochron_json_number(isochron_json_t *j, double v);
void isochron_json_int(isochron_json_t *j, long long v);
void isochron_json_bool(isochron_json_t *j, int b);
void isochron_json_null(isochron_json_t *j);
/** \brief A value that is JSON text already (e.g. one made with isochron_json_open_string). */
void isochron_json_raw(isochron_json_t *j, const char *json);
/** \brief The members of an object given as JSON text ("{...}"), written into the open object. */
void isochron_json_members(isochron_json_t *j, const char *object_json);
/** \brief An array of n numbers. */
void isochron_json_numbers(isochron_json_t *j, const double *v, int n);

/* key + value in one call */
void isochron_json_kstring(isochron_json_t *j, const char *key, const char *s);
void isochron_json_knumber(isochron_json_t *j, const char *key, double v);
void isochron_json_kint(isochron_json_t *j, const char *key, long long v);
void isochron_json_kbool(isochron_json_t *j, const char *key, int b);

/** \brief Open a record: {"schema":ISOCHRON_SCHEMA_VERSION,"type":type */
void isochron_json_record_begin(isochron_json_t *j, const char *type);
/** \brief Close the record's object, end the line and flush. */
void isochron_json_record_end(isochron_json_t *j);

/** \brief The one number format into buf ("null" for NaN/inf). */
const char *isochron_json_format_number(double v, char *buf, size_t len);

/** \brief Human-readable time ("12.3 us") and size ("64 KiB") into buf. */
const char *isochron_fmt_time(double s, char *buf, size_t len);
const char *isochron_fmt_bytes(size_t b, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* The objects every driver's context record carries (src/report/run_records.c) */

/** Where and how a run happened: the "run" object of every driver's context record. */
typedef struct {
    const char *host;              /**< rank 0's processor name */
    int nranks;
    const char *const *rank_hosts; /**< every rank's processor name (each listed once, in rank order); NULL: none */
    const char *mpi_library;       /**< the first line of MPI_Get_library_version */
    const char *mpi_version;       /**< "MAJOR.MINOR" of MPI_Get_version */
    const char *const *slurm;      /**< NULL, or key, value, key, value, ..., NULL: the Slurm job (job_id, nodelist, ...) */
    const char *const *binding;    /**< every rank's cpulist or "unbound"; NULL: unknown */
    const char *command;           /**< the command line */
} isochron_run_info_t;
/** \brief The members of the "run" object (isochron version first) into the open object of \p j. */
void isochron_report_run_members(isochron_json_t *j, const isochron_run_info_t *info);
/** \brief The "run" object as JSON text (caller frees); NULL when out of memory. */
char *isochron_report_run_json(const isochron_run_info_t *info);
/** \brief The "clock_sync" object of a context record as JSON text (caller frees; NULL when out of memory):
 *  the spec as run, the sync report's duration, rounds, budget, cut pairs and nodes, \p node_size, the
 *  largest offsets to rank 0 right after the sync (Alg. 6 measured; true: NaN without a truth) and
 *  whether the clock is tracked. */
char *isochron_report_clock_sync_json(const char *spec, const isochron_sync_report_t *rep, int node_size, double max_measured,
                                      double max_true, int tracking);

#ifdef __cplusplus
}
#endif
#endif
