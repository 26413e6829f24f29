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
    double slack;         /**< roundtime: B, start time = now + B x Bcast latency */
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

#ifdef __cplusplus
}
#endif
#endif
