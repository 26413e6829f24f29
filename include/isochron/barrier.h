/**
 * \file isochron/barrier.h
 * \brief Barrier algorithms by name, written on MPI point-to-point, and the
 *        trial used by the barrier experiments (exit skew, cost, ring shift).
 *
 * Sources: Seidel & Davis, "Global synchronization algorithms for the Intel
 * iPSC/860" (paper 004): gsync = butterfly (sec. 3.1), PICL sync0 (sec. 3.2),
 * recursive doubling synchronization RDS with busy waits
 * w_i = (d - |i|_1)(b_s - s) (sec. 3.3) from measured b_s and s; Hunold &
 * Carpen-Amarie (paper 000, sec. V-B): the barrier's exit imbalance measured
 * on a global clock from a common (Round-Time) start; the linear, tree,
 * dissemination and double-ring algorithms are those Open MPI ships.
 *
 * The experiments (skew, shift, payoff; the cost experiment is the engine
 * measuring isochron_barrier_as_op) return their samples on rank 0; the
 * isochron-barrier driver writes them (table, JSON Lines).
 *
 * Every algorithm is correct for any number of processes: no process leaves
 * before every process has entered. A barrier is a handle created
 * collectively on a communicator (it duplicates it, so its messages never
 * match the application's); RDS measures its constants at creation.
 */
#ifndef ISOCHRON_BARRIER_H
#define ISOCHRON_BARRIER_H

#include <mpi.h>
#include <stdint.h>
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "isochron/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A barrier algorithm of the registry. */
typedef struct {
    const char *name;
    const char *description;
} isochron_barrier_info_t;

int isochron_barrier_count(void);
const isochron_barrier_info_t *isochron_barrier_info(int i);
/** ISOCHRON_OK if name is a barrier algorithm, else ENAME listing the valid ones. */
int isochron_barrier_check_name(const char *name);
/** Comma-separated names of every algorithm, for messages and --help. */
const char *isochron_barrier_names(void);

/** How a process waits for a message inside a barrier. */
enum {
    ISOCHRON_BARRIER_WAIT_AUTO = 0, /**< yield when the node is oversubscribed, else spin */
    ISOCHRON_BARRIER_WAIT_SPIN,     /**< blocking MPI_Recv / MPI_Sendrecv (the default) */
    ISOCHRON_BARRIER_WAIT_YIELD     /**< MPI_Test + sched_yield() (lets a starved peer run) */
};

typedef struct {
    int wait;           /**< ISOCHRON_BARRIER_WAIT_* (default SPIN) */
    double rds_b_s;     /**< RDS: one-way latency of a null message (s); <= 0: measure */
    double rds_s;       /**< RDS: time for the sender to return from sending it (s); < 0: measure */
    int rds_samples;    /**< RDS calibration round trips (default 1000) */
} isochron_barrier_opts_t;

void isochron_barrier_opts_default(isochron_barrier_opts_t *o);

typedef struct isochron_barrier isochron_barrier_t;

/** Collective over comm. ENAME for an unknown name (valid names listed). */
int isochron_barrier_create(const char *name, MPI_Comm comm, const isochron_barrier_opts_t *o, isochron_barrier_t **out);
/** One barrier. */
int isochron_barrier_run(isochron_barrier_t *b);
const char *isochron_barrier_name(const isochron_barrier_t *b);
/** 1 if messages are awaited by yielding (oversubscribed node or asked). */
int isochron_barrier_yields(const isochron_barrier_t *b);
void isochron_barrier_destroy(isochron_barrier_t *b);

/** RDS constants as used (measured between ranks 0 and 1, or given). */
typedef struct {
    double b_s;         /**< one-way latency of a null message: median round trip / 2 (s) */
    double s;           /**< median time for MPI_Send of a null message to return (s) */
    int samples;        /**< round trips measured (0: given by the caller) */
    int d;              /**< ceil(log2 p) */
    double wait;        /**< this rank's phase-3 busy wait w_i (s) */
    double max_wait;    /**< largest w_i over all ranks (s) */
} isochron_rds_info_t;
/** ISOCHRON_EINVAL unless b is an RDS barrier. */
int isochron_barrier_rds_info(const isochron_barrier_t *b, isochron_rds_info_t *out);

