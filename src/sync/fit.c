/*
 * Fitting a linear clock model (FIT_LINEAR_MODEL of paper 000, Alg. 2) to fit
 * points that carry hard bounds. SKaMPI-Offset (Alg. 7) returns for each fit
 * point an interval [lo, hi] that must contain the true offset (it is bounded
 * by causality from both sides, absent read jitter); its midpoint, however, is
 * biased whenever the exchanges were asymmetric. Measured here at 4 ranks on
 * 2 cores: two thirds of a pair's fit points can come from slow exchanges
 * whose midpoints sit 1 µs off, with the sign of the bias flipping half-way
 * through the span, so neither least squares on midpoints nor filtering by
 * interval width gave a slope better than 4-10 ppm (40-100 µs after 10 s).
 *
 * The fit therefore is least squares constrained by the bounds (the
 * "convex hull" view of clock synchronization):
 *   minimize  sum_i w_i (y_i - a - b x_i)^2   over points kept for the objective
 *   subject to lo_i - d <= a + b x_i <= hi_i + d   for every point
 * where w_i = 1/max(u_i, u_20)^2 (u_20: the 20th percentile of the u_i),
 * the objective uses the points that pass minimum-RTT
 * filtering and robust rejection, and d >= 0 is the smallest widening that
 * makes the constraints feasible (0 when the bounds are consistent; about
 * the read jitter when they are not). In the 2-D (a, b) plane the feasible set
 * is a convex polygon (a box clipped by every half-plane); the minimum is the
 * unconstrained solution if inside, else on an edge.
 *
 * Slope significance: the slope is kept only if it exceeds 3 standard errors
 * of the unconstrained weighted fit (corrected for autocorrelated residuals)
 * and, with hard bounds, only if no constant offset fits inside all of them
 * or it exceeds 20 standard errors; otherwise an offset-only model is fitted
 * under the same constraints. On one host all processes read one oscillator
 * and the true relative drift is 0, so an insignificant slope is noise that
 * grows as slope*t (a peer: 65 µs after 10 s); an injected ±50 ppm is
 * hundreds of standard errors and is kept.
 * x is centred on its first value for numerical stability.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

#define SLOPE_MAX 0.2 /* |relative drift| searched: 20 %, far beyond any real clock */
#define BOUNDS_VETO_SE 20.0 /* slopes beyond this many corrected SE are kept even when the bounds look flat */

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

/* Width of the feasible intercept range for slope b (negative: infeasible). */
static double margin(const double *x, const double *lo, const double *hi, int n, double b)
{
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (hi[i] - b * x[i] < mn) mn = hi[i] - b * x[i];
        if (lo[i] - b * x[i] > mx) mx = lo[i] - b * x[i];
    }
    return mn - mx;
}

/* Largest margin over b in [-SLOPE_MAX, SLOPE_MAX] (concave: ternary search). */
static double best_margin(const double *x, const double *lo, const double *hi, int n)
{
    double l = -SLOPE_MAX, r = SLOPE_MAX;
    for (int it = 0; it < 200 && r - l > 1e-13; it++) {
        double m1 = l + (r - l) / 3, m2 = r - (r - l) / 3;
        if (margin(x, lo, hi, n, m1) < margin(x, lo, hi, n, m2)) l = m1; else r = m2;
    }
    return margin(x, lo, hi, n, 0.5 * (l + r));
}

typedef struct { double a, b; } pt_t;

/* Clip polygon P (np vertices) by ca*a + cb*b <= c. Returns new count in Q. */
static int clip(const pt_t *P, int np, double ca, double cb, double c, pt_t *Q)
{
    int nq = 0;
    for (int i = 0; i < np; i++) {
        pt_t p = P[i], q = P[(i + 1) % np];
        double fp = ca * p.a + cb * p.b - c, fq = ca * q.a + cb * q.b - c;
        if (fp <= 0) Q[nq++] = p;
        if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) {
            double t = fp / (fp - fq);
            Q[nq++] = (pt_t){p.a + t * (q.a - p.a), p.b + t * (q.b - p.b)};
        }
    }
    return nq;
}

