/*
 * Robust fitting of a linear clock model (FIT_LINEAR_MODEL of paper 000,
 * Alg. 2) with three guards that the paper leaves implicit and that decide
 * accuracy on a real machine:
 *  1. weighting by the offset bounds: SKaMPI-Offset returns an interval known
 *     to contain the offset; its half-width u is small only when some
 *     ping-pong was lucky (minimum delay, cf. Ridoux & Veitch, cited in
 *     sec. III-A). Points are weighted by 1/u^2 (weighted least squares), so
 *     a fit point taken while the processes were descheduled (u of µs, midpoint
 *     biased) barely counts against one with u of 0.3 µs. Measured here at 4
 *     ranks on 2 cores: half the fit points of a pair can be such slow ones.
 *     Before that, minimum-RTT filtering keeps only points whose u is within
 *     2x (or +100 ns) of the tightest ones (5th percentile), but never fewer
 *     than a fifth of them: the midpoint of a wide interval is biased by the
 *     asymmetry of the slow exchange, and such points can be the majority.
 *  2. robust rejection: after a first fit, points whose standardized residual
 *     |r|*sqrt(w) exceeds 4 scaled MADs are dropped and the line refitted;
 *  3. slope significance: the slope is kept only if it exceeds 3 standard
 *     errors. On one host all processes read one oscillator and the true
 *     relative drift is 0, so an insignificant fitted slope is pure noise that
 *     would grow into an error of slope*t (measured for a peer: 65 µs after
 *     10 s); dropping it gives offset-only accuracy there, while a real drift
 *     (e.g. injected ±50 ppm) is hundreds of standard errors and is kept.
 * Regression is done on centred x for numerical stability.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "clock/fit.h"

typedef struct { double xm, ym, b, sw, swxx; int m; } wls_t;

static wls_t wls(const double *x, const double *y, const double *w, const char *keep, int n)
{
    wls_t s = {0, 0, 0, 0, 0, 0};
    double swx = 0, swy = 0;
    for (int i = 0; i < n; i++) if (keep[i]) { s.sw += w[i]; swx += w[i] * x[i]; swy += w[i] * y[i]; s.m++; }
    if (s.m == 0 || s.sw <= 0) return s;
    s.xm = swx / s.sw;
    s.ym = swy / s.sw;
    double sxy = 0;
    for (int i = 0; i < n; i++)
        if (keep[i]) { double dx = x[i] - s.xm; s.swxx += w[i] * dx * dx; sxy += w[i] * dx * (y[i] - s.ym); }
    s.b = (s.m >= 2 && s.swxx > 0) ? sxy / s.swxx : 0.0;
    return s;
}

int isochron_fit_line(const double *x, const double *y, const double *u, int n, int policy, int outliers,
                      isochron_fit_t *out)
{
    memset(out, 0, sizeof *out);
    out->npoints = n;
    if (n < 1) return isochron_set_error(ISOCHRON_EINVAL, "fit: no points");
    char *keep = malloc((size_t)n);
    double *w = malloc(sizeof(double) * (size_t)n * 2);
    if (!keep || !w) { free(keep); free(w); return isochron_set_error(ISOCHRON_ENOMEM, "fit: out of memory"); }
    double *tmp = w + n;
    memset(keep, 1, (size_t)n);
    double umin = INFINITY;
    for (int i = 0; u && i < n; i++) if (u[i] > 0 && u[i] < umin) umin = u[i];
    double floor_u = isfinite(umin) ? fmax(umin, 1e-9) : 1.0;
    for (int i = 0; i < n; i++) {
        double ui = u ? fmax(u[i], floor_u) : 1.0;
        w[i] = 1.0 / (ui * ui);
    }
    if (u && n >= 8) { /* minimum-RTT filtering */
        for (int i = 0; i < n; i++) tmp[i] = u[i];
        isochron_sort_doubles(tmp, n);
        int k = n / 20 > 2 ? n / 20 : 2, need = n / 5 > 5 ? n / 5 : 5;
        double ref_u = fmax(tmp[k], 0.0), thr = fmax(2.0 * ref_u, ref_u + 100e-9);
        if (thr < tmp[need - 1]) thr = tmp[need - 1]; /* never fewer than n/5 points */
        for (int i = 0; i < n; i++) keep[i] = u[i] <= thr;
    }
    wls_t s = wls(x, y, w, keep, n);
    if (outliers && s.m >= 6) {
        int k = 0;
        for (int i = 0; i < n; i++) if (keep[i]) tmp[k++] = fabs(y[i] - (s.ym + s.b * (x[i] - s.xm))) * sqrt(w[i]);
        double mad = 1.4826 * isochron_median(tmp, k);
        if (mad > 0) {
            int kept = 0;
            char *k2 = malloc((size_t)n);
            if (k2) {
                for (int i = 0; i < n; i++) {
                    k2[i] = keep[i] && fabs(y[i] - (s.ym + s.b * (x[i] - s.xm))) * sqrt(w[i]) <= 4.0 * mad;
                    kept += k2[i];
                }
                if (kept >= s.m / 2 && kept >= 3) { memcpy(keep, k2, (size_t)n); s = wls(x, y, w, keep, n); }
                free(k2);
            }
        }
    }
    double swrr = 0, swtt = 0, rr = 0, xmin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < n; i++)
        if (keep[i]) {
            double r = y[i] - (s.ym + s.b * (x[i] - s.xm));
            swrr += w[i] * r * r;
            rr += r * r;
            swtt += w[i] * (y[i] - s.ym) * (y[i] - s.ym);
            if (x[i] < xmin) xmin = x[i];
            if (x[i] > xmax) xmax = x[i];
        }
    int m = s.m;
    out->nused = m;
    out->fitted_slope = s.b;
    out->slope_se = (m > 2 && s.swxx > 0) ? sqrt(swrr / (m - 2) / s.swxx) : INFINITY;
    out->r2 = swtt > 0 ? 1.0 - swrr / swtt : 0.0;
    out->resid_rms = m ? sqrt(rr / m) : 0.0;
    out->span = m ? xmax - xmin : 0.0;

    int keep_slope = policy == 1 ? (m >= 2 && s.swxx > 0) : policy == 2 ? 0 : (m > 2 && fabs(s.b) > 3.0 * out->slope_se);
    out->slope_kept = keep_slope;
    out->slope = keep_slope ? s.b : 0.0;
    /* the line through the weighted centre; offset-only: the weighted mean level */
    out->intercept = keep_slope ? s.ym - s.b * s.xm : s.ym;
    free(keep);
    free(w);
    return ISOCHRON_OK;
}
