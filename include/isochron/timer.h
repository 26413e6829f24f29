/**
 * \file isochron/timer.h
 * \brief Timers by name, and skew injection (a decorator that makes any timer a
 *        skewed one with known offset, drift, drift change and jitter).
 *
 * All real time that libisochron reads goes through this module, so the code
 * stays buildable under SimGrid's smpicc (which redirects clock_gettime).
 */
#ifndef ISOCHRON_TIMER_H
#define ISOCHRON_TIMER_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque timer handle. Lifecycle: isochron_timer_create -> now ... -> destroy. */
typedef struct isochron_timer isochron_timer_t;

/** One entry of the timer registry. */
typedef struct {
    const char *name;        /**< name accepted by isochron_timer_create */
    const char *description; /**< one line for --list-timers */
} isochron_timer_info_t;

/** \brief Number of timers in the registry. */
int isochron_timer_count(void);
/** \brief Registry entry i (0 <= i < isochron_timer_count()), NULL otherwise. */
const isochron_timer_info_t *isochron_timer_info(int i);
/** \brief Comma-separated list of valid timer names (static storage). */
const char *isochron_timer_names(void);

/**
 * \brief Create the timer called \p name.
 * \return ISOCHRON_OK, ISOCHRON_ENAME (unknown name; the error lists the valid
 *         ones) or ISOCHRON_EUNSUPPORTED (e.g. "tsc" without an invariant TSC).
 * "tsc" calibrates its frequency against CLOCK_MONOTONIC_RAW when created
 * (about 20 ms).
 */
int isochron_timer_create(const char *name, isochron_timer_t **out);

/** \brief Current time of the timer in seconds (arbitrary origin). */
double isochron_timer_now(isochron_timer_t *t);

/** \brief Name of the timer ("mpi_wtime", or "skew(mpi_wtime)" when decorated). */
const char *isochron_timer_name(const isochron_timer_t *t);

/** \brief Name of the undecorated base timer. */
const char *isochron_timer_base_name(const isochron_timer_t *t);

/** \brief Nonzero if the timer is decorated with skew injection. */
int isochron_timer_is_skewed(const isochron_timer_t *t);

/** \brief Measured TSC frequency in Hz (0 for other timers). */
double isochron_timer_tsc_hz(const isochron_timer_t *t);

/**
 * \brief The timer's resolution: \p granularity, its tick (clock_getres of the
 * clock it reads, MPI_Wtick when it calls MPI_Wtime, one cycle for tsc; a
 * decorated timer: its base's), and \p read_cost, what one reading costs
 * (the median over 7 batches of 256 back-to-back readings, measured at the
 * first call and kept in the handle). A difference of two readings cannot
 * resolve less than granularity + read_cost. Either pointer may be NULL.
 */
void isochron_timer_resolution(isochron_timer_t *t, double *granularity, double *read_cost);

/** \brief Destroy a timer (and the base it decorates, if skewed). NULL is fine. */
void isochron_timer_destroy(isochron_timer_t *t);

/**
 * \brief Read the kernel-wide truth clock: CLOCK_MONOTONIC less the offset
 * of this process's time namespace (/proc/self/timens_offsets, read once), so
 * every process of one kernel reads the same value at the same instant,
 * whatever namespaces (containers, the test cluster's "nodes") they run in.
 * Ground truth for all ranks that share a kernel (isochron_truth_kernel_id);
 * under SimGrid it is the simulated time.
 */
double isochron_truth_now(void);

/**
 * \brief The identity of the kernel this process runs on
 * (/proc/sys/kernel/random/boot_id, 36 characters, NUL-terminated in \p buf
 * of \p len >= 37 bytes); "" when unknown. Two processes share the truth clock
 * if and only if they report the same non-empty identity: hostnames are never
 * used for that (containers on one kernel have their own).
 * \return 0, or -1 when unknown.
 */
int isochron_truth_kernel_id(char *buf, size_t len);

/** \brief The monotonic offset of this process's time namespace (seconds; 0 without one). */
double isochron_truth_timens_offset(void);

/**
 * \brief Whether the timer's undecorated base reads the truth clock itself:
 * base = isochron_truth_now() + \p *offset with a constant offset (timer
 * "monotonic": CLOCK_MONOTONIC, the offset the time namespace's; "mpi_wtime"
 * when read directly as CLOCK_MONOTONIC + its measured origin). Then the
 * base's rate against the truth is exactly 1 and a truth reading gives the
 * base reading at that instant exactly, with no bracketing. A decorated
 * (skewed) timer answers for its base.
 * \return 1 (and \p *offset set), or 0 (another clock: its rate against the
 * truth must be measured).
 */
