/*
 * test_skew_spec: parsing of skew specs and the per-rank draw
 * (isochron_skew_spec_parse, isochron_skew_for_rank, isochron_skew_spec_active).
 * Proves that keys and time units parse to the documented values, explicit
 * per-rank overrides are honoured, the draw is deterministic in (seed, rank),
 * differs between ranks and seeds, stays within and fills the ranges
 * symmetrically, and that malformed specs fail with EPARSE/EINVAL (or ENAME
 * for an unknown key) and a message. Serial, no MPI_Init.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "check.h"

static int close_rel(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b) + 1e-300; }

static int parse_ok(const char *text, isochron_skew_spec_t *s)
{
    memset(s, 0x5a, sizeof *s); /* garbage: the parser must fill every field */
    int rc = isochron_skew_spec_parse(text, s);
    CHECK_RC(rc, ISOCHRON_OK, "parse \"%s\"", text);
    return rc == ISOCHRON_OK;
}

static void test_basic(void)
{
    isochron_skew_spec_t s;
    if (parse_ok("offset=10ms,drift=50,seed=7", &s)) {
        CHECK(close_rel(s.offset_max, 0.01), "offset_max = %.17g (0.01)", s.offset_max);
        CHECK(s.drift_max_ppm == 50, "drift_max_ppm = %g (50)", s.drift_max_ppm);
        CHECK(s.seed == 7, "seed = %llu (7)", (unsigned long long)s.seed);
        CHECK(s.jitter == 0 && s.ddrift_max_ppm_s == 0, "unspecified jitter/ddrift are 0 (%g, %g)", s.jitter,
              s.ddrift_max_ppm_s);
        CHECK(s.nexplicit == 0, "no explicit ranks (%d)", s.nexplicit);
        CHECK(s.ref_exact == 0, "ref_exact defaults to 0 (%d)", s.ref_exact);
        CHECK(isochron_skew_spec_active(&s), "spec is active");
    }
    struct { const char *text; double offset, jitter; } units[] = {
        { "offset=2s", 2.0, 0 },         { "offset=3ms", 3e-3, 0 },     { "offset=4us", 4e-6, 0 },
        { "offset=5ns", 5e-9, 0 },       { "offset=0.5", 0.5, 0 },      { "offset=1.5ms", 1.5e-3, 0 },
        { "jitter=200ns", 0, 200e-9 },   { "jitter=1us", 0, 1e-6 },     { "jitter=0.002ms", 0, 2e-6 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!parse_ok(units[i].text, &s)) continue;
        CHECK(close_rel(s.offset_max, units[i].offset) && close_rel(s.jitter, units[i].jitter),
              "\"%s\" -> offset_max %.17g, jitter %.17g", units[i].text, s.offset_max, s.jitter);
    }
    if (parse_ok("ddrift=0.5,drift=12.5", &s))
        CHECK(s.ddrift_max_ppm_s == 0.5 && s.drift_max_ppm == 12.5, "ddrift=0.5 drift=12.5 -> %g, %g",
              s.ddrift_max_ppm_s, s.drift_max_ppm);

    if (parse_ok("", &s)) CHECK(!isochron_skew_spec_active(&s), "\"\" is no skew");
    if (parse_ok("none", &s)) CHECK(!isochron_skew_spec_active(&s), "\"none\" is no skew");
    if (parse_ok("none", &s)) {
        isochron_skew_t k;
        isochron_skew_for_rank(&s, 3, &k);
        CHECK(k.offset == 0 && k.drift_ppm == 0 && k.ddrift_ppm_s == 0 && k.jitter == 0,
              "\"none\" gives rank 3 no skew");
    }
    if (parse_ok("jitter=1ns", &s)) CHECK(isochron_skew_spec_active(&s), "jitter alone is active");
    if (parse_ok("drift=5", &s)) CHECK(s.per_host == 0, "by=rank is the default (%d)", s.per_host);
    if (parse_ok("drift=5,by=host", &s)) CHECK(s.per_host == 1, "by=host sets per_host (%d)", s.per_host);
    if (parse_ok("drift=5,by=host,by=rank", &s)) CHECK(s.per_host == 0, "by=rank after by=host resets it (%d)", s.per_host);
}

