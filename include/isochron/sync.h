/**
 * \file isochron/sync.h
 * \brief Clock synchronization: offset estimators, algorithms by name,
 *        hierarchical composition, and the accuracy check.
 *
 * Specification: Hunold & Carpen-Amarie, "Hierarchical Clock Synchronization
 * in MPI" (paper 000): SKaMPI-Offset (Alg. 7), Mean-RTT-Offset (Alg. 8),
 * JK, HCA, HCA2, HCA3 (Alg. 1-2), ClockPropSync (Alg. 3), H2HCA/H3HCA (Alg. 4),
 * Check-Global-Clock (Alg. 6).
 *
 * A spec names one algorithm per level, levels separated by '+', top level
 * (between nodes) first:
 *
 *     level := alg [ '/' fitpoints [ '/' estimator [ '/' pingpongs ] ] ] { ',' key '=' value }
 *     spec  := level                       flat: all ranks of the communicator
 *            | level '+' level             between nodes, then within a node (H2HCA)
 *            | level '+' level '+' level   between nodes, between sockets of a node, within a socket (H3HCA)
 *
 * e.g. "hca3/1000/skampi/100", "hca/1000/SKaMPI-Offset/100" (the paper's labels),
 * "hca3/200/skampi/20,span=0.1+prop", "jk/100/mean-rtt/20,slope=always".
 * A "node" is a shared-memory node, or a block of node_size consecutive ranks
 * when isochron_sync_spec_t.node_size is set (see there). The socket level of
 * a three-level spec needs every rank bound within one socket (hwloc).
 * Keys: span (seconds over which a pair's fit points are spread),
 * recompute (0|1: recompute_intercept of Alg. 2), slope (auto|always|never:
 * keep a fitted slope only when statistically significant, always, or never),
 * outliers (0|1: robust rejection of fit points), refit (0-5: how many times
 * a pair measures another span of fit points when the slope's standard
 * error times the span exceeds ISOCHRON_REFIT_SPREAD; the points of all
 * attempts are fitted together; default 2).
 */
#ifndef ISOCHRON_SYNC_H
#define ISOCHRON_SYNC_H

#include <mpi.h>
#include "isochron/clock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Transports: the timestamp exchange between two processes                  */

/**
 * The timing-critical part of every synchronization algorithm, of the
 * tracker and of the accuracy check: one process sends a timestamp (a
 * double) to another, which answers with its own. An isochron_xport_t carries
 * these ping-pongs; all other traffic of the sync protocol (control, models,
 * turn tokens) stays on MPI. NULL everywhere means the MPI transport
 * (point-to-point on the sync's duplicated communicator). A higher layer may
 * supply another (isochron/shmem.h: put + wait_until on the symmetric heap).
 * Ranks are ranks of \p comm; peer() maps one to the transport's address
 * once per series of exchanges, outside the timed exchanges.
 * Errors: ISOCHRON_* with a message; an exchange that cannot complete must
 * fail after a bounded time, never hang.
 */
typedef struct isochron_xport isochron_xport_t;
struct isochron_xport {
    const char *name;      /**< "mpi", "shmem" */
    int (*peer)(const isochron_xport_t *x, MPI_Comm comm, int rank, int *addr);
    /** Send v to addr; synchronous: return only when it arrived (MPI_Ssend). */
    int (*send)(const isochron_xport_t *x, MPI_Comm comm, int addr, int tag, double v, int synchronous);
    /** Receive the next value addr sent (tags tell directions apart for MPI). */
    int (*recv)(const isochron_xport_t *x, MPI_Comm comm, int addr, int tag, double *v);
    void *state;           /**< the implementation's */
};

/** \brief The MPI transport (what NULL means). */
const isochron_xport_t *isochron_xport_mpi(void);

/* ------------------------------------------------------------------------ */
/* Offset estimators                                                          */

/** One fit point: the client's clock reading and its offset to the reference (ref - client). */
typedef struct {
    double timestamp;   /**< client clock when the offset was valid */
    double offset;      /**< reference minus client */
    double uncertainty; /**< half-width of the interval known to contain the offset (or a spread estimate) */
} isochron_offset_t;

/** Per-pair state an estimator may keep (e.g. Mean-RTT's measured RTT). */
typedef struct {
    double rtt;      /**< measured round-trip time, 0 if not yet measured */
    const isochron_xport_t *xport; /**< transport of the exchanges (NULL: MPI) */
} isochron_estimator_state_t;

