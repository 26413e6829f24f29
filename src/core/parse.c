/*
 * Parsing without MPI (see util.h and isochron.h): the public number parsers
 * (finite numbers only, the whole string or nothing), the lookups of the
 * registries read by name, and the check of a comma-separated list the
 * drivers' list options and the PMPI layers' list settings share. Nothing
 * here calls MPI, so libisochron-cc.so compiles this file in (hidden) beside
 * settings.c without pulling in the rest of the library.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"

int isochron_parse_double(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int isochron_parse_long(const char *s, long *out)
{
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

int isochron_parse_duration(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v)) return -1;
    double scale = 1.0;
    if (!*end || !strcmp(end, "s")) scale = 1.0;
    else if (!strcmp(end, "ms")) scale = 1e-3;
    else if (!strcmp(end, "us")) scale = 1e-6;
    else if (!strcmp(end, "ns")) scale = 1e-9;
    else return -1;
    *out = v * scale;
    return 0;
}

int isochron_streq_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

const char *isochron_name_at_string(const void *reg, int i) { return ((const char *const *)reg)[i]; }

int isochron_names_find(const void *reg, int n, isochron_name_at_fn at, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (isochron_streq_ci(name, at(reg, i))) return i;
    return -1;
}

size_t isochron_names_join(const void *reg, int n, isochron_name_at_fn at, char *buf, size_t len)
{
    size_t u = 0;
    if (buf && len) buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(buf && u < len ? buf + u : NULL, buf && u < len ? len - u : 0, "%s%s", i ? ", " : "", at(reg, i));
        if (w > 0) u += (size_t)w;
    }
    return u;
}

int isochron_list_ok(const char *s, char *err, size_t errlen)
{
    size_t len = s ? strlen(s) : 0;
    if (!len) {
        snprintf(err, errlen, "empty list");
        return -1;
    }
    if (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,")) {
        snprintf(err, errlen, "empty element in '%s'", s);
        return -1;
    }
    return 0;
}