int isochron_timer_reads_truth(const isochron_timer_t *t, double *offset);

/** \brief Sleep politely for \p seconds (nanosleep; yields the core). */
void isochron_sleep(double seconds);

/**
 * \brief One step of a busy wait. Natively a CPU pause hint; under SimGrid
 * (built with -DSMPI_ISOCHRON) a 100 ns simulated sleep, because simulated
 * time only advances when the process hands control to the simulator.
 * Every spin loop of libisochron calls it.
 */
void isochron_spin_pause(void);

/* ------------------------------------------------------------------------ */
/* Skew injection                                                            */

/** Skew of one rank: local(t) = t + offset + drift*(t-t0) + ddrift*(t-t0)^2/2 + N(0,jitter^2). */
typedef struct {
    double offset;      /**< seconds added to the base reading */
    double drift_ppm;   /**< rate error in parts per million */
    double ddrift_ppm_s;/**< change of the drift, ppm per second */
    double jitter;      /**< standard deviation of Gaussian read noise, seconds */
    uint64_t seed;      /**< seed of the jitter generator */
} isochron_skew_t;

/** Most explicit per-rank entries in one spec (any rank number is allowed; a driver checks it against the job size). */
#define ISOCHRON_SKEW_MAX_RANKS 64

/** A skew specification for a whole job: ranges drawn per rank from a seed, or explicit per-rank values. */
typedef struct {
    double offset_max;   /**< offsets drawn uniformly from [-offset_max, offset_max] */
    double drift_max_ppm;/**< drifts drawn uniformly from [-drift_max_ppm, drift_max_ppm] */
    double ddrift_max_ppm_s; /**< drift changes drawn uniformly from [-x, x] */
    double jitter;       /**< jitter stddev, the same on all ranks */
    uint64_t seed;       /**< seed of the per-rank draw */
    int ref_exact;       /**< if nonzero, rank 0 keeps offset 0 / drift 0 */
    int per_host;        /**< by=host: one skew per host (shared-memory node), drawn for the host's index; ranks of a host share it (as they share an oscillator) */
    int nexplicit;       /**< number of explicit per-rank overrides */
    int explicit_rank[ISOCHRON_SKEW_MAX_RANKS];
    isochron_skew_t explicit_skew[ISOCHRON_SKEW_MAX_RANKS];
} isochron_skew_spec_t;

/**
 * \brief Parse a skew spec: comma-separated key=value with keys
 *   offset (max |offset|, units s/ms/us/ns, default s), drift (max |ppm|),
 *   ddrift (max |ppm/s|), jitter (stddev, time units), seed (integer), and
 *   rank R given as  rR:offset=..:drift=..:ddrift=..:jitter=..  for explicit values.
 * by=host draws one skew per host (shared-memory node, a simulated host under
 * SimGrid) instead of per rank: the driver passes the host's index as \p rank
 * to isochron_skew_for_rank, and rR names host R.
 * Example: "offset=10ms,drift=50,seed=7" or "r1:offset=-3ms:drift=20".
 * An empty string or "none" gives no skew.
 */
int isochron_skew_spec_parse(const char *spec, isochron_skew_spec_t *out);

/** \brief The skew of \p rank under \p spec (deterministic in spec->seed and rank). */
void isochron_skew_for_rank(const isochron_skew_spec_t *spec, int rank, isochron_skew_t *out);

/** \brief Nonzero if the spec injects anything at all. */
int isochron_skew_spec_active(const isochron_skew_spec_t *spec);

/**
 * \brief Decorate \p base with \p skew. The new timer owns \p base.
 * t0 (the origin of drift) is the base reading at creation.
 */
int isochron_timer_skew(isochron_timer_t *base, const isochron_skew_t *skew, isochron_timer_t **out);

/** \brief The injected skew of a decorated timer (NULL if not skewed). */
const isochron_skew_t *isochron_timer_get_skew(const isochron_timer_t *t);

/**
 * \brief The exact skewed reading that corresponds to base reading \p base_t,
 *        without jitter (the injected ground truth). For an undecorated timer
 *        returns \p base_t.
 */
double isochron_timer_skew_apply(const isochron_timer_t *t, double base_t);

/** \brief Read the undecorated base timer (equals isochron_timer_now if not skewed). */
double isochron_timer_base_now(isochron_timer_t *t);

#ifdef __cplusplus
}
#endif
#endif
