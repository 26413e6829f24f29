/*
 * test_timers: the timer registry and the skew decorator (isochron/timer.h).
 * Proves that every registered timer can be created (or, for "tsc" only, is
 * refused with EUNSUPPORTED and a reason), reads finite values in seconds
 * (elapsed time agrees with CLOCK_MONOTONIC over a sleep), never goes back for
 * the monotonic ones; that an unknown name is ENAME with an error listing
 * every valid name; and that the skew decorator injects exactly
 *     b + offset + drift*1e-6*(b-b0) + ddrift*1e-6*(b-b0)^2/2
 * (b0 = base reading at creation) with Gaussian jitter of the requested
 * standard deviation on top. Runs under MPI (np 1) because of "mpi_wtime".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "check.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int is_monotonic_name(const char *n)
{
    /* Timers whose readings must never decrease on any machine. mpi_wtime is
     * not listed: the MPI standard does not promise monotonicity; realtime can
     * be stepped by an administrator. */
    return !strcmp(n, "monotonic") || !strcmp(n, "monotonic_raw") || !strcmp(n, "tsc");
}

static void test_one_timer(const isochron_timer_info_t *info)
{
    isochron_timer_t *t = NULL;
    int rc = isochron_timer_create(info->name, &t);
    if (!strcmp(info->name, "tsc") && rc == ISOCHRON_EUNSUPPORTED) {
        const char *e = isochron_last_error();
        CHECK(e && e[0] != '\0', "tsc unsupported here, with a reason: \"%s\"", e ? e : "");
        return;
    }
    CHECK_RC(rc, ISOCHRON_OK, "create timer \"%s\"", info->name);
    if (rc != ISOCHRON_OK || !t) return;

    CHECK(!strcmp(isochron_timer_name(t), info->name), "name of \"%s\" is \"%s\"", info->name,
          isochron_timer_name(t));
    CHECK(!strcmp(isochron_timer_base_name(t), info->name), "base name of \"%s\" is \"%s\"", info->name,
          isochron_timer_base_name(t));
    CHECK(isochron_timer_is_skewed(t) == 0, "\"%s\" is not skewed", info->name);
    CHECK(isochron_timer_get_skew(t) == NULL, "\"%s\" has no skew", info->name);
    double hz = isochron_timer_tsc_hz(t);
    if (!strcmp(info->name, "tsc"))
        CHECK(isfinite(hz) && hz > 1e6 && hz < 1e11, "tsc frequency is plausible: %.6g Hz", hz);
    else
        CHECK(hz == 0.0, "\"%s\" reports tsc_hz 0 (got %g)", info->name, hz);

    /* 1000 reads: finite, and non-decreasing for monotonic timers. */
    int nonfinite = 0, backwards = 0;
    double prev = isochron_timer_now(t), worst = 0;
    for (int i = 0; i < 1000; i++) {
        double v = isochron_timer_now(t);
        if (!isfinite(v)) nonfinite++;
        if (v < prev) { backwards++; if (prev - v > worst) worst = prev - v; }
        prev = v;
    }
    CHECK(nonfinite == 0, "\"%s\": 1000 readings are finite (%d not)", info->name, nonfinite);
    if (is_monotonic_name(info->name))
        CHECK(backwards == 0, "\"%s\": 1000 readings never decrease (%d went back, by up to %g s)",
              info->name, backwards, worst);
    else
        printf("info \"%s\": %d of 1000 readings went back (not required monotonic)\n", info->name,
               backwards);

    /* Unit check: the elapsed time over a sleep lies inside the truth-clock
     * interval that brackets it (1% + 200 us slack for NTP slewing of
     * CLOCK_MONOTONIC, TSC calibration error and reading cost). A timer in
     * microseconds or nanoseconds instead of seconds fails by orders of magnitude. */
    double sleep_s = 0.03;
    double h0 = isochron_truth_now();
    double a = isochron_timer_now(t);
    isochron_sleep(sleep_s);
    double b = isochron_timer_now(t);
    double h1 = isochron_truth_now();
    double el = b - a, outer = h1 - h0;
    CHECK(el >= sleep_s * 0.99 - 200e-6 && el <= outer * 1.01 + 200e-6,
          "\"%s\": %.6f s elapsed over a %.3f s sleep (truth bracket %.6f s)", info->name, el, sleep_s,
          outer);
    CHECK(outer >= sleep_s, "isochron_sleep(%.3f) slept at least that long on the truth clock (%.6f s)",
          sleep_s, outer);

    /* base_now of an undecorated timer is the timer itself. */
    if (is_monotonic_name(info->name)) {
        double x0 = isochron_timer_now(t), bn = isochron_timer_base_now(t), x1 = isochron_timer_now(t);
        CHECK(x0 <= bn && bn <= x1, "\"%s\": base_now of an undecorated timer reads the timer (%.9f <= %.9f <= %.9f)",
              info->name, x0, bn, x1);
        CHECK(isochron_timer_skew_apply(t, 1234.5) == 1234.5,
              "\"%s\": skew_apply of an undecorated timer is the identity", info->name);
    }
    isochron_timer_destroy(t);
}