/* Q(a,b) = sum w (y - a - b x)^2 over kept points, in closed form from sums. */
typedef struct { double sw, swx, swy, swxx, swxy, swyy; } sums_t;
static double qval(const sums_t *s, double a, double b)
{
    return s->swyy - 2 * a * s->swy - 2 * b * s->swxy + a * a * s->sw + 2 * a * b * s->swx + b * b * s->swxx;
}

/* Minimize Q over the feasible polygon; (a0,b0) is the unconstrained minimum. */
static pt_t constrained(const double *x, const double *lo, const double *hi, int n, const sums_t *s,
                        double a0, double b0, double d, int fix_b0)
{
    /* start box: intercepts around the data, slopes within SLOPE_MAX (or fixed 0) */
    double amin = INFINITY, amax = -INFINITY, xmax = 0;
    for (int i = 0; i < n; i++) {
        if (lo[i] < amin) amin = lo[i];
        if (hi[i] > amax) amax = hi[i];
        if (fabs(x[i]) > xmax) xmax = fabs(x[i]);
    }
    double bmax = fix_b0 ? 0 : SLOPE_MAX, pad = bmax * xmax + d + 1.0;
    int cap = 2 * n + 8, np = 4;
    pt_t *P = malloc(sizeof(pt_t) * (size_t)cap * 2), *Q;
    if (!P) return (pt_t){a0, b0};
    Q = P + cap;
    P[0] = (pt_t){amin - pad, -bmax};
    P[1] = (pt_t){amax + pad, -bmax};
    P[2] = (pt_t){amax + pad, bmax};
    P[3] = (pt_t){amin - pad, bmax};
    if (fix_b0) { np = 2; P[0] = (pt_t){amin - pad, 0}; P[1] = (pt_t){amax + pad, 0}; }
    for (int i = 0; i < n && np > 0; i++) {
        /* a + b x <= hi + d  and  -(a + b x) <= -(lo - d) */
        if (fix_b0) { /* 1-D: clip the segment */
            double lo_a = lo[i] - d, hi_a = hi[i] + d;
            if (P[0].a < lo_a) P[0].a = lo_a;
            if (P[1].a > hi_a) P[1].a = hi_a;
            if (P[0].a > P[1].a) np = 0;
            continue;
        }
        np = clip(P, np, 1.0, x[i], hi[i] + d, Q);
        memcpy(P, Q, sizeof(pt_t) * (size_t)np);
        np = clip(P, np, -1.0, -x[i], -(lo[i] - d), Q);
        memcpy(P, Q, sizeof(pt_t) * (size_t)np);
    }
    pt_t best = {a0, b0};
    if (np == 0) { free(P); return best; }
    if (fix_b0) {
        best.a = a0 < P[0].a ? P[0].a : a0 > P[1].a ? P[1].a : a0;
        best.b = 0;
        free(P);
        return best;
    }
    /* inside? (convex polygon, counter-clockwise or not: check all edges have one sign) */
    int pos = 0, neg = 0;
    for (int i = 0; i < np; i++) {
        pt_t p = P[i], q = P[(i + 1) % np];
        double cr = (q.a - p.a) * (b0 - p.b) - (q.b - p.b) * (a0 - p.a);
        if (cr > 0) pos++;
        if (cr < 0) neg++;
    }
    if (!(pos && neg)) { free(P); return best; }
    double bestq = INFINITY;
    for (int i = 0; i < np; i++) {
        pt_t p = P[i], q = P[(i + 1) % np];
        double da = q.a - p.a, db = q.b - p.b;
        /* Q(p + t d) quadratic in t: minimize on [0,1] */
        double A = s->sw * da * da + 2 * s->swx * da * db + s->swxx * db * db;
        double B = -2 * (s->swy * da + s->swxy * db) + 2 * (s->sw * p.a * da + s->swx * (p.a * db + p.b * da) + s->swxx * p.b * db);
        double t = A > 0 ? -B / (2 * A) : 0;
        if (t < 0) t = 0;
        if (t > 1) t = 1;
        pt_t c = {p.a + t * da, p.b + t * db};
        double v = qval(s, c.a, c.b);
        if (v < bestq) { bestq = v; best = c; }
    }
    free(P);
    return best;
}

