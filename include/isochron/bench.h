/**
 * \file isochron/bench.h
 * \brief The benchmark engine: measure one operation at one point (size,
 *        root, ...) with a process-synchronization scheme, a timing method and
 *        adaptive repetitions, on a global clock.
 *
 * Sources: Hunold & Carpen-Amarie (paper 000, sec. V, Alg. 5 Round-Time;
 * window and barrier schemes), MPIBlib (paper 001, sec. 2-3: global, maximum
 * and root timing, the de Supinski-Karonis individual-task method, isolation
 * of repetitions, min/max repetitions with a Student's t error target).
 *
 * Every repetition is timestamped on every rank on the global clock: start
 * just before and end just after the operation. A timing method turns the
 * per-rank timestamps of one repetition into one run time; a scheme decides
 * when each repetition starts and which repetitions are valid. Statistics are
 * computed over valid repetitions only; a point with none says so.
 */
#ifndef ISOCHRON_BENCH_H
#define ISOCHRON_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include "isochron/barrier.h"
#include "isochron/clock.h"
#include "isochron/ops.h"
#include "isochron/stats.h"
#include "isochron/sync.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Registries: schemes, timing methods                                       */

/** isochron_bench_opts_t.late_cap: chosen by the engine (1.0 when ranks outnumber cores, else 0.5). */
#define ISOCHRON_LATE_CAP_AUTO (-1.0)

typedef struct {
    const char *name;
    const char *description;
} isochron_named_t;

int isochron_scheme_count(void);
const isochron_named_t *isochron_scheme_get(int i);
int isochron_method_count(void);
const isochron_named_t *isochron_method_get(int i);
/** Timing choices (--timing, --list-timings): auto, origin, global, loop (loop:K gives K). */
int isochron_timing_count(void);
const isochron_named_t *isochron_timing_get(int i);

/* The barrier scheme takes any algorithm of isochron/barrier.h by name. */

/* ------------------------------------------------------------------------ */
/* Options                                                                    */

/* The defaults: one source for isochron_bench_opts_default and the drivers' option tables
 * (their --help and man pages show ISOCHRON_XSTR of the same macro). */
#define ISOCHRON_XSTR_(x) #x
#define ISOCHRON_XSTR(x) ISOCHRON_XSTR_(x)
#define ISOCHRON_BENCH_DEFAULT_SCHEME "roundtime"
#define ISOCHRON_BENCH_DEFAULT_METHOD "global"
#define ISOCHRON_BENCH_DEFAULT_TIMING "auto"
#define ISOCHRON_BENCH_DEFAULT_BARRIER "mpi"
#define ISOCHRON_BENCH_DEFAULT_WARMUP 2
#define ISOCHRON_BENCH_DEFAULT_MIN_REPS 10
#define ISOCHRON_BENCH_DEFAULT_MAX_REPS 1000
#define ISOCHRON_BENCH_DEFAULT_MAX_ATTEMPTS 0
#define ISOCHRON_BENCH_DEFAULT_REL_CI 0.05
#define ISOCHRON_BENCH_DEFAULT_CI_LEVEL 0.95
#define ISOCHRON_BENCH_DEFAULT_BUDGET 1
#define ISOCHRON_BENCH_DEFAULT_WINDOW 0
#define ISOCHRON_BENCH_DEFAULT_SLACK_BCASTS 4
#define ISOCHRON_BENCH_DEFAULT_RETRIES 3
#define ISOCHRON_BENCH_DEFAULT_RETRY_BELOW 0.9
#define ISOCHRON_BENCH_DEFAULT_VALIDATE 1
#define ISOCHRON_BENCH_DEFAULT_CACHE_BYTES 0
#define ISOCHRON_BENCH_DEFAULT_INJECT_SLOWDOWN 0