/** An offset estimator: both sides call measure(); only the client's \p out is filled. */
typedef struct {
    const char *name;
    const char *aliases;     /**< '|'-separated other accepted names (the paper's labels) */
    const char *description;
    int hard_bounds;         /**< 1 if [offset-uncertainty, offset+uncertainty] must contain the true offset */
    int (*measure)(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int nexchanges,
                   isochron_estimator_state_t *st, isochron_offset_t *out);
} isochron_estimator_t;

int isochron_estimator_count(void);
const isochron_estimator_t *isochron_estimator_get(int i);
/** \brief Look up by name or alias (case-insensitive); ENAME lists valid names. */
int isochron_estimator_find(const char *name, const isochron_estimator_t **out);

/* ------------------------------------------------------------------------ */
/* Fitting a clock model (FIT_LINEAR_MODEL of Alg. 2)                        */

/** A line fitted to fit points: offset(x) = slope * x + intercept. */
typedef struct {
    double slope, intercept; /**< the model, after the slope policy (slope 0 when dropped) */
    double fitted_slope;     /**< the slope the weighted regression found */
    double slope_se;         /**< its standard error, inflated for autocorrelated residuals */
    double r2, resid_rms, span;
    double resid_rho;        /**< lag-1 autocorrelation of the residuals */
    int bounds_flat;         /**< 1 if one constant offset lies in every hard bound (slope dropped for it) */
    int constrained;         /**< 1 if the hard bounds constrained the fit */
    double widening;         /**< how far the bounds had to be widened to be consistent (s) */
    int npoints, nused, slope_kept;
} isochron_fit_t;

/**
 * \brief Fit offsets y (reference minus client) against client times x.
 * \p u (may be NULL) is each point's uncertainty: it weights the points
 * (1/u^2), drives minimum-RTT filtering, and with \p hard_bounds nonzero
 * every interval [y-u, y+u] must contain the true offset (SKaMPI-Offset), so
 * the line is constrained to pass through all of them (widened as little as
 * needed when they are inconsistent). \p policy: ISOCHRON_SLOPE_AUTO keeps
 * the slope only when it exceeds 3 standard errors and no constant offset
 * fits all hard bounds; ALWAYS keeps it; NEVER fits an offset only.
 * \p outliers: reject points beyond 4 robust standard deviations.
 * \return ISOCHRON_OK, EINVAL for n < 1, ENOMEM.
 */
int isochron_fit_line(const double *x, const double *y, const double *u, int n, int policy, int outliers,
                      int hard_bounds, isochron_fit_t *out);

/* ------------------------------------------------------------------------ */
/* Specs                                                                      */

typedef enum { ISOCHRON_SLOPE_AUTO = 0, ISOCHRON_SLOPE_ALWAYS = 1, ISOCHRON_SLOPE_NEVER = 2 } isochron_slope_policy_t;

/** Parameters of one level. */
typedef struct {
    char alg[16];            /**< algorithm name (canonical) */
    int nfit;                /**< fit points per pair */
    const isochron_estimator_t *estimator;
    int npingpongs;          /**< ping-pongs per fit point */
    double span;             /**< seconds over which fit points are spread (0 = back to back) */
    int recompute_intercept; /**< Alg. 2 recompute_intercept */
    isochron_slope_policy_t slope;
    int outliers;            /**< robust outlier rejection */
    int refit;               /**< re-measurements of a disturbed fit (see ISOCHRON_REFIT_SPREAD) */
    int given;               /**< 1 if the spec text gave this level parameters ('/'-parts or key=value), 0 for the
                                  algorithm's defaults; a spec without any is budgeted (isochron_sync_budget) */
} isochron_sync_level_t;

/** A pair's fit whose slope standard error (corrected for autocorrelation)
 *  times its span exceeds this is extended by another span of points, up to
 *  refit times, and refitted over all of them: the trend
 *  across the span is then uncertain by more than 60 ns, where an undisturbed
 *  pair here resolves about 3 ns (0.02 ppm over 0.12 s); at the default span
 *  of 0.12 s it is 0.5 ppm, 5 µs after 10 s. */
#define ISOCHRON_REFIT_SPREAD 60e-9

#define ISOCHRON_SYNC_MAX_LEVELS 3

