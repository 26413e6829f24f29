/* Robust linear fit of clock offsets over time (private to libisochron). */
#ifndef ISOCHRON_CLOCK_FIT_H
#define ISOCHRON_CLOCK_FIT_H

typedef struct {
    double slope, intercept; /* y = slope*x + intercept, after the slope policy */
    double fitted_slope;     /* the slope the regression found */
    double slope_se;
    double r2, resid_rms, span;
    double resid_rho;        /* lag-1 autocorrelation of the residuals */
    int bounds_flat;         /* 1 if a constant offset fits all hard bounds (slope dropped) */
    int constrained;         /* 1 if the bounds constrained the fit */
    double widening;         /* how far the bounds had to be widened to be consistent (s) */
    int npoints, nused, slope_kept;
} isochron_fit_t;

/* policy: 0 auto (keep slope if |slope| > 3 SE), 1 always, 2 never. u may be NULL.
 * hard_bounds: [y-u, y+u] must contain the true offset (SKaMPI-Offset); the fit is constrained by them. */
int isochron_fit_line(const double *x, const double *y, const double *u, int n, int policy, int outliers,
                      int hard_bounds, isochron_fit_t *out);

#endif