typedef struct {
    char scheme[16];      /**< barrier | window | roundtime | none */
    char method[16];      /**< global | max | root | ack | overlap */
    char timing[16];      /**< how one repetition is timed (isochron_timing_get): auto (default) | origin | global |
                               loop | loop:K; "global" keeps --method as it is, the others see isochron_bench_timing */
    char barrier[24];     /**< barrier algorithm for the barrier scheme (default "mpi") */
    int barrier_twice;    /**< two barriers before each repetition */
    int warmup;           /**< untimed repetitions first */
    int min_reps, max_reps;
    double rel_ci;        /**< stop when the CI's half-width <= rel_ci x its statistic (0: run max_reps) */
    int ci_mean;          /**< 0 (default): the CI of the stop rule is the median's (distribution-free, order
                               statistics), robust to the heavy tails of a busy machine; 1: the mean's (Student's t) */
    double ci_level;      /**< confidence level, e.g. 0.95 */
    double budget;        /**< seconds per point (0: none); roundtime: the time slice */
    double window;        /**< window scheme: window length (0: derived from a measured estimate) */
    double slack;         /**< roundtime: B, start time = now + B x Bcast latency (isochron-bench --slack-bcasts) */
    double late_cap;      /**< roundtime: the late-start tolerance widens from measured lateness up to
                               late_cap x the median run time, never further (default ISOCHRON_LATE_CAP_AUTO:
                               1.0 when ranks outnumber cores, else 0.5; see scheme_roundtime.c) */
    int validate;         /**< 0 none, 1 first and last repetition, 2 every repetition */
    int raw;              /**< keep per-repetition, per-rank timestamps */
    size_t cache_bytes;   /**< > 0: touch this many bytes between repetitions (clears caches) */
    int nq;               /**< quantiles to report */
    double q[ISOCHRON_STATS_MAXQ];
    int max_attempts;     /**< repetitions tried at most, valid or not (0, the default: 4 x max_reps): max_reps counts
                               valid repetitions (Alg. 5), this cap ends a point where too many are invalid */
    int track;            /**< 1 (default): keep the clock true with clock tracking (isochron/sync.h): a refresh
                               when due before each point and between batches of repetitions, never inside one;
                               the engine's own tracker unless isochron_bench_use_tracker gave one. 0: off */
    int rotate_root;      /**< 1: a rooted operation changes its root every repetition (rank k mod p at repetition k,
                               warm-up included) inside one point, every root set up before the first repetition
                               (MPIBlib, paper 001 sec. 3); the point's root is reported as -1. Refused with the
                               root and ack methods, whose correction is measured for one root */
    int retries;          /**< a point whose valid share ends below retry_below is measured again from a fresh start
                               (set-up, warm-up, the scheme's Bcast latency measured anew), at most this many times
                               (default 3, at most ISOCHRON_MAX_RETRIES; 0: never): a burst of outside load that
                               invalidated a stretch of repetitions is not the operation's. The last try is the result;
                               the record keeps each discarded try's share (isochron_point_t.retry_share). A run retries
                               while its retried tries are fewer than 12 + 0.25 x the points measured before, so a
                               machine busy throughout costs about 1.25x the time */
    double retry_below;   /**< the valid share under which a point is retried (default 0.9; 0: never) */
    double inject_slowdown; /**< testing knob (0: off): after the operation each rank busy-waits this fraction of the
                               operation's own local duration, inside the timed region, so a run is slower by a known
                               factor (checks that `isochron compare` detects a real slowdown; recorded in the context) */
} isochron_bench_opts_t;

/** \brief Defaults: roundtime/global, 10..1000 reps, 5 % at 95 %, 1 s per point, validate first+last. */
void isochron_bench_opts_default(isochron_bench_opts_t *o);
/** \brief Check names and ranges; EINVAL/ENAME with the valid choices. */
int isochron_bench_opts_check(const isochron_bench_opts_t *o);

/** \brief The stop rule on the confidence interval: 1 if NV valid repetitions summarized in S meet the
 *         target of O (rel_ci > 0, nv >= min_reps, and the CI half-width of the median, or of the mean with
 *         ci_mean, at most rel_ci x |median| or |mean|), else 0. The engine stops a point on it, and a union
 *         of passes is judged by it. */
int isochron_bench_ci_met(const isochron_bench_opts_t *o, const isochron_summary_t *s, int nv);

/* ------------------------------------------------------------------------ */
/* Results                                                                    */

enum { ISOCHRON_MAX_RETRIES = 4 };
enum { ISOCHRON_STOP_CI = 1, ISOCHRON_STOP_MAXREPS = 2, ISOCHRON_STOP_BUDGET = 3, ISOCHRON_STOP_ATTEMPTS = 4 };