static void test_registry(void)
{
    int n = isochron_timer_count();
    CHECK(n >= 5, "registry has at least the 5 timers of the product spec (%d)", n);
    const char *names = isochron_timer_names();
    CHECK(names != NULL && names[0] != '\0', "isochron_timer_names() = \"%s\"", names ? names : "(null)");
    const char *required[] = { "mpi_wtime", "monotonic", "monotonic_raw", "realtime", "tsc" };
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++) {
        int found = 0;
        for (int i = 0; i < n; i++) {
            const isochron_timer_info_t *info = isochron_timer_info(i);
            if (info && info->name && !strcmp(info->name, required[k])) found = 1;
        }
        CHECK(found, "registry has \"%s\"", required[k]);
    }
    CHECK(isochron_timer_info(-1) == NULL, "isochron_timer_info(-1) is NULL");
    CHECK(isochron_timer_info(n) == NULL, "isochron_timer_info(count) is NULL");

    for (int i = 0; i < n; i++) {
        const isochron_timer_info_t *info = isochron_timer_info(i);
        CHECK(info && info->name && info->name[0] && info->description && info->description[0],
              "entry %d has a name and a description", i);
        if (!info || !info->name) continue;
        CHECK(names && strstr(names, info->name) != NULL, "isochron_timer_names() mentions \"%s\"", info->name);
        test_one_timer(info);
    }

    /* Unknown name: ENAME, and the error lists every valid name. */
    isochron_timer_t *t = NULL;
    int rc = isochron_timer_create("nosuch", &t);
    CHECK_RC(rc, ISOCHRON_ENAME, "create unknown timer \"nosuch\"");
    char err[2048];
    snprintf(err, sizeof err, "%s", isochron_last_error());
    CHECK(err[0] != '\0', "unknown timer error: \"%s\"", err);
    CHECK(strstr(err, "nosuch") != NULL, "the error names the unknown timer");
    for (int i = 0; i < n; i++) {
        const isochron_timer_info_t *info = isochron_timer_info(i);
        if (info && info->name)
            CHECK(strstr(err, info->name) != NULL, "the error lists valid timer \"%s\"", info->name);
    }
    /* and the same list as isochron_timer_names(), token by token */
    if (names) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", names);
        int ntok = 0;
        for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
            ntok++;
            CHECK(strstr(err, tok) != NULL, "the error mentions \"%s\" from isochron_timer_names()", tok);
        }
        CHECK(ntok == n, "isochron_timer_names() has %d names, the registry %d", ntok, n);
    }
    rc = isochron_timer_create("", &t);
    CHECK(rc < 0 && isochron_last_error()[0], "create timer \"\" fails (%s)", isochron_strerror(rc));
    rc = isochron_timer_create("MONOTONIC ", &t);
    CHECK(rc < 0, "create timer \"MONOTONIC \" (trailing space) fails (%s)", isochron_strerror(rc));
    /* destroying NULL is a no-op: it returns and leaves the error of the call before untouched */
    char before[256];
    snprintf(before, sizeof before, "%s", isochron_last_error());
    isochron_timer_destroy(NULL);
    CHECK(before[0] && strcmp(before, isochron_last_error()) == 0,
          "isochron_timer_destroy(NULL) returns and keeps the last error (\"%s\")", isochron_last_error());
}

