/**
 * \file isochron/stats.h
 * \brief Summary statistics of repeated measurements and the Student's t
 *        confidence interval used for adaptive stopping (MPIBlib, paper 001,
 *        sec. 3: min_reps, max_reps, alpha).
 *
 * Edge cases, stated once: n = 0 gives every field NaN (never a number
 * computed over zero valid repetitions); n = 1 gives mean = median = min =
 * max = the value, stddev and the CI half-width NaN; quantiles use linear
 * interpolation between order statistics (type 7, as R and NumPy).
 */
#ifndef ISOCHRON_STATS_H
#define ISOCHRON_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

#define ISOCHRON_STATS_MAXQ 8

typedef struct {
    int n;
    double mean, median, min, max, stddev;
    double ci_level;         /**< e.g. 0.95 */
    double ci_lo, ci_hi;     /**< Student's t interval of the mean */
    double ci_half;          /**< (ci_hi - ci_lo) / 2 */
    double med_lo, med_hi;   /**< distribution-free interval of the median at ci_level: order statistics
                                  j, k around n/2 with the binomial's normal approximation (NaN below 6 values) */
    int nq;
    double q[ISOCHRON_STATS_MAXQ];  /**< requested quantile levels in [0,1] */
    double qv[ISOCHRON_STATS_MAXQ]; /**< their values */
} isochron_summary_t;

/** \brief Summarize x[0..n-1] (not modified). q: nq quantile levels (nq <= ISOCHRON_STATS_MAXQ). */
int isochron_summarize(const double *x, int n, double ci_level, const double *q, int nq, isochron_summary_t *out);

/** \brief Two-sided Student's t critical value: P(|T_df| <= t) = level. */
double isochron_t_critical(double level, int df);

/** \brief CDF of Student's t with df degrees of freedom. */
double isochron_t_cdf(double t, int df);

#ifdef __cplusplus
}
#endif
#endif