typedef struct {
    char op[40], family[24];
    size_t bytes;
    int root, in_place, nprocs;
    char dtype[12], redop[8];
    int reps;             /**< repetitions measured (after warm-up) */
    int valid;            /**< of which valid */
    int stop;             /**< ISOCHRON_STOP_* */
    isochron_summary_t s; /**< over valid repetitions, seconds */
    double start_spread;  /**< median over valid repetitions of (last start - first start), global clock */
    double correction;    /**< root: confirmation time subtracted; ack: mean acknowledgement time (s) */
    double window;        /**< window scheme: window used (s); roundtime: Bcast latency estimate */
    int validated;        /**< repetitions whose data was checked */
    double overlap;       /**< overlap method: fraction of the communication hidden behind computation, NaN otherwise */
    double t_comm;        /**< overlap method: median post+wait time without computation (s) */
    double t_comp;        /**< overlap method: busy computation inserted between post and wait (s) */
    double elapsed;       /**< wall time the point took on rank 0, set-up to summary (s) */
    int active_ranks;     /**< ranks that take part in the operation (2 for ISOCHRON_OP_PAIR operations, else nprocs) */
    /* raw data when opts.raw (rank 0): reps x nprocs start/end, per-rep time and validity */
    int raw_n;
    double *raw_start, *raw_end, *raw_time;
    char *raw_valid;
    /* the clock at the end of the point (NaN without tracking / truth) */
    double clock_bound;   /**< tracker's estimated error bound, largest over the ranks (s) */
    double clock_true;    /**< true largest |offset| to rank 0 when all ranks share a kernel (s) */
    double clock_bound_stat, clock_bound_hard; /**< both bounds (isochron_track_errors_t), largest over the ranks (s) */
    int clock_bound_is_hard; /**< 1 if clock_bound is the hard one (the statistical premises failed, or it is smaller) */
    double slack;         /**< roundtime: the slack B the point ended with (NaN for other schemes) */
    double late_tolerance;/**< roundtime: the widest tolerance of the point: how late a rank could start and the repetition stay valid (s) */
    int adapted;          /**< roundtime: times the slack or the tolerance was widened (over 10 % of the last 32 repetitions invalid by that rule) */
    /* throughput operations (op->moved set): the statistics stay times per run; rate = moved / time */
    char unit[8];         /**< "B/s" for throughput operations, "s" for the others */
    double moved_bytes;   /**< payload bytes one run moves, all senders (0 for "s") */
    double moved_msgs;    /**< messages one run carries, acknowledgements not counted (0 for "s") */
    int msg_window;       /**< messages per window and sender (0 for "s") */
    int threads;          /**< ISOCHRON_OP_THREADED operations: threads per rank (0 for the others) */
    int partitions;       /**< ISOCHRON_OP_PARTITIONED operations: partitions per message (0 for the others) */
    int retries;          /**< tries discarded because their valid share was below opts.retry_below */
    double retry_share[ISOCHRON_MAX_RETRIES]; /**< the valid share of each discarded try, in order */
    /* how a repetition was timed, and what the timing can resolve */
    char timing[12];      /**< "origin" (local difference at the origins), "loop" (loop_k back-to-back calls), or the
                               method's name ("global", "max", "root", "ack", "overlap") when it timed one call */
    char loop_of[12];     /**< timing "loop": how the loop was timed ("origin" or the method's name); "" otherwise */
    int timing_user;      /**< 1: the user named the timing (--timing), 0: chosen by the engine (auto) */
    int loop_k;           /**< calls per repetition (>= 1); every time statistic is per call */
    double resolution;    /**< per call: timer granularity + read cost, plus the clock bound where the timing uses the
                               global clock across ranks, all divided by loop_k (s) */
    double clock_used;    /**< per call: the clock bound the timing depends on (clock_bound / loop_k when it reads the
                               global clock across ranks, 0 when it takes local differences) (s) */
} isochron_point_t;