static void test_explicit(void)
{
    isochron_skew_spec_t s;
    isochron_skew_t k;
    if (parse_ok("r1:offset=-3ms:drift=20", &s)) {
        CHECK(s.nexplicit == 1 && s.explicit_rank[0] == 1, "one explicit entry for rank 1 (n=%d, rank=%d)",
              s.nexplicit, s.explicit_rank[0]);
        CHECK(close_rel(s.explicit_skew[0].offset, -3e-3) && s.explicit_skew[0].drift_ppm == 20,
              "explicit rank 1: offset %.17g drift %g", s.explicit_skew[0].offset, s.explicit_skew[0].drift_ppm);
        CHECK(isochron_skew_spec_active(&s), "explicit-only spec is active");
        isochron_skew_for_rank(&s, 1, &k);
        CHECK(close_rel(k.offset, -3e-3) && k.drift_ppm == 20 && k.ddrift_ppm_s == 0 && k.jitter == 0,
              "skew_for_rank(1) = offset %.17g drift %g", k.offset, k.drift_ppm);
        isochron_skew_for_rank(&s, 0, &k);
        CHECK(k.offset == 0 && k.drift_ppm == 0, "rank 0 without override and without ranges has no skew");
    }
    if (parse_ok("offset=1ms,drift=10,seed=3,r2:offset=5us:drift=-1:ddrift=0.25:jitter=10ns", &s)) {
        CHECK(s.nexplicit == 1 && s.explicit_rank[0] == 2, "explicit entry for rank 2 beside ranges");
        isochron_skew_for_rank(&s, 2, &k);
        CHECK(close_rel(k.offset, 5e-6) && k.drift_ppm == -1 && k.ddrift_ppm_s == 0.25 && close_rel(k.jitter, 10e-9),
              "rank 2 takes its explicit values (offset %.17g drift %g ddrift %g jitter %g)", k.offset,
              k.drift_ppm, k.ddrift_ppm_s, k.jitter);
        isochron_skew_for_rank(&s, 1, &k);
        CHECK(fabs(k.offset) <= 1e-3 && fabs(k.drift_ppm) <= 10, "rank 1 is drawn from the ranges (%g, %g)",
              k.offset, k.drift_ppm);
    }
    if (parse_ok("r0:offset=1ms,r3:drift=-7", &s)) {
        CHECK(s.nexplicit == 2, "two explicit entries (%d)", s.nexplicit);
        isochron_skew_for_rank(&s, 3, &k);
        CHECK(k.offset == 0 && k.drift_ppm == -7, "rank 3: offset %g drift %g", k.offset, k.drift_ppm);
        isochron_skew_for_rank(&s, 0, &k);
        CHECK(close_rel(k.offset, 1e-3) && k.drift_ppm == 0, "rank 0: offset %g drift %g", k.offset, k.drift_ppm);
    }
    /* ISOCHRON_SKEW_MAX_RANKS explicit entries fit */
    char buf[8192];
    size_t o = 0;
    for (int r = 0; r < ISOCHRON_SKEW_MAX_RANKS; r++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%sr%d:offset=%dus", r ? "," : "", r, r);
    if (parse_ok(buf, &s)) {
        CHECK(s.nexplicit == ISOCHRON_SKEW_MAX_RANKS, "%d explicit entries parsed", s.nexplicit);
        isochron_skew_for_rank(&s, ISOCHRON_SKEW_MAX_RANKS - 1, &k);
        CHECK(close_rel(k.offset, (ISOCHRON_SKEW_MAX_RANKS - 1) * 1e-6), "last rank's explicit offset %g", k.offset);
    }
}

static void test_draw(void)
{
    isochron_skew_spec_t s, s8;
    if (!parse_ok("offset=10ms,drift=50,ddrift=1,jitter=100ns,seed=7", &s)) return;
    if (!parse_ok("offset=10ms,drift=50,ddrift=1,jitter=100ns,seed=8", &s8)) return;
    enum { N = 64 };
    isochron_skew_t k[N], again, other;
    int nonrepro = 0, outside = 0, seeddiff = 0, npos = 0, nneg = 0, dpos = 0, dneg = 0;
    double maxo = 0, maxd = 0;
    for (int r = 0; r < N; r++) {
        isochron_skew_for_rank(&s, r, &k[r]);
        isochron_skew_for_rank(&s, r, &again);
        if (memcmp(&k[r].offset, &again.offset, sizeof(double)) || memcmp(&k[r].drift_ppm, &again.drift_ppm, sizeof(double)) ||
            memcmp(&k[r].ddrift_ppm_s, &again.ddrift_ppm_s, sizeof(double)) || k[r].jitter != again.jitter ||
            k[r].seed != again.seed)
            nonrepro++;
        if (!(fabs(k[r].offset) <= 0.01) || !(fabs(k[r].drift_ppm) <= 50) || !(fabs(k[r].ddrift_ppm_s) <= 1))
            outside++;
        if (k[r].jitter != 100e-9 && !close_rel(k[r].jitter, 100e-9)) outside++;
        isochron_skew_for_rank(&s8, r, &other);
        if (other.offset != k[r].offset || other.drift_ppm != k[r].drift_ppm) seeddiff++;
        if (fabs(k[r].offset) > maxo) maxo = fabs(k[r].offset);
        if (fabs(k[r].drift_ppm) > maxd) maxd = fabs(k[r].drift_ppm);
        npos += k[r].offset > 0; nneg += k[r].offset < 0;
        dpos += k[r].drift_ppm > 0; dneg += k[r].drift_ppm < 0;
    }
    CHECK(nonrepro == 0, "skew_for_rank is deterministic for the same seed and rank (%d differ)", nonrepro);
    CHECK(outside == 0, "all %d ranks are within the ranges and keep jitter 100 ns (%d outside)", N, outside);
    CHECK(seeddiff >= N - 1, "another seed gives different skews (%d of %d ranks differ)", seeddiff, N);
    int dup = 0;
    for (int a = 0; a < N; a++)
        for (int b = a + 1; b < N; b++)
            if (k[a].offset == k[b].offset || k[a].drift_ppm == k[b].drift_ppm) dup++;
    CHECK(dup == 0, "ranks get pairwise different offsets and drifts (%d equal pairs)", dup);
    /* Uniform on [-max, max]: 64 draws cover both signs and reach past half the range
     * (failing this by chance has probability < 1e-17). */
    CHECK(npos > 0 && nneg > 0 && dpos > 0 && dneg > 0, "offsets (%d+, %d-) and drifts (%d+, %d-) take both signs",
          npos, nneg, dpos, dneg);
    CHECK(maxo > 0.005 && maxd > 25, "draws fill the range (max |offset| %g, max |drift| %g)", maxo, maxd);
    printf("info rank 0: offset %.6g drift %.6g; rank 1: offset %.6g drift %.6g\n", k[0].offset, k[0].drift_ppm,
           k[1].offset, k[1].drift_ppm);

    /* ref_exact keeps rank 0 at zero, others still drawn */
    s.ref_exact = 1;
    isochron_skew_t z;
    isochron_skew_for_rank(&s, 0, &z);
    CHECK(z.offset == 0 && z.drift_ppm == 0, "ref_exact: rank 0 has offset %g drift %g", z.offset, z.drift_ppm);
    isochron_skew_for_rank(&s, 1, &z);
    CHECK(z.offset != 0 && z.offset == k[1].offset, "ref_exact leaves rank 1's draw unchanged (%g)", z.offset);
}

static void test_bad(void)
{
    static const int perr[] = { ISOCHRON_EPARSE, ISOCHRON_EINVAL };
    static const int perr_name[] = { ISOCHRON_EPARSE, ISOCHRON_EINVAL, ISOCHRON_ENAME };
    static const int perr_trunc[] = { ISOCHRON_EPARSE, ISOCHRON_EINVAL, ISOCHRON_ETRUNC };
    const char *bad[] = {
        "offset=abc", "drift=", "offset=-1ms", "drift=-5", "jitter=-1us", "ddrift=-1",
        "offset=10xs", "offset", "seed=abc", "offset=1ms,drift=abc", "offset=1ms;drift=2",
        "r1:offset=abc", "r:offset=1ms", "rx:offset=1ms", "r-1:offset=1ms", "r1:drift=",
        "r1:offset=1ms,r1:drift=2", "offset=nan", "offset=inf",
    };
    isochron_skew_spec_t s;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[128];
        snprintf(what, sizeof what, "skew spec \"%s\"", bad[i]);
        CHECK_FAILS_WITH(isochron_skew_spec_parse(bad[i], &s), perr, what);
    }
    /* unknown keys may be reported as a name error */
    CHECK_FAILS_WITH(isochron_skew_spec_parse("bogus=1", &s), perr_name, "skew spec \"bogus=1\"");
    CHECK(strstr(isochron_last_error(), "bogus") != NULL, "the message names \"bogus\": \"%s\"", isochron_last_error());
    CHECK_FAILS_WITH(isochron_skew_spec_parse("r1:offset=1ms:bogus=2", &s), perr_name, "skew spec \"r1:offset=1ms:bogus=2\"");
    CHECK_FAILS_WITH(isochron_skew_spec_parse("by=node", &s), perr, "skew spec \"by=node\"");
    CHECK(strstr(isochron_last_error(), "rank, host") != NULL, "by=node names the valid choices: \"%s\"", isochron_last_error());
    isochron_skew_spec_parse("offset=abc", &s);
    CHECK(strstr(isochron_last_error(), "abc") != NULL, "the message names the bad value \"abc\": \"%s\"",
          isochron_last_error());

    /* more explicit entries than ISOCHRON_SKEW_MAX_RANKS */
    char buf[8192];
    size_t o = 0;
    for (int r = 0; r <= ISOCHRON_SKEW_MAX_RANKS; r++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%sr%d:offset=1us", r ? "," : "", r);
    CHECK_FAILS_WITH(isochron_skew_spec_parse(buf, &s), perr_trunc, "65 explicit rank entries");
}

/* A drift that changes: the injected truth of a skewed timer is
 * b + offset + d (b - t0) + dd (b - t0)^2 / 2 for base reading b, with t0 the
 * base reading when the decorator was made (between b_lo and b_hi here). */
static double truth(const isochron_skew_t *k, double b, double t0)
{
    double dt = b - t0;
    return b + k->offset + k->drift_ppm * 1e-6 * dt + 0.5 * k->ddrift_ppm_s * 1e-6 * dt * dt;
}

static void test_ddrift(void)
{
    const isochron_skew_t cases[3] = {
        {2e-3, 30, 500, 0, 1},     /* drift and its change the same sign */
        {-1e-3, 40, -800, 0, 2},   /* the change reverses the drift after 50 ms */
        {0, 0, 1000, 0, 3},        /* only a changing drift (the largest allowed) */
    };
    for (int c = 0; c < 3; c++) {
        const isochron_skew_t *k = &cases[c];
        isochron_timer_t *base = NULL, *t = NULL;
        if (isochron_timer_create("monotonic", &base) != ISOCHRON_OK) { CHECK(0, "monotonic timer: %s", isochron_last_error()); return; }
        double b_lo = isochron_timer_now(base);
        CHECK_RC(isochron_timer_skew(base, k, &t), ISOCHRON_OK, "skew offset %g drift %g ddrift %g", k->offset, k->drift_ppm, k->ddrift_ppm_s);
        double b_hi = isochron_timer_base_now(t);
        /* the exact truth at base readings up to 100 s later: between the
         * formula evaluated with t0 = b_lo and t0 = b_hi */
        int ok = 1;
        for (int i = 0; i <= 10; i++) {
            double b = b_hi + 10.0 * i, got = isochron_timer_skew_apply(t, b);
            double w1 = truth(k, b, b_lo), w2 = truth(k, b, b_hi), lo = fmin(w1, w2) - 1e-12 * fabs(b), hi = fmax(w1, w2) + 1e-12 * fabs(b);
            if (!(got >= lo && got <= hi)) {
                ok = 0;
                printf("  ddrift case %d at +%d s: got %.12f, formula %.12f .. %.12f\n", c, 10 * i, got, lo, hi);
            }
        }
        CHECK(ok, "ddrift case %d: skew_apply follows b + offset + d t + dd t^2/2 over 100 s", c);
        /* the second difference is dd h^2, whatever t0 is */
        double h = 10, b0 = b_hi + 20;
        double f0 = isochron_timer_skew_apply(t, b0) - b0, f1 = isochron_timer_skew_apply(t, b0 + h) - (b0 + h),
               f2 = isochron_timer_skew_apply(t, b0 + 2 * h) - (b0 + 2 * h);
        double dd = (f2 - 2 * f1 + f0) / (h * h) * 1e6;
        CHECK(fabs(dd - k->ddrift_ppm_s) <= 1e-3 * fabs(k->ddrift_ppm_s) + 1e-6, "ddrift case %d: second difference gives %.6f ppm/s (want %g)", c,
              dd, k->ddrift_ppm_s);
        /* and the drift at t0 is the drift given */
        double d0 = (isochron_timer_skew_apply(t, b_hi + 1e-3) - isochron_timer_skew_apply(t, b_hi - 1e-3) - 2e-3) / 2e-3 * 1e6;
        CHECK(fabs(d0 - k->drift_ppm) <= 0.01 + fabs(k->ddrift_ppm_s) * (b_hi - b_lo + 1e-3), "ddrift case %d: drift at creation %.4f ppm (want %g)",
              c, d0, k->drift_ppm);
        /* live readings are the truth of the base reading taken at that moment */
        double x0 = isochron_timer_base_now(t), v = isochron_timer_now(t), x1 = isochron_timer_base_now(t);
        CHECK(v >= isochron_timer_skew_apply(t, x0) && v <= isochron_timer_skew_apply(t, x1),
              "ddrift case %d: a reading lies between the truths of the base readings around it", c);
        isochron_timer_destroy(t);
    }
}

int main(void)
{
    test_basic();
    test_explicit();
    test_draw();
    test_bad();
    test_ddrift();
    return check_report("test_skew_spec");
}
