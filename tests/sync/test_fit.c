/*
 * test_fit: the clock-model fit of Alg. 2 (isochron_fit_line, src/sync/fit.c)
 * on synthetic fit points whose true line is known. Proves that
 *  - an exact line is recovered (slope, intercept) with x far from 0;
 *  - with noise and hard bounds that contain the truth, the slope is within
 *    4 standard errors of the truth, kept (an injected 50 ppm), and the line
 *    passes through every bound (constrained, no widening);
 *  - a slope is dropped under policy auto when a constant offset fits every
 *    hard bound, although the regression slope is many "standard errors"
 *    (bounds_flat), and when it is insignificant (no bounds);
 *  - policy always keeps and never drops a slope;
 *  - robust rejection removes outliers that would bias the slope, and
 *    minimum-RTT filtering keeps wide (slow-exchange) points out of the
 *    objective;
 *  - n = 0 is EINVAL, n = 1 gives the offset of the one point.
 * Serial, deterministic (its own xorshift generator).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "check.h"

#define N 100
static uint64_t rng = 0x1234567887654321ull;
static double uni(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (double)(rng >> 11) / 9007199254740992.0; }
static double gauss(void) { double u = uni(), v = uni(); return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v); }

static double x[N], y[N], u[N];
static const double X0 = 86400.0; /* client clock readings around one day: the fit must centre x */

static void line(double a, double b, double span)
{
    for (int i = 0; i < N; i++) { x[i] = X0 + span * i / (N - 1); y[i] = a + b * x[i]; u[i] = 100e-9; }
}

static double at(const isochron_fit_t *f, double xv) { return f->intercept + f->slope * xv; }