/* ------------------------------------------------------------------------ */
/* Trials for the experiments                                                 */

/** One trial: every rank waits for global time t0 plus its own delay, then
 *  enters the barrier (bar may be NULL: no synchronization), then, when
 *  shift_bytes >= 0, sends shift_bytes to its right neighbour while receiving
 *  from its left (a ring shift). Timestamps are on the global clock. */
typedef struct {
    double entry;       /**< entered the barrier */
    double exit;        /**< left the barrier (= start of the shift) */
    double shift_end;   /**< shift complete (NaN without a shift) */
    double late;        /**< > 0: already this late for t0 + delay at the first check (the trial is invalid, as in Round-Time) */
    double target;      /**< t0 + this rank's delay: entry - target is how late it actually entered */
} isochron_barrier_stamp_t;

typedef struct isochron_barrier_trial isochron_barrier_trial_t;
/** Collective. clk: the global clock; max_shift_bytes: largest shift (buffers). */
int isochron_barrier_trial_create(MPI_Comm comm, isochron_clock_t *clk, long max_shift_bytes, isochron_barrier_trial_t **out);
void isochron_barrier_trial_destroy(isochron_barrier_trial_t *t);
/** 1 on every rank if some node of the trial's communicator runs more ranks than CPUs. */
int isochron_barrier_trial_oversubscribed(const isochron_barrier_trial_t *t);
/** A common start time, slack seconds from now, agreed from rank 0's global clock. */
int isochron_barrier_trial_start_time(isochron_barrier_trial_t *t, double slack, double *t0);
/** Run one trial; stamps (p entries, rank order) are filled on rank 0 only. */
int isochron_barrier_trial_run(isochron_barrier_trial_t *t, isochron_barrier_t *bar, double t0, double delay, long shift_bytes, isochron_barrier_stamp_t *stamps);

/* ------------------------------------------------------------------------ */
/* The barrier as an operation of the benchmark engine (the cost experiment) */

/** \brief Fill \p op with an operation "barrier:<name>" that runs \p b once per
 *  repetition (flags USER | NODATA), and clear \p ctx with ctx->user = \p b:
 *  measure the two together (isochron_bench_measure(bench, op, ctx, ...)).
 *  The operation finds its barrier in the context, so any number of barrier
 *  operations may be in use at once; op's name is kept in \p b (valid while
 *  \p b lives). */
void isochron_barrier_as_op(isochron_barrier_t *b, isochron_op_t *op, isochron_op_ctx_t *ctx);

/* ------------------------------------------------------------------------ */
/* Experiments (paper 004, sec. 4; paper 000, sec. V-B, Fig. 8)               */

typedef struct {
    double slack;        /**< common start = rank 0's global clock now + slack (s); default 1 ms */
    double spread;       /**< shift, payoff: each rank arrives after a random delay in [0, spread] (s); default 20 us */
    double skew_spread;  /**< skew: the same for the skew experiment (0: all start together, Fig. 8); default 0 */
    double tolerance;    /**< a trial is invalid when a rank enters later than this after its start (s); default 10 us */
    uint64_t seed;       /**< seed of the arrival delays (combined with the rank); default 1 */
    isochron_track_t *track; /**< clock tracking: refreshed when due between rounds of trials (never inside
                                  one), and the clock's error taken after every round; NULL: none */
} isochron_barrier_exp_opts_t;

void isochron_barrier_exp_opts_default(isochron_barrier_exp_opts_t *o);

typedef struct isochron_barrier_exp isochron_barrier_exp_t;

/** \brief Collective. clk: the global clock; max_shift_bytes: the largest shift to run. */
int isochron_barrier_exp_create(MPI_Comm comm, isochron_clock_t *clk, long max_shift_bytes, const isochron_barrier_exp_opts_t *o,
                                isochron_barrier_exp_t **out);
