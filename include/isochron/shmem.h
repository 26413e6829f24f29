/**
 * \file isochron/shmem.h
 * \brief OpenSHMEM: the SKaMPI-OpenSHMEM measurement set (paper 002, Coti &
 *        Malony) on isochron's clock, statistics and point records, and the
 *        OpenSHMEM transport of the clock synchronization.
 *
 * Built only when an OpenSHMEM is found (libisochron_shmem; Open MPI's oshmem
 * here). The program is hybrid: MPI_Init then shmem_init, MPI rank = PE; the
 * library's control traffic (agreement, reductions of results) is MPI on its
 * own duplicate of MPI_COMM_WORLD; what is measured is OpenSHMEM only.
 *
 * Measurements are a registry by name (isochron_shmem_op_find). One
 * repetition of a measurement runs `iters` operations and yields one time per
 * operation (seconds) on each PE that measures; the repetition's value is the
 * largest over those PEs. Repetitions continue until the Student's t interval
 * of the median (or the mean) is within rel_ci of it (at least min_reps, at most max_reps, or
 * the budget). Results are isochron_point_t records (isochron/bench.h) so the
 * reporters of isochron/report.h write them.
 *
 * Loop timing (paper 002 sec. 3.3, Alg. 6-9): ISOCHRON_SHMEM_LOOP_OUTSIDE (the
 * default, least disturbed: one timer around the loop; a part of an iteration
 * is the loop minus the other part measured beforehand, Alg. 6/9) or
 * ISOCHRON_SHMEM_LOOP_INSIDE (timers around each timed part, Alg. 7/8). The
 * four variants of the paper's sec. 4.1 comparison are also measurements of
 * their own (loop_outside, loop_inside, loop_quiet, loop_subtract).
 */
#ifndef ISOCHRON_SHMEM_H
#define ISOCHRON_SHMEM_H

#include <mpi.h>
#include <stddef.h>
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "isochron/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Transport of the clock synchronization                                    */

/**
 * \brief The OpenSHMEM transport of the sync's timestamp exchanges: the value
 * is put into the peer's symmetric slot for this PE, a fence orders it before
 * the sequence number put after it, and the receiver waits for the sequence
 * number (shmem_long_test polled up to \p timeout seconds, then an error: it
 * never hangs). Collective over MPI_COMM_WORLD after shmem_init (maps MPI
 * ranks to PEs). EUNSUPPORTED if the library lacks the point-to-point
 * synchronization routines.
 */
int isochron_shmem_xport_create(double timeout, isochron_xport_t **out);
void isochron_shmem_xport_destroy(isochron_xport_t *x);

/* ------------------------------------------------------------------------ */
/* Measurements                                                               */

enum { ISOCHRON_SHMEM_LOOP_OUTSIDE = 0, ISOCHRON_SHMEM_LOOP_INSIDE = 1 };
/** \brief "outside" | "inside" (ENAME lists them). */
int isochron_shmem_loop_find(const char *name, int *loop);
const char *isochron_shmem_loop_name(int loop);

/** Flags of a measurement. */
enum {
    ISOCHRON_SHMEM_SIZED = 1u << 0,   /**< uses the message size */
    ISOCHRON_SHMEM_MIN2 = 1u << 1,    /**< needs at least 2 PEs */
    ISOCHRON_SHMEM_ELEM8 = 1u << 2,   /**< size must be a multiple of 8 (64-bit collectives) */
    ISOCHRON_SHMEM_LOOPED = 1u << 3,  /**< --loop applies */
    ISOCHRON_SHMEM_TPUT = 1u << 4,    /**< throughput: one operation is a window of messages; B/s and msg/s (unit "B/s") */
    ISOCHRON_SHMEM_EXTRA = 1u << 5    /**< not in a driver's default set (added after the first release: the default run
                                           keeps its length); selected by name, by family or by 'all' */
};

/** Messages per window of the throughput measurements (osu_bw's 64, isochron-bench's --msg-window). */
#define ISOCHRON_SHMEM_WINDOW_DEFAULT 64
#define ISOCHRON_SHMEM_WINDOW_MAX 65536

typedef struct isochron_shmem_ctx isochron_shmem_ctx_t;

