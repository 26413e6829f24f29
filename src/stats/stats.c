/*
 * Statistics of repeated measurements (MPIBlib, paper 001, sec. 3): mean,
 * median, extremes, standard deviation, quantiles, and the Student's t
 * confidence interval of the mean that drives adaptive stopping ("repeat
 * until the sample satisfies the t-test or max_reps is reached"). The t
 * distribution's CDF comes from the regularized incomplete beta function
 * (continued fraction, Lentz's method); its critical values from bisection
 * on that CDF, accurate to 1e-10 - no table, no external library.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/stats.h"
#include "core/util.h"

/* continued fraction of the incomplete beta function */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d; h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return h;
}

static double ibeta(double a, double b, double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
    if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a;
    return 1 - bt * betacf(b, a, 1 - x) / b;
}

double isochron_t_cdf(double t, int df)
{
    if (df < 1 || isnan(t)) return NAN;
    double x = df / (df + t * t), tail = 0.5 * ibeta(0.5 * df, 0.5, x);
    return t >= 0 ? 1 - tail : tail;
}

double isochron_t_critical(double level, int df)
{
    if (df < 1 || !(level > 0 && level < 1)) return NAN;
    double target = 0.5 + 0.5 * level, lo = 0, hi = 1;
    while (isochron_t_cdf(hi, df) < target && hi < 1e12) hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (isochron_t_cdf(mid, df) < target) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static double quantile_sorted(const double *s, int n, double q)
{
    double h = (n - 1) * q;
    int i = (int)floor(h);
    if (i >= n - 1) return s[n - 1];
    return s[i] + (h - i) * (s[i + 1] - s[i]);
}

int isochron_summarize(const double *x, int n, double level, const double *q, int nq, isochron_summary_t *o)
{
    memset(o, 0, sizeof *o);
    if (nq < 0 || nq > ISOCHRON_STATS_MAXQ) return isochron_set_error(ISOCHRON_EINVAL, "stats: at most %d quantiles", ISOCHRON_STATS_MAXQ);
    if (!(level > 0 && level < 1)) return isochron_set_error(ISOCHRON_EINVAL, "stats: confidence level %g not in (0, 1)", level);
    o->n = n;
    o->ci_level = level;
    o->nq = nq;
    for (int i = 0; i < nq; i++) {
        if (!(q[i] >= 0 && q[i] <= 1)) return isochron_set_error(ISOCHRON_EINVAL, "stats: quantile %g not in [0, 1]", q[i]);
        o->q[i] = q[i];
        o->qv[i] = NAN;
    }
    o->mean = o->median = o->min = o->max = o->stddev = o->ci_lo = o->ci_hi = o->ci_half = o->med_lo = o->med_hi = NAN;
    if (n <= 0) return ISOCHRON_OK;
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s) return isochron_set_error(ISOCHRON_ENOMEM, "stats: out of memory for %d values", n);
    memcpy(s, x, sizeof(double) * (size_t)n);
    isochron_sort_doubles(s, n);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += s[i];
    o->mean = sum / n;
    o->min = s[0];
    o->max = s[n - 1];
    o->median = quantile_sorted(s, n, 0.5);
    for (int i = 0; i < nq; i++) o->qv[i] = quantile_sorted(s, n, q[i]);
    if (n >= 2) {
        double ss = 0;
        for (int i = 0; i < n; i++) ss += (s[i] - o->mean) * (s[i] - o->mean);
        o->stddev = sqrt(ss / (n - 1));
        o->ci_half = isochron_t_critical(level, n - 1) * o->stddev / sqrt((double)n);
        o->ci_lo = o->mean - o->ci_half;
        o->ci_hi = o->mean + o->ci_half;
    }
    if (n >= 6) {
        /* P(X_(j) <= median <= X_(k)) >= level for j, k (1-based) the ranks
         * n/2 -/+ z sqrt(n)/2 (binomial(n, 1/2), normal approximation) */
        double z = isochron_t_critical(level, 1000000), h = 0.5 * z * sqrt((double)n);
        int j = (int)floor(0.5 * n - h), k = (int)ceil(0.5 * n + h) + 1;
        if (j < 1) j = 1;
        if (k > n) k = n;
        o->med_lo = s[j - 1];
        o->med_hi = s[k - 1];
    }
    free(s);
    return ISOCHRON_OK;
}