/** \brief 1 if the point's median is below its resolution (the table shows "<= resolution"). */
int isochron_point_below_resolution(const isochron_point_t *p);
/** \brief 1 if (the median's CI half-width + clock_used) > 10 % of the median (a flag with the resolution). */
int isochron_point_uncertain(const isochron_point_t *p);

void isochron_point_free(isochron_point_t *p);
/** \brief The point's clock error (clock_bound, clock_true, clock_bound_stat, clock_bound_hard,
 *  clock_bound_is_hard) from the tracker's (isochron_track_errors), as the engine states it at a point's end;
 *  for a measurement made outside the engine (isochron-shmem's points). Local. */
void isochron_point_clock_errors(isochron_point_t *p, const isochron_track_errors_t *te);

/* ------------------------------------------------------------------------ */
/* Engine                                                                     */

typedef struct isochron_bench isochron_bench_t;

/**
 * \brief An engine over \p comm measuring on \p global (a synchronized
 * clock, see isochron/sync.h). Collective. Internal traffic uses a duplicate
 * of \p comm; the measured operation runs on the communicator given per point.
 */
int isochron_bench_create(MPI_Comm comm, isochron_clock_t *global, const isochron_bench_opts_t *opts, isochron_bench_t **out);
void isochron_bench_destroy(isochron_bench_t *b);
/**
 * \brief Track the clock with \p track (created by the caller on the
 * engine's communicator, e.g. to share it with other work) instead of the
 * engine's own. The engine does not destroy it. Local.
 */
void isochron_bench_use_tracker(isochron_bench_t *b, isochron_track_t *track);
/** \brief The tracker in use (NULL before the first point or with tracking off). */
isochron_track_t *isochron_bench_tracker(const isochron_bench_t *b);
/** \brief 1 if some node runs more ranks than it has CPUs (waiting is then polite). */
int isochron_bench_oversubscribed(const isochron_bench_t *b);
/** The late-start cap the engine uses (ISOCHRON_LATE_CAP_AUTO resolved). */
double isochron_bench_late_cap(const isochron_bench_t *b);

/**
 * \brief Measure \p op with \p ctx (comm, bytes, dtype, op, root, in_place set
 * by the caller; ctx->comm must be the engine's communicator or a
 * sub-communicator of it on which all its ranks call this). Collective over
 * the engine's communicator. Fills \p res on every rank (raw data on rank 0).
 * Returns ISOCHRON_EVALIDATE if the operation delivered wrong data.
 */
int isochron_bench_measure(isochron_bench_t *b, const isochron_op_t *op, isochron_op_ctx_t *ctx, isochron_point_t *res);

/** \brief 1 if the last isochron_bench_measure failed in the operation's set-up (its own, or a rotated root's),
 *  with the outcome agreed on every rank before anything of the point ran: the communicator is still usable and
 *  the point can be skipped (isochron_sweep_run does). 0 otherwise. Local. */
int isochron_bench_setup_failed(const isochron_bench_t *b);

/** \brief A point of the point-to-point experiments (all-pairs, point-to-two): \p reps round trips
 *  timed by rank \p timer with MPI_Wtime, no global clock involved; \p active ranks take part in one
 *  experiment. Every field a scheme or a clock would set is NaN or 0. Local. */
void isochron_point_p2p(isochron_point_t *pt, const char *op, size_t bytes, int timer, int nprocs, int reps, const isochron_summary_t *s,
                        int active);

/* ------------------------------------------------------------------------ */
/* Passes (isochron-bench --passes P)                                         */
/* A run measures every point P times, one pass over the whole list after another, and reports the
 * union of a point's passes: where the machine's state changes within seconds, a point measured in
 * one burst of a few ms samples one state, and launches differ by 25-35 % (CV of the medians);
 * repetitions spread over the run average the states. Each pass gets 1/P of the repetitions,
 * attempts and budget, and stops at a CI of sqrt(P) x rel_ci (P such passes give about rel_ci
 * together); the union's statistics are computed from its valid repetitions, and its stop is "ci"
 * when the union meets rel_ci, else the last pass's reason. */

/** \brief 0 if \p passes (1..1000) can split \p o: each pass's CI target sqrt(P) x rel_ci below 1, and
 *  2 x P repetitions at most max_reps (a pass measures at least 2). EINVAL naming --passes otherwise. */