/** A measurement: set-up (collective; symmetric buffers), one repetition, validation, teardown. */
typedef struct {
    const char *name;
    const char *family;       /**< rma, nbi, atomic, lock, order, memory, coll, bcast_method, loop, tput, ... */
    const char *description;
    unsigned flags;
    int (*setup)(isochron_shmem_ctx_t *c);
    /** One repetition (collective): *t = seconds per operation on this PE, *active = 1 if it counts
     *  (NaN: this repetition is invalid, e.g. a late start of Alg. 2). */
    int (*run)(isochron_shmem_ctx_t *c, double *t, int *active);
    int (*validate)(isochron_shmem_ctx_t *c);  /**< after run, collective; NULL: nothing moved */
    void (*teardown)(isochron_shmem_ctx_t *c);
} isochron_shmem_op_t;

int isochron_shmem_op_count(void);
const isochron_shmem_op_t *isochron_shmem_op_get(int i);
/** \brief Find by name (case-insensitive); ENAME lists the valid names. */
int isochron_shmem_op_find(const char *name, const isochron_shmem_op_t **out);

/** \brief Bytes of symmetric heap per PE that measuring \p op at \p bytes on
 *  \p npes PEs allocates at once (SIZE_MAX when beyond any heap): a driver
 *  checks the largest of its points before measuring anything. */
size_t isochron_shmem_heap_needed(const isochron_shmem_op_t *op, size_t bytes, int npes, int window);

/** \brief The measurements of a run from a comma-separated list (isochron-shmem --ops): names, families
 *  (rma, nbi, atomic, lock, order, memory, coll, bcast_method, loop, tput, strided, ctx, active), "default"
 *  (every measurement without ISOCHRON_SHMEM_EXTRA), "added" (those with it) and "all", each selector's in the
 *  registry's order, into \p list (room for \p max) and *n. Needs no OpenSHMEM started. \return ISOCHRON_OK;
 *  EPARSE for an empty list or element, EINVAL for more than max, ENAME for an unknown name (the valid names
 *  and selectors listed). */
int isochron_shmem_select(const char *names, const isochron_shmem_op_t **list, int max, int *n);
/** \brief Before OpenSHMEM starts: every size of a measurement that moves 64-bit elements (ISOCHRON_SHMEM_ELEM8)
 *  a multiple of 8. EINVAL naming the measurement and the size. */
int isochron_shmem_check_sizes(const isochron_shmem_op_t *const *list, int n, const size_t *sizes, int nsizes);
/** \brief After shmem_init, before anything is measured: every measurement that needs 2 PEs has them, and
 *  the symmetric heap holds the largest point (isochron_shmem_heap_needed at \p window, one shmem_malloc
 *  probe freed at once). Collective over all PEs; the same answer on every PE. EINVAL naming the point and
 *  the remedy. */
int isochron_shmem_check_points(const isochron_shmem_op_t *const *list, int n, const size_t *sizes, int nsizes, int window);

/** Defaults of a measurement run: isochron_shmem_opts_default and the driver's --help take them from here. */
#define ISOCHRON_SHMEM_DEFAULT_MIN_REPS 5
#define ISOCHRON_SHMEM_DEFAULT_MAX_REPS 100
#define ISOCHRON_SHMEM_DEFAULT_REL_CI 0.05
#define ISOCHRON_SHMEM_DEFAULT_CI_LEVEL 0.95
#define ISOCHRON_SHMEM_DEFAULT_BUDGET 1
#define ISOCHRON_SHMEM_DEFAULT_ITERS 0
#define ISOCHRON_SHMEM_DEFAULT_LOOP "outside"

/** Options of a measurement run. */
typedef struct {
    int min_reps, max_reps; /**< repetitions (each of `iters` operations) */
    double rel_ci;          /**< stop when the CI half-width of the median (or, with ci_mean, of the mean) <= rel_ci x that
                                 statistic (0: max_reps): isochron_bench_ci_met, the stop rule of isochron-bench */
    double ci_level;
    double budget;          /**< seconds per point (0: none) */
    int iters;              /**< operations per repetition (0: 100, fewer for large sizes) */
    int loop;               /**< ISOCHRON_SHMEM_LOOP_* */
    int validate;           /**< 1: check data after every repetition */
    int window;             /**< throughput measurements: messages per window (0: ISOCHRON_SHMEM_WINDOW_DEFAULT) */
    int ci_mean;            /**< 1: the stop rule's CI is the mean's (Student's t); 0 (default): the median's (distribution-free) */
} isochron_shmem_opts_t;

void isochron_shmem_opts_default(isochron_shmem_opts_t *o);

