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
 * Every algorithm is correct for any number of processes: no process leaves
 * before every process has entered. A barrier is a handle created
 * collectively on a communicator (it duplicates it, so its messages never
 * match the application's); RDS measures its constants at creation.
 */
#ifndef ISOCHRON_BARRIER_H
#define ISOCHRON_BARRIER_H

#include <mpi.h>
#include "isochron/clock.h"

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

#endif
