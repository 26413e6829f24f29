/*
 * test_spec: the sync-spec grammar of isochron/sync.h and the two registries
 * it names (algorithms, offset estimators). Proves that the paper's labels
 * ("hca3/1000/skampi/100", "hca/1000/SKaMPI-Offset/100", ...), hierarchical
 * specs and ",key=value" options parse to the documented fields, that
 * defaults come from the algorithm's registry entry, that format() output
 * parses back to the same spec, and that bad specs fail with
 * EPARSE/ENAME/EINVAL and a message naming the bad part and listing the valid
 * choices. Serial, no MPI_Init (parsing and registry lookups need no MPI).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "check.h"

static const isochron_estimator_t *est(const char *name)
{
    const isochron_estimator_t *e = NULL;
    if (isochron_estimator_find(name, &e) != ISOCHRON_OK) return NULL;
    return e;
}

static int same_level(const isochron_sync_level_t *a, const isochron_sync_level_t *b)
{
    return !strcmp(a->alg, b->alg) && a->nfit == b->nfit && a->estimator == b->estimator &&
           a->npingpongs == b->npingpongs && a->span == b->span &&
           a->recompute_intercept == b->recompute_intercept && a->slope == b->slope && a->outliers == b->outliers &&
           a->refit == b->refit;
}

static int same_spec(const isochron_sync_spec_t *a, const isochron_sync_spec_t *b)
{
    if (a->nlevels != b->nlevels) return 0;
    for (int i = 0; i < a->nlevels; i++)
        if (!same_level(&a->level[i], &b->level[i])) return 0;
    return 1;
}

static void show_level(const char *pfx, const isochron_sync_level_t *l)
{
    printf("info %s alg=%s nfit=%d est=%s pp=%d span=%g recompute=%d slope=%d outliers=%d\n", pfx, l->alg,
           l->nfit, l->estimator ? l->estimator->name : "(null)", l->npingpongs, l->span, l->recompute_intercept,
           (int)l->slope, l->outliers);
}

/* Parse, then check format -> parse gives the same spec and a stable text. */
static int parse_rt(const char *text, isochron_sync_spec_t *s)
{
    memset(s, 0x5a, sizeof *s);
    int rc = isochron_sync_spec_parse(text, s);
    CHECK_RC(rc, ISOCHRON_OK, "parse \"%s\"", text);
    if (rc != ISOCHRON_OK) return 0;
    CHECK(s->nlevels >= 1 && s->nlevels <= ISOCHRON_SYNC_MAX_LEVELS, "\"%s\": %d level(s)", text, s->nlevels);
    char f1[1024], f2[1024];
    rc = isochron_sync_spec_format(s, f1, sizeof f1);
    CHECK_RC(rc, ISOCHRON_OK, "format \"%s\" -> \"%s\"", text, rc == ISOCHRON_OK ? f1 : "");
    if (rc != ISOCHRON_OK) return 1;
    isochron_sync_spec_t back;
    memset(&back, 0x33, sizeof back);
    rc = isochron_sync_spec_parse(f1, &back);
    CHECK_RC(rc, ISOCHRON_OK, "parse the formatted \"%s\"", f1);
    if (rc == ISOCHRON_OK) {
        CHECK(same_spec(s, &back), "\"%s\" -> \"%s\" parses back to the same spec", text, f1);
        if (!same_spec(s, &back))
            for (int i = 0; i < s->nlevels && i < back.nlevels; i++) {
                show_level("original", &s->level[i]);
                show_level("reparsed", &back.level[i]);
            }
        isochron_sync_spec_format(&back, f2, sizeof f2);
        CHECK(!strcmp(f1, f2), "format is stable: \"%s\" == \"%s\"", f1, f2);
    }
    return 1;
}

static void check_level(const char *text, const isochron_sync_level_t *l, const char *alg, int nfit,
                        const char *estimator, int npp)
{
    CHECK(!strcmp(l->alg, alg), "\"%s\": alg \"%s\" (want \"%s\")", text, l->alg, alg);
    if (nfit >= 0) CHECK(l->nfit == nfit, "\"%s\": nfit %d (want %d)", text, l->nfit, nfit);
    if (estimator)
        CHECK(l->estimator != NULL && l->estimator == est(estimator), "\"%s\": estimator %s (want the one found as \"%s\")",
              text, l->estimator ? l->estimator->name : "(null)", estimator);
    if (npp >= 0) CHECK(l->npingpongs == npp, "\"%s\": pingpongs %d (want %d)", text, l->npingpongs, npp);
}

