/*
 * test_models: the model fits and the all-pairs schedule, without MPI.
 *  - Hockney: synthetic one-way times alpha + beta m with known noise are
 *    fitted back within 3 standard errors (and the errors are not absurdly
 *    wide); the paper's two series (empty and non-empty message) give the
 *    exact two-point answer with the uncertainty propagated from each series;
 *    noiseless data are recovered to 1e-9 relative.
 *  - LogGP: L, G recovered from times made with known L, o, G.
 *  - Bad input (one point, one size, a zero or NaN standard error) is refused.
 *  - The round-robin schedule at p = 2..11: in every round each rank is in at
 *    most one pair and pairs are mutual, every pair occurs exactly once over
 *    all rounds, p - 1 rounds (p even, nobody idle) or p (p odd, one idle).
 *  - isochron_models_pair finds pair (a,b) in either order.
 *  - The point-to-two schedule at p = 3..9: every triplet (i; j < k) exactly
 *    once, no process in two triplets of one round, at most 25 % more rounds
 *    than the lower bound ceil(count / floor(p/3)), no empty round.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "isochron.h"
#include "isochron/models.h"
#include "check.h"

static unsigned long long lcg = 12345;
static double gauss(void) /* Box-Muller on a fixed LCG: the same numbers on every machine */
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    double u1 = ((lcg >> 11) + 1.0) / 9007199254740994.0;
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    double u2 = (lcg >> 11) / 9007199254740993.0;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

static void test_hockney(void)
{
    const double alpha = 2.5e-6, beta = 1.0 / 5e9; /* 2.5 us, 5 GB/s */
    enum { N = 12 };
    double m[N], t[N], se[N];
    for (int k = 0; k < N; k++) {
        m[k] = k == 0 ? 0 : (double)(1 << (2 * k - 1));  /* 0, 2, 8, ..., 2^21 B */
        se[k] = 0.02 * (alpha + beta * m[k]);              /* 2 % of the time */
        t[k] = alpha + beta * m[k] + se[k] * gauss();
    }
    isochron_hockney_t h;
    CHECK_RC(isochron_hockney_fit(m, t, se, N, &h), ISOCHRON_OK, "hockney fit of %d noisy points", N);
    CHECK(fabs(h.alpha - alpha) < 3 * h.alpha_se, "alpha %.4g s (true %.4g) within 3 SE (%.3g)", h.alpha, alpha, h.alpha_se);
    CHECK(fabs(h.beta - beta) < 3 * h.beta_se, "beta %.4g s/B (true %.4g) within 3 SE (%.3g)", h.beta, beta, h.beta_se);
    CHECK(h.alpha_se < 0.05 * alpha && h.beta_se < 0.05 * beta, "standard errors below 5 %% (%.2g, %.2g)", h.alpha_se / alpha, h.beta_se / beta);

    /* the same without noise and without weights: exact */
    for (int k = 0; k < N; k++) t[k] = alpha + beta * m[k];
    CHECK_RC(isochron_hockney_fit(m, t, NULL, N, &h), ISOCHRON_OK, "hockney fit of exact points, no weights");
    CHECK(fabs(h.alpha / alpha - 1) < 1e-9 && fabs(h.beta / beta - 1) < 1e-9, "exact: alpha %.12g beta %.12g", h.alpha, h.beta);

    /* the paper's two series: empty message, 64 KiB */
    double m2[2] = {0, 65536}, t2[2] = {3e-6, 3e-6 + 65536 * 1e-10}, e2[2] = {1e-8, 3e-8};
    CHECK_RC(isochron_hockney_fit(m2, t2, e2, 2, &h), ISOCHRON_OK, "two series");
    CHECK(fabs(h.alpha - 3e-6) < 1e-15 && fabs(h.beta - 1e-10) < 1e-18, "two series exact: alpha %.6g beta %.6g", h.alpha, h.beta);
    CHECK(fabs(h.alpha_se - 1e-8) < 1e-12, "alpha's SE is the empty series' (%.4g)", h.alpha_se);
    CHECK(fabs(h.beta_se - sqrt(1e-16 + 9e-16) / 65536) < 1e-18, "beta's SE propagated from both series (%.4g)", h.beta_se);

    /* LogGP: L + 2o + (m-1) G one way */
    const double L = 1.5e-6, o = 0.4e-6, G = 2e-10;
    for (int k = 0; k < N; k++) t[k] = L + 2 * o + (m[k] - 1) * G;
    isochron_loggp_t lg;
    CHECK_RC(isochron_loggp_fit(m, t, NULL, N, o, NAN, &lg), ISOCHRON_OK, "loggp fit, g not measured");
    CHECK(fabs(lg.L - L) < 1e-15 && fabs(lg.G - G) < 1e-20 && lg.o == o, "loggp: L %.6g o %.6g G %.6g", lg.L, lg.o, lg.G);
    CHECK(lg.g == o && lg.g_bound == 1, "loggp: g reported as its lower bound o, flagged");
    CHECK_RC(isochron_loggp_fit(m, t, NULL, N, o, 0.7e-6, &lg), ISOCHRON_OK, "loggp fit with a measured gap");
    CHECK(lg.g == 0.7e-6 && lg.g_bound == 0, "loggp: the measured g kept, not flagged");

    /* bad input */
    CHECK_RC(isochron_hockney_fit(m, t, NULL, 1, &h), ISOCHRON_EINVAL, "one point refused");
    double same[3] = {64, 64, 64};
    CHECK_RC(isochron_hockney_fit(same, t, NULL, 3, &h), ISOCHRON_EINVAL, "one size refused");
    CHECK(strstr(isochron_last_error(), "distinct sizes") != NULL, "message says why: %s", isochron_last_error());
    double bad[2] = {1e-8, 0};
    CHECK_RC(isochron_hockney_fit(m2, t2, bad, 2, &h), ISOCHRON_EINVAL, "zero standard error refused");
    double tn[2] = {NAN, 1e-6};
    CHECK_RC(isochron_hockney_fit(m2, tn, NULL, 2, &h), ISOCHRON_EINVAL, "NaN time refused");
    CHECK_RC(isochron_loggp_fit(m, t, NULL, N, -1, NAN, &lg), ISOCHRON_EINVAL, "negative overhead refused");
}

