/*
 * test_stats: summary statistics and Student's t against known values:
 * critical values from the t table, mean/median/quantiles/stddev of small
 * samples, and the edge cases n = 0 (all NaN) and n = 1 (no spread).
 */
#include <math.h>
#include "isochron.h"
#include "isochron/stats.h"
#include "check.h"

int main(void)
{
    struct { double level; int df; double t; } tab[] = {{0.95, 1, 12.706}, {0.95, 5, 2.571}, {0.95, 30, 2.042}, {0.99, 10, 3.169}, {0.90, 20, 1.725}};
    for (int i = 0; i < 5; i++) {
        double t = isochron_t_critical(tab[i].level, tab[i].df);
        CHECK(fabs(t - tab[i].t) < 1e-3, "t(%g, df=%d) = %.4f (table %.3f)", tab[i].level, tab[i].df, t, tab[i].t);
    }
    double x[] = {4, 1, 3, 2, 5};
    double q[] = {0.25, 0.9};
    isochron_summary_t s;
    CHECK_RC(isochron_summarize(x, 5, 0.95, q, 2, &s), ISOCHRON_OK, "summarize 5 values");
    CHECK(s.n == 5 && s.mean == 3 && s.median == 3 && s.min == 1 && s.max == 5, "mean 3, median 3, min 1, max 5");
    CHECK(fabs(s.stddev - sqrt(2.5)) < 1e-12, "sample stddev sqrt(2.5) (%.6f)", s.stddev);
    CHECK(fabs(s.qv[0] - 2) < 1e-12 && fabs(s.qv[1] - 4.6) < 1e-12, "quantiles 0.25 -> 2, 0.9 -> 4.6 (%.3f, %.3f)", s.qv[0], s.qv[1]);
    double half = 2.776445 * sqrt(2.5) / sqrt(5.0);
    CHECK(fabs(s.ci_half - half) < 1e-5 && fabs(s.ci_lo - (3 - half)) < 1e-5, "95%% CI half-width %.5f (expected %.5f)", s.ci_half, half);
    CHECK(x[0] == 4, "input not modified");
    CHECK_RC(isochron_summarize(x, 0, 0.95, q, 2, &s), ISOCHRON_OK, "summarize 0 values");
    CHECK(s.n == 0 && isnan(s.mean) && isnan(s.median) && isnan(s.min) && isnan(s.ci_half) && isnan(s.qv[0]), "n = 0: everything NaN");
    CHECK_RC(isochron_summarize(x, 1, 0.95, q, 2, &s), ISOCHRON_OK, "summarize 1 value");
    CHECK(s.mean == 4 && s.median == 4 && isnan(s.stddev) && isnan(s.ci_half), "n = 1: value, no spread");
    CHECK(isochron_summarize(x, 5, 1.5, q, 2, &s) == ISOCHRON_EINVAL, "level 1.5 refused");
    double badq = 2;
    CHECK(isochron_summarize(x, 5, 0.95, &badq, 1, &s) == ISOCHRON_EINVAL, "quantile 2 refused");
    printf("test_stats: %d checks, %d failed\n", check_count, check_failures);
    /* the median's distribution-free interval: 1..100 shuffled, 95 %: order
     * statistics 40 and 61 (n/2 -/+ 1.96 sqrt(n)/2, then +1), whatever the order;
     * a heavy tail (1e6 in place of 1) widens the mean's interval, and moves the
     * median's by one rank only */
    {
        double y[100];
        for (int i = 0; i < 100; i++) y[i] = (double)((i * 37) % 100 + 1);
        isochron_summary_t m;
        CHECK_RC(isochron_summarize(y, 100, 0.95, NULL, 0, &m), ISOCHRON_OK, "summarize 1..100");
        CHECK(m.med_lo == 40 && m.med_hi == 61, "median interval [%g, %g] = [40, 61]", m.med_lo, m.med_hi);
        y[0] = 1e6;
        CHECK_RC(isochron_summarize(y, 100, 0.95, NULL, 0, &m), ISOCHRON_OK, "summarize with an outlier");
        CHECK(m.med_lo == 41 && m.med_hi == 62 && m.ci_half > 1e4, "an outlier (for the value 1) widens the mean's interval (±%g), not the median's [%g, %g]",
              m.ci_half, m.med_lo, m.med_hi);
        CHECK_RC(isochron_summarize(y, 5, 0.95, NULL, 0, &m), ISOCHRON_OK, "summarize 5 values");
        CHECK(isnan(m.med_lo) && isnan(m.med_hi), "no median interval below 6 values");
    }
    return check_failures ? 1 : 0;
}