static void test_registries(void)
{
    int na = isochron_sync_alg_count();
    CHECK(na >= 7, "at least 7 sync algorithms (%d)", na);
    const char *required[] = { "none", "skampi", "jk", "hca", "hca2", "hca3", "prop" };
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++) {
        const isochron_sync_alg_t *a = NULL;
        int rc = isochron_sync_alg_find(required[k], &a);
        CHECK(rc == ISOCHRON_OK && a && !strcmp(a->name, required[k]), "algorithm \"%s\" is registered", required[k]);
    }
    CHECK(isochron_sync_alg_get(-1) == NULL && isochron_sync_alg_get(na) == NULL, "get out of range is NULL");
    for (int i = 0; i < na; i++) {
        const isochron_sync_alg_t *a = isochron_sync_alg_get(i), *f = NULL;
        CHECK(a && a->name && a->name[0] && a->description && a->sync, "algorithm %d (%s) has name, description, sync()",
              i, a && a->name ? a->name : "?");
        if (!a || !a->name) continue;
        CHECK(isochron_sync_alg_find(a->name, &f) == ISOCHRON_OK && f == a, "find(\"%s\") is entry %d", a->name, i);
        CHECK(strlen(a->name) < sizeof(((isochron_sync_level_t *)0)->alg), "name \"%s\" fits in level.alg", a->name);
        if (a->uses_fit) {
            CHECK(a->default_nfit > 0 && a->default_npingpongs > 0 && a->default_span >= 0,
                  "%s: defaults nfit %d, pingpongs %d, span %g", a->name, a->default_nfit, a->default_npingpongs,
                  a->default_span);
            CHECK(a->default_estimator && est(a->default_estimator) != NULL, "%s: default estimator \"%s\" exists",
                  a->name, a->default_estimator ? a->default_estimator : "(null)");
        }
    }
    const isochron_sync_alg_t *a = NULL;
    int rc = isochron_sync_alg_find("nosuch", &a);
    CHECK_RC(rc, ISOCHRON_ENAME, "find algorithm \"nosuch\"");
    for (int i = 0; i < na; i++)
        if (isochron_sync_alg_get(i))
            CHECK(strstr(isochron_last_error(), isochron_sync_alg_get(i)->name) != NULL,
                  "the error lists algorithm \"%s\"", isochron_sync_alg_get(i)->name);

    int ne = isochron_estimator_count();
    CHECK(ne >= 2, "at least 2 estimators (%d)", ne);
    CHECK(isochron_estimator_get(-1) == NULL && isochron_estimator_get(ne) == NULL, "estimator get out of range is NULL");
    for (int i = 0; i < ne; i++) {
        const isochron_estimator_t *e = isochron_estimator_get(i);
        CHECK(e && e->name && e->name[0] && e->description && e->measure, "estimator %d (%s) is complete", i,
              e && e->name ? e->name : "?");
        if (!e || !e->name) continue;
        CHECK(est(e->name) == e, "find(\"%s\") is entry %d", e->name, i);
        if (e->aliases && e->aliases[0]) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", e->aliases);
            for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|"))
                CHECK(est(tok) == e, "alias \"%s\" finds %s", tok, e->name);
        }
    }
    CHECK(est("skampi") != NULL && est("SKaMPI-Offset") == est("skampi"), "skampi = SKaMPI-Offset");
    CHECK(est("SKAMPI") == est("skampi"), "estimator lookup is case-insensitive");
    CHECK(est("Mean-RTT-Offset") != NULL && est("Mean-RTT-Offset") != est("skampi"), "Mean-RTT-Offset is a second estimator");
    CHECK(est("mean-rtt") == est("Mean-RTT-Offset"), "\"mean-rtt\" (sync.h example) is Mean-RTT-Offset");
    const isochron_estimator_t *e = NULL;
    rc = isochron_estimator_find("nosuch", &e);
    CHECK_RC(rc, ISOCHRON_ENAME, "find estimator \"nosuch\"");
    for (int i = 0; i < ne; i++)
        if (isochron_estimator_get(i))
            CHECK(strstr(isochron_last_error(), isochron_estimator_get(i)->name) != NULL,
                  "the error lists estimator \"%s\"", isochron_estimator_get(i)->name);
}

