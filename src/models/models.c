/*
 * Communication performance models (include/isochron/models.h), after MPIBlib
 * (paper 001, sec. 4-5): the all-pairs point-to-point benchmark measures
 * round trips per pair; Hockney's model is fitted per pair from the one-way
 * times (half the round trip) of empty and non-empty messages, by weighted
 * least squares (the two series of the paper are the exact two-point case,
 * their uncertainty propagated from each series' standard error); LogGP
 * (Alexandrov, Ionescu, Schauser, Scheiman 1995) shares the slope G = beta
 * and splits the intercept L + 2o - G with the sender overhead o measured
 * inside MPI_Send. The gap g between consecutive messages, which round
 * trips cannot show, comes from bursts of messages (isochron_pair_t.gap_s);
 * without it g is reported as its lower bound o, flagged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/models.h"
#include "core/util.h"

int isochron_hockney_fit(const double *bytes, const double *t, const double *se, int n, isochron_hockney_t *out)
{
    if (!out || !bytes || !t) return isochron_set_error(ISOCHRON_EINVAL, "hockney fit: NULL argument");
    out->alpha = out->beta = out->alpha_se = out->beta_se = out->rms = NAN;
    out->n = n;
    if (n < 2) return isochron_set_error(ISOCHRON_EINVAL, "hockney fit: %d point(s); need at least 2 (an empty and a non-empty message)", n);
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; k++) {
        if (!isfinite(bytes[k]) || bytes[k] < 0 || !isfinite(t[k]))
            return isochron_set_error(ISOCHRON_EINVAL, "hockney fit: point %d (%g B, %g s) is not a finite time at a size >= 0", k, bytes[k], t[k]);
        if (se && !(se[k] > 0 && isfinite(se[k])))
            return isochron_set_error(ISOCHRON_EINVAL, "hockney fit: point %d has standard error %g; need a positive finite value", k, se[k]);
        double w = se ? 1.0 / (se[k] * se[k]) : 1.0;
        sw += w; sx += w * bytes[k]; sy += w * t[k];
    }
    double mx = sx / sw, my = sy / sw; /* centered sums: stable at sizes of megabytes */
    for (int k = 0; k < n; k++) {
        double w = se ? 1.0 / (se[k] * se[k]) : 1.0, dx = bytes[k] - mx;
        sxx += w * dx * dx; sxy += w * dx * (t[k] - my);
    }
    if (!(sxx > 0)) return isochron_set_error(ISOCHRON_EINVAL, "hockney fit: all %d points have the same size; need two distinct sizes", n);
    out->beta = sxy / sxx;
    out->alpha = my - out->beta * mx;
    double chi2 = 0, ss = 0;
    for (int k = 0; k < n; k++) {
        double r = t[k] - (out->alpha + out->beta * bytes[k]), w = se ? 1.0 / (se[k] * se[k]) : 1.0;
        chi2 += w * r * r; ss += r * r;
    }
    out->rms = sqrt(ss / n);
    /* covariance (X'WX)^-1: var(beta) = 1/sxx, var(alpha) = 1/sw + mx^2/sxx; scaled by the residuals */
    double scale;
    if (n > 2) scale = se ? fmax(1.0, chi2 / (n - 2)) : chi2 / (n - 2);
    else scale = se ? 1.0 : NAN;
    out->beta_se = sqrt(scale / sxx);
    out->alpha_se = sqrt(scale * (1.0 / sw + mx * mx / sxx));
    return ISOCHRON_OK;
}

int isochron_loggp_fit(const double *bytes, const double *t, const double *se, int n, double o, double g, isochron_loggp_t *out)
{
    if (!out) return isochron_set_error(ISOCHRON_EINVAL, "loggp fit: NULL argument");
    out->L = out->o = out->g = out->G = out->L_se = out->G_se = NAN;
    out->g_bound = 1;
    if (!(o >= 0 && isfinite(o))) return isochron_set_error(ISOCHRON_EINVAL, "loggp fit: overhead o = %g s; need a finite value >= 0", o);
    isochron_hockney_t h;
    int rc = isochron_hockney_fit(bytes, t, se, n, &h);
    if (rc) return rc;
    out->G = h.beta;
    out->G_se = h.beta_se;
    out->o = o;
    out->g_bound = !(g >= 0 && isfinite(g));
    out->g = out->g_bound ? o : g;
    /* intercept = L + 2o - G */
    out->L = h.alpha + h.beta - 2 * o;
    out->L_se = sqrt(h.alpha_se * h.alpha_se + h.beta_se * h.beta_se);
    return ISOCHRON_OK;
}

