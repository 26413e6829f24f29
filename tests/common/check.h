/*
 * Tiny assertion helpers shared by the C tests. Each CHECK prints one line
 * ("ok" or "FAIL" with file:line and the condition), counts failures, and the
 * test's main returns the count (nonzero = failure), the way hwloc's small
 * test programs do. Only the public API of libisochron is used by the tests.
 */
#ifndef ISOCHRON_TEST_CHECK_H
#define ISOCHRON_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"

static int check_failures = 0;
static int check_count = 0;
static int check_quiet = 0; /* nonzero: print only failures */

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        check_count++;                                                              \
        if (!(cond)) {                                                              \
            check_failures++;                                                       \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
            printf(__VA_ARGS__);                                                    \
            printf("\n");                                                           \
        } else if (!check_quiet) {                                                  \
            printf("ok   ");                                                        \
            printf(__VA_ARGS__);                                                    \
            printf("\n");                                                           \
        }                                                                           \
        fflush(stdout);                                                             \
    } while (0)

/* Check a return code against an expected one, showing names and the last error. */
#define CHECK_RC(rc, expected, ...)                                                 \
    do {                                                                            \
        int rc__ = (rc), ex__ = (expected);                                         \
        check_count++;                                                              \
        if (rc__ != ex__) {                                                         \
            check_failures++;                                                       \
            printf("FAIL %s:%d: got %s, expected %s (last error: \"%s\"): ",        \
                   __FILE__, __LINE__, isochron_strerror(rc__),                     \
                   isochron_strerror(ex__), isochron_last_error());                 \
            printf(__VA_ARGS__);                                                    \
            printf("\n");                                                           \
        } else if (!check_quiet) {                                                  \
            printf("ok   ");                                                        \
            printf(__VA_ARGS__);                                                    \
            printf(" -> %s\n", isochron_strerror(rc__));                            \
        }                                                                           \
        fflush(stdout);                                                             \
    } while (0)

/* An error in a set of acceptable codes, with a non-empty message. */
static inline int check_rc_in(int rc, const int *codes, int ncodes)
{
    for (int i = 0; i < ncodes; i++)
        if (rc == codes[i]) return 1;
    return 0;
}

#define CHECK_FAILS_WITH(rc, codes_array, what)                                     \
    do {                                                                            \
        int rcf__ = (rc);                                                           \
        const char *msg__ = isochron_last_error();                                  \
        CHECK(check_rc_in(rcf__, codes_array,                                       \
                          (int)(sizeof codes_array / sizeof codes_array[0])),       \
              "%s fails with an allowed code (got %s, message \"%s\")", what,       \
              isochron_strerror(rcf__), msg__);                                     \
        CHECK(rcf__ == ISOCHRON_OK || (msg__ && msg__[0] != '\0'),                  \
              "%s leaves a non-empty error message", what);                         \
    } while (0)

static inline int check_report(const char *test)
{
    printf("%s: %d checks, %d failed\n", test, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
