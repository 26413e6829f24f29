/*
 * Robust fitting of a linear clock model (FIT_LINEAR_MODEL of paper 000,
 * Alg. 2) with three guards that the paper leaves implicit and that decide
 * accuracy on a real machine:
 *  1. minimum-RTT filtering: a fit point whose uncertainty interval (from
 *     SKaMPI-Offset's bounds) is much wider than the median had no lucky
 *     ping-pong, so it is dropped (cf. Ridoux & Veitch, cited in sec. III-A);
 *  2. robust rejection: after a first least-squares fit, points further than
 *     4 scaled MADs from the line are dropped and the line is refitted;
 *  3. slope significance: the slope is kept only if it exceeds 3 standard
 *     errors. On one host all processes read one oscillator and the true
 *     relative drift is 0, so an insignificant fitted slope is pure noise that
 *     would grow into an error of slope*t (measured for a peer: 65 µs after
 *     10 s); dropping it gives offset-only accuracy there, while a real drift
 *     (e.g. injected ±50 ppm) is many standard errors and is kept.
 * Regression is done on centred x for numerical stability.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "clock/fit.h"

static void ols(const double *x, const double *y, const char *keep, int n, double *a, double *b,
                double *xm_out, double *sxx_out, int *m_out)
{
    double sx = 0, sy = 0;
    int m = 0;
    for (int i = 0; i < n; i++) if (keep[i]) { sx += x[i]; sy += y[i]; m++; }
    double xm = sx / m, ym = sy / m, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        if (keep[i]) { double dx = x[i] - xm; sxx += dx * dx; sxy += dx * (y[i] - ym); }
    *b = (m >= 2 && sxx > 0) ? sxy / sxx : 0.0;
    *a = ym; /* value at xm */
    *xm_out = xm;
    *sxx_out = sxx;
    *m_out = m;
}

int isochron_fit_line(const double *x, const double *y, const double *u, int n, int policy, int outliers,
                      isochron_fit_t *out)
{
    memset(out, 0, sizeof *out);
    out->npoints = n;
    if (n < 1) return isochron_set_error(ISOCHRON_EINVAL, "fit: no points");
    char *keep = malloc((size_t)n);
    double *tmp = malloc(sizeof(double) * (size_t)n);
    if (!keep || !tmp) { free(keep); free(tmp); return isochron_set_error(ISOCHRON_ENOMEM, "fit: out of memory"); }
    memset(keep, 1, (size_t)n);

    if (u && n >= 4) { /* 1. min-RTT filtering */
        memcpy(tmp, u, sizeof(double) * (size_t)n);
        double med = isochron_median(tmp, n);
        int kept = 0;
        for (int i = 0; i < n; i++) { keep[i] = !(u[i] > 3.0 * med); kept += keep[i]; }
        if (kept < 3) memset(keep, 1, (size_t)n);
    }
    double a, b, xm, sxx;
    int m;
    ols(x, y, keep, n, &a, &b, &xm, &sxx, &m);
    if (outliers && m >= 6) { /* 2. robust rejection */
        int k = 0;
        for (int i = 0; i < n; i++) if (keep[i]) tmp[k++] = fabs(y[i] - (a + b * (x[i] - xm)));
        double mad = 1.4826 * isochron_median(tmp, k);
        if (mad > 0) {
            int kept = 0;
            char *k2 = malloc((size_t)n);
            if (k2) {
                for (int i = 0; i < n; i++) { k2[i] = keep[i] && fabs(y[i] - (a + b * (x[i] - xm))) <= 4.0 * mad; kept += k2[i]; }
                if (kept >= m / 2 && kept >= 3) { memcpy(keep, k2, (size_t)n); ols(x, y, keep, n, &a, &b, &xm, &sxx, &m); }
                free(k2);
            }
        }
    }
    double ssr = 0, sst = 0, ym = a, xmin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < n; i++)
        if (keep[i]) {
            double r = y[i] - (a + b * (x[i] - xm));
            ssr += r * r;
            sst += (y[i] - ym) * (y[i] - ym);
            if (x[i] < xmin) xmin = x[i];
            if (x[i] > xmax) xmax = x[i];
        }
    out->nused = m;
    out->fitted_slope = b;
    out->slope_se = (m > 2 && sxx > 0) ? sqrt(ssr / (m - 2) / sxx) : INFINITY;
    out->r2 = sst > 0 ? 1.0 - ssr / sst : 0.0;
    out->resid_rms = sqrt(ssr / m);
    out->span = xmax - xmin;

    int keep_slope = policy == 1 ? (m >= 2 && sxx > 0) : policy == 2 ? 0 : (m > 2 && fabs(b) > 3.0 * out->slope_se);
    if (keep_slope) {
        out->slope = b;
        out->intercept = a - b * xm;
        out->slope_kept = 1;
    } else {
        /* offset-only: the robust level of the kept points */
        int k = 0;
        for (int i = 0; i < n; i++) if (keep[i]) tmp[k++] = y[i];
        out->slope = 0.0;
        out->intercept = isochron_median(tmp, k);
        out->slope_kept = 0;
    }
    free(keep);
    free(tmp);
    return ISOCHRON_OK;
}