static void test_good(void)
{
    isochron_sync_spec_t s;
    const char *t;
    t = "hca3/1000/skampi/100";
    if (parse_rt(t, &s)) { CHECK(s.nlevels == 1, "%s: 1 level", t); check_level(t, &s.level[0], "hca3", 1000, "skampi", 100); }
    t = "hca/1000/SKaMPI-Offset/100";
    if (parse_rt(t, &s)) { CHECK(s.nlevels == 1, "%s: 1 level", t); check_level(t, &s.level[0], "hca", 1000, "skampi", 100); }
    t = "jk/100/Mean-RTT-Offset/20";
    if (parse_rt(t, &s)) check_level(t, &s.level[0], "jk", 100, "Mean-RTT-Offset", 20);
    t = "hca2/500/skampi/50";
    if (parse_rt(t, &s)) check_level(t, &s.level[0], "hca2", 500, "skampi", 50);
    t = "skampi/1/skampi/100";
    if (parse_rt(t, &s)) check_level(t, &s.level[0], "skampi", -1, "skampi", 100);
    t = "jk/100/mean-rtt/20,slope=always";
    if (parse_rt(t, &s)) {
        check_level(t, &s.level[0], "jk", 100, "Mean-RTT-Offset", 20);
        CHECK(s.level[0].slope == ISOCHRON_SLOPE_ALWAYS, "%s: slope always", t);
    }
    t = "hca3/200";
    if (parse_rt(t, &s)) check_level(t, &s.level[0], "hca3", 200, NULL, -1);
    t = "hca3/200/Mean-RTT-Offset";
    if (parse_rt(t, &s)) check_level(t, &s.level[0], "hca3", 200, "Mean-RTT-Offset", -1);

    /* defaults come from the registry entry */
    int na = isochron_sync_alg_count();
    for (int i = 0; i < na; i++) {
        const isochron_sync_alg_t *a = isochron_sync_alg_get(i);
        if (!a) continue;
        if (!parse_rt(a->name, &s)) continue;
        CHECK(s.nlevels == 1 && !strcmp(s.level[0].alg, a->name), "\"%s\" is one level of %s", a->name, a->name);
        if (a->uses_fit) {
            const isochron_sync_level_t *l = &s.level[0];
            CHECK(l->nfit == a->default_nfit && l->npingpongs == a->default_npingpongs && l->span == a->default_span &&
                      l->recompute_intercept == a->default_recompute && l->estimator == est(a->default_estimator),
                  "\"%s\" takes the registry defaults", a->name);
            CHECK(l->slope == ISOCHRON_SLOPE_AUTO || l->slope == ISOCHRON_SLOPE_ALWAYS || l->slope == ISOCHRON_SLOPE_NEVER,
                  "\"%s\": slope policy is a valid value (%d)", a->name, (int)l->slope);
            CHECK(l->outliers == 0 || l->outliers == 1, "\"%s\": outliers is 0 or 1 (%d)", a->name, l->outliers);
        }
    }
    t = "none";
    if (parse_rt(t, &s)) CHECK(s.nlevels == 1 && !strcmp(s.level[0].alg, "none"), "none: one level");
    t = "prop";
    if (parse_rt(t, &s)) CHECK(s.nlevels == 1 && !strcmp(s.level[0].alg, "prop"), "prop: one level");

    t = "hca3/200/skampi/20+prop";
    if (parse_rt(t, &s)) {
        CHECK(s.nlevels == 2, "%s: 2 levels (%d)", t, s.nlevels);
        check_level(t, &s.level[0], "hca3", 200, "skampi", 20);
        check_level(t, &s.level[1], "prop", -1, NULL, -1);
    }
    t = "hca3/200/skampi/20,span=0.1+prop";
    if (parse_rt(t, &s)) {
        CHECK(s.nlevels == 2 && s.level[0].span == 0.1, "%s: 2 levels, top span 0.1 (%g)", t, s.level[0].span);
        check_level(t, &s.level[1], "prop", -1, NULL, -1);
    }
    t = "hca3+hca3+prop";
    if (parse_rt(t, &s)) {
        CHECK(s.nlevels == 3, "%s: 3 levels (%d)", t, s.nlevels);
        check_level(t, &s.level[0], "hca3", -1, NULL, -1);
        check_level(t, &s.level[1], "hca3", -1, NULL, -1);
        check_level(t, &s.level[2], "prop", -1, NULL, -1);
    }
    t = "jk/50/skampi/5+hca2/30/Mean-RTT-Offset/7,recompute=1+hca";
    if (parse_rt(t, &s)) {
        CHECK(s.nlevels == 3, "%s: 3 levels", t);
        check_level(t, &s.level[0], "jk", 50, "skampi", 5);
        check_level(t, &s.level[1], "hca2", 30, "Mean-RTT-Offset", 7);
        CHECK(s.level[1].recompute_intercept == 1, "%s: options bind to their own level", t);
        check_level(t, &s.level[2], "hca", -1, NULL, -1);
    }
    t = "hca3,span=0.1,recompute=1,slope=never";
    if (parse_rt(t, &s)) {
        CHECK(s.level[0].span == 0.1 && s.level[0].recompute_intercept == 1 && s.level[0].slope == ISOCHRON_SLOPE_NEVER,
              "%s: span %g recompute %d slope %d", t, s.level[0].span, s.level[0].recompute_intercept,
              (int)s.level[0].slope);
    }
    t = "hca3,slope=auto,outliers=1,recompute=0,span=0.25";
    if (parse_rt(t, &s))
        CHECK(s.level[0].slope == ISOCHRON_SLOPE_AUTO && s.level[0].outliers == 1 && s.level[0].recompute_intercept == 0 &&
                  s.level[0].span == 0.25,
              "%s: all keys", t);
    t = "hca3/100/skampi/10,outliers=0,slope=always";
    if (parse_rt(t, &s))
        CHECK(s.level[0].outliers == 0 && s.level[0].slope == ISOCHRON_SLOPE_ALWAYS, "%s", t);
    t = "hca3,span=0";
    if (parse_rt(t, &s)) CHECK(s.level[0].span == 0, "%s: span 0 (back to back)", t);
    if (parse_rt("hca3", &s)) CHECK(s.level[0].refit == 2, "hca3: refit defaults to 2 (%d)", s.level[0].refit);
    t = "hca3,refit=0";
    if (parse_rt(t, &s)) CHECK(s.level[0].refit == 0, "%s: refit 0 (never re-measure)", t);

    /* "prop" above another level is not defined by the header: only require consistency. */
    isochron_sync_spec_t p1, p2;
    int r1 = isochron_sync_spec_parse("prop+hca3", &p1), r2 = isochron_sync_spec_parse("prop+hca3", &p2);
    CHECK(r1 == r2 && (r1 == ISOCHRON_OK || isochron_last_error()[0]), "\"prop+hca3\" parses or fails consistently (%s)",
          isochron_strerror(r1));
    if (r1 == ISOCHRON_OK) parse_rt("prop+hca3", &p1);

    /* format into a tiny buffer */
    if (isochron_sync_spec_parse("hca3/1000/skampi/100+prop", &s) == ISOCHRON_OK) {
        char tiny[4];
        int rc = isochron_sync_spec_format(&s, tiny, sizeof tiny);
        CHECK_RC(rc, ISOCHRON_ETRUNC, "format into 4 bytes");
    }
}

