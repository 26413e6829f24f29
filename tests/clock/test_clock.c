/*
 * test_clock: linear models and global clocks (isochron/clock.h).
 * Proves that isochron_lm_merge is exact composition (apply(merge(A,B),t) ==
 * apply(A, apply(B,t)) up to rounding), that a nested clock of any depth
 * 1..ISOCHRON_CLOCK_MAX_LAYERS applies its layers bottom-up and agrees with
 * its merged model, that nesting past the limit fails, that copies are deep,
 * and that flatten/unflatten round-trips bit-identically while too-small
 * buffers give ETRUNC with the needed size and truncated or corrupted buffers
 * are refused. Serial, no MPI_Init (the clocks sit on "monotonic").
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/clock.h"
#include "check.h"

static uint64_t rng = 0x1234567887654321ull;
static double urand(void) /* uniform [0,1) */
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}
static double uniform(double a, double b) { return a + (b - a) * urand(); }

static isochron_lm_t random_lm(int allow_offset_kind)
{
    isochron_lm_t m;
    if (allow_offset_kind && urand() < 0.3) {
        m.kind = ISOCHRON_LM_OFFSET;
        m.slope = 0;
    } else {
        m.kind = ISOCHRON_LM_LINEAR;
        m.slope = uniform(-1e-4, 1e-4);
    }
    m.intercept = urand() < 0.5 ? uniform(-1e-2, 1e-2) : uniform(-10, 10);
    return m;
}

static int same_lm_bits(isochron_lm_t a, isochron_lm_t b)
{
    return memcmp(&a.slope, &b.slope, sizeof a.slope) == 0 &&
           memcmp(&a.intercept, &b.intercept, sizeof a.intercept) == 0 && a.kind == b.kind;
}

static void test_models(void)
{
    isochron_lm_t id = isochron_lm_identity();
    CHECK(id.slope == 0 && id.intercept == 0, "identity has slope 0, intercept 0");
    CHECK(isochron_lm_apply(id, 12345.678) == 12345.678, "identity maps t to t");
    isochron_lm_t m = { .slope = 1e-5, .intercept = 0.25, .kind = ISOCHRON_LM_LINEAR };
    double t = 1000.0;
    CHECK(fabs(isochron_lm_apply(m, t) - (t + 1e-5 * t + 0.25)) <= 1e-12,
          "apply is ref = t + slope*t + intercept (%.15g)", isochron_lm_apply(m, t));
    isochron_lm_t o = { .slope = 0, .intercept = -3e-3, .kind = ISOCHRON_LM_OFFSET };
    CHECK(isochron_lm_apply(o, t) == t - 3e-3, "offset model adds its intercept");

    /* Merge is exact composition. Allowed error: a few roundings of the
     * largest magnitude involved, 1e-15 * (|t| + |intercepts|). */
    double worst = 0;
    int bad = 0;
    for (int i = 0; i < 100000; i++) {
        isochron_lm_t A = random_lm(1), B = random_lm(1);
        double tt = urand() < 0.5 ? uniform(0, 1e6) : uniform(-10, 10);
        isochron_lm_t AB = isochron_lm_merge(A, B);
        double got = isochron_lm_apply(AB, tt);
        double want = isochron_lm_apply(A, isochron_lm_apply(B, tt));
        double scale = fabs(tt) + fabs(A.intercept) + fabs(B.intercept);
        double r = fabs(got - want) / scale;
        if (r > worst) worst = r;
        if (r > 1e-15) bad++;
    }
    CHECK(bad == 0, "merge is exact on 100000 random pairs (worst error %.3g relative, %d over 1e-15)", worst, bad);

    /* merge with identity, and merge of offsets */
    isochron_lm_t A = random_lm(0);
    isochron_lm_t L = isochron_lm_merge(A, id), R = isochron_lm_merge(id, A);
    CHECK(L.slope == A.slope && L.intercept == A.intercept && R.slope == A.slope && R.intercept == A.intercept,
          "merge with identity changes nothing");
    CHECK(L.kind == ISOCHRON_LM_LINEAR && R.kind == ISOCHRON_LM_LINEAR, "a linear model merged with identity stays linear");
    isochron_lm_t o1 = { 0, 1e-3, ISOCHRON_LM_OFFSET }, o2 = { 0, 2e-3, ISOCHRON_LM_OFFSET };
    isochron_lm_t oo = isochron_lm_merge(o1, o2);
    CHECK(oo.slope == 0 && fabs(oo.intercept - 3e-3) <= 1e-18, "two offsets merge into their sum (%.17g)", oo.intercept);
    /* non-commutative: the inner slope scales differently from the outer one */
    isochron_lm_t P = { 1e-4, 1.0, ISOCHRON_LM_LINEAR }, Q = { -2e-4, 5.0, ISOCHRON_LM_LINEAR };
    isochron_lm_t PQ = isochron_lm_merge(P, Q), QP = isochron_lm_merge(Q, P);
    CHECK(PQ.intercept != QP.intercept, "merge order matters (P(Q) intercept %.17g, Q(P) %.17g)", PQ.intercept,
          QP.intercept);
    CHECK(fabs(PQ.intercept - (5.0 * (1 + 1e-4) + 1.0)) < 1e-12, "P(Q) intercept is iQ*(1+sP)+iP");
}

