/*
 * test_errors: the error rule of isochron.h. Every code has its documented
 * short name, unknown codes still get a string, the last error is "" before
 * any failure, a failing call leaves a sentence, and the sentence is
 * thread-local (another thread does not see this thread's error).
 * Serial, no MPI_Init.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/timer.h"
#include "check.h"

static char thread_seen[1100];
static int thread_rc_set;

static void *other_thread(void *arg)
{
    (void)arg;
    const char *e = isochron_last_error();
    snprintf(thread_seen, sizeof thread_seen, "%s", e ? e : "(null)");
    /* Raise an error here; it must not leak into the main thread. */
    isochron_timer_t *t = NULL;
    thread_rc_set = isochron_timer_create("no-such-timer-in-thread", &t);
    return NULL;
}

int main(void)
{
    struct { int code; const char *name; } codes[] = {
        { ISOCHRON_OK, "OK" },           { ISOCHRON_EINVAL, "EINVAL" },
        { ISOCHRON_EPARSE, "EPARSE" },   { ISOCHRON_ENAME, "ENAME" },
        { ISOCHRON_ENOMEM, "ENOMEM" },   { ISOCHRON_EUNSUPPORTED, "EUNSUPPORTED" },
        { ISOCHRON_EMPI, "EMPI" },       { ISOCHRON_ENOTSHARED, "ENOTSHARED" },
        { ISOCHRON_ETRUNC, "ETRUNC" },
    };
    int n = (int)(sizeof codes / sizeof codes[0]);
    for (int i = 0; i < n; i++) {
        const char *s = isochron_strerror(codes[i].code);
        CHECK(s && strcmp(s, codes[i].name) == 0, "isochron_strerror(%d) == \"%s\" (got \"%s\")",
              codes[i].code, codes[i].name, s ? s : "(null)");
        CHECK(codes[i].code == 0 || codes[i].code < 0, "code %s is 0 or negative", codes[i].name);
    }
    const char *unk = isochron_strerror(-12345);
    CHECK(unk != NULL && unk[0] != '\0', "an unknown code still has a non-empty name (\"%s\")",
          unk ? unk : "(null)");

    char v[64];
    snprintf(v, sizeof v, "%d.%d.%d", ISOCHRON_VERSION_MAJOR, ISOCHRON_VERSION_MINOR,
             ISOCHRON_VERSION_PATCH);
    CHECK(strcmp(v, ISOCHRON_VERSION_STRING) == 0, "ISOCHRON_VERSION_STRING \"%s\" matches the numbers %s",
          ISOCHRON_VERSION_STRING, v);

    const char *e0 = isochron_last_error();
    CHECK(e0 != NULL && e0[0] == '\0', "last error is \"\" before any failure (got \"%s\")",
          e0 ? e0 : "(null)");

    isochron_timer_t *t = NULL;
    int rc = isochron_timer_create("no-such-timer", &t);
    CHECK_RC(rc, ISOCHRON_ENAME, "isochron_timer_create(\"no-such-timer\")");
    char main_err[1100];
    snprintf(main_err, sizeof main_err, "%s", isochron_last_error());
    CHECK(main_err[0] != '\0', "a failure leaves a sentence: \"%s\"", main_err);
    CHECK(strstr(main_err, "no-such-timer") != NULL, "the sentence names the bad input");

    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread, NULL) == 0, "started a second thread");
    pthread_join(th, NULL);
    CHECK(thread_seen[0] == '\0', "a new thread sees an empty last error (saw \"%s\")", thread_seen);
    CHECK(thread_rc_set == ISOCHRON_ENAME, "the thread's own failure returned ENAME");
    CHECK(strcmp(isochron_last_error(), main_err) == 0,
          "the thread's error did not overwrite this thread's (now \"%s\")", isochron_last_error());

    return check_report("test_errors");
}