static void expect_bad(const char *text, const char *must_mention)
{
    static const int codes[] = { ISOCHRON_EPARSE, ISOCHRON_ENAME, ISOCHRON_EINVAL };
    isochron_sync_spec_t s;
    char what[160];
    snprintf(what, sizeof what, "spec \"%s\"", text);
    CHECK_FAILS_WITH(isochron_sync_spec_parse(text, &s), codes, what);
    if (must_mention)
        CHECK(strstr(isochron_last_error(), must_mention) != NULL, "the message about \"%s\" names \"%s\": \"%s\"", text,
              must_mention, isochron_last_error());
}

static void test_bad(void)
{
    expect_bad("", NULL);
    expect_bad("hca4", "hca4");
    /* unknown algorithm: the message lists every valid one */
    for (int i = 0; i < isochron_sync_alg_count(); i++) {
        isochron_sync_spec_t s;
        isochron_sync_spec_parse("hca4", &s);
        CHECK(strstr(isochron_last_error(), isochron_sync_alg_get(i)->name) != NULL, "\"hca4\" error lists \"%s\"",
              isochron_sync_alg_get(i)->name);
    }
    expect_bad("hca3/0", NULL);
    expect_bad("hca3/-5", NULL);
    expect_bad("hca3/abc", "abc");
    expect_bad("hca3/100/nosuch/10", "nosuch");
    for (int i = 0; i < isochron_estimator_count(); i++) {
        isochron_sync_spec_t s;
        isochron_sync_spec_parse("hca3/100/nosuch/10", &s);
        CHECK(strstr(isochron_last_error(), isochron_estimator_get(i)->name) != NULL, "\"nosuch\" error lists \"%s\"",
              isochron_estimator_get(i)->name);
    }
    expect_bad("hca3/100/skampi/0", NULL);
    expect_bad("hca3/100/skampi/x", "x");
    expect_bad("hca3/100/skampi/10/5", NULL);
    expect_bad("a+b+c+d", NULL);
    expect_bad("hca3+hca3+hca3+prop", NULL); /* 4 levels, each valid */
    expect_bad("hca3+", NULL);
    expect_bad("+hca3", NULL);
    expect_bad("hca3++prop", NULL);
    expect_bad("hca3,span=-1", "span");
    expect_bad("hca3,span=abc", "abc");
    expect_bad("hca3,span", "span");
    expect_bad("hca3,bogus=1", "bogus");
    expect_bad("hca3,recompute=2", "recompute");
    expect_bad("hca3,slope=sometimes", "sometimes");
    {
        isochron_sync_spec_t s;
        isochron_sync_spec_parse("hca3,slope=sometimes", &s);
        const char *e = isochron_last_error();
        CHECK(strstr(e, "auto") && strstr(e, "always") && strstr(e, "never"),
              "the slope error lists auto, always, never: \"%s\"", e);
    }
    expect_bad("hca3,outliers=yes", "yes");
    expect_bad("hca3,refit=6", "refit=6");
    expect_bad("hca3,refit=-1", "refit=-1");
    expect_bad("hca3/100/skampi/10,span=0.1,recompute=1,slope=never,bogus=3", "bogus");
}