static void test_nesting(isochron_timer_t *tm)
{
    isochron_clock_t *c0 = NULL;
    CHECK_RC(isochron_clock_create(tm, &c0), ISOCHRON_OK, "clock over monotonic");
    if (!c0) return;
    CHECK(isochron_clock_depth(c0) == 0, "a new clock has depth 0");
    CHECK(isochron_clock_timer(c0) == tm, "the clock's timer is the one given");
    CHECK(isochron_clock_apply(c0, 777.125) == 777.125, "a clock without layers is its timer");
    isochron_lm_t m0 = isochron_clock_model(c0);
    CHECK(m0.slope == 0 && m0.intercept == 0, "model of a depth-0 clock is the identity");

    isochron_lm_t layers[ISOCHRON_CLOCK_MAX_LAYERS];
    isochron_clock_t *cur = c0;
    for (int d = 1; d <= ISOCHRON_CLOCK_MAX_LAYERS; d++) {
        layers[d - 1] = random_lm(1);
        isochron_clock_t *next = NULL;
        int rc = isochron_clock_nest(cur, layers[d - 1], &next);
        CHECK_RC(rc, ISOCHRON_OK, "nest layer %d", d);
        if (rc != ISOCHRON_OK) break;
        CHECK(isochron_clock_depth(cur) == d - 1, "nesting leaves the parent at depth %d", d - 1);
        CHECK(isochron_clock_depth(next) == d, "nested clock has depth %d", d);
        int same = 1;
        for (int i = 0; i < d; i++) same &= same_lm_bits(isochron_clock_layer(next, i), layers[i]);
        CHECK(same, "depth %d: layer i is the i-th model nested (0 = closest to the timer)", d);
        CHECK(isochron_clock_timer(next) == tm, "depth %d: same timer", d);

        double worst_apply = 0, worst_model = 0;
        isochron_lm_t merged = isochron_clock_model(next);
        for (int k = 0; k < 1000; k++) {
            double t = uniform(0, 1e6);
            double want = t;
            for (int i = 0; i < d; i++) want = isochron_lm_apply(layers[i], want); /* bottom-up */
            double got = isochron_clock_apply(next, t);
            double scale = fabs(t) + 10.0 * d;
            double e1 = fabs(got - want) / scale, e2 = fabs(isochron_lm_apply(merged, t) - got) / scale;
            if (e1 > worst_apply) worst_apply = e1;
            if (e2 > worst_model) worst_model = e2;
        }
        CHECK(worst_apply <= 1e-15 * d, "depth %d: apply runs the layers bottom-up (worst rel %.3g)", d, worst_apply);
        CHECK(worst_model <= 2e-15 * d, "depth %d: apply(model) == apply (worst rel %.3g)", d, worst_model);
        /* now() is apply() of a timer reading taken inside the call, when the map is increasing */
        double b0 = isochron_timer_now(tm), g = isochron_clock_now(next), b1 = isochron_timer_now(tm);
        double g0 = isochron_clock_apply(next, b0), g1 = isochron_clock_apply(next, b1);
        CHECK(g >= g0 - 1e-9 && g <= g1 + 1e-9, "depth %d: now() is apply(timer now) (%.9f in [%.9f, %.9f])", d, g,
              g0, g1);
        if (cur != c0) isochron_clock_destroy(cur);
        cur = next;
    }
    /* one more is refused */
    isochron_clock_t *over = NULL;
    int rc = isochron_clock_nest(cur, random_lm(0), &over);
    CHECK(rc < 0 && isochron_last_error()[0], "nesting past %d layers fails (%s: \"%s\")", ISOCHRON_CLOCK_MAX_LAYERS,
          isochron_strerror(rc), isochron_last_error());
    if (rc == ISOCHRON_OK) isochron_clock_destroy(over);

    /* deep copy */
    isochron_clock_t *cp = NULL;
    CHECK_RC(isochron_clock_copy(cur, &cp), ISOCHRON_OK, "copy the deepest clock");
    if (cp) {
        double t = 4242.4242;
        double before = isochron_clock_apply(cur, t);
        int d = isochron_clock_depth(cur);
        if (cur != c0) isochron_clock_destroy(cur);
        cur = NULL;
        CHECK(isochron_clock_depth(cp) == d && isochron_clock_apply(cp, t) == before,
              "the copy survives the original and maps identically");
        isochron_clock_destroy(cp);
    }
    isochron_clock_destroy(c0);
    isochron_clock_destroy(NULL);
}