void isochron_barrier_exp_destroy(isochron_barrier_exp_t *e);
/** 1 on every rank if some node of the communicator runs more ranks than CPUs. */
int isochron_barrier_exp_oversubscribed(const isochron_barrier_exp_t *e);

/** The valid trials of one configuration (filled on rank 0; counts on every rank). */
typedef struct {
    char name[32];      /**< barrier name, or "clock" (start at one instant, no barrier) / "none" (no barrier) */
    long bytes;         /**< shift size (-1: no shift) */
    int trials;         /**< trials run (without warm-up) */
    int valid;          /**< trials where no rank was late */
    double *value;      /**< skew: exit skew (last exit - first exit); shift: shift cost (first exit -> last shift end) */
    double *cost;       /**< skew: barrier cost (common start -> last exit); NULL for shift */
    double reference;   /**< shift: median shift cost of "clock" (the concurrent reference); NaN for skew */
    int successes;      /**< shift: valid trials with value <= (1 + threshold) x reference */
    double clock_bound; /**< largest estimated clock error bound over the rounds of trials (s); NaN without tracking */
    double clock_true;  /**< largest true clock error over the rounds when all ranks share a kernel (s); NaN otherwise */
    double clock_bound_hard; /**< largest hard bound over the rounds (s; isochron_track_errors_t) */
    int clock_bound_is_hard; /**< 1 if clock_bound was the hard bound in some round */
} isochron_barrier_samples_t;

void isochron_barrier_samples_free(isochron_barrier_samples_t *s, int n);

/** \brief Exit skew: \p calls calls of each of the nb barriers from a common
 *  start (plus skew_spread delays), interleaved call by call. out: nb entries. Collective. */
int isochron_barrier_exp_skew(isochron_barrier_exp_t *e, isochron_barrier_t **bars, int nb, int calls, isochron_barrier_samples_t *out);

/** \brief Ring shift of \p bytes after each barrier, arrivals spread: out[0] is
 *  "clock" (the concurrent reference), out[1] "none", out[2 + i] bars[i]
 *  (nb + 2 entries), \p trials each, interleaved. Success: cost <= (1 + threshold) x reference. Collective. */
int isochron_barrier_exp_shift(isochron_barrier_exp_t *e, isochron_barrier_t **bars, int nb, long bytes, int trials, double threshold,
                               isochron_barrier_samples_t *out);

/** When synchronizing (RDS) before a shift pays off (paper 004, sec. 4.3). */
typedef struct {
    int nsizes;
    size_t *sizes;
    double *reference;  /**< median of the concurrent shift (global-clock start), per size (s) */
    double *synced;     /**< median of RDS + shift from the first arrival (s) */
    double *unsynced;   /**< median of the shift alone from the first arrival (s) */
    double a, b_l;      /**< least-squares reference = a m + b_l over the sizes (s/B, s) */
    double b_s;         /**< RDS's b_s (s) */
    int d;              /**< ceil(log2 p) */
    double model_min_bytes;    /**< the paper's m >= (2 d b_s - b_l/2) / a, rounded up; NaN unless a > 0 */
    double measured_min_bytes; /**< smallest size where synced < unsynced; NaN if none */
    int trials;
    double clock_bound, clock_true; /**< as in isochron_barrier_samples_t, over all sizes */
    double clock_bound_hard;        /**< as in isochron_barrier_samples_t, over all sizes */
    int clock_bound_is_hard;
} isochron_barrier_payoff_t;

/** \brief Per size: the concurrent shift, RDS then the shift, the shift alone
 *  (both from spread arrivals), \p trials each, interleaved; then the fit and
 *  the model. Filled on rank 0. rds: an "rds" barrier. Collective. */
int isochron_barrier_exp_payoff(isochron_barrier_exp_t *e, isochron_barrier_t *rds, const size_t *sizes, int ns, int trials,
                                isochron_barrier_payoff_t *out);
void isochron_barrier_payoff_free(isochron_barrier_payoff_t *p);

/** \brief Least squares y = a x + b over the finite y (a NaN unless 2 distinct x). */
void isochron_barrier_line_fit(const double *x, const double *y, int n, double *a, double *b);

#ifdef __cplusplus
}
#endif
#endif