int isochron_bench_passes_check(const isochron_bench_opts_t *o, int passes);
/** \brief The options of one of \p passes passes of \p o (raw on: the union needs every repetition). */
void isochron_bench_pass_opts(const isochron_bench_opts_t *o, int passes, isochron_bench_opts_t *pass);

typedef struct isochron_passes isochron_passes_t;
/** \brief Unions of \p npoints points under the user's options \p o (copied). ENOMEM. Local (rank 0 of the engine). */
int isochron_passes_create(int npoints, const isochron_bench_opts_t *o, isochron_passes_t **out);
/** \brief Add one pass's result of point \p i (rank 0: its raw data); the raw arrays are copied. ENOMEM, EINVAL. */
int isochron_passes_add(isochron_passes_t *a, int i, const isochron_point_t *pt);
/** \brief The union of point \p i's passes so far, its statistics computed (raw data kept only with o->raw).
 *  Valid until isochron_passes_release(a, i) or destroy. ENOMEM, EINVAL. */
int isochron_passes_finish(isochron_passes_t *a, int i, const isochron_point_t **out);
/** \brief Free point \p i's union (after it was reported). */
void isochron_passes_release(isochron_passes_t *a, int i);
void isochron_passes_destroy(isochron_passes_t *a);

/* ------------------------------------------------------------------------ */
/* The sweep: every point of a run, in order (src/bench/sweep.c)             */

/** What a sweep measures and how (the points are every operation x size x root, in that order). */
typedef struct {
    const isochron_op_t *const *ops; /**< the operations, in order */
    int nops;
    const size_t *sizes;             /**< the message sizes (bytes), in order */
    int nsizes;
    isochron_op_ctx_t ctx;           /**< every point's context: dtype, op, root, in_place, window, threads, partitions,
                                          thread_level (bytes, and root with all_roots, are set per point) */
    int all_roots;                   /**< rooted operations: every root of the communicator its own point */
    int passes;                      /**< >= 1: every point measured in this many passes over the whole list, each with
                                          isochron_bench_pass_opts's share; their union is the result */
    double resync;                   /**< seconds after which the clocks are synchronized again between points (0: never) */
    int allpairs, p2t;               /**< the pairwise experiments, measured before the points (isochron/ops.h) */
    int p2p_mode;                    /**< allpairs: ISOCHRON_P2P_PARALLEL or _SEQUENTIAL */
} isochron_sweep_opts_t;

/** The clocks a sweep measures on; a resync replaces global and track (the sweep destroys the old ones, the caller the last). */
typedef struct {
    const isochron_sync_spec_t *spec; /**< resync: the spec synchronized with (NULL: no resync) */
    isochron_clock_t *base;           /**< the base clock the spec ran over */
    isochron_clock_t *global;         /**< the synchronized clock */
    isochron_track_t *track;          /**< a tracker on the whole communicator (NULL: the engine tracks on its own, or not) */
    int track_on;                     /**< make a new tracker after a resync (only where track was given) */
} isochron_sweep_clock_t;

/** A point set up could not make, skipped (the run then ends incomplete). */
typedef struct {
    char op[64];
    size_t bytes;
    int root;
    int code;        /**< the error (ISOCHRON_EUNSUPPORTED, ISOCHRON_EMPI ...) */
    char why[480];   /**< the library's message */
} isochron_sweep_skip_t;

/** One measured point or pass (rank 0). */
typedef struct {
    const isochron_point_t *point; /**< the result (final: the union of the passes) */
    int index, total;              /**< the point's place in the list (0-based) and the list's length */
    int pass, passes;              /**< this pass (0-based) and the number of passes */
    int final;                     /**< 1: the point's result (the last pass) */
    double eta;                    /**< seconds the rest of the sweep will take, at the pace so far */
    int done;                      /**< points completed so far, this one included when final */
} isochron_sweep_step_t;