static void test_flatten(isochron_timer_t *tm, isochron_timer_t *other)
{
    static const int fail_codes[] = { ISOCHRON_ETRUNC, ISOCHRON_EPARSE, ISOCHRON_EINVAL };
    for (int d = 0; d <= ISOCHRON_CLOCK_MAX_LAYERS; d++) {
        isochron_clock_t *c = NULL;
        isochron_clock_create(tm, &c);
        for (int i = 0; i < d; i++) {
            isochron_clock_t *n = NULL;
            isochron_clock_nest(c, random_lm(1), &n);
            isochron_clock_destroy(c);
            c = n;
        }
        size_t needed = 0;
        int rc = isochron_clock_flatten(c, NULL, 0, &needed);
        CHECK_RC(rc, ISOCHRON_ETRUNC, "depth %d: flatten into 0 bytes", d);
        CHECK(needed > 0, "depth %d: flatten reports %zu bytes needed", d, needed);
        if (needed == 0 || needed > 65536) { isochron_clock_destroy(c); continue; }
        unsigned char *buf = malloc(needed + 16), *small = malloc(needed);
        size_t needed2 = 0;
        memset(small, 0xEE, needed);
        rc = isochron_clock_flatten(c, small, needed - 1, &needed2);
        CHECK_RC(rc, ISOCHRON_ETRUNC, "depth %d: flatten into needed-1 = %zu bytes", d, needed - 1);
        CHECK(needed2 == needed, "depth %d: ETRUNC reports the needed size (%zu vs %zu)", d, needed2, needed);
        size_t needed3 = 0;
        rc = isochron_clock_flatten(c, buf, needed + 16, &needed3);
        CHECK_RC(rc, ISOCHRON_OK, "depth %d: flatten into %zu bytes", d, needed + 16);
        CHECK(needed3 == needed, "depth %d: size is the same on success (%zu)", d, needed3);

        isochron_clock_t *u = NULL;
        rc = isochron_clock_unflatten(buf, needed, other, &u);
        CHECK_RC(rc, ISOCHRON_OK, "depth %d: unflatten", d);
        if (u) {
            int same = isochron_clock_depth(u) == d;
            for (int i = 0; same && i < d; i++)
                same &= same_lm_bits(isochron_clock_layer(u, i), isochron_clock_layer(c, i));
            CHECK(same, "depth %d: unflattened layers are bit-identical (slope, intercept, kind)", d);
            CHECK(isochron_clock_timer(u) == other, "depth %d: the rebuilt clock runs over the receiver's timer", d);
            CHECK(isochron_clock_apply(u, 5555.5) == isochron_clock_apply(c, 5555.5), "depth %d: same mapping", d);
            isochron_clock_destroy(u);
        }

        /* every truncation is refused */
        int accepted = 0;
        for (size_t len = 0; len < needed; len++) {
            u = NULL;
            rc = isochron_clock_unflatten(buf, len, other, &u);
            if (rc == ISOCHRON_OK) { accepted++; isochron_clock_destroy(u); }
            else if (!check_rc_in(rc, fail_codes, 3) || !isochron_last_error()[0]) accepted += 1000;
        }
        CHECK(accepted == 0, "depth %d: all %zu truncations fail with ETRUNC/EPARSE/EINVAL and a message (%d bad)", d,
              needed, accepted);

        /* corrupted header: the first byte (magic/version) flipped */
        unsigned char *bad = malloc(needed);
        memcpy(bad, buf, needed);
        bad[0] ^= 0xFF;
        u = NULL;
        rc = isochron_clock_unflatten(bad, needed, other, &u);
        CHECK(rc < 0 && isochron_last_error()[0], "depth %d: first byte flipped is refused (%s)", d, isochron_strerror(rc));
        if (rc == ISOCHRON_OK) isochron_clock_destroy(u);
        memset(bad, 0xFF, needed);
        rc = isochron_clock_unflatten(bad, needed, other, &u);
        CHECK(rc < 0, "depth %d: a buffer of 0xFF bytes is refused (%s)", d, isochron_strerror(rc));
        if (rc == ISOCHRON_OK) isochron_clock_destroy(u);
        memset(bad, 0, needed);
        rc = isochron_clock_unflatten(bad, needed, other, &u);
        CHECK(rc < 0, "depth %d: a buffer of zero bytes is refused (%s)", d, isochron_strerror(rc));
        if (rc == ISOCHRON_OK) isochron_clock_destroy(u);
        free(bad);
        free(buf);
        free(small);
        isochron_clock_destroy(c);
    }

    /* Bad layer count: find the header bytes that differ between the
     * flattenings of a depth-2 clock and the same clock with a third layer,
     * and write the depth-3 values into the depth-2 buffer: the buffer then
     * claims 3 layers but holds 2. Also claim MAX_LAYERS+1 layers. */
    isochron_clock_t *c1 = NULL, *c2 = NULL, *c3 = NULL, *cx;
    isochron_clock_create(tm, &cx);
    isochron_clock_nest(cx, random_lm(0), &c1);
    isochron_clock_nest(c1, random_lm(0), &c2);
    isochron_clock_nest(c2, random_lm(0), &c3);
    size_t n2 = 0, n3 = 0;
    isochron_clock_flatten(c2, NULL, 0, &n2);
    isochron_clock_flatten(c3, NULL, 0, &n3);
    CHECK(n3 > n2, "a deeper clock needs more bytes (%zu > %zu)", n3, n2);
    if (n3 > n2 && n3 < 65536) {
        unsigned char *b2 = malloc(n2), *b3 = malloc(n3);
        isochron_clock_flatten(c2, b2, n2, &n2);
        isochron_clock_flatten(c3, b3, n3, &n3);
        int ndiff = 0;
        unsigned char *lie = malloc(n2);
        memcpy(lie, b2, n2);
        /* header bytes: those before the first layer's data, which is equal in both */
        for (size_t i = 0; i < n2; i++)
            if (b2[i] != b3[i]) { lie[i] = b3[i]; ndiff++; }
        printf("info %d bytes differ between the depth-2 and depth-3 flattenings\n", ndiff);
        isochron_clock_t *u = NULL;
        int rc = isochron_clock_unflatten(lie, n2, tm, &u);
        CHECK(rc < 0 && isochron_last_error()[0],
              "a buffer claiming 3 layers but holding 2 is refused (%s: \"%s\")", isochron_strerror(rc),
              isochron_last_error());
        if (rc == ISOCHRON_OK) isochron_clock_destroy(u);
        free(lie);
        free(b2);
        free(b3);
    }
    isochron_clock_destroy(cx);
    isochron_clock_destroy(c1);
    isochron_clock_destroy(c2);
    isochron_clock_destroy(c3);

    isochron_clock_t *u = NULL;
    int rc = isochron_clock_unflatten(NULL, 0, tm, &u);
    CHECK(rc < 0, "unflatten of (NULL, 0) fails (%s)", isochron_strerror(rc));
}