/**
 * \brief What the library did wrong, as the data check observed it: a
 * measurement's validation compares what the library delivered with what
 * OpenSHMEM specifies, and on a mismatch names the call and says what it did,
 * from the values it saw (not per operation by hand): "left the target
 * unchanged" when the target still holds its value from before the calls,
 * "left the destination unchanged" when the poisoned destination was not
 * written, "returned a wrong value", "delivered wrong data". Every buffer
 * isochron uses is on the symmetric heap (shmem_malloc), so the sentence is
 * "<call> on symmetric-heap memory <what>" with the observation in detail.
 */
typedef struct {
    char call[64];    /**< the library call, e.g. "shmem_long_atomic_fetch_and" */
    char what[96];    /**< what it did, e.g. "left the target unchanged" */
    char detail[640]; /**< the observation: where, expected and got (and, for progress defects, the remedy) */
} isochron_shmem_defect_t;

/** \brief "<call> on symmetric-heap memory <what>" into buf (the summary line of a defect). */
const char *isochron_shmem_defect_sentence(const isochron_shmem_defect_t *d, char *buf, size_t len);

/**
 * \brief Measure \p op at \p bytes on all PEs (collective; MPI_COMM_WORLD =
 * all PEs). \p global: the synchronized clock every time is read from
 * (Alg. 2 and 3 start on it). Fills \p res on every PE: op, family, bytes,
 * nprocs, reps, valid, stop, s (seconds per operation; throughput measurements:
 * per window, with unit "B/s", moved_bytes, moved_msgs, msg_window), timing, loop_of and loop_k
 * (how a repetition was timed: "loop" of loop_k operations under one timer at
 * the measuring PE, "origin" each operation timed alone, "global" from a
 * common start on the global clock), correction (a time
 * subtracted: empty quiet, barrier, acknowledgment, computation), overlap,
 * t_comm, t_comp (nbi overlap), validated. EINVAL (clear sentence) for a size
 * the measurement cannot take or too few PEs. EVALIDATE if the library
 * delivered wrong data: \p res then holds the repetitions run, none valid,
 * no statistics (NaN), stop 0, and \p defect (may be NULL) what the library
 * did, the same on every PE.
 */
int isochron_shmem_measure(const isochron_shmem_op_t *op, const isochron_shmem_opts_t *o, size_t bytes,
                           isochron_clock_t *global, isochron_point_t *res, isochron_shmem_defect_t *defect);

/** \brief What an OpenSHMEM sweep measures: every measurement x size, in order (one without
 *  ISOCHRON_SHMEM_SIZED once, at sizes[0]), on \p global, kept true between points by \p track. */
typedef struct {
    const isochron_shmem_op_t *const *ops;
    int nops;
    const size_t *sizes;
    int nsizes;
    const isochron_shmem_opts_t *opts;
    int loop_given;            /**< 1: opts->loop is the user's choice: points of measurements it applies to
                                    (ISOCHRON_SHMEM_LOOPED) record timing_user */
    isochron_clock_t *global;  /**< the synchronized clock */
    isochron_track_t *track;   /**< its tracker (NULL: not tracked; points then carry no clock error) */
} isochron_shmem_sweep_t;
/** One measured point (every PE alike; the statistics are whole on every PE). */
typedef struct {
    const isochron_shmem_op_t *op;
    const isochron_point_t *point;
    const char *method;                    /**< the timing method recorded with it */
    const isochron_shmem_defect_t *defect; /**< NULL, or what the library did wrong (the point then has no time) */
    const char *what;                      /**< its name in messages: "name at N B", or "name" without a size */
    int index, total;                      /**< its place (0-based) and the number of points */
} isochron_shmem_step_t;
/** What an OpenSHMEM sweep calls on every PE; every member may be NULL. */
typedef struct {
    void (*begin)(void *arg, const char *what);                   /**< before a point (e.g. arm a watchdog) */
    void (*end)(void *arg);                                       /**< after it */
    void (*point)(void *arg, const isochron_shmem_step_t *st);    /**< a point measured */
    void (*failed)(void *arg, const char *what, const char *why); /**< the failure that ends the sweep */
    void *arg;
} isochron_shmem_sweep_cb_t;
/**
 * \brief Measure every point of \p sw in order, each handed to cb->point as soon as it is done. Wrong data
 * from the library (EVALIDATE) is a point with its defect, and the sweep goes on; any other failure ends it
 * after cb->failed. Collective over all PEs. *done: points measured (defects included); *defects: those
 * with wrong data. \return ISOCHRON_OK, or the failure.
 */
int isochron_shmem_sweep_run(const isochron_shmem_sweep_t *sw, const isochron_shmem_sweep_cb_t *cb, int *done, int *defects);

#ifdef __cplusplus
}
#endif
#endif