int isochron_fit_line(const double *x_in, const double *y, const double *u, int n, int policy, int outliers,
                      int hard_bounds, isochron_fit_t *out)
{
    memset(out, 0, sizeof *out);
    out->npoints = n;
    if (n < 1) return isochron_set_error(ISOCHRON_EINVAL, "fit: no points");
    char *keep = malloc((size_t)n);
    double *buf = malloc(sizeof(double) * (size_t)n * 5);
    if (!keep || !buf) { free(keep); free(buf); return isochron_set_error(ISOCHRON_ENOMEM, "fit: out of memory"); }
    double *w = buf, *tmp = buf + n, *x = buf + 2 * n, *lo = buf + 3 * n, *hi = buf + 4 * n;
    double x0 = x_in[0];
    for (int i = 0; i < n; i++) x[i] = x_in[i] - x0;
    memset(keep, 1, (size_t)n);
    double umin = INFINITY;
    for (int i = 0; u && i < n; i++) if (fabs(u[i]) > 0 && fabs(u[i]) < umin) umin = fabs(u[i]);
    double floor_u = isfinite(umin) ? fmax(umin, 1e-9) : 1.0;
    /* A point's error has a floor that its half-width does not show (clock
     * reads, jitter: a jittered clock even gives crossed bounds, |u| near 0),
     * so weights stop growing below the 20th percentile of |u|: measured at
     * 4 ranks on 2 cores under load, one lucky point with |u| = 3 ns took
     * the weight of all others and left a slope 3.7 ppm off (0.03 ppm with
     * the floor, over the same points). */
    if (u && n >= 8) {
        for (int i = 0; i < n; i++) tmp[i] = fabs(u[i]);
        isochron_sort_doubles(tmp, n);
        if (tmp[n / 5] > floor_u) floor_u = tmp[n / 5];
    }
    for (int i = 0; i < n; i++) {
        double ui = u ? fmax(fabs(u[i]), floor_u) : 1.0;
        w[i] = 1.0 / (ui * ui);
        lo[i] = y[i] - (u ? fabs(u[i]) : 0);
        hi[i] = y[i] + (u ? fabs(u[i]) : 0);
    }
    if (u && n >= 8) { /* minimum-RTT filtering of the objective's points */
        for (int i = 0; i < n; i++) tmp[i] = fabs(u[i]);
        isochron_sort_doubles(tmp, n);
        int k = n / 20 > 2 ? n / 20 : 2, need = n / 5 > 5 ? n / 5 : 5;
        double ref_u = tmp[k], thr = fmax(2.0 * ref_u, ref_u + 100e-9);
        if (thr < tmp[need - 1]) thr = tmp[need - 1];
        for (int i = 0; i < n; i++) keep[i] = fabs(u[i]) <= thr;
    }
    wls_t s = wls(x, y, w, keep, n);
    if (outliers && s.m >= 6) { /* robust rejection on standardized residuals */
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
    sums_t S = {0, 0, 0, 0, 0, 0};
    double swrr = 0, swtt = 0, rr = 0, xmin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < n; i++)
        if (keep[i]) {
            double r = y[i] - (s.ym + s.b * (x[i] - s.xm));
            swrr += w[i] * r * r;
            rr += r * r;
            swtt += w[i] * (y[i] - s.ym) * (y[i] - s.ym);
            if (x[i] < xmin) xmin = x[i];
            if (x[i] > xmax) xmax = x[i];
            S.sw += w[i]; S.swx += w[i] * x[i]; S.swy += w[i] * y[i];
            S.swxx += w[i] * x[i] * x[i]; S.swxy += w[i] * x[i] * y[i]; S.swyy += w[i] * y[i] * y[i];
        }
    int m = s.m;
    out->nused = m;
    out->slope_se = (m > 2 && s.swxx > 0) ? sqrt(swrr / (m - 2) / s.swxx) : INFINITY;
    /* Residuals of real fit points wander slowly (scheduling, frequency), so
     * they are not independent and the textbook SE is too small: measured
     * here, a 0.32 ppm slope came out "5.5 SE" on one host where the true
     * drift is 0, and cost 3 µs after 10 s. Inflate the SE by the AR(1)
     * effective-sample-size factor sqrt((1+rho)/(1-rho)), rho the lag-1
     * autocorrelation of the residuals in time order. */
    {
        double num = 0, den = 0, prev = NAN;
        for (int i = 0; i < n; i++)
            if (keep[i]) {
                double r = y[i] - (s.ym + s.b * (x[i] - s.xm));
                if (!isnan(prev)) num += r * prev;
                den += r * r;
                prev = r;
            }
        double rho = den > 0 ? num / den : 0;
        if (rho < 0) rho = 0;
        if (rho > 0.98) rho = 0.98;
        out->slope_se *= sqrt((1 + rho) / (1 - rho));
        out->resid_rho = rho;
    }
    out->r2 = swtt > 0 ? 1.0 - swrr / swtt : 0.0;
    out->resid_rms = m ? sqrt(rr / m) : 0.0;
    out->span = m ? xmax - xmin : 0.0;

    int keep_slope = policy == 1 ? (m >= 2 && s.swxx > 0) : policy == 2 ? 0 : (m > 2 && fabs(s.b) > 3.0 * out->slope_se);
    /* Evidence of drift from the hard bounds: if one constant offset lies in
     * every interval, the data do not show a drift, however many "standard
     * errors" the fitted slope has (measured here on one host, where the true
     * drift is 0: slopes of 0.3-0.5 ppm at 3-7 corrected SE, costing up to
     * 7 µs after 10 s). A real drift moves the offset across the span by
     * more than the tightest intervals allow (±50 ppm: 6 µs vs ±0.2 µs). */
    /* That veto is for slopes of marginal significance, though. When the
     * intervals are wide next to the drift across the span (round trips of
     * microseconds between hosts, as in SimGrid's fat tree: ±4 µs intervals
     * vs 1 µs of a 50 ppm drift over 20 ms) a flat constant fits inside them
     * whatever the drift, and the veto dropped a 50 ppm drift that the
     * midpoints showed at thousands of standard errors (690 µs off after
     * 10 s). A slope beyond BOUNDS_VETO_SE corrected standard errors is kept
     * whatever the bounds say; the false slopes measured on one host were
     * 3-7 of them. */
    if (keep_slope && policy == 0 && u && hard_bounds && n >= 2 && !(fabs(s.b) > BOUNDS_VETO_SE * out->slope_se) &&
        margin(x, lo, hi, n, 0.0) >= 0) {
        keep_slope = 0;
        out->bounds_flat = 1;
    }
    double a0 = s.ym - s.b * s.xm, b0 = s.b;
    if (!keep_slope) { a0 = s.ym; b0 = 0; }
    if (u && hard_bounds && n >= 2) {
        double d = keep_slope ? best_margin(x, lo, hi, n) : margin(x, lo, hi, n, 0.0);
        d = d < 0 ? -0.5 * d * 1.000001 + 1e-12 : 0.0;
        out->widening = d;
        /* bounds that must be widened by more than the tightest interval are
         * not hard (read jitter): then they carry no extra information */
        for (int i = 0; i < n; i++) tmp[i] = fabs(u[i]);
        isochron_sort_doubles(tmp, n);
        if (d <= tmp[n / 10]) {
            pt_t c = constrained(x, lo, hi, n, &S, a0, b0, d, !keep_slope);
            a0 = c.a;
            b0 = c.b;
            out->constrained = 1;
        }
    }
    out->fitted_slope = s.b;
    out->slope_kept = keep_slope;
    out->slope = keep_slope ? b0 : 0.0;
    out->intercept = a0 - out->slope * x0; /* back to uncentred x */
    free(keep);
    free(buf);
    return ISOCHRON_OK;
}