/* Every change of a layer changes what the clock reads: the clock applies the
 * layers merged into one model, which must follow push, set, fold and
 * unflatten (a stale merge would read the old model). */
static void test_changes_reach_reads(isochron_timer_t *tm)
{
    isochron_clock_t *c = NULL, *u = NULL;
    isochron_lm_t A = {2e-6, 0.5, ISOCHRON_LM_LINEAR}, B = {-3e-6, -1.25, ISOCHRON_LM_LINEAR}, C = {1e-7, 4e-3, ISOCHRON_LM_LINEAR};
    double t = 86400.123456789;
    CHECK_RC(isochron_clock_create(tm, &c), ISOCHRON_OK, "clock for layer changes");
    if (!c) return;
    isochron_clock_push_layer(c, A, NULL);
    CHECK(fabs(isochron_clock_apply(c, t) - isochron_lm_apply(A, t)) <= 1e-15 * t, "push: the clock reads A");
    isochron_clock_set_layer(c, 0, B);
    CHECK(fabs(isochron_clock_apply(c, t) - isochron_lm_apply(B, t)) <= 1e-15 * t, "set: the clock reads B, not A");
    isochron_clock_push_layer(c, C, NULL);
    double cb = isochron_lm_apply(C, isochron_lm_apply(B, t));
    CHECK(fabs(isochron_clock_apply(c, t) - cb) <= 2e-15 * t, "push over B: the clock reads C(B(t))");
    isochron_clock_fold_top(c);
    CHECK(isochron_clock_depth(c) == 1 && fabs(isochron_clock_apply(c, t) - cb) <= 2e-15 * t, "fold: one layer, same reading");
    unsigned char buf[256];
    size_t need = 0;
    isochron_clock_set_layer(c, 0, A);
    CHECK_RC(isochron_clock_flatten(c, buf, sizeof buf, &need), ISOCHRON_OK, "flatten");
    CHECK_RC(isochron_clock_unflatten(buf, need, tm, &u), ISOCHRON_OK, "unflatten");
    if (u) CHECK(fabs(isochron_clock_apply(u, t) - isochron_lm_apply(A, t)) <= 1e-15 * t, "unflatten: the copy reads A");
    double a = isochron_timer_now(tm), g = isochron_clock_now(c), b = isochron_timer_now(tm);
    CHECK(g >= isochron_lm_apply(A, a) - 1e-9 && g <= isochron_lm_apply(A, b) + 1e-9, "now() reads the last set model");
    isochron_clock_destroy(u);
    isochron_clock_destroy(c);
}

int main(void)
{
    test_models();
    isochron_timer_t *tm = NULL, *other = NULL;
    int rc = isochron_timer_create("monotonic", &tm);
    CHECK_RC(rc, ISOCHRON_OK, "create monotonic");
    rc = isochron_timer_create("monotonic_raw", &other);
    CHECK_RC(rc, ISOCHRON_OK, "create monotonic_raw");
    if (tm && other) {
        test_nesting(tm);
        test_flatten(tm, other);
        test_changes_reach_reads(tm);
    }
    isochron_timer_destroy(tm);
    isochron_timer_destroy(other);
    return check_report("test_clock");
}
