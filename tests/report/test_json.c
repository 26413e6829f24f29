/*
 * test_json: the one JSON writer of isochron (isochron/report.h), through
 * which every JSON Lines record of the library and the drivers is written.
 * Proves the number format (the shortest of %.15g/%.16g/%.17g that reads back
 * as the same double: short for ordinary values, exact for a global-clock
 * timestamp whose microseconds a %.9g or %.10g format lost; NaN and
 * infinities are null), string escaping, commas at every nesting level, the
 * schema/type header of a record, and splicing an object's members.
 * Serial, no MPI_Init.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/report.h"
#include "check.h"

static void number(double v, const char *want)
{
    char buf[64];
    isochron_json_format_number(v, buf, sizeof buf);
    CHECK(!strcmp(buf, want), "%.17g is written \"%s\" (got \"%s\")", v, want, buf);
}

static void roundtrip(double v)
{
    char buf[64];
    isochron_json_format_number(v, buf, sizeof buf);
    CHECK(strtod(buf, NULL) == v, "%.17g reads back exactly from \"%s\"", v, buf);
}

int main(void)
{
    number(0.05, "0.05");
    number(4, "4");
    number(1e-6, "1e-06");
    number(-3.5e-3, "-0.0035");
    number(NAN, "null");
    number(INFINITY, "null");
    number(-INFINITY, "null");
    /* a global-clock timestamp of an MPI_Wtime on the epoch: 1.7e9 s with
     * sub-microsecond digits, which a fixed %.9g/%.10g (the two formats the
     * writers used before) would cut to 1 s / 0.1 s */
    roundtrip(1712345678.123456789);
    roundtrip(0.1 + 0.2);
    roundtrip(1.0569999999987534e-05);
    roundtrip(-9.3e-300);
    char b9[64];
    snprintf(b9, sizeof b9, "%.10g", 1712345678.123456789);
    CHECK(strtod(b9, NULL) != 1712345678.123456789, "(the old %%.10g format lost the timestamp: \"%s\")", b9);

    isochron_json_t j;
    CHECK_RC(isochron_json_open_string(&j), ISOCHRON_OK, "a string writer");
    isochron_json_record_begin(&j, "demo");
    isochron_json_kstring(&j, "s", "a\"b\\c\nd\te\x01");
    isochron_json_key(&j, "arr");
    isochron_json_array_begin(&j);
    isochron_json_int(&j, 1);
    isochron_json_array_begin(&j);
    isochron_json_array_end(&j);
    isochron_json_object_begin(&j);
    isochron_json_kbool(&j, "t", 1);
    isochron_json_key(&j, "n");
    isochron_json_null(&j);
    isochron_json_object_end(&j);
    isochron_json_number(&j, NAN);
    isochron_json_array_end(&j);
    double v[3] = {0.5, NAN, 2};
    isochron_json_key(&j, "v");
    isochron_json_numbers(&j, v, 3);
    isochron_json_members(&j, "{\"x\":1,\"y\":[2]}");
    isochron_json_members(&j, "{}");
    isochron_json_kint(&j, "big", 1LL << 40);
    isochron_json_kstring(&j, "null_string", NULL);
    isochron_json_key(&j, "raw");
    isochron_json_raw(&j, "{\"k\":true}");
    isochron_json_record_end(&j);
    isochron_json_record_begin(&j, "second");
    isochron_json_record_end(&j);
    char *text = isochron_json_close_string(&j);
    char want[512];
    snprintf(want, sizeof want,
             "{\"schema\":%d,\"type\":\"demo\",\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\",\"arr\":[1,[],{\"t\":true,\"n\":null},null],"
             "\"v\":[0.5,null,2],\"x\":1,\"y\":[2],\"big\":1099511627776,\"null_string\":null,\"raw\":{\"k\":true}}\n"
             "{\"schema\":%d,\"type\":\"second\"}\n",
             ISOCHRON_SCHEMA_VERSION, ISOCHRON_SCHEMA_VERSION);
    CHECK(text && !strcmp(text, want), "records are written exactly:\n%s(want)\n%s", text ? text : "(null)", want);
    free(text);
    return check_report("test_json");
}