/* A spec without parameters is the algorithms' defaults and gets the sync budget (isochron_sync_budget, issue 35
 * item 5); one whose text gives any parameter, in any level, is the user's and is kept as given. */
static void test_defaulted(void)
{
    static const char *const plain[] = {"hca3", "hca3+prop", "jk", "hca3+hca3+hca3", "skampi", "none"};
    static const char *const given[] = {"hca3/40", "hca3,span=0.02", "hca3+hca3/40/skampi/30", "hca3/100/skampi/50,span=0.12", "jk/40/skampi/30"};
    isochron_sync_spec_t s;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        CHECK(isochron_sync_spec_parse(plain[i], &s) == ISOCHRON_OK, "\"%s\" parses", plain[i]);
        CHECK(isochron_sync_spec_defaulted(&s) == 1, "\"%s\" has default parameters (budgeted)", plain[i]);
    }
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++) {
        CHECK(isochron_sync_spec_parse(given[i], &s) == ISOCHRON_OK, "\"%s\" parses", given[i]);
        CHECK(isochron_sync_spec_defaulted(&s) == 0, "\"%s\" gives parameters (kept as given)", given[i]);
    }
    isochron_sync_budget_opts_t o;
    isochron_sync_budget_opts_default(&o);
    CHECK(o.budget == ISOCHRON_SYNC_BUDGET_DEFAULT && o.fit_given == 0 && o.limit == 600, "budget defaults: 2 s, given specs kept, limit 600 s");
}

int main(void)
{
    test_defaulted();
    test_registries();
    test_good();
    test_bad();
    return check_report("test_spec");
}
