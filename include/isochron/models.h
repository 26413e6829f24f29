/**
 * \file isochron/models.h
 * \brief Communication performance models fitted to point-to-point
 *        measurements: Hockney (alpha, beta) and LogGP (L, o, g, G) per pair
 *        of processes, for analysis and for use by an application at run time.
 *
 * Source: MPIBlib (paper 001, sec. 4-5): the parallel all-pairs benchmark
 * (isochron_ops_allpairs_run) feeds the models; Hockney's parameters come
 * from round trips with empty and non-empty messages, T(m) = alpha + beta m
 * one way. LogGP (Alexandrov et al.) one way: T(m) = L + 2o + (m-1) G.
 *
 * Times are seconds, sizes bytes. One-way time is half the round trip.
 */
#ifndef ISOCHRON_MODELS_H
#define ISOCHRON_MODELS_H

#include <mpi.h>
#include <stddef.h>
#include "isochron/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Hockney's model of one pair: one-way time alpha + beta * bytes. */
typedef struct {
    double alpha, beta;       /**< latency (s) and time per byte (s/B) */
    double alpha_se, beta_se; /**< standard errors (NaN when not estimable) */
    int n;                    /**< points fitted */
    double rms;               /**< root mean square residual of the fit (s) */
} isochron_hockney_t;

/**
 * \brief Weighted least squares of one-way times \p t (s) on \p bytes, n >= 2
 * points with at least two distinct sizes. \p se: the standard error of each
 * time (NULL: equal weights). With two points (the paper's two series, empty
 * and non-empty messages) the result is exact and its standard errors come
 * from \p se alone; with more, they are scaled by the residuals (reduced
 * chi-square when \p se is given, at least 1). EINVAL on bad input.
 */
int isochron_hockney_fit(const double *bytes, const double *t, const double *se, int n, isochron_hockney_t *out);

/** LogGP parameters of one pair. */
typedef struct {
    double L;        /**< latency (s) */
    double o;        /**< overhead per message on each side (s): the sender's time inside MPI_Send at the smallest size */
    double g;        /**< gap between messages (s): from bursts of messages (isochron_pair_t.gap_s), or, when not
                          measured, its lower bound o (g_bound = 1) */
    double G;        /**< gap per byte (s/B): the slope of the one-way time */
    double L_se, G_se;
    int g_bound;     /**< 1: g is the lower bound o, not a measurement */
} isochron_loggp_t;

/**
 * \brief LogGP from a sweep of sizes: one-way times \p t (with \p se, may be
 * NULL) over \p bytes fit L + 2o - G + G m; \p o is the sender overhead
 * (e.g. isochron_pair_t.send_s at the smallest size), \p g the gap
 * (isochron_pair_t.gap_s at the smallest size; NaN: not measured, g = o
 * flagged as a bound). EINVAL on bad input.
 */
int isochron_loggp_fit(const double *bytes, const double *t, const double *se, int n, double o, double g, isochron_loggp_t *out);

/** The models of one pair (i < j). */
typedef struct {
    int i, j;
    isochron_hockney_t hockney;
    isochron_loggp_t loggp;
} isochron_pair_model_t;

/**
 * \brief Measure every pair of \p comm at \p nsizes sizes (at least two
 * distinct, e.g. 0 and 64K) with \p reps round trips each
 * (isochron_ops_allpairs_run in \p mode) and fit both models per pair.
 * Collective; every rank receives \p models (p(p-1)/2 entries, pair order of
 * isochron_ops_allpairs_run), so an application can use them at run time.
 */
int isochron_models_measure(MPI_Comm comm, const size_t *sizes, int nsizes, int reps, int mode, isochron_pair_model_t *models);

/** \brief The model of pair (a, b) (any order, a != b) in \p models of \p p processes, or NULL. */
const isochron_pair_model_t *isochron_models_pair(const isochron_pair_model_t *models, int p, int a, int b);

#ifdef __cplusplus
}
#endif
#endif