/* f(b) = apply(b) - b - offset, which must be drift*1e-6*(b-b0) + ddrift*1e-6*(b-b0)^2/2. */
static void test_skew_exact(double offset, double drift_ppm, double ddrift_ppm_s)
{
    isochron_timer_t *base = NULL, *sk = NULL;
    CHECK_RC(isochron_timer_create("monotonic", &base), ISOCHRON_OK, "create monotonic base");
    isochron_skew_t s = { .offset = offset, .drift_ppm = drift_ppm, .ddrift_ppm_s = ddrift_ppm_s,
                          .jitter = 0, .seed = 11 };
    double lo = isochron_timer_now(base);
    int rc = isochron_timer_skew(base, &s, &sk);
    double hi = isochron_timer_now(base);
    CHECK_RC(rc, ISOCHRON_OK, "skew(offset=%g, drift=%g ppm, ddrift=%g ppm/s)", offset, drift_ppm, ddrift_ppm_s);
    if (rc != ISOCHRON_OK) { isochron_timer_destroy(base); return; }

    CHECK(!strcmp(isochron_timer_name(sk), "skew(monotonic)"), "decorated name is \"%s\"", isochron_timer_name(sk));
    CHECK(!strcmp(isochron_timer_base_name(sk), "monotonic"), "base name is \"%s\"", isochron_timer_base_name(sk));
    CHECK(isochron_timer_is_skewed(sk) != 0, "decorated timer is skewed");
    const isochron_skew_t *g = isochron_timer_get_skew(sk);
    CHECK(g && g->offset == offset && g->drift_ppm == drift_ppm && g->ddrift_ppm_s == ddrift_ppm_s &&
              g->jitter == 0,
          "get_skew returns the injected values");

    double d = drift_ppm * 1e-6, dd = ddrift_ppm_s * 1e-6;
    /* Recover b0 from the slope of f at c: f'(c) = d + dd*(c - b0) (central difference, exact for a quadratic). */
    double c = lo + 1000.0, h = 100.0;
#define F(x) (isochron_timer_skew_apply(sk, (x)) - (x) - offset)
    double fp = (F(c + h) - F(c - h)) / (2 * h);
    double fpp = (F(c + h) - 2 * F(c) + F(c - h)) / (h * h);
    CHECK(fabs(fpp - dd) <= 1e-12 + 1e-6 * fabs(dd), "second derivative of the injected error is ddrift: %.6g vs %.6g",
          fpp, dd);
    double b0;
    if (dd != 0)
        b0 = c - (fp - d) / dd;
    else
        b0 = c - F(c) / d;
    CHECK(b0 >= lo - 1e-5 && b0 <= hi + 1e-5,
          "origin of drift b0 = %.9f is the base reading at creation [%.9f, %.9f]", b0, lo, hi);
    /* At the derived b0, the formula must hold everywhere (relative 1e-12). */
    double maxrel = 0;
    srand(5);
    for (int i = 0; i < 200; i++) {
        double bt = lo + (rand() / (double)RAND_MAX) * 4000.0 - 1000.0;
        double dt = bt - b0;
        double want = bt + offset + d * dt + 0.5 * dd * dt * dt;
        double got = isochron_timer_skew_apply(sk, bt);
        double rel = fabs(got - want) / fabs(bt);
        if (rel > maxrel) maxrel = rel;
    }
    CHECK(maxrel <= 1e-12, "skew_apply(b) == b + offset + drift*(b-b0) + ddrift*(b-b0)^2/2 (max rel err %.3g)",
          maxrel);
    CHECK(fabs(isochron_timer_skew_apply(sk, b0) - b0 - offset) <= 1e-9,
          "at b0 the injected error is exactly the offset");

    /* Without jitter, a skewed reading lies between apply(base before) and apply(base after). */
    int outside = 0;
    double worst = 0;
    for (int i = 0; i < 1000; i++) {
        double bb = isochron_timer_base_now(sk);
        double v = isochron_timer_now(sk);
        double ba = isochron_timer_base_now(sk);
        double lo_v = isochron_timer_skew_apply(sk, bb), hi_v = isochron_timer_skew_apply(sk, ba);
        double tol = 1e-12 * fabs(v);
        if (v < lo_v - tol || v > hi_v + tol) {
            outside++;
            double e = v < lo_v ? lo_v - v : v - hi_v;
            if (e > worst) worst = e;
        }
    }
    CHECK(outside == 0, "1000 skewed readings lie between apply(base before) and apply(base after) (%d outside, by up to %g s)",
          outside, worst);
    /* and the base under the decorator is the monotonic clock (the truth clock) */
    double t0 = isochron_truth_now(), bn = isochron_timer_base_now(sk), t1 = isochron_truth_now();
    CHECK(bn >= t0 - 1e-6 && bn <= t1 + 1e-6, "base of skew(monotonic) reads CLOCK_MONOTONIC (%.9f in [%.9f, %.9f])",
          bn, t0, t1);
    isochron_timer_destroy(sk); /* destroys base too */
#undef F
}