typedef struct {
    int nlevels;
    isochron_sync_level_t level[ISOCHRON_SYNC_MAX_LEVELS];
    /** What a "node" of a hierarchical spec is: 0 (the default, what
     *  isochron_sync_spec_parse sets) = the processes sharing memory
     *  (MPI_COMM_TYPE_SHARED); N > 0 = every block of N consecutive ranks of
     *  the communicator, wherever they run, so that H2HCA/H3HCA have more
     *  than one node on one host (testing; the drivers' --node-size). Not
     *  part of the spec text; recorded by the drivers as "node_size". */
    int node_size;
    /** Transport of the timestamp exchanges (NULL, the default: MPI). Not
     *  part of the spec text, like node_size. */
    const isochron_xport_t *xport;
    /** Seconds the synchronization may spend measuring (0, the default: no
     *  limit). Each pair gets its share (the budget over the pairwise rounds
     *  on the critical path); a client whose pair has run past its share stops
     *  taking fit points once it has ISOCHRON_SYNC_MIN_FIT of them, fits what
     *  it has and re-measures no more (the report counts such pairs in
     *  cut_pairs; the clock's bounds state what was achieved). Checked every
     *  ISOCHRON_SYNC_BUDGET_CHUNK points with one message from the client to
     *  its reference, only when a budget is set. Not part of the spec text. */
    double budget;
} isochron_sync_spec_t;

/** Fit points a pair takes before a budget may stop it (see isochron_sync_spec_t.budget). */
#define ISOCHRON_SYNC_MIN_FIT 8
/** A budgeted pair checks its share every this many fit points. */
#define ISOCHRON_SYNC_BUDGET_CHUNK 4

