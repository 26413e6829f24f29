/* Robust linear fit of clock offsets over time (private to libisochron). */
#ifndef ISOCHRON_CLOCK_FIT_H
#define ISOCHRON_CLOCK_FIT_H

typedef struct {
    double slope, intercept; /* y = slope*x + intercept, after the slope policy */
    double fitted_slope;     /* the slope the regression found */
    double slope_se;
    double r2, resid_rms, span;
    int npoints, nused, slope_kept;
} isochron_fit_t;

/* policy: 0 auto (keep slope if |slope| > 3 SE), 1 always, 2 never. u may be NULL. */
int isochron_fit_line(const double *x, const double *y, const double *u, int n, int policy, int outliers,
                      isochron_fit_t *out);

#endif