const isochron_pair_model_t *isochron_models_pair(const isochron_pair_model_t *models, int p, int a, int b)
{
    if (!models || a == b || a < 0 || b < 0 || a >= p || b >= p) return NULL;
    if (a > b) { int x = a; a = b; b = x; }
    /* pairs (0,1)..(0,p-1), (1,2).. : index of (a,b) */
    size_t k = (size_t)a * (size_t)(2 * p - a - 1) / 2 + (size_t)(b - a - 1);
    return &models[k];
}

/* Standard error of one pair's one-way time from its summary: the median's
 * distribution-free interval when there is one, else the mean's. */
static double one_way_se(const isochron_summary_t *s)
{
    double z = 1.959963984540054; /* ci_level is 0.95 below */
    double e = (s->med_hi - s->med_lo) / (2 * z);
    if (!(e > 0 && isfinite(e))) e = s->n > 1 ? s->stddev / sqrt((double)s->n) : NAN;
    if (!(e > 0 && isfinite(e))) e = fmax(1e-9, 1e-3 * s->median); /* identical times (coarse timer): 0.1 % */
    return e / 2;
}

int isochron_models_measure(MPI_Comm comm, const size_t *sizes, int nsizes, int reps, int mode, isochron_pair_model_t *models)
{
    int rank, p;
    if (comm == MPI_COMM_NULL) return isochron_set_error(ISOCHRON_EINVAL, "models: no communicator");
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int rc = ISOCHRON_OK;
    if (!sizes || nsizes < 2) rc = isochron_set_error(ISOCHRON_EINVAL, "models: %d size(s); need at least 2 distinct sizes (e.g. 0 and 64K)", nsizes);
    else if (!models) rc = isochron_set_error(ISOCHRON_EINVAL, "models: the result array is NULL");
    else if (p < 2) rc = isochron_set_error(ISOCHRON_EINVAL, "models: 1 process has no pairs; need at least 2");
    int agreed = rc;
    MPI_Allreduce(&rc, &agreed, 1, MPI_INT, MPI_MIN, comm);
    if (agreed) return rc ? rc : isochron_set_error(agreed, "models: refused on another rank");
    int np = p * (p - 1) / 2;
    isochron_pair_t *pr = rank == 0 ? calloc((size_t)np * (size_t)nsizes, sizeof *pr) : NULL;
    if (rank == 0 && !pr) rc = isochron_set_error(ISOCHRON_ENOMEM, "models: out of memory");
    int r0 = rc;
    MPI_Bcast(&r0, 1, MPI_INT, 0, comm);
    if (r0) return rank == 0 ? rc : isochron_set_error(r0, "models: out of memory on rank 0");
    for (int s = 0; s < nsizes && rc == ISOCHRON_OK; s++)
        rc = isochron_ops_allpairs_run(comm, sizes[s], reps, mode, 0.95, pr ? pr + (size_t)s * np : NULL, NULL);
    if (rc == ISOCHRON_OK && rank == 0) {
        double *x = malloc((size_t)nsizes * sizeof *x), *t = malloc((size_t)nsizes * sizeof *t), *e = malloc((size_t)nsizes * sizeof *e);
        if (!x || !t || !e) rc = isochron_set_error(ISOCHRON_ENOMEM, "models: out of memory");
        int smallest = 0;
        for (int s = 1; s < nsizes; s++) if (sizes[s] < sizes[smallest]) smallest = s;
        for (int k = 0; k < np && rc == ISOCHRON_OK; k++) {
            for (int s = 0; s < nsizes; s++) {
                const isochron_pair_t *q = &pr[(size_t)s * np + k];
                x[s] = (double)sizes[s];
                t[s] = q->s.median / 2;
                e[s] = one_way_se(&q->s);
            }
            models[k].i = pr[k].i;
            models[k].j = pr[k].j;
            rc = isochron_hockney_fit(x, t, e, nsizes, &models[k].hockney);
            if (rc == ISOCHRON_OK) rc = isochron_loggp_fit(x, t, e, nsizes, pr[(size_t)smallest * np + k].send_s, pr[(size_t)smallest * np + k].gap_s, &models[k].loggp);
        }
        free(x); free(t); free(e);
    }
    free(pr);
    int bad = rc;
    MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
    if (bad) return rc ? rc : isochron_set_error(bad, "models: failed on rank 0");
    if (MPI_Bcast(models, (int)((size_t)np * sizeof *models), MPI_BYTE, 0, comm) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "models: MPI_Bcast of the models failed");
    return ISOCHRON_OK;
}