static void test_schedule(void)
{
    for (int p = 2; p <= 11; p++) {
        int rounds = isochron_ops_allpairs_rounds(p), ok = 1, once = 1, idle_ok = 1;
        int *seen = calloc((size_t)p * p, sizeof *seen);
        for (int t = 0; t < rounds; t++) {
            int idle = 0;
            for (int a = 0; a < p; a++) {
                int b = isochron_ops_allpairs_partner(a, t, p);
                if (b < 0) { idle++; continue; }
                if (b == a || b >= p || isochron_ops_allpairs_partner(b, t, p) != a) ok = 0; /* mutual: at most one pair each */
                if (a < b) seen[a * p + b]++;
            }
            if (idle != (p & 1)) idle_ok = 0;
        }
        for (int a = 0; a < p; a++)
            for (int b = a + 1; b < p; b++)
                if (seen[a * p + b] != 1) once = 0;
        free(seen);
        CHECK(rounds == (p & 1 ? p : p - 1), "p=%d: %d rounds", p, rounds);
        CHECK(ok, "p=%d: in every round each rank is in at most one pair, pairs mutual", p);
        CHECK(once, "p=%d: every pair exactly once over the rounds", p);
        CHECK(idle_ok, "p=%d: %s", p, p & 1 ? "exactly one rank idle per round" : "nobody idle");
    }
    CHECK(isochron_ops_allpairs_partner(0, 3, 4) == -1 && isochron_ops_allpairs_partner(5, 0, 4) == -1, "out-of-range round/rank: -1");

    isochron_pair_model_t pm[10];
    int k = 0;
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++, k++) { pm[k].i = i; pm[k].j = j; }
    int found = 1;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            if (i == j) continue;
            const isochron_pair_model_t *q = isochron_models_pair(pm, 5, i, j);
            if (!q || q->i != (i < j ? i : j) || q->j != (i < j ? j : i)) found = 0;
        }
    CHECK(found, "isochron_models_pair finds every pair in either order");
    CHECK(isochron_models_pair(pm, 5, 2, 2) == NULL && isochron_models_pair(pm, 5, 0, 5) == NULL, "no pair (a,a) or outside p");
}

static void test_p2t_schedule(void)
{
    CHECK(isochron_ops_p2t_count(2) == 0 && isochron_ops_p2t_schedule(2, NULL, NULL) == 0, "p2t: no triplets below 3 processes");
    for (int p = 3; p <= 9; p++) {
        int n = isochron_ops_p2t_count(p);
        int *tr = malloc((size_t)n * 3 * sizeof *tr), *rd = malloc((size_t)n * sizeof *rd);
        int nr = isochron_ops_p2t_schedule(p, tr, rd);
        int *seen = calloc((size_t)p * p * p, sizeof *seen), *use = calloc((size_t)nr * p, sizeof *use), *per = calloc((size_t)nr, sizeof *per);
        int valid = 1, disjoint = 1, once = 1;
        for (int t = 0; t < n; t++) {
            int i = tr[3 * t], j = tr[3 * t + 1], k = tr[3 * t + 2];
            if (i == j || i == k || j >= k || i < 0 || k >= p || rd[t] < 0 || rd[t] >= nr) { valid = 0; continue; }
            seen[(i * p + j) * p + k]++;
            per[rd[t]]++;
            if (use[rd[t] * p + i]++ || use[rd[t] * p + j]++ || use[rd[t] * p + k]++) disjoint = 0;
        }
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                for (int k = j + 1; k < p; k++)
                    if (i != j && i != k && seen[(i * p + j) * p + k] != 1) once = 0;
        int full = 0, empty = 0, lb = (n + p / 3 - 1) / (p / 3);
        for (int r = 0; r < nr; r++) full += per[r] == p / 3, empty += per[r] == 0;
        CHECK(n == p * (p - 1) * (p - 2) / 2 && valid, "p2t p=%d: %d triplets, well formed", p, n);
        CHECK(once, "p2t p=%d: every triplet exactly once", p);
        CHECK(disjoint, "p2t p=%d: no process in two triplets of one round (%d rounds)", p, nr);
        CHECK(nr >= lb && 4 * nr <= 5 * lb && !empty, "p2t p=%d: %d rounds (lower bound %d), %d full (%d triplets each), none empty", p, nr, lb, full, p / 3);
        free(tr); free(rd); free(seen); free(use); free(per);
    }
}

int main(void)
{
    test_p2t_schedule();
    test_hockney();
    test_schedule();
    return check_report("test_models");
}