int main(void)
{
    isochron_fit_t f;
    /* 1. exact line */
    line(-3e-3, 50e-6, 0.12);
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 1, 1, &f), ISOCHRON_OK, "exact line");
    CHECK(f.slope_kept && fabs(f.slope - 50e-6) < 1e-10, "exact: slope %.6f ppm kept (%d), want 50", f.slope * 1e6, f.slope_kept);
    CHECK(fabs(at(&f, x[0]) - y[0]) < 1e-10 && fabs(at(&f, x[N - 1]) - y[N - 1]) < 1e-10,
          "exact: the line passes through the points (%.3g, %.3g s off)", at(&f, x[0]) - y[0], at(&f, x[N - 1]) - y[N - 1]);
    CHECK(f.npoints == N && f.nused == N, "exact: %d points, %d used", f.npoints, f.nused);

    /* 2. noise within hard bounds that contain the truth */
    double a = 2e-3, b = -50e-6, sigma = 100e-9;
    line(a, b, 0.12);
    for (int i = 0; i < N; i++) {
        double e = sigma * gauss();
        y[i] += e;
        u[i] = fabs(e) + 50e-9 * uni() + 1e-9; /* [y-u, y+u] contains a + b x */
    }
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 1, 1, &f), ISOCHRON_OK, "noisy line with hard bounds");
    CHECK(f.slope_kept, "noisy: an injected -50 ppm is kept (fitted %.3f ppm, se %.3f ppm)", f.fitted_slope * 1e6, f.slope_se * 1e6);
    CHECK(fabs(f.slope - b) <= 4 * f.slope_se && f.slope_se < 5e-6, "noisy: slope %.3f ppm within 4 se (%.3f ppm) of -50", f.slope * 1e6,
          f.slope_se * 1e6);
    int inside = 1;
    for (int i = 0; i < N; i++) inside &= fabs(at(&f, x[i]) - y[i]) <= u[i] + 1e-12;
    CHECK(f.constrained && f.widening == 0 && inside, "noisy: the line lies within every hard bound (constrained %d, widening %g)",
          f.constrained, f.widening);
    double mid = X0 + 0.06;
    CHECK(fabs(at(&f, mid) - (a + b * mid)) < 100e-9, "noisy: offset at mid-span %.1f ns from the truth", (at(&f, mid) - (a + b * mid)) * 1e9);

    /* 3a. a constant fits every bound: a slope of a few standard errors (what one host's false slopes
     * measured, 3-7 corrected SE) is dropped */
    line(1e-3, 0, 0.12);
    for (int i = 0; i < N; i++) { y[i] += 1e-9 * i + 35e-9 * gauss(); u[i] = 1e-6; } /* a 0.8 ppm trend, 35 ns noise, wide consistent bounds */
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 0, 1, &f), ISOCHRON_OK, "trend inside wide bounds");
    CHECK(fabs(f.fitted_slope) > 3 * f.slope_se && fabs(f.fitted_slope) < 20 * f.slope_se,
          "trend: the regression slope is significant, 3-20 SE (%.3f ppm, se %.5f ppm)", f.fitted_slope * 1e6, f.slope_se * 1e6);
    CHECK(!f.slope_kept && f.bounds_flat && f.slope == 0, "trend: dropped because a constant fits all bounds (kept %d, bounds_flat %d)",
          f.slope_kept, f.bounds_flat);
    /* 3c. ... but a slope of far more than 20 SE is kept even when a constant fits every bound: between
     * simulated hosts the bounds are +-4 us wide while a 50 ppm drift moves the offset 1 us over a 20 ms span */
    line(1e-3, 50e-6, 0.02);
    for (int i = 0; i < N; i++) { y[i] += 5e-9 * gauss(); u[i] = 4e-6; }
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 0, 1, &f), ISOCHRON_OK, "50 ppm inside wide bounds");
    CHECK(f.slope_kept && fabs(f.slope - 50e-6) < 1e-6, "wide bounds: a 50 ppm drift at %.0f SE is kept (slope %.3f ppm, kept %d)",
          fabs(f.fitted_slope) / f.slope_se, f.slope * 1e6, f.slope_kept);
    /* 3b. no bounds, pure noise around a constant: insignificant, dropped */
    line(1e-3, 0, 0.12);
    for (int i = 0; i < N; i++) y[i] += sigma * gauss();
    CHECK_RC(isochron_fit_line(x, y, NULL, N, ISOCHRON_SLOPE_AUTO, 1, 0, &f), ISOCHRON_OK, "noise around a constant");
    CHECK(!f.slope_kept && f.slope == 0 && fabs(f.intercept - 1e-3) < 100e-9, "noise: slope dropped (fitted %.3f ppm, se %.3f), offset %.1f ns off",
          f.fitted_slope * 1e6, f.slope_se * 1e6, (f.intercept - 1e-3) * 1e9);
    /* 4. policies */
    CHECK_RC(isochron_fit_line(x, y, NULL, N, ISOCHRON_SLOPE_ALWAYS, 1, 0, &f), ISOCHRON_OK, "policy always");
    CHECK(f.slope_kept && f.slope == f.fitted_slope, "always: the insignificant slope is kept (%.3f ppm)", f.slope * 1e6);
    line(0, 50e-6, 0.12);
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_NEVER, 1, 0, &f), ISOCHRON_OK, "policy never");
    CHECK(!f.slope_kept && f.slope == 0, "never: a 50 ppm slope is dropped");

    /* 5. outliers at one end would bias the slope; robust rejection removes them */
    line(0, 10e-6, 0.12);
    for (int i = 0; i < N; i++) { y[i] += 20e-9 * gauss(); u[i] = 100e-9; }
    for (int i = N - 8; i < N; i++) y[i] += 20e-6;
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 0, 0, &f), ISOCHRON_OK, "outliers kept");
    double biased = f.fitted_slope;
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 1, 0, &f), ISOCHRON_OK, "outliers rejected");
    CHECK(fabs(biased - 10e-6) > 5e-6, "without rejection the outliers bias the slope (%.2f ppm vs 10)", biased * 1e6);
    CHECK(f.nused <= N - 8 && fabs(f.slope - 10e-6) < 0.5e-6, "with rejection: %d points used, slope %.3f ppm (10)", f.nused, f.slope * 1e6);

    /* 6. minimum-RTT filtering: wide points with biased midpoints stay out of the objective */
    line(5e-3, 0, 0.12);
    for (int i = 0; i < N; i++) {
        int slow = i % 2;
        u[i] = slow ? 20e-6 : 100e-9;
        y[i] += slow ? 8e-6 : 10e-9 * gauss();
    }
    CHECK_RC(isochron_fit_line(x, y, u, N, ISOCHRON_SLOPE_AUTO, 1, 0, &f), ISOCHRON_OK, "slow exchanges");
    CHECK(f.nused <= N / 2 && fabs(f.intercept - 5e-3) < 50e-9, "slow exchanges are filtered: %d used, offset %.1f ns off", f.nused,
          (f.intercept - 5e-3) * 1e9);

    /* 7. degenerate inputs */
    CHECK_RC(isochron_fit_line(x, y, u, 0, ISOCHRON_SLOPE_AUTO, 1, 1, &f), ISOCHRON_EINVAL, "no points");
    double x1 = 5, y1 = 2e-3, u1 = 1e-7;
    CHECK_RC(isochron_fit_line(&x1, &y1, &u1, 1, ISOCHRON_SLOPE_AUTO, 1, 1, &f), ISOCHRON_OK, "one point");
    CHECK(f.slope == 0 && fabs(f.intercept - 2e-3) < 1e-15, "one point: offset %.9g, slope %g", f.intercept, f.slope);
    return check_report("test_fit");
}