/** What a sweep calls; every member may be NULL. */
typedef struct {
    void (*begin)(void *arg, const isochron_op_t *op, size_t bytes); /**< every rank measuring: before a point (e.g. arm a watchdog) */
    void (*end)(void *arg);                                          /**< every rank measuring: after it */
    void (*point)(void *arg, const isochron_sweep_step_t *st);       /**< rank 0: a point or pass measured */
    void (*skipped)(void *arg, const isochron_sweep_skip_t *sk);     /**< rank 0: a point skipped */
    void (*failed)(void *arg, const char *what, size_t bytes, const char *why); /**< rank 0: the failure that ended the sweep */
    void (*pairs)(void *arg, const char *mode, size_t bytes, int p, int reps, double wall, const isochron_pair_t *pr); /**< rank 0 */
    void (*triplets)(void *arg, size_t bytes, int p, int reps, double wall, const isochron_triplet_t *tr, int n);      /**< rank 0 */
    void *arg;
} isochron_sweep_cb_t;

/** How a sweep ended (the same on every rank, skips on rank 0). */
typedef struct {
    int done;                    /**< points (and pairwise sizes) completed */
    int measured;                /**< points measured, over all passes */
    int failed;                  /**< 1 if a failure ended the sweep (the communicator may be unusable) */
    int nskipped;                /**< points skipped */
    isochron_sweep_skip_t *skipped; /**< rank 0: the skipped points (freed by isochron_sweep_destroy) */
    double wall;                 /**< seconds */
} isochron_sweep_result_t;

/** \brief The defaults of a sweep (isochron-bench's): every operation's own datatype (MPI_DATATYPE_NULL), MPI_SUM,
 *  one pass, no resync, parallel pairwise mode, no operations or sizes yet (isochron_sweep_select, sizes). A
 *  zeroed struct is not a valid sweep (its datatype is no MPI datatype): start from this. */
void isochron_sweep_opts_default(isochron_sweep_opts_t *so);
/**
 * \brief The operations of a sweep from a comma-separated list of names (isochron-bench --ops): an operation
 * of \p ops by name, "collectives" (every blocking collective, in the registry's order), "allpairs" and
 * "p2t" (the pairwise experiments: so->allpairs, so->p2t). Sets so->ops = \p list (room for \p max) and
 * so->nops. \return ISOCHRON_OK; EPARSE for an empty list or element, EINVAL for more than max operations, ENAME
 * for an unknown name (the valid ones listed).
 */
int isochron_sweep_select(const isochron_ops_t *ops, const char *names, const isochron_op_t **list, int max, isochron_sweep_opts_t *so);
/** \brief The thread level to start MPI with (before MPI_Init: needs no MPI) for the operations \p names selects
 *  (isochron_sweep_select over the built-in registry): MPI_THREAD_MULTIPLE if one is threaded (latency_mt),
 *  else MPI_THREAD_SINGLE (also for a list that does not parse: the select after MPI started says why). */
int isochron_sweep_thread_level(const char *names);
/**
 * \brief Is every point of \p so possible, before anything runs: process counts, the thread level \p provided
 * (MPI_Query_thread) for threaded operations, operations this MPI library lacks, datatype and reduction, sizes
 * in whole elements (and partitions), and the memory each point needs within what a process of \p comm may use
 * (isochron_op_memory_available) at \p nprocs ranks. Collective over \p comm (the memory query).
 * \return ISOCHRON_OK or an error whose message names the point and the remedy.
 */
int isochron_sweep_check(const isochron_sweep_opts_t *so, const isochron_bench_opts_t *bo, MPI_Comm comm, int nprocs, int provided);
typedef struct isochron_sweep isochron_sweep_t;
/**
 * \brief A sweep over the first \p nprocs ranks of \p world (the others join its agreements), measuring with
 * \p bo on \p clk (copied; its clocks stay the caller's). Creates the engine with bo's pass share (resolving
 * scheme, method, timing once). Collective over \p world.
 */
int isochron_sweep_create(MPI_Comm world, int nprocs, const isochron_sweep_opts_t *so, const isochron_bench_opts_t *bo,
                          const isochron_sweep_clock_t *clk, isochron_sweep_t **out);