/** \brief Parse a spec string (see file comment). Errors name the bad part and list valid choices. */
int isochron_sync_spec_parse(const char *text, isochron_sync_spec_t *out);
/** \brief Canonical text of a spec (all parameters spelled out). */
int isochron_sync_spec_format(const isochron_sync_spec_t *spec, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Algorithms                                                                 */

/** Result of a pair's model fit, kept for the report. */
typedef struct {
    int partner;        /**< reference rank (in the level's communicator), -1 if none */
    int npoints;        /**< fit points taken */
    int nused;          /**< fit points kept after outlier rejection */
    double slope, intercept;
    double slope_se;    /**< standard error of the fitted slope */
    int slope_kept;     /**< 1 if the slope was kept, 0 if replaced by offset-only */
    double r2;          /**< coefficient of determination of the fit */
    double resid_rms;   /**< RMS residual of the kept points, seconds */
    double span;        /**< time covered by the fit points, seconds */
    int attempts;       /**< fit measurements taken (1 + re-measurements of a disturbed fit) */
    int cut;            /**< 1 if the sync's budget stopped this fit before its nfit points (or its re-measurement) */
} isochron_fit_info_t;

/** Context handed to an algorithm for one level. */
typedef struct isochron_sync_ctx isochron_sync_ctx_t;

/** A synchronization algorithm. sync() builds *out on top of \p clk for every rank of \p comm. */
typedef struct {
    const char *name;
    const char *description;
    int uses_fit;        /**< 1 if fitpoints/estimator/pingpongs matter */
    int default_nfit;
    const char *default_estimator;
    int default_npingpongs;
    double default_span;
    int default_recompute;
    int (*sync)(isochron_sync_ctx_t *ctx, MPI_Comm comm, isochron_clock_t *clk,
                isochron_clock_t **out, isochron_fit_info_t *fit);
} isochron_sync_alg_t;

/**
 * \brief How long \p spec would take on \p nprocs processes, roughly, from a
 * round-trip time \p rtt (s): for every level, the pairwise rounds on the
 * critical path (O(p) for skampi and jk, O(log p) for hca2/hca3, both for
 * hca) times what one pair does (nfit fit points of npingpongs round trips,
 * spread over at least span seconds). An upper bound for hierarchical specs
 * (each level is counted at nprocs). For refusing absurd specs up front.
 */
double isochron_sync_estimate(const isochron_sync_spec_t *spec, int nprocs, double rtt);

int isochron_sync_alg_count(void);
const isochron_sync_alg_t *isochron_sync_alg_get(int i);
int isochron_sync_alg_find(const char *name, const isochron_sync_alg_t **out);

/** What one run of a synchronization reports. */
typedef struct {
    double duration;        /**< seconds, measured on rank 0 from entry to exit (includes communicator creation) */
    int rounds;             /**< pairwise rounds on the critical path (sum over levels) */
    int nodes;              /**< number of nodes (shared-memory nodes, or rank blocks of spec->node_size) */
    int sockets_split;      /**< 1 if a socket level was built with hwloc */
    int oversubscribed;     /**< 1 if some node had more ranks than cores */
    isochron_fit_info_t fit;/**< this rank's fit at the lowest level where it was a client */
    isochron_lm_t model;    /**< this rank's merged model (timer -> global) */
    int follows;            /**< rank of the communicator whose model this rank copied at the last level by
                                 ClockPropSync (prop), -1 if it has its own; see isochron_track_opts_t.follow */
    int cut_pairs;          /**< pairs (over all levels and ranks) that the spec's budget stopped early, 0 without a budget */
    double pair_budget;     /**< seconds each pair could spend (spec budget over the rounds), 0 without a budget */
} isochron_sync_report_t;

/**
 * \brief 1 on every rank of \p comm if the ranks that share a kernel (isochron_truth_kernel_id, never
 * the hostname: containers and the namespace cluster's nodes share one kernel's CPUs) anywhere
 * outnumber the CPUs they may use; the synchronization then lets its pairs take turns
 * (isochron_sync_report_t.oversubscribed) and the tracker states the hard bound. Collective.
 */
int isochron_sync_oversubscribed(MPI_Comm comm);

/**
 * \brief Synchronize the clocks of all ranks of \p comm with \p spec over \p base.
 * Collective. On return *global is a new clock on every rank, whose time
 * approximates the clock of rank 0 of \p comm. Internal traffic uses a
 * duplicate of \p comm.
 * \return ISOCHRON_OK, or an error that is the same on all ranks (e.g.
 *  ISOCHRON_ENOTSHARED when "prop" is used where ranks do not share a time source,
 *  ISOCHRON_EINVAL for a negative node_size, ISOCHRON_EUNSUPPORTED when a
 *  three-level spec's socket level meets a rank whose binding spans sockets).
 */
int isochron_sync_run(const isochron_sync_spec_t *spec, MPI_Comm comm, isochron_clock_t *base,
                      isochron_clock_t **global, isochron_sync_report_t *report);

/* ------------------------------------------------------------------------ */
/* The sync budget: how long a synchronization may take on this network      */

/** Seconds a spec with its algorithms' default parameters may take (isochron_sync_budget_opts_t.budget). */
#define ISOCHRON_SYNC_BUDGET_DEFAULT 2.0
/** A round trip above this (s) is far slower than any interconnect's (TCP: 20-100 µs): the network is degraded. */
#define ISOCHRON_SYNC_SLOW_RTT 1e-3

/** What isochron_sync_budget may do to a spec (isochron_sync_budget_opts_default gives the defaults shown). */
typedef struct {
    double budget;    /**< seconds (ISOCHRON_SYNC_BUDGET_DEFAULT): a budgeted spec is shrunk to be estimated within it and
                           stopped at it while it runs (isochron_sync_spec_t.budget); 0: nothing is budgeted */
    int fit_given;    /**< 1: budget the spec even where it gives parameters (a program's own default spec); 0 (default):
                           only a spec without parameters (isochron_sync_spec_defaulted) */
    double limit;     /**< refuse a spec estimated beyond this many seconds (0: no limit; default 600) */
} isochron_sync_budget_opts_t;

/** What isochron_sync_budget measured and decided (the same on every rank). */
typedef struct {
    double rtt;            /**< median of 20 round trips between rank 0 and the last rank over the spec's transport (s) */
    double rtt_min;        /**< their minimum (s) */
    int peer;              /**< the last rank */
    int nprocs;
    int slow;              /**< 1 if rtt > ISOCHRON_SYNC_SLOW_RTT */
    int oversubscribed;    /**< isochron_sync_oversubscribed (the likely cause of a slow network) */
    int budgeted;          /**< 1 if the budget applies (the spec's budget was set) */
    int shrunk;            /**< 1 if fit points or ping-pongs were reduced to fit the budget */
    double estimate_given; /**< isochron_sync_estimate of the spec as given (s) */
    double estimate;       /**< of the spec to run (s) */
    double budget;         /**< the budget applied (s), 0 when none */
    char given[512];       /**< the spec's text as given (isochron_sync_spec_format; cut at 511 bytes) */
} isochron_sync_plan_t;

/** \brief The defaults of isochron_sync_budget_opts_t. */
void isochron_sync_budget_opts_default(isochron_sync_budget_opts_t *o);
/** \brief 1 if no level of \p spec was given parameters (every level at its algorithm's defaults, as "hca3",
 *  "hca3+prop" or "jk" are), else 0. Local. */
int isochron_sync_spec_defaulted(const isochron_sync_spec_t *spec);
/** \brief Median and minimum of 20 round trips between rank 0 and the last rank of \p comm over \p xport (NULL:
 *  MPI), on a duplicate of \p comm, while the other ranks wait in MPI; the same on every rank (0 at one rank).
 *  Collective. \return ISOCHRON_OK or the transport's error (the same on every rank). */
int isochron_sync_probe(MPI_Comm comm, const isochron_xport_t *xport, double *rtt, double *rtt_min);
/**
 * \brief Decide how long \p spec may take on this network, before isochron_sync_run. Measures the round trip
 * (isochron_sync_probe over spec->xport) and estimates the sync (isochron_sync_estimate). A spec without
 * parameters (or any, with \p o->fit_given) is budgeted: its estimate is brought within \p o->budget by halving
 * each level's fit points and ping-pongs (never below ISOCHRON_SYNC_MIN_FIT fit points and 5 ping-pongs) and
 * spec->budget is set, which stops pairs that run past their share while the sync runs. A spec given with
 * parameters is kept as it is. \p o NULL: the defaults. Collective; \p plan receives what was measured and decided.
 * \return ISOCHRON_OK; ISOCHRON_EINVAL (on every rank) when the estimate exceeds \p o->limit, with a message naming
 * the estimate and the remedy; a transport error.
 */
int isochron_sync_budget(isochron_sync_spec_t *spec, MPI_Comm comm, const isochron_sync_budget_opts_t *o, isochron_sync_plan_t *plan);
/** What isochron_sync_plan_say writes. */
enum {
    ISOCHRON_SYNC_SAY_SLOW = 1,  /**< the slow-network warning (empty unless plan->slow) */
    ISOCHRON_SYNC_SAY_SHRUNK,    /**< the note that a budgeted spec was shrunk (empty unless plan->shrunk) */
    ISOCHRON_SYNC_SAY_PLAN       /**< how long the sync will take on this network, one clause (always) */
};
/** \brief One line (no newline, no program name) of \p what about \p plan, with the running spec \p spec, into
 *  \p buf; returns its length (0: nothing to say). Local. */
size_t isochron_sync_plan_say(const isochron_sync_plan_t *plan, const isochron_sync_spec_t *spec, int what, char *buf, size_t len);
/** \brief After isochron_sync_run: one line (no newline) about a sync its budget stopped, or one over 1 s that took
 *  10 x the plan's estimate (the network was far slower while the ranks ran than the probe measured, with the
 *  likely cause and remedy); 0 when nothing is to be said. \p which: 1 the budget note, 2 the slow-sync warning. */
size_t isochron_sync_review(const isochron_sync_plan_t *plan, const isochron_sync_report_t *rep, int which, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Tracking: keeping a synchronized clock true for the whole run            */

/** Options of a tracker (isochron_track_opts_default gives the defaults shown). */
typedef struct {
    double growth;            /**< refresh before the predicted error grows by more than this (s); 100e-9 */
    double min_interval;      /**< never refresh more often than this (s); 0.01 */
    double max_interval;      /**< refresh at least this often (s); 5 */
    int npingpongs;           /**< SKaMPI-Offset exchanges per measurement (3 per pair per refresh, the tightest kept); 15 */
    double drift_prior_ppm;   /**< prior standard deviation of a rank's residual drift after sync (ppm); 10 */
    double ddrift_prior_ppm_s;/**< prior standard deviation of the drift's rate of change (ppm/s); 0.02 */
    double noise_ppm;         /**< random walk of the drift per sqrt(s) (ppm), the model's process noise; 0.001 */
    int follow;               /**< this rank copies the correction of rank \p follow of the communicator instead of
                                   being refreshed (-1, the default: refreshed). For ranks that copied a leader's
                                   model by ClockPropSync (isochron_sync_report_t.follows): they read the
                                   leader's clock, so its correction is exactly theirs */
    const isochron_xport_t *xport; /**< transport of the refresh exchanges (NULL, the default: MPI) */
} isochron_track_opts_t;

void isochron_track_opts_default(isochron_track_opts_t *o);
/** \brief Check ranges; EINVAL with the valid ranges. */
int isochron_track_opts_check(const isochron_track_opts_t *o);

/** What a tracker knows about this rank (see isochron_track_info). */
typedef struct {
    int refreshes;        /**< refresh passes so far (including the one at creation) */
    double cost;          /**< seconds spent in refresh passes (wall time on this rank) */
    double next_due;      /**< global time of the next planned refresh (same on all ranks) */
    double interval;      /**< this rank's planned interval after its last update (s) */
    double drift;         /**< estimated residual drift of the synchronized clock (s/s; 0 on rank 0) */
    double drift_se;      /**< its standard deviation */
    double ddrift;        /**< estimated change of the drift (1/s) */
    double offset_se;     /**< standard deviation of the offset right after the last update (s) */
    double noise;         /**< estimated measurement noise of one refresh (s) */
    double bound;         /**< this rank's error bound now (s): 4 sigma, its reference's included */
    int updates;          /**< measurements the filter took */
    int set_aside;        /**< measurements set aside as disturbed (interval over twice the usual width) */
    double bound_hard;    /**< this rank's hard error bound now (s): from ping-pong intervals alone, valid on asymmetric paths */
    int untrusted;        /**< 1 while this rank's filter premises failed (see isochron_track_errors) */
} isochron_track_info_t;

/** Opaque tracker. */
typedef struct isochron_track isochron_track_t;

/**
 * \brief Track \p global (a clock from isochron_sync_run on \p comm):
 * collective. Adds one model layer on top of \p global, updated in place by
 * every refresh, and runs the first refresh. The tracker must be destroyed
 * before \p global; the clock keeps its last estimate (the layer is folded
 * into the one below, so trackers made one after another do not stack up). Internal traffic
 * uses a duplicate of \p comm. \p opts NULL: defaults.
 * Each refresh: one SKaMPI-Offset measurement per pair of HCA3's tree
 * (O(log p) rounds, about a millisecond at 4 ranks), then a Kalman filter
 * per rank on offset, drift and drift change (see src/sync/track.c).
 */
int isochron_track_create(MPI_Comm comm, isochron_clock_t *global, const isochron_track_opts_t *opts, isochron_track_t **out);
void isochron_track_destroy(isochron_track_t *t);
/** \brief Refresh now. Collective. Call it outside measured regions only. */
int isochron_track_refresh(isochron_track_t *t);
/** \brief Refresh if due (rank 0 decides for all). Collective; cheap when not due (one small allreduce). */
int isochron_track_poll(isochron_track_t *t, int *refreshed);
/** \brief 1 if the next planned refresh is due on this rank's clock. Local:
 *  one rank must decide for all (as isochron_track_poll does with rank 0). */
int isochron_track_due(const isochron_track_t *t);
/** \brief Global time of the next planned refresh (same on all ranks). */
double isochron_track_next_due(const isochron_track_t *t);
/** \brief This rank's estimated error bound now (s). Local. */
double isochron_track_bound(const isochron_track_t *t);
/** \brief This rank's hard error bound now (s): assumes causality only, not symmetric paths. Local. */
double isochron_track_bound_hard(const isochron_track_t *t);
/** \brief 1 while this rank's statistical bound cannot be trusted (see isochron_track_errors). Local. */
int isochron_track_untrusted(const isochron_track_t *t);

/** The clock error now, the same on all ranks (see isochron_track_errors). */
typedef struct {
    double bound;      /**< the bound to state: bound_hard when \p hard, else bound_stat */
    double bound_stat; /**< largest statistical bound over the ranks (4 sigma of the filter; assumes symmetric paths) */
    double bound_hard; /**< largest hard bound over the ranks (from ping-pong intervals; holds on asymmetric paths) */
    int hard;          /**< 1 if \p bound is the hard one: the statistical premises failed on some rank (learned noise
                            as wide as the intervals, a hard interval excluding the statistical bound, most recent
                            measurements disturbed), or the hard bound is the smaller */
    double true_err;   /**< largest true |offset| to rank 0 when all ranks share a kernel, NaN otherwise */
} isochron_track_errors_t;
/** \brief Both bounds, the one to state, and the truth where there is one. Collective. */
int isochron_track_errors(isochron_track_t *t, isochron_track_errors_t *e);
/** \brief The rule every result follows: 1 if the hard bound is the one to state, i.e. there is one (not NaN) and
 *  the statistical premises failed (\p premises_failed) or it is the smaller. Local. */
int isochron_bound_hard_stated(double bound_stat, double bound_hard, int premises_failed);

/**
 * \brief The error now, on all ranks: \p bound the largest stated bound (isochron_track_errors' bound)
 * over the ranks; \p true_err the largest true |offset| to rank 0 when all
 * ranks share a host (CLOCK_MONOTONIC, exact against injected skew), NaN
 * otherwise. Collective (two barriers and a gather).
 */
int isochron_track_error(isochron_track_t *t, double *bound, double *true_err);
/** \brief This rank's estimates and the tracker's cost. Local. */
void isochron_track_info(const isochron_track_t *t, isochron_track_info_t *info);

/* ------------------------------------------------------------------------ */
/* Accuracy check                                                             */

/** One accuracy sample of one rank at one wait time. */
typedef struct {
    double wait;           /**< nominal seconds after the end of synchronization */
    double measured_offset;/**< Alg. 6: offset of this rank's global clock to rank 0's, measured by ping-pong (s) */
    double measured_hw;    /**< half-width of the interval that measurement guarantees (causality only): on a
                                disturbed network the measured offset can be that far from the truth */
    double true_offset;    /**< ground truth: global(this) - global(rank 0) at one instant (s); NaN if no truth */
    double bound;          /**< the tracker's statistical error bound of this rank then (s); NaN without tracking */
    double bound_hard;     /**< the tracker's hard error bound of this rank then (s); NaN without tracking */
    int untrusted;         /**< 1 if this rank's statistical premises had failed then (the hard bound is the one to state) */
} isochron_accuracy_t;

/**
 * \brief Alg. 6 plus ground truth. Waits until each wait time in \p waits
 * (seconds after the call, ascending) and measures every rank's offset to
 * rank 0 with SKaMPI-Offset (\p npingpongs exchanges), and the true offset
 * by reading the host-wide truth clock beside the global clock when all ranks
 * share one host. Collective; \p out (nwaits entries per rank, rank-major) is
 * filled on rank 0 only. Waiting sleeps, so oversubscribed ranks don't starve.
 * \p has_truth is set to 1 on all ranks if truth was available.
 */
int isochron_sync_check(MPI_Comm comm, isochron_clock_t *global, const double *waits, int nwaits,
                        int npingpongs, isochron_accuracy_t *out, int *has_truth);
/**
 * \brief The true largest |offset| of \p global to rank 0's over the ranks of
 * \p comm now, on all ranks, when they all share a host (CLOCK_MONOTONIC; exact
 * against injected skew); NaN otherwise. No network measurement is involved.
 * Collective (two barriers and a gather).
 */
int isochron_sync_true_error(MPI_Comm comm, isochron_clock_t *global, double *max_abs);

/**
 * \brief The same check on a tracked clock: between the wait times the
 * tracker \p track (on the same ranks as \p comm) refreshes whenever it is
 * due, as the engine does between points, and each sample records the
 * tracker's bound. \p track NULL: as isochron_sync_check.
 */
int isochron_sync_check_tracked(MPI_Comm comm, isochron_clock_t *global, isochron_track_t *track, const double *waits,
                                int nwaits, int npingpongs, isochron_accuracy_t *out, int *has_truth);
/** \brief The same with Alg. 6's ping-pongs over \p xport (NULL: MPI). */
int isochron_sync_check_xport(MPI_Comm comm, isochron_clock_t *global, isochron_track_t *track, const isochron_xport_t *xport,
                              const double *waits, int nwaits, int npingpongs, isochron_accuracy_t *out, int *has_truth);
/**
 * \brief Called on rank 0 during the check, so a driver can write each wait
 * time's result as soon as it is measured: once with \p w = -1 before the
 * first wait (\p has_truth is set by then), then with \p w = 0..nwaits-1
 * when wait \p w's entries of \p out are complete for every rank.
 * It must not call MPI.
 */
typedef void (*isochron_check_each_fn)(int w, void *arg);
/** \brief isochron_sync_check_xport calling \p each (may be NULL) with \p arg. */
int isochron_sync_check_each(MPI_Comm comm, isochron_clock_t *global, isochron_track_t *track, const isochron_xport_t *xport,
                             const double *waits, int nwaits, int npingpongs, isochron_accuracy_t *out, int *has_truth,
                             isochron_check_each_fn each, void *arg);

#ifdef __cplusplus
}
#endif
#endif