static void test_skew_jitter(void)
{
    isochron_timer_t *base = NULL, *sk = NULL;
    CHECK_RC(isochron_timer_create("monotonic", &base), ISOCHRON_OK, "create monotonic base");
    isochron_skew_t s = { .offset = 1e-3, .drift_ppm = 50, .ddrift_ppm_s = 0, .jitter = 1e-6, .seed = 99 };
    CHECK_RC(isochron_timer_skew(base, &s, &sk), ISOCHRON_OK, "skew with jitter 1 us");
    if (!sk) { isochron_timer_destroy(base); return; }
    /* residual = reading - apply(base); the base is bracketed by two base reads.
     * Brackets wider than 2 us (preemption) are dropped, a choice independent
     * of the jitter, so the statistic stays unbiased. */
    enum { n = 10000 };
    static double bbv[n], vv[n], bav[n], w[n];
    for (int i = 0; i < n; i++) {
        bbv[i] = isochron_timer_base_now(sk);
        vv[i] = isochron_timer_now(sk);
        bav[i] = isochron_timer_base_now(sk);
        w[i] = bav[i] - bbv[i];
    }
    /* median bracket width: the cost of reading, whatever the clocksource */
    qsort(w, n, sizeof w[0], cmp_double);
    double medw = w[n / 2];
    double maxw = medw * 4 > 2e-6 ? medw * 4 : 2e-6;
    printf("info median base bracket %.3g us, dropping brackets wider than %.3g us\n", medw * 1e6, maxw * 1e6);
    int kept = 0;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; i++) {
        double bb = bbv[i], v = vv[i], ba = bav[i];
        if (ba - bb > maxw) continue;
        double r = v - isochron_timer_skew_apply(sk, 0.5 * (bb + ba));
        sum += r;
        sum2 += r * r;
        kept++;
    }
    CHECK(kept >= n * 9 / 10, "kept %d of %d jitter samples with a tight base bracket", kept, n);
    if (kept > 1) {
        double mean = sum / kept;
        double sd = sqrt((sum2 - kept * mean * mean) / (kept - 1));
        CHECK(sd >= 0.8e-6 && sd <= 1.2e-6, "jitter sample std %.4g us is in [0.8, 1.2] us", sd * 1e6);
        CHECK(fabs(mean) <= 0.1e-6 + medw / 2, "jitter has mean ~0 (%.4g us)", mean * 1e6);
    }
    isochron_timer_destroy(sk);

    /* Jitter 0 gives no noise at all: residuals bounded by the bracket. */
    CHECK_RC(isochron_timer_create("monotonic", &base), ISOCHRON_OK, "create monotonic base");
    isochron_skew_t s0 = { .offset = -2e-3, .drift_ppm = -30, .jitter = 0, .seed = 1 };
    CHECK_RC(isochron_timer_skew(base, &s0, &sk), ISOCHRON_OK, "skew with negative offset and drift");
    if (sk) {
        double bb = isochron_timer_base_now(sk), v = isochron_timer_now(sk), ba = isochron_timer_base_now(sk);
        /* decreasing drift keeps the map increasing (1 - 30e-6 > 0) */
        CHECK(v >= isochron_timer_skew_apply(sk, bb) - 1e-9 && v <= isochron_timer_skew_apply(sk, ba) + 1e-9,
              "negative offset/drift reading is within its bracket");
        CHECK(fabs(v - bb + 2e-3) < 1e-5, "reading is 2 ms behind the base (%.9f s)", v - bb);
        isochron_timer_destroy(sk);
    }

    /* Bad arguments. */
    isochron_timer_t *out = NULL;
    int rc = isochron_timer_skew(NULL, &s, &out);
    CHECK(rc == ISOCHRON_EINVAL && isochron_last_error()[0], "skew(NULL base) is EINVAL (%s)", isochron_strerror(rc));
    CHECK_RC(isochron_timer_create("monotonic", &base), ISOCHRON_OK, "create monotonic base");
    isochron_skew_t neg = { .offset = 0, .drift_ppm = 0, .jitter = -1e-6, .seed = 1 };
    rc = isochron_timer_skew(base, &neg, &out);
    CHECK(rc < 0 && isochron_last_error()[0],
          "skew with a negative jitter standard deviation fails (%s: \"%s\")", isochron_strerror(rc),
          isochron_last_error());
    if (rc == ISOCHRON_OK) isochron_timer_destroy(out);
    else isochron_timer_destroy(base);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_registry();
    test_skew_exact(1e-3, 50, 0);
    test_skew_exact(-4e-3, -20, 0);
    test_skew_exact(2e-3, 10, 2);
    test_skew_jitter();
    int r = check_report("test_timers");
    MPI_Finalize();
    return r;
}