/** \brief The engine (NULL on ranks outside the measured communicator). */
isochron_bench_t *isochron_sweep_bench(const isochron_sweep_t *s);
/** \brief 1 if some node is oversubscribed (the same on every rank of world). */
int isochron_sweep_oversubscribed(const isochron_sweep_t *s);
/** \brief The number of points (operations x sizes x roots), without the pairwise experiments. */
int isochron_sweep_points(const isochron_sweep_t *s);
/**
 * \brief Run the sweep: the pairwise experiments, then every point in order, pass by pass, synchronizing again
 * after so->resync. A point whose set-up failed on every rank alike (isochron_bench_setup_failed, or
 * ISOCHRON_EUNSUPPORTED) is skipped in every pass and listed in res->skipped; any other failure ends the
 * sweep (res->failed). Collective over world. \return ISOCHRON_OK (see res), or ENOMEM.
 */
int isochron_sweep_run(isochron_sweep_t *s, const isochron_sweep_cb_t *cb, isochron_sweep_result_t *res);
/** \brief The clocks now (after resyncs): the caller destroys global and track when done. */
void isochron_sweep_clock(const isochron_sweep_t *s, isochron_sweep_clock_t *clk);
void isochron_sweep_destroy(isochron_sweep_t *s);

/* ------------------------------------------------------------------------ */
/* Start-up (isochron-bench --init, --startup)                                */
/* How MPI is started, and what it cost (as osu_init and osu_hello measure it): the world model
 * (MPI_Init_thread, MPI_COMM_WORLD) or the sessions model of MPI 4.0 (MPI_Session_init, the group of
 * the process set "mpi://WORLD", MPI_Comm_create_from_group), then the first MPI_Barrier and
 * MPI_Allreduce on the world communicator (the first collectives set up connections). Each phase is
 * timed on each rank's own CLOCK_MONOTONIC: no global clock exists yet. */

enum { ISOCHRON_INIT_WORLD = 0, ISOCHRON_INIT_SESSIONS = 1 };
enum { ISOCHRON_STARTUP_MAXPHASES = 6 };

typedef struct {
    int init;             /**< ISOCHRON_INIT_* */
    int ranks;
    int nphases;
    const char *what[ISOCHRON_STARTUP_MAXPHASES]; /**< "MPI_Init", ..., "first MPI_Allreduce" */
    const char *key[ISOCHRON_STARTUP_MAXPHASES];  /**< JSON keys: "init_s", ..., "first_allreduce_s" */
    double self[ISOCHRON_STARTUP_MAXPHASES];      /**< this rank's durations (s) */
    double min[ISOCHRON_STARTUP_MAXPHASES], mean[ISOCHRON_STARTUP_MAXPHASES], max[ISOCHRON_STARTUP_MAXPHASES]; /**< over ranks (isochron_startup_summarize) */
} isochron_startup_t;

/** MPI as started by isochron_world_init. */
typedef struct {
    int init;             /**< ISOCHRON_INIT_* */
    MPI_Comm comm;        /**< MPI_COMM_WORLD, or the communicator made from "mpi://WORLD" */
    int provided;         /**< thread level provided */
    void *session;        /**< the MPI_Session (sessions model; the library owns it) */
    isochron_startup_t startup; /**< this rank's phases */
} isochron_world_t;

/** \brief "world" or "sessions" into *init; ENAME with the valid names. */
int isochron_init_find(const char *name, int *init);
const char *isochron_init_name(int init);
/** \brief ISOCHRON_OK if this build of isochron and the MPI library it runs on have sessions, else
 *  EUNSUPPORTED with one sentence naming the MPI library and its version. Callable before MPI starts. */
int isochron_sessions_available(void);
/** \brief Start MPI the way \p init says, asking for \p thread_level, then run the first barrier and
 *  allreduce on w->comm, timing every phase into w->startup. EUNSUPPORTED (sessions missing, nothing
 *  started), EMPI. Collective over the launched processes. */
int isochron_world_init(int init, int *argc, char ***argv, int thread_level, isochron_world_t *w);
/** \brief Free the world communicator and end MPI (MPI_Finalize, or MPI_Session_finalize). EMPI. */
int isochron_world_finalize(isochron_world_t *w);
/** \brief The start-up phases' min, mean and max over the ranks of w->comm (valid on rank 0) into
 *  *out. Collective. */
int isochron_startup_summarize(const isochron_world_t *w, isochron_startup_t *out);

#ifdef __cplusplus
}
#endif
#endif
