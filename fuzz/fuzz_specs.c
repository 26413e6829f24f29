/*
 * libFuzzer target (issue 17): the parsers of everything a user types, fed
 * arbitrary bytes. The first byte picks the parser, the rest is the text:
 *   0 isochron_parse_double / _long / _duration (include/isochron.h)
 *   1 isochron_sync_spec_parse, and for an accepted spec: its canonical text
 *     (isochron_sync_spec_format) parses again to the same text
 *   2 isochron_skew_spec_parse: accepted values are finite
 *   3 app_parse_sizes / app_list_ok / app_parse_list (apps/options.c, the
 *     drivers' --sizes, list options and --wait)
 * A crash, a sanitizer report, or a broken invariant (abort) is a finding.
 * Built by tools/fuzz.sh with clang -fsanitize=fuzzer,address,undefined.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/sync.h"
#include "isochron/timer.h"
#include "common.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_specs: invariant broken: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    char *s = malloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    switch (data[0] % 4) {
    case 0: {
        double d;
        long l;
        if (isochron_parse_double(s, &d) == ISOCHRON_OK) CHECK(!isnan(d));
        (void)isochron_parse_long(s, &l);
        if (isochron_parse_duration(s, &d) == ISOCHRON_OK) CHECK(isfinite(d));
        break;
    }
    case 1: {
        isochron_sync_spec_t a, b;
        char ta[1024], tb[1024];
        if (isochron_sync_spec_parse(s, &a) == ISOCHRON_OK) {
            CHECK(a.nlevels >= 1 && a.nlevels <= ISOCHRON_SYNC_MAX_LEVELS);
            CHECK(isochron_sync_spec_format(&a, ta, sizeof ta) == ISOCHRON_OK);
            CHECK(isochron_sync_spec_parse(ta, &b) == ISOCHRON_OK);
            CHECK(isochron_sync_spec_format(&b, tb, sizeof tb) == ISOCHRON_OK);
            CHECK(strcmp(ta, tb) == 0);
            CHECK(isochron_sync_estimate(&a, 1024, 1e-6) >= 0);
        }
        break;
    }
    case 2: {
        isochron_skew_spec_t k;
        if (isochron_skew_spec_parse(s, &k) == ISOCHRON_OK) {
            CHECK(k.nexplicit >= 0 && k.nexplicit <= ISOCHRON_SKEW_MAX_RANKS);
            CHECK(isfinite(k.jitter) && k.jitter >= 0);
            isochron_skew_t r;
            for (int i = 0; i < 4; i++) {
                isochron_skew_for_rank(&k, i, &r);
                CHECK(isfinite(r.offset) && isfinite(r.drift_ppm) && isfinite(r.ddrift_ppm_s));
            }
        }
        break;
    }
    default: {
        size_t sizes[256];
        double v[32];
        int n = 0;
        char err[256];
        if (app_parse_sizes(s, sizes, 256, &n, err, sizeof err) == 0) CHECK(n >= 1 && n <= 256);
        if (app_list_ok(s, err, sizeof err) == 0) CHECK(s[0] && s[0] != ',');
        if (app_parse_list(s, v, 32, &n) == 0)
            for (int i = 0; i < n; i++) CHECK(isfinite(v[i]));
        break;
    }
    }
    free(s);
    return 0;
}
